// sim/experiments/runner.cpp — the parallel, order-preserving runner of an experiment's replicates.
#include "sim/experiments/runner.h"

#include <sys/resource.h>

#include <algorithm>
#include <exception>
#include <mutex>
#include <stdexcept>

#include "models/table_speed.h"
#include "sim/experiments/parallel.h"

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
      if (hooks.stop && hooks.stop()) throw std::runtime_error("not run: the experiment was stopped");
      run = run_cell(config, level, strategy, seed_index, keep, hooks.progress, false, hooks.stop);
    } catch (const std::exception& e) {
      run = CellRun{};
      run.level = level;
      run.strategy = strategy;
      run.replicate = seed_index;
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
