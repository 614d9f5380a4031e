// sim/experiments/prediction_errors.cpp — scoring belief sources against the truth of the jobs they describe.
#include "sim/experiments/prediction_errors.h"

#include <algorithm>
#include <cmath>

#include "sim/experiments/config.h"
#include "sim/experiments/replicate.h"

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

// Sums of one source's errors, overall (index 0) and per class (index 1 + class index).
struct Sums {
  double s = 0.0;
  double s16 = 0.0;
  double work = 0.0;
  double s_n = 0.0;
  double s16_n = 0.0;
  double work_n = 0.0;
  int jobs = 0;
};

std::vector<PredictionError> rows_of(const ExperimentConfig& c, const std::string& label, const std::vector<Sums>& v) {
  std::vector<PredictionError> out;
  const auto& classes = c.workload.catalog->classes;
  for (std::size_t k = 0; k < v.size(); ++k) {
    PredictionError pe;
    pe.source = label;
    pe.class_name = k == 0 ? "" : classes[k - 1].name;
    pe.jobs = v[k].jobs;
    pe.speed_mape = v[k].s_n > 0 ? 100.0 * v[k].s / v[k].s_n : 0.0;
    pe.speed_mape_16 = v[k].s16_n > 0 ? 100.0 * v[k].s16 / v[k].s16_n : 0.0;
    pe.work_mape = v[k].work_n > 0 ? 100.0 * v[k].work / v[k].work_n : 0.0;
    out.push_back(pe);
  }
  return out;
}

std::vector<PredictionError> score(const ExperimentConfig& c, const Scored& sc) {
  const Catalog& truth = *c.workload.catalog;
  std::vector<Sums> sums(1 + truth.classes.size());
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
      Sums job;
      for (int w = 1; w <= pub.cls.max_gpus; ++w) {
        const int nodes = packed_nodes(w, c.cluster.gpus_per_node);
        const double truth_rate = class_throughput(cls, w, nodes, t.speed_factor);
        const double ape = std::abs(belief->throughput(w, nodes) - truth_rate) / truth_rate;
        job.s += ape;
        job.s_n += 1;
        if (w >= 16) {
          job.s16 += ape;
          job.s16_n += 1;
        }
      }
      job.work = std::abs(belief->total_work() - t.work_samples) / t.work_samples;
      job.work_n = 1;
      for (Sums* into : {&sums[0], &sums[1 + static_cast<std::size_t>(t.class_index)]}) {
        into->s += job.s;
        into->s_n += job.s_n;
        into->s16 += job.s16;
        into->s16_n += job.s16_n;
        into->work += job.work;
        into->work_n += job.work_n;
        ++into->jobs;
      }
    }
  }
  return rows_of(c, sc.label, sums);
}

// `agent`, scored at every decision of the runs of the first strategy that plans with it (first level, every seed).
std::vector<PredictionError> score_agent(const ExperimentConfig& c, int strategy) {
  std::vector<Sums> sums(1 + c.workload.catalog->classes.size());
  for (int si = 0; si < c.seeds; ++si) {
    const CellRun run = run_cell(c, 0, strategy, si, false, nullptr, true);
    const auto& cells = run.belief_score.by_class;
    for (std::size_t k = 0; k < cells.size() && k + 1 < sums.size(); ++k) {
      const BeliefScore::Cell& b = cells[k];
      for (Sums* into : {&sums[0], &sums[1 + k]}) {
        into->s += b.ape_sum;
        into->s_n += static_cast<double>(b.job_decisions);
        into->s16 += b.ape16_sum;
        into->s16_n += static_cast<double>(b.job_decisions16);
        into->work += b.work_ape_sum;
        into->work_n += static_cast<double>(b.job_decisions);
        into->jobs += b.jobs;
      }
    }
  }
  return rows_of(c, "agent", sums);
}

}  // namespace

int agent_scoring_strategy(const ExperimentConfig& config) {
  for (std::size_t i = 0; i < config.strategies.size(); ++i)
    if (config.strategies[i].beliefs == "agent") return static_cast<int>(i);
  return -1;
}

std::vector<PredictionError> prediction_errors(const ExperimentConfig& config) {
  std::vector<std::vector<PredictionError>> per_source;
  for (const Scored& sc : scored_sources(config))
    per_source.push_back(score(config, sc));
  if (const int s = agent_scoring_strategy(config); s >= 0) per_source.push_back(score_agent(config, s));
  // Every source over all classes, then each class's rows.
  std::vector<PredictionError> out;
  const std::size_t rows = per_source.empty() ? 0 : per_source.front().size();
  for (std::size_t k = 0; k < rows; ++k)
    for (const auto& src : per_source)
      out.push_back(src[k]);
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
  if (base == "agent") {
    const int s = agent_scoring_strategy(config);
    names += " (scored at every decision of " + config.strategies[static_cast<std::size_t>(s)].label + "'s runs)";
  }
  return names;
}

}  // namespace ringsched
