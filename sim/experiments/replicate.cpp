// sim/experiments/replicate.cpp — one replicate: its workload (the truth), belief source and strategy, run by the
// engine.
#include "sim/experiments/replicate.h"

#include "sim/engine/fairness_metric.h"

#include <algorithm>

#include "models/table_speed.h"
#include "sim/engine/observers.h"
#include "sim/engine/optimality_gap.h"
#include "strategies/registry.h"
#include "workloads/gavel_jobs.h"
#include "workloads/io/json_reader.h"

namespace ringsched {

Workload make_workload(const ExperimentConfig& config, int level, std::uint64_t seed) {
  const WorkloadConfig& w = config.workload;
  if (w.trace) {
    TraceWorkloadSpec spec = w.trace_spec;
    spec.max_jobs = w.jobs;
    spec.speed_sigma = w.speed_sigma;
    spec.gpus_per_node = config.cluster.gpus_per_node;
    return workload_from_trace(*w.trace, w.catalog, spec, seed);
  }
  if (w.arrival_process == "gavel") {
    GavelJobsSpec g;
    g.rate_per_s = config.levels[static_cast<std::size_t>(level)].rate_per_s;
    g.jobs = w.jobs;
    g.multi_gpu = w.gavel_multi_gpu;
    g.reference_type = w.gavel_reference_type;
    g.streams = w.gavel_streams;
    g.job_table = w.gavel_job_table;
    if (w.gavel_streams == GavelStreams::kPython) {
      // Gavel's seeds: the run's first seed (base_seed) draws first_seed, the next one first_seed + 1, ...
      if (seed < config.base_seed) throw std::invalid_argument("make_workload: seed below the config's base_seed");
      return generate_gavel_workload(w.catalog, g, w.gavel_first_seed + (seed - config.base_seed));
    }
    return generate_gavel_workload(w.catalog, g, seed);
  }
  PoissonSpec spec;
  spec.rate_per_s = config.levels[static_cast<std::size_t>(level)].rate_per_s;
  spec.jobs = w.jobs;
  spec.speed_sigma = w.speed_sigma;
  return generate_poisson_workload(w.catalog, spec, seed);
}

EngineConfig engine_config(const ExperimentConfig& config, std::uint64_t seed, bool keep_events) {
  EngineConfig ec;
  ec.cluster = config.cluster;
  ec.restart = config.restart;
  ec.scheduler = config.scheduler;
  ec.record_events = keep_events;
  ec.seed = seed;
  ec.step_measurement_sigma = config.beliefs.options.agent_measurement_sigma;
  return ec;
}

std::shared_ptr<const BeliefSource> make_beliefs(const ExperimentConfig& config, const std::string& name,
                                                 std::shared_ptr<const Workload> wl, std::uint64_t seed) {
  BeliefInputs in;
  in.history = config.history_catalog();
  in.agent_measurement_sigma = config.beliefs.options.agent_measurement_sigma;
  in.measure =
      make_speed_measurer(wl, config.beliefs.options.exploration_measurement_sigma, config.cluster.gpus_per_node, seed);
  in.losses = make_loss_observer(std::move(wl), config.workload.loss_sigma, seed);
  return make_belief_source(name, in, config.origin + ": beliefs");
}

CellRun run_cell(const ExperimentConfig& config, int level, int strategy, int seed_index, bool keep_events,
                 LiveProgress* progress, bool score_beliefs, const std::function<bool()>& stop) {
  CellRun cell;
  cell.level = level;
  cell.strategy = strategy;
  cell.replicate = seed_index;
  cell.seed = config.base_seed + static_cast<std::uint64_t>(seed_index);
  const StrategySpec& spec = config.strategies[static_cast<std::size_t>(strategy)];
  const StrategyInfo info = find_strategy(spec.name, config.origin + ": " + spec.json_path);
  JsonReader pr(spec.params, config.origin, spec.json_path + ".params");
  auto strat = info.make(pr);
  GapRecorder* gap = nullptr;
  if (config.output.optimality_gap) {
    auto rec = std::make_unique<GapRecorder>(std::move(strat));
    gap = rec.get();
    strat = std::move(rec);
  }
  models::reset_thread_table_stats();
  auto wl = std::make_shared<const Workload>(make_workload(config, level, cell.seed));
  auto beliefs = make_beliefs(config, spec.beliefs, wl, cell.seed);
  // series.csv is computed from the allocation log: recorded for it, then dropped unless kept for events.csv.
  EngineConfig ec = engine_config(config, cell.seed, keep_events || config.output.series_s > 0.0);
  ec.score_beliefs = score_beliefs;
  if (progress != nullptr) ec.progress = [progress](std::uint64_t events, int jobs) { progress->add(events, jobs); };
  ec.stop = stop;
  RunResult rr = simulate(*wl, *strat, *beliefs, ec);
  const models::TableStats ts = models::thread_table_stats();
  cell.table_lookups = ts.lookups;
  cell.table_clamped = ts.clamped;
  cell.table_clamps = models::thread_table_clamps();  // unordered: reports order them by catalog
  set_alone_times(rr.jobs, *wl, config.cluster);      // after the counts: its lookups are not the run's
  cell.metrics = compute_metrics(rr, config.total_gpus(), config.workload.measure);
  const MeasureWindow& window = config.workload.measure;
  if (window.first > 0 || window.end >= 0) {
    double last_arrival = 0.0;
    for (const auto& j : rr.jobs)
      last_arrival = std::max(last_arrival, j.arrival);
    for (const auto& j : rr.jobs)
      cell.measured_after_arrivals += window.contains(j.id) && j.finish > last_arrival ? 1 : 0;
  }
  if (gap != nullptr) set_gap_metrics(cell.metrics, gap->gaps());
  cell.belief_score = std::move(rr.belief_score);
  cell.events_processed = rr.events_processed;
  cell.decisions = rr.decisions;
  if (config.output.series_s > 0.0) cell.series = time_series(rr.jobs, rr.events, config.output.series_s);
  cell.jobs = std::move(rr.jobs);
  if (keep_events) cell.events = std::move(rr.events);
  return cell;
}

}  // namespace ringsched
