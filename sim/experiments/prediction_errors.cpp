// sim/experiments/prediction_errors.cpp — scoring belief sources against the truth of the jobs they describe.
#include "sim/experiments/prediction_errors.h"

#include <algorithm>
#include <cmath>

#include "sim/experiments/config.h"
#include "sim/experiments/runner.h"

namespace ringsched {
namespace {

struct Scored {
  std::string label;
  std::string source;
  double progress;  // share of the job's true work done (and its losses reported) before scoring
};

std::vector<Scored> scored_sources(const ExperimentConfig& c) {
  std::vector<Scored> out = {
      {"oracle", "oracle", 0.0}, {"history", "history", 0.0}, {"exploration", "exploration", 0.0}};
  bool curves = true;
  for (const auto& cls : c.workload.catalog->classes)
    curves = curves && static_cast<bool>(cls.convergence);
  if (curves) {
    for (const auto& [label, p] : {std::pair{"online@25%", 0.25}, {"online@50%", 0.5}, {"online@75%", 0.75}})
      out.push_back({label, "online", p});
  }
  return out;
}

PredictionError score(const ExperimentConfig& c, const Scored& sc) {
  const Catalog& truth = *c.workload.catalog;
  PredictionError pe;
  pe.source = sc.label;
  double s_sum = 0.0;
  double s16_sum = 0.0;
  double w_sum = 0.0;
  std::size_t s_n = 0;
  std::size_t s16_n = 0;
  for (int si = 0; si < c.seeds; ++si) {
    const std::uint64_t seed = c.base_seed + static_cast<std::uint64_t>(si);
    auto wl = std::make_shared<const Workload>(make_workload(c, 0, seed));
    auto source = make_beliefs(c, sc.source, wl, seed);
    BeliefContext ctx{&truth, c.cluster.gpus_per_node};
    for (const JobTruth& t : wl->jobs) {
      const JobClass& cls = truth.classes[static_cast<std::size_t>(t.class_index)];
      const JobPublic pub = public_facts(t, cls, c.total_gpus());
      const auto belief = source->make(pub, ctx, source->needs_truth() ? &t : nullptr);
      if (!belief) continue;
      belief->observe_progress(sc.progress * t.work_samples);
      ++pe.jobs;
      for (int w = 1; w <= pub.max_gpus; ++w) {
        const int nodes = packed_nodes(w, c.cluster.gpus_per_node);
        const double truth_rate = class_throughput(cls, w, nodes, t.speed_factor);
        const double ape = std::abs(belief->throughput(w, nodes) - truth_rate) / truth_rate;
        s_sum += ape;
        ++s_n;
        if (w >= 16) {
          s16_sum += ape;
          ++s16_n;
        }
      }
      w_sum += std::abs(belief->total_work() - t.work_samples) / t.work_samples;
    }
  }
  pe.speed_mape = s_n > 0 ? 100.0 * s_sum / static_cast<double>(s_n) : 0.0;
  pe.speed_mape_16 = s16_n > 0 ? 100.0 * s16_sum / static_cast<double>(s16_n) : 0.0;
  pe.work_mape = pe.jobs > 0 ? 100.0 * w_sum / pe.jobs : 0.0;
  return pe;
}

}  // namespace

std::vector<PredictionError> prediction_errors(const ExperimentConfig& config) {
  std::vector<PredictionError> out;
  for (const Scored& sc : scored_sources(config))
    out.push_back(score(config, sc));
  return out;
}

std::string prediction_error_used_by(const ExperimentConfig& config, const std::string& source) {
  const std::string base = source.rfind("online", 0) == 0 ? "online" : source;
  std::string names;
  bool exploratory = false;
  for (const auto& s : config.strategies) {
    if (s.beliefs != base) continue;
    if (s.name == "exploratory" && base == "history") {
      exploratory = true;  // it measures speeds itself; history gives it work only
      continue;
    }
    names += (names.empty() ? "" : ", ") + s.label;
  }
  const bool explores = std::any_of(config.strategies.begin(), config.strategies.end(),
                                    [](const StrategySpec& s) { return s.name == "exploratory"; });
  if (base == "history" && exploratory) names += names.empty() ? "exploratory's work" : " (and exploratory's work)";
  if (base == "exploration" && explores) {
    names += (names.empty() ? "" : ", ") + std::string("what exploratory measures (1, 2, 4, 8 GPUs)");
  }
  if (names.empty()) return "none of the strategies (for comparison)";
  if (base == "oracle") names += " (reference)";
  if (base == "online") names += " (speed as history; work refitted as it runs)";
  return names;
}

}  // namespace ringsched
