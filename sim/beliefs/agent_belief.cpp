// sim/beliefs/agent_belief.cpp — the `agent` belief: prior class model x a correction learned from the job's own
// measured steps, or a goodput-model job's AdaptDL report.
#include "sim/beliefs/agent_belief.h"

#include <algorithm>
#include <cmath>
#include <utility>

#include <Eigen/Dense>

#include "models/goodput.h"

namespace ringsched {

std::array<double, kAgentTerms> agent_features(int w, int nodes) {
  const bool multi = nodes > 1;
  return {1.0, std::log2(static_cast<double>(std::max(1, w))), multi ? 1.0 : 0.0,
          multi ? std::log2(static_cast<double>(nodes)) : 0.0};
}

AgentCorrection::AgentCorrection(double measurement_sigma) {
  const double s = std::max(kAgentMinSigma, std::isfinite(measurement_sigma) ? measurement_sigma : kAgentMinSigma);
  inv_var_ = 1.0 / (s * s);
}

void AgentCorrection::add(int w, int nodes, double log_ratio) {
  if (!std::isfinite(log_ratio)) return;  // a measurement of 0 or inf says nothing usable
  const auto phi = agent_features(w, nodes);
  for (int i = 0; i < kAgentTerms; ++i) {
    const auto ui = static_cast<std::size_t>(i);
    for (int j = 0; j < kAgentTerms; ++j)
      a_[ui][static_cast<std::size_t>(j)] += inv_var_ * phi[ui] * phi[static_cast<std::size_t>(j)];
    b_[ui] += inv_var_ * phi[ui] * log_ratio;
  }
  ++n_;
  solve();
}

void AgentCorrection::solve() {
  Eigen::Matrix<double, kAgentTerms, kAgentTerms> m;
  Eigen::Matrix<double, kAgentTerms, 1> rhs;
  for (int i = 0; i < kAgentTerms; ++i) {
    const auto ui = static_cast<std::size_t>(i);
    for (int j = 0; j < kAgentTerms; ++j)
      m(i, j) = a_[ui][static_cast<std::size_t>(j)];
    m(i, i) += 1.0 / (kAgentPriorSigma[ui] * kAgentPriorSigma[ui]);
    rhs(i) = b_[ui];
  }
  // Symmetric positive definite (the prior's precision is on the diagonal): Cholesky always succeeds.
  const Eigen::Matrix<double, kAgentTerms, 1> t = m.llt().solve(rhs);
  for (int i = 0; i < kAgentTerms; ++i)
    theta_[static_cast<std::size_t>(i)] = t(i);
}

double AgentCorrection::factor(int w, int nodes) const {
  if (n_ == 0) return 1.0;
  const auto phi = agent_features(w, nodes);
  double s = 0.0;
  for (std::size_t i = 0; i < phi.size(); ++i)
    s += theta_[i] * phi[i];
  return std::exp(s);
}

namespace {

class AgentBelief final : public Belief {
 public:
  AgentBelief(std::shared_ptr<const JobClass> prior, double measurement_sigma)
      : cls_(std::move(prior)), correction_(measurement_sigma) {}

  [[nodiscard]] double throughput(int w, int nodes) const override {
    if (w <= 0) return 0.0;
    nodes = std::max(1, nodes);
    if (cls_->goodput) {
      if (!report_.fitted) return class_throughput(*cls_, 1, 1, 1.0) * w;  // Pollux's initial assumption
      models::GoodputModel m{report_.perf,      report_.grad,          report_.init_batch,
                             report_.max_batch, report_.min_local_bsz, report_.max_local_bsz};
      models::BatchConfig cfg;
      return m.optimize(nodes, w, cfg);
    }
    const auto i = static_cast<std::size_t>(w);
    if (i >= cache_.size()) cache_.resize(i + 1, Cached{});
    Cached& c = cache_[i];
    if (c.nodes != nodes) c = Cached{nodes, class_throughput(*cls_, w, nodes, 1.0) * correction_.factor(w, nodes)};
    return c.value;
  }
  // On a GPU type: the prior's speed on that type (its reference speed when it has none for it) x the correction,
  // which the job's steps teach relative to the prior on the type each ran on (a factor of the job, not of a type).
  // A goodput job on GPU types (its report has fits per type): the model its agent fitted on that type; on a type
  // it has not been fitted on, Pollux's initial assumption with the prior's speed on that type.
  [[nodiscard]] double throughput_on(const std::string& gpu_type, int w, int nodes) const override {
    if (cls_->goodput && !gpu_type.empty() && (!report_.by_type.empty() || speed_on(*cls_, gpu_type) != nullptr)) {
      return goodput_on_type(gpu_type, w, nodes);
    }
    if (cls_->goodput || w <= 0) return throughput(w, nodes);
    nodes = std::max(1, nodes);
    return prior_on(gpu_type, w, nodes) * correction_.factor(w, nodes);
  }
  [[nodiscard]] double total_work() const override { return cls_->work_samples; }
  [[nodiscard]] std::string source() const override { return "agent"; }
  [[nodiscard]] bool wants_goodput_report() const override { return cls_->goodput != nullptr; }
  void observe_goodput(const models::GoodputReport& r) override { report_ = r; }
  [[nodiscard]] const models::GoodputReport* goodput_report() const override {
    return cls_->goodput ? &report_ : nullptr;
  }
  [[nodiscard]] bool wants_step_observations() const override { return cls_->goodput == nullptr; }
  void observe_step(const StepObservation& o) override {
    if (o.gpus <= 0 || !(o.throughput > 0.0)) return;
    const int nodes = std::max(1, o.nodes);
    const double prior = prior_on(o.gpu_type, o.gpus, nodes);
    if (!(prior > 0.0)) return;
    correction_.add(o.gpus, nodes, std::log(o.throughput / prior));
    cache_.clear();
  }

 private:
  [[nodiscard]] double goodput_on_type(const std::string& gpu_type, int w, int nodes) const {
    if (w <= 0) return 0.0;
    const models::GoodputTypeFit* f = report_.on(gpu_type);
    if (f == nullptr || !f->fitted) return prior_on(gpu_type, 1, 1) * w;
    models::GoodputModel m{f->perf,           report_.grad,     report_.init_batch,
                           report_.max_batch, f->min_local_bsz, f->max_local_bsz};
    models::BatchConfig cfg;
    return m.optimize(std::max(1, nodes), w, cfg);
  }
  [[nodiscard]] double prior_on(const std::string& gpu_type, int w, int nodes) const {
    if (gpu_type.empty() || speed_on(*cls_, gpu_type) == nullptr) return class_throughput(*cls_, w, nodes, 1.0);
    return class_throughput_on(*cls_, gpu_type, w, nodes, 1.0);
  }

  struct Cached {
    int nodes = 0;  // 0 = not computed
    double value = 0.0;
  };
  std::shared_ptr<const JobClass> cls_;
  AgentCorrection correction_;
  models::GoodputReport report_;
  mutable std::vector<Cached> cache_;
};

}  // namespace

std::unique_ptr<Belief> make_agent_belief(std::shared_ptr<const JobClass> prior, double measurement_sigma) {
  return std::make_unique<AgentBelief>(std::move(prior), measurement_sigma);
}

}  // namespace ringsched
