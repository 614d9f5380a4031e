// sim/beliefs/agent_belief.h — the `agent` belief: what a job's own agent knows, i.e. a documented prior (the history
// class model) corrected by the job's own measured steps (a Bayesian log-linear correction with a Gaussian prior),
// or, for a goodput-model job, the goodput model its AdaptDL agent fitted to its own measurements.
// It never holds the job's truth: it learns only through Belief::observe_step and Belief::observe_goodput.
#pragma once

#include <array>
#include <memory>
#include <vector>

#include "strategies/strategy.h"

namespace ringsched {

// The correction the agent learns on top of its prior, in log throughput:
//   log(believed / prior)(w, nodes) = theta . phi(w, nodes),
//   phi = (1, log2 w, [nodes > 1], [nodes > 1] log2 nodes).
// theta ~ N(0, diag(kAgentPriorSigma^2)) a priori; each measured step adds log(measured / prior) = theta . phi + e,
// e ~ N(0, sigma_m^2) with sigma_m the configured measurement noise (at least kAgentMinSigma). The belief uses the
// posterior mean (ridge regression with these weights), so with no measurement it is the prior, and at a
// configuration measured often it approaches the measured throughput. The four terms are what a class model fitted
// elsewhere most often gets wrong for one job: its own speed factor, the slope of scaling, the cost of leaving a
// node, and the growth of that cost with the node count.
inline constexpr int kAgentTerms = 4;
inline constexpr std::array<double, kAgentTerms> kAgentPriorSigma = {0.5, 0.25, 0.5, 0.25};
inline constexpr double kAgentMinSigma = 0.01;

std::array<double, kAgentTerms> agent_features(int w, int nodes);

// The posterior of the correction, kept as sufficient statistics (O(1) memory per job however long it runs).
class AgentCorrection {
 public:
  explicit AgentCorrection(double measurement_sigma);
  // One measured log ratio log(measured / prior) at (w, nodes).
  void add(int w, int nodes, double log_ratio);
  [[nodiscard]] int observations() const { return n_; }
  // Posterior mean of theta (zeros before any observation).
  [[nodiscard]] const std::array<double, kAgentTerms>& theta() const { return theta_; }
  // The correction factor exp(theta . phi(w, nodes)).
  [[nodiscard]] double factor(int w, int nodes) const;

 private:
  void solve();
  double inv_var_;                                                // 1 / sigma_m^2
  std::array<std::array<double, kAgentTerms>, kAgentTerms> a_{};  // sum phi phi^T / sigma_m^2
  std::array<double, kAgentTerms> b_{};                           // sum phi r / sigma_m^2
  std::array<double, kAgentTerms> theta_{};
  int n_ = 0;
};

// The `agent` belief of one job. `prior` is the class model of the history catalog (never the truth's unless the
// experiment is in-sample, where history is the catalog the truth was drawn from: the paper's setting);
// `measurement_sigma` the noise of the job's own measured steps (beliefs.agent.measurement_sigma).
// - goodput-model class (prior->goodput set): the job's AdaptDL agent report once fitted (as the Pollux artifact);
//   before that, linear in w from the prior's one-GPU speed (Pollux's initial assumption);
// - other classes: the prior's throughput x the learned correction (AgentCorrection); on GPU types the prior's speed
//   on each type (speed_by_type), the correction learned against the prior on the type each step ran on.
// Work: the prior's (history's) mean work.
std::unique_ptr<Belief> make_agent_belief(std::shared_ptr<const JobClass> prior, double measurement_sigma);

}  // namespace ringsched
