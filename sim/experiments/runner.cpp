// sim/experiments/runner.cpp — belief construction per replicate and the parallel, order-preserving runner.
#include "sim/experiments/runner.h"

#include <sys/resource.h>

#include <algorithm>
#include <exception>
#include <mutex>

#include "models/table_speed.h"
#include "sim/engine/observers.h"
#include "sim/engine/optimality_gap.h"
#include "sim/experiments/parallel.h"
#include "strategies/registry.h"
#include "workloads/json_reader.h"

namespace ringsched {

const CellRun& ExperimentResult::run(const ExperimentConfig& c, int level, int strategy, int seed_index) const {
  const auto n_s = c.strategies.size();
  const auto idx =
      (static_cast<std::size_t>(level) * n_s + static_cast<std::size_t>(strategy)) * static_cast<std::size_t>(c.seeds) +
      static_cast<std::size_t>(seed_index);
  return runs.at(idx);
}

std::uint64_t ExperimentResult::table_lookups() const {
  std::uint64_t n = 0;
  for (const auto& r : runs)
    n += r.table_lookups;
  return n;
}

std::uint64_t ExperimentResult::table_clamped() const {
  std::uint64_t n = 0;
  for (const auto& r : runs)
    n += r.table_clamped;
  return n;
}

std::vector<std::pair<const models::TableStepTime*, models::TableClampStats>> ExperimentResult::table_clamps(
    int strategy) const {
  std::vector<std::pair<const models::TableStepTime*, models::TableClampStats>> out;
  for (const auto& r : runs) {
    if (strategy >= 0 && r.strategy != strategy) continue;
    for (const auto& [table, st] : r.table_clamps) {
      auto it = std::find_if(out.begin(), out.end(), [t = table](const auto& e) { return e.first == t; });
      if (it == out.end()) {
        out.emplace_back(table, st);
      } else {
        it->second.merge(st);
      }
    }
  }
  return out;
}

RunStats collect_run_stats(const std::vector<CellRun>& runs, double wall_s) {
  RunStats st;
  st.runs = runs.size();
  for (const auto& r : runs) {
    st.events += r.events_processed;
    st.decisions += r.decisions;
  }
  st.wall_s = wall_s;
  rusage ru{};
  if (getrusage(RUSAGE_SELF, &ru) == 0) {
    auto secs = [](const timeval& t) { return static_cast<double>(t.tv_sec) + 1e-6 * static_cast<double>(t.tv_usec); };
    st.cpu_s = secs(ru.ru_utime) + secs(ru.ru_stime);
    st.peak_rss_mb = static_cast<double>(ru.ru_maxrss) / 1024.0;  // Linux: KiB
  }
  return st;
}

Workload make_workload(const ExperimentConfig& config, int level, std::uint64_t seed) {
  const WorkloadConfig& w = config.workload;
  if (w.trace) {
    TraceWorkloadSpec spec = w.trace_spec;
    spec.max_jobs = w.jobs;
    spec.speed_sigma = w.speed_sigma;
    spec.gpus_per_node = config.cluster.gpus_per_node;
    return workload_from_trace(*w.trace, w.catalog, spec, seed);
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
  ec.step_measurement_sigma = config.beliefs.agent_measurement_sigma;
  return ec;
}

std::shared_ptr<const BeliefSource> make_beliefs(const ExperimentConfig& config, const std::string& name,
                                                 std::shared_ptr<const Workload> wl, std::uint64_t seed) {
  if (name == "history") return make_history_source(config.history_catalog());
  if (name == "exploration") {
    return make_exploration_source(make_speed_measurer(std::move(wl), config.beliefs.exploration_measurement_sigma,
                                                       config.cluster.gpus_per_node, seed),
                                   config.history_catalog());
  }
  if (name == "agent") return make_agent_source(config.history_catalog(), config.beliefs.agent_measurement_sigma);
  if (name == "online") {
    return make_online_source(make_loss_observer(std::move(wl), config.workload.loss_sigma, seed),
                              config.history_catalog());
  }
  return make_belief_source(name, config.origin + ": beliefs");
}

CellRun run_cell(const ExperimentConfig& config, int level, int strategy, int seed_index, bool keep_events,
                 LiveProgress* progress, bool score_beliefs) {
  CellRun cell;
  cell.level = level;
  cell.strategy = strategy;
  cell.seed_index = seed_index;
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
  EngineConfig ec = engine_config(config, cell.seed, keep_events);
  ec.score_beliefs = score_beliefs;
  if (progress != nullptr) ec.progress = [progress](std::uint64_t events, int jobs) { progress->add(events, jobs); };
  RunResult rr = simulate(*wl, *strat, *beliefs, ec);
  const models::TableStats ts = models::thread_table_stats();
  cell.table_lookups = ts.lookups;
  cell.table_clamped = ts.clamped;
  cell.table_clamps = models::thread_table_clamps();  // unordered: reports order them by catalog
  cell.metrics = compute_metrics(rr, config.total_gpus());
  if (gap != nullptr) set_gap_metrics(cell.metrics, gap->gaps());
  cell.belief_score = std::move(rr.belief_score);
  cell.events_processed = rr.events_processed;
  cell.decisions = rr.decisions;
  cell.jobs = std::move(rr.jobs);
  cell.events = std::move(rr.events);
  return cell;
}

ExperimentResult run_experiment(const ExperimentConfig& config, int threads, const RunHooks& hooks) {
  const auto n_levels = config.levels.size();
  const auto n_strats = config.strategies.size();
  const auto seeds = static_cast<std::size_t>(config.seeds);
  ExperimentResult result;
  result.runs.resize(n_levels * n_strats * seeds);
  // Streaming: finished runs are handed to on_run in index order; `emitted` runs before it are done and dropped.
  std::mutex mu;
  std::vector<char> done(result.runs.size(), 0);
  std::size_t emitted = 0;
  std::exception_ptr sink_error;
  parallel_for_index(result.runs.size(), threads, [&](std::size_t i) {
    const int seed_index = static_cast<int>(i % seeds);
    const int strategy = static_cast<int>((i / seeds) % n_strats);
    const int level = static_cast<int>(i / (seeds * n_strats));
    const EventsMode ev = config.output.events;
    const bool keep = ev == EventsMode::kAll || (ev == EventsMode::kFirstSeed && seed_index == 0);
    {
      const std::lock_guard<std::mutex> lock(mu);
      if (sink_error) return;  // a failed output stops the rest
    }
    CellRun run;
    try {
      run = run_cell(config, level, strategy, seed_index, keep, hooks.progress);
    } catch (const std::exception& e) {
      run = CellRun{};
      run.level = level;
      run.strategy = strategy;
      run.seed_index = seed_index;
      run.seed = config.base_seed + static_cast<std::uint64_t>(seed_index);
      run.error = e.what();
    }
    if (hooks.progress != nullptr) hooks.progress->run_done();
    const std::lock_guard<std::mutex> lock(mu);
    result.runs[i] = std::move(run);
    done[i] = 1;
    if (!hooks.on_run) return;
    while (emitted < done.size() && done[emitted] != 0 && !sink_error) {
      CellRun& r = result.runs[emitted];
      try {
        hooks.on_run(r);
      } catch (...) {
        sink_error = std::current_exception();
      }
      r.jobs = {};
      r.events = {};
      ++emitted;
    }
  });
  if (sink_error) std::rethrow_exception(sink_error);
  if (config.output.prediction_errors) result.prediction_errors = prediction_errors(config);
  return result;
}

}  // namespace ringsched
