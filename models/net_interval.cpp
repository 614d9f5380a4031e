// models/net_interval.cpp — the net model's envelope of admissible explanations, its 90% intervals and the probe
// suggestion.
#include "models/net_interval.h"

#include "models/quantile.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <utility>

namespace ringsched::models {

namespace {

// The cross-node part of a net prediction (every inter_* term).
double cross_node(const NetCoeffs& c, int w, int nodes, double global_batch) {
  if (nodes <= 1) return 0.0;
  const auto x = net_columns(w, nodes, global_batch);
  return c.inter_bw * x[4] + c.inter_const * x[5] + c.inter_nic * x[6];
}

double mean_width(const NetEnvelope& e, const std::vector<SpeedPoint>& targets) {
  double s = 0.0;
  for (const auto& t : targets) {
    const NetInterval iv = e.interval(t.w, t.nodes, t.global_batch);
    s += (iv.hi - iv.lo) / (0.5 * (iv.hi + iv.lo));
  }
  return targets.empty() ? 0.0 : s / static_cast<double>(targets.size());
}

}  // namespace

NetEnvelope::NetEnvelope(const std::vector<SpeedPoint>& probes) : NetEnvelope(probes, fit_net(probes)) {}

NetEnvelope::NetEnvelope(const std::vector<SpeedPoint>& probes, const NetFit& chosen) {
  for (const auto& p : probes)
    max_nodes_ = std::max(max_nodes_, p.nodes);
  for (NetVariant v : net_variants())
    fits_.push_back(v == chosen.selected.variant ? chosen.selected.coeffs : fit_net_variant(probes, v).coeffs);
  q_ = quantile(net_lopo_apes(probes, chosen.selected.variant), 0.9) / 100.0;
}

std::vector<double> NetEnvelope::member_steps(int w, int nodes, double global_batch) const {
  std::vector<double> out;
  out.reserve(fits_.size() * 2);
  // Growth beyond the probes' node count: x log2(nodes) / log2(N); with N = 1 (no multi-node probe) the cross-node
  // cost is unknown altogether and the growth reading doubles it per doubling of nodes from 2.
  const double base = std::log2(static_cast<double>(std::max(2, max_nodes_)));
  const double growth = nodes > max_nodes_ && nodes > 1 ? std::log2(static_cast<double>(nodes)) / base : 1.0;
  for (const auto& c : fits_)
    out.push_back(net_step_time(c, w, nodes, global_batch));
  for (const auto& c : fits_)
    out.push_back(net_step_time(c, w, nodes, global_batch) + (growth - 1.0) * cross_node(c, w, nodes, global_batch));
  return out;
}

NetInterval NetEnvelope::interval(int w, int nodes, double global_batch) const {
  const auto m = member_steps(w, nodes, global_batch);
  const auto [lo, hi] = std::minmax_element(m.begin(), m.end());
  return {*lo / (1.0 + q_), *hi * (1.0 + q_)};
}

ProbeSuggestion suggest_net_probe(const std::vector<SpeedPoint>& probes, const std::vector<SpeedPoint>& targets,
                                  int gpus_per_node, int max_nodes) {
  ProbeSuggestion best;
  const NetEnvelope now(probes);
  best.width_before = mean_width(now, targets);
  std::map<double, int> batches;  // per-GPU batch -> count
  for (const auto& p : probes)
    ++batches[p.global_batch / p.w];
  double b = 0.0;
  int most = 0;
  for (const auto& [batch, n] : batches) {
    if (n > most) {
      most = n;
      b = batch;
    }
  }
  double best_score = 0.0;
  for (int k = now.probe_nodes() + 1; k <= max_nodes; ++k) {
    const int w = k * gpus_per_node;
    double score = 0.0;
    const auto truths = now.member_steps(w, k, b * w);
    for (double t : truths) {
      std::vector<SpeedPoint> more = probes;
      more.push_back(SpeedPoint{w, k, b * w, t});
      score += mean_width(NetEnvelope(more), targets);
    }
    score /= static_cast<double>(truths.size());
    if (best.gpus == 0 || score < best_score - 1e-12) {
      best_score = score;
      best.gpus = w;
      best.nodes = k;
      best.global_batch = b * w;
      best.width_after = score;
    }
  }
  return best;
}

}  // namespace ringsched::models
