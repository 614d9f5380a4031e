// models/net_interval.h — what probes on few nodes cannot decide about the `net` model beyond them: a 90% interval
// for every prediction (the envelope of the admissible cross-node explanations of the probes, widened by the
// residual noise) and the one extra probe position that would narrow the intervals at large GPU counts most.
// Doc: docs/heldout.md ("Intervals on extrapolation").
#pragma once

#include <utility>
#include <vector>

#include "models/fit.h"
#include "models/network_model.h"
#include "models/step_time_model.h"

namespace ringsched::models {

struct NetInterval {
  double lo = 0.0;  // seconds per step
  double hi = 0.0;
};

// The admissible explanations ("members") of the probes:
//   - each cross-node variant (ring, ring+const, ring+nic) fitted to the probes;
//   - each of them with its cross-node cost (every inter_* term) read as growing beyond the largest node count N the
//     probes measured, x log2(nodes) / log2(N) for nodes > N (a tree- or hop-like growth that probes on <= N nodes
//     cannot tell from saturation: both agree on every probe).
// The interval at a point is [min over members / (1 + q), max over members x (1 + q)], q = the 90th percentile of the
// relative step errors of the selected variant's leave-one-probe-out predictions (the residual noise of positions
// the fit did not see; 0 with fewer than 2 positions).
class NetEnvelope {
 public:
  // Precondition: as fit_net (non-empty, valid points).
  explicit NetEnvelope(const std::vector<SpeedPoint>& probes);
  // The same, reusing fit_net(probes) already computed.
  NetEnvelope(const std::vector<SpeedPoint>& probes, const NetFit& chosen);
  [[nodiscard]] NetInterval interval(int w, int nodes, double global_batch) const;
  [[nodiscard]] double noise() const { return q_; }
  [[nodiscard]] int probe_nodes() const { return max_nodes_; }
  [[nodiscard]] int members() const { return static_cast<int>(fits_.size()) * 2; }
  // Every member's step time at a point (fits in net_variants() order, then their growth readings).
  [[nodiscard]] std::vector<double> member_steps(int w, int nodes, double global_batch) const;

 private:
  std::vector<NetCoeffs> fits_;
  int max_nodes_ = 1;
  double q_ = 0.0;
};

// The pessimistic end of the intervals as a speed model: step = NetEnvelope::interval(w, nodes, batch).hi
// (`beliefs.history.speed: "high"`).
class NetHighStepTime final : public StepTimeModel {
 public:
  explicit NetHighStepTime(NetEnvelope e) : e_(std::move(e)) {}
  [[nodiscard]] double step_seconds(int w, int nodes, double global_batch) const override {
    return e_.interval(w, nodes, global_batch).hi;
  }
  [[nodiscard]] std::string kind() const override { return "net-high"; }

 private:
  NetEnvelope e_;
};

// A candidate extra measurement and what it would leave of the intervals at the target points.
struct ProbeSuggestion {
  int gpus = 0;
  int nodes = 0;
  double global_batch = 0.0;
  double width_before = 0.0;  // mean relative width (hi - lo) / mid over the targets, now
  double width_after = 0.0;   // the same expected after measuring it (mean over the members as the truth there)
};

// Among packed positions of k x gpus_per_node GPUs on k nodes, k from the probes' largest node count + 1 to
// max_nodes, the one whose measurement would narrow the intervals at the targets (w, nodes, batch) most: for each
// candidate and each member taken as the truth there, the probes plus that value are refitted and the targets'
// mean relative width measured; the candidate with the smallest mean wins (ties: fewer nodes). The candidate's
// per-GPU batch is the probes' most common one. No candidate (the probes already reach max_nodes): gpus = 0.
ProbeSuggestion suggest_net_probe(const std::vector<SpeedPoint>& probes, const std::vector<SpeedPoint>& targets,
                                  int gpus_per_node, int max_nodes);

}  // namespace ringsched::models
