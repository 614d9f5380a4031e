// sim/sweeps/sweep.cpp — the sweep runner (threads x ranks, fixed output order), incremental atomic output and
// --resume, and `ringsched sweep`.
#include "sim/sweeps/sweep.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <system_error>
#include <thread>

#include "sim/experiments/atomic_file.h"
#include "sim/experiments/parallel.h"
#include "sim/experiments/plot.h"
#include "sim/experiments/progress.h"
#include "workloads/io/json_reader.h"

namespace ringsched {

// ---- the runner ----

namespace {

class LocalComm final : public SweepComm {
 public:
  [[nodiscard]] int rank() const override { return 0; }
  [[nodiscard]] int size() const override { return 1; }
  std::string broadcast(const std::string& text) override { return text; }
  std::vector<std::string> gather(const std::string& text) override { return {text}; }
};

struct WorkItem {
  std::size_t cell_pos;  // position in the batch
  int level;
  int strategy;
  int replicate;
};

struct BatchCell {
  std::size_t cell;
  std::optional<ExperimentConfig> config;
  std::string error;
};

// The prediction-error table of a cell's config, as summary.json writes it.
nlohmann::json prediction_errors_json(const ExperimentConfig& config) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& e : prediction_errors(config)) {
    if (!e.class_name.empty()) continue;  // a sweep cell keeps the all-class rows
    out.push_back({{"source", e.source},
                   {"jobs", e.jobs},
                   {"speed_mape_pct", num_json(e.speed_mape)},
                   {"speed_mape_16plus_pct", num_json(e.speed_mape_16)},
                   {"work_mape_pct", num_json(e.work_mape)}});
  }
  return out;
}

void write_outputs(const std::string& dir, const SweepSpec& spec, const SweepResults& res) {
  // The three files are committed in one step (StagedOutput): sweep.json (what --resume reads) always matches the
  // CSVs beside it, whatever the signal.
  StagedOutput staged(dir);
  staged.write("runs.csv", sweep_runs_csv(spec, res));
  staged.write("cells.csv", sweep_cells_csv(spec, res));
  staged.write("sweep.json",
               sweep_results_json(spec, res).dump(1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n");
  staged.commit();
}

}  // namespace

std::unique_ptr<SweepComm> make_local_comm() {
  return std::make_unique<LocalComm>();
}

namespace {

// What every rank runs: the cells not yet done, in batches of per_batch cells, on `threads` threads per rank.
struct SweepPlan {
  std::vector<std::size_t> todo;
  std::size_t per_batch = 1;
  std::shared_ptr<OutputLock> lock;  // rank 0: the output folder's lock, held for the whole sweep
};

// Rank 0 checks the output folder and earlier results, then tells every rank what to run (or why not: the error is
// rethrown on every rank, as InputError when it is bad input).
SweepPlan plan_sweep(const SweepSpec& spec, const SweepOptions& opt, int threads, SweepComm& comm,
                     SweepResults& results) {
  const std::size_t ranks = static_cast<std::size_t>(std::max(1, comm.size()));
  std::string plan_text;
  std::shared_ptr<OutputLock> lock;
  if (comm.rank() == 0) {
    nlohmann::json plan;
    try {
      if (opt.out_dir.empty()) throw InputError("sweep: --out DIR is required");
      // One writer at a time; taking the lock also finishes what a killed writer left (temporaries, a commit).
      lock = std::make_shared<OutputLock>(opt.out_dir);
      check_output_dir(opt.out_dir);  // writable, not full
      const std::string path = opt.out_dir + "/sweep.json";
      std::error_code ec;
      if (std::filesystem::exists(path, ec)) {
        if (opt.resume) {
          results = read_sweep_results(spec, read_json_file(path), path);
        } else if (!opt.force) {
          throw InputError(path +
                           ": results of an earlier sweep are there; pass --resume to continue them or --force "
                           "to overwrite them");
        }
      }
      std::vector<std::size_t> todo;
      for (std::size_t i = 0; i < spec.size(); ++i) {
        if (!results.cells[i].done) todo.push_back(i);
      }
      // Batches of whole cells, big enough to keep every thread of every rank busy (32 runs each), small
      // enough that output is flushed often. Boundaries never change results, only when they are written.
      const ExperimentConfig base = parse_experiment(spec.base, spec.base_origin, spec.base_dir);
      if (base.output.breakdown || base.output.series_s > 0.0)
        std::fprintf(stderr,
                     "ringsched: warning: sweep: output.breakdown and output.series_s are written by simulate and "
                     "table3 (breakdown.csv, series.csv); a sweep writes its per-cell metrics only\n");
      const std::size_t runs_per_cell =
          std::max<std::size_t>(1, base.levels.size() * base.strategies.size() * static_cast<std::size_t>(base.seeds));
      // Over ranks every batch ends in a gather (a barrier), so batches are 8x bigger there.
      const std::size_t target_runs = (ranks > 1 ? 256 : 32) * static_cast<std::size_t>(threads) * ranks;
      std::size_t per_batch = std::max<std::size_t>(1, (target_runs + runs_per_cell - 1) / runs_per_cell);
      if (opt.stop_after_cells > 0) per_batch = std::min(per_batch, static_cast<std::size_t>(opt.stop_after_cells));
      plan = {{"ok", true}, {"todo", todo}, {"per_batch", per_batch}};
    } catch (const InputError& e) {
      plan = {{"ok", false}, {"input", true}, {"error", e.what()}};
    } catch (const std::exception& e) {
      plan = {{"ok", false}, {"input", false}, {"error", e.what()}};
    }
    plan_text = plan.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  }
  const auto plan = nlohmann::json::parse(comm.broadcast(plan_text));
  if (!plan.at("ok").get<bool>()) {
    if (plan.at("input").get<bool>()) throw InputError(plan.at("error").get<std::string>());
    throw std::runtime_error(plan.at("error").get<std::string>());
  }
  return SweepPlan{plan.at("todo").get<std::vector<std::size_t>>(), plan.at("per_batch").get<std::size_t>(),
                   std::move(lock)};
}

// Every rank expands a batch's cells the same way: their configs (or why they are invalid) and the work items, in
// cell, level, strategy, replicate order.
void expand_batch(const SweepSpec& spec, const std::vector<std::size_t>& todo, std::size_t b0, std::size_t b1,
                  std::vector<BatchCell>& cells, std::vector<WorkItem>& items) {
  for (std::size_t k = b0; k < b1; ++k) {
    BatchCell bc;
    bc.cell = todo[k];
    try {
      const std::string origin =
          spec.origin + " cell " + std::to_string(bc.cell) + " [" + spec.cell_label(bc.cell) + "]";
      bc.config = parse_experiment(spec.cell_document(bc.cell), origin, spec.base_dir);
    } catch (const std::exception& e) {
      bc.error = e.what();
    }
    if (bc.config) {
      for (int l = 0; l < static_cast<int>(bc.config->levels.size()); ++l)
        for (int s = 0; s < static_cast<int>(bc.config->strategies.size()); ++s)
          for (int r = 0; r < bc.config->seeds; ++r)
            items.push_back({cells.size(), l, s, r});
    }
    cells.push_back(std::move(bc));
  }
}

// Runs this rank's share of the items (item j on rank j mod N) on `threads` threads sharing them dynamically; calls
// on_progress(cells finished so far) about every 100 ms while threads run.
std::vector<SweepRun> run_my_items(const std::vector<BatchCell>& cells, const std::vector<WorkItem>& items,
                                   std::size_t my_rank, std::size_t ranks, int threads,
                                   const std::function<void(std::size_t)>& on_progress) {
  std::vector<std::size_t> mine;
  for (std::size_t j = my_rank; j < items.size(); j += ranks)
    mine.push_back(j);
  std::vector<SweepRun> out(mine.size());
  std::atomic<std::size_t> next{0};
  std::atomic<std::size_t> cells_finished{0};
  std::vector<std::atomic<int>> remaining(cells.size());
  for (auto& r : remaining)
    r.store(0);
  for (std::size_t j : mine)
    remaining[items[j].cell_pos].fetch_add(1);
  auto worker = [&]() {
    for (;;) {
      const std::size_t m = next.fetch_add(1);
      if (m >= mine.size()) return;
      const WorkItem& it = items[mine[m]];
      const ExperimentConfig& cfg = *cells[it.cell_pos].config;
      SweepRun& run = out[m];
      run.level = it.level;
      run.strategy = it.strategy;
      run.replicate = it.replicate;
      run.seed = cfg.base_seed + static_cast<std::uint64_t>(it.replicate);
      try {
        run.metrics = run_cell(cfg, it.level, it.strategy, it.replicate, false).metrics;
      } catch (const std::exception& e) {
        run.error = e.what();
      }
      if (remaining[it.cell_pos].fetch_sub(1) == 1) cells_finished.fetch_add(1);
    }
  };
  const int n_threads = static_cast<int>(std::min<std::size_t>(static_cast<std::size_t>(threads), mine.size()));
  if (n_threads <= 1) {
    worker();
    return out;
  }
  std::vector<std::thread> pool;
  pool.reserve(static_cast<std::size_t>(n_threads));
  std::mutex mu;
  std::condition_variable cv;
  int running = n_threads;
  for (int t = 0; t < n_threads; ++t) {
    try {
      pool.push_back(start_thread([&]() {
        worker();
        std::lock_guard<std::mutex> lock(mu);
        --running;
        cv.notify_all();
      }));
    } catch (const std::system_error& e) {  // fewer threads, the same runs: the calling thread works when none started
      warn_fewer_threads(std::max<std::size_t>(pool.size(), 1), static_cast<std::size_t>(n_threads), e.what());
      {
        std::lock_guard<std::mutex> lock(mu);
        running -= n_threads - t;
      }
      if (pool.empty()) worker();
      break;
    }
  }
  {
    std::unique_lock<std::mutex> lock(mu);
    while (running > 0) {
      cv.wait_for(lock, std::chrono::milliseconds(100));
      on_progress(cells_finished.load());
    }
  }
  for (auto& t : pool)
    t.join();
  return out;
}

// Gathers every rank's runs to rank 0 (serialised as JSON, which reads back every double exactly): by rank.
std::vector<std::vector<SweepRun>> gather_runs(std::vector<SweepRun> mine, SweepComm& comm) {
  std::vector<std::vector<SweepRun>> by_rank;
  if (comm.size() <= 1) {
    by_rank.push_back(std::move(mine));
    return by_rank;
  }
  nlohmann::json mine_json = nlohmann::json::array();
  for (const auto& run : mine) {
    nlohmann::json jr = {{"l", run.level}, {"s", run.strategy}, {"r", run.replicate}, {"seed", run.seed}};
    if (run.error.empty()) {
      jr["m"] = metrics_json(run.metrics);
    } else {
      jr["e"] = run.error;
    }
    mine_json.push_back(jr);
  }
  for (const auto& t : comm.gather(mine_json.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace))) {
    std::vector<SweepRun> runs;
    for (const auto& jr : nlohmann::json::parse(t)) {
      SweepRun run;
      run.level = jr.at("l").get<int>();
      run.strategy = jr.at("s").get<int>();
      run.replicate = jr.at("r").get<int>();
      run.seed = jr.at("seed").get<std::uint64_t>();
      if (jr.contains("e")) {
        run.error = jr.at("e").get<std::string>();
      } else {
        run.metrics = metrics_from_json(jr.at("m"), "gathered results");
      }
      runs.push_back(std::move(run));
    }
    by_rank.push_back(std::move(runs));
  }
  return by_rank;
}

// Rank 0: the batch's cells into the results (labels, runs in order, prediction errors when asked).
void record_batch(const std::vector<BatchCell>& cells, const std::vector<WorkItem>& items,
                  const std::vector<std::vector<SweepRun>>& by_rank, SweepResults& results) {
  const std::size_t ranks = by_rank.size();
  for (const auto& bc : cells) {
    SweepCellResult& c = results.cells[bc.cell];
    c.done = true;
    c.error = bc.error;
    if (!bc.config) continue;
    for (const auto& l : bc.config->levels)
      c.levels.push_back(l.name);
    for (const auto& s : bc.config->strategies)
      c.strategies.push_back(s.label);
    if (bc.config->output.prediction_errors) c.prediction_errors = prediction_errors_json(*bc.config);
  }
  // Item j came from rank j mod N, as that rank's (j / N)-th result; items are in cell, level, strategy,
  // replicate order, so appending keeps each cell's runs in that order.
  for (std::size_t j = 0; j < items.size(); ++j)
    results.cells[cells[items[j].cell_pos].cell].runs.push_back(by_rank.at(j % ranks).at(j / ranks));
}

// One line per failed cell or run.
std::string describe_sweep_failures(const SweepSpec& spec, const SweepResults& results) {
  std::ostringstream f;
  for (std::size_t i = 0; i < results.cells.size(); ++i) {
    const auto& c = results.cells[i];
    if (!c.done) continue;
    if (!c.error.empty()) f << "cell " << i << " [" << spec.cell_label(i) << "]: " << c.error << '\n';
    for (const auto& run : c.runs) {
      if (run.error.empty()) continue;
      f << "cell " << i << " [" << spec.cell_label(i) << "] level " << c.levels[static_cast<std::size_t>(run.level)]
        << ", strategy " << c.strategies[static_cast<std::size_t>(run.strategy)] << ", seed " << run.seed << ": "
        << run.error << '\n';
    }
  }
  return f.str();
}

// Rank 0 rewrites the output files at most every `interval` seconds, and always at the end or before a stop;
// rewriting costs time proportional to the cells done, so the interval grows to 10x the last rewrite.
class Flusher {
 public:
  Flusher(const SweepSpec& spec, const SweepOptions& opt) : spec_(spec), opt_(opt), interval_(opt.flush_seconds) {}
  void maybe_flush(const SweepResults& results, bool force) {
    const auto now = std::chrono::steady_clock::now();
    if (!force && std::chrono::duration<double>(now - last_).count() < interval_) return;
    write_outputs(opt_.out_dir, spec_, results);
    last_ = std::chrono::steady_clock::now();
    interval_ = std::max(opt_.flush_seconds, 10.0 * std::chrono::duration<double>(last_ - now).count());
  }

 private:
  const SweepSpec& spec_;
  const SweepOptions& opt_;
  double interval_;
  std::chrono::steady_clock::time_point last_ = std::chrono::steady_clock::now();
};

}  // namespace

SweepOutcome run_sweep(const SweepSpec& spec, const SweepOptions& opt, SweepComm& comm) {
  const auto t0 = std::chrono::steady_clock::now();
  const bool root = comm.rank() == 0;
  const std::size_t ranks = static_cast<std::size_t>(std::max(1, comm.size()));
  const int threads = resolve_threads(opt.threads);
  SweepOutcome outcome;
  outcome.cells_total = spec.size();
  SweepResults results;
  results.cells.resize(spec.size());
  const SweepPlan plan = plan_sweep(spec, opt, threads, comm, results);
  outcome.cells_skipped = spec.size() - plan.todo.size();

  ProgressBar progress(spec.size(), outcome.cells_skipped,
                       root && !opt.quiet && ProgressBar::stderr_is_terminal() && !plan.todo.empty());
  Flusher flusher(spec, opt);
  if (root && plan.todo.empty()) write_outputs(opt.out_dir, spec, results);
  for (std::size_t b0 = 0; b0 < plan.todo.size(); b0 += plan.per_batch) {
    if (opt.fail_rank >= 0 && comm.rank() == opt.fail_rank) {
      throw std::runtime_error("injected failure before a batch (RINGSCHED_SWEEP_FAIL_RANK)");
    }
    const std::size_t b1 = std::min(plan.todo.size(), b0 + plan.per_batch);
    std::vector<BatchCell> cells;
    std::vector<WorkItem> items;
    expand_batch(spec, plan.todo, b0, b1, cells, items);
    const std::size_t done_before = outcome.cells_skipped + outcome.cells_run;
    auto mine =
        run_my_items(cells, items, static_cast<std::size_t>(comm.rank()), ranks, threads, [&](std::size_t finished) {
          if (ranks == 1) progress.update(done_before + finished);
        });
    const auto by_rank = gather_runs(std::move(mine), comm);
    outcome.runs += items.size();
    outcome.cells_run += cells.size();
    const bool stop = opt.stop_after_cells > 0 && outcome.cells_run >= static_cast<std::size_t>(opt.stop_after_cells);
    if (root) {
      record_batch(cells, items, by_rank, results);
      progress.update(outcome.cells_skipped + outcome.cells_run);
      flusher.maybe_flush(results, b1 == plan.todo.size() || stop);
    }
    if (stop && b1 < plan.todo.size()) {
      progress.finish();
      std::fprintf(stderr, "ringsched: sweep stopped after %zu cell(s) (RINGSCHED_SWEEP_STOP_AFTER)\n",
                   outcome.cells_run);
      std::fflush(stderr);
      std::_Exit(75);  // like a kill: no further writes, no clean-up
    }
  }
  progress.finish();
  if (root) {
    outcome.failed_cells = results.failed_cells();
    outcome.failures = describe_sweep_failures(spec, results);
  }
  outcome.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return outcome;
}

// Every rank reads the sweep file itself; before any other collective they agree: a rank that cannot read it (a
// missing file on one machine) stops every rank with its message instead of leaving them in a collective, and ranks
// that read different contents (the same path, another file) are refused instead of mixing their results.
namespace {
SweepSpec load_sweep_on_every_rank(const std::string& config_path, SweepComm& comm) {
  if (comm.size() <= 1) return load_sweep(config_path);
  std::optional<SweepSpec> spec;
  std::string status;
  try {
    spec = load_sweep(config_path);
    status = "ok " + spec->config_hash;
  } catch (const std::exception& e) {
    status = std::string("error ") + e.what();
  }
  std::string verdict = "ok";
  const std::vector<std::string> all = comm.gather(status);
  if (comm.rank() == 0) {
    for (std::size_t r = 0; r < all.size() && verdict == "ok"; ++r) {
      if (all[r].rfind("error ", 0) == 0) {
        verdict = "rank " + std::to_string(r) + ": " + all[r].substr(6);
      } else if (all[r] != all[0]) {
        verdict = config_path + ": ranks read different sweep files (rank 0: " + all[0].substr(3) + ", rank " +
                  std::to_string(r) + ": " + all[r].substr(3) + "); every rank must see the same file at this path";
      }
    }
  }
  verdict = comm.broadcast(verdict);
  if (verdict != "ok") throw InputError(verdict);
  return *spec;
}
}  // namespace

int sweep_command(const std::string& config_path, SweepOptions options, const std::string& plot_dir, SweepComm& comm) {
  const SweepSpec spec = load_sweep_on_every_rank(config_path, comm);
  if (const char* stop = std::getenv("RINGSCHED_SWEEP_STOP_AFTER"); stop != nullptr && *stop != '\0') {
    options.stop_after_cells = std::atoi(stop);
  }
  if (const char* fail = std::getenv("RINGSCHED_SWEEP_FAIL_RANK"); fail != nullptr && *fail != '\0') {
    options.fail_rank = std::atoi(fail);
  }
  const bool root = comm.rank() == 0;
  const SweepOutcome o = run_sweep(spec, options, comm);
  if (!root) return o.failed_cells > 0 ? 1 : 0;
  std::fprintf(stderr, "ringsched: sweep %s: %zu cell(s) (%zu already done), %zu run(s) on %d rank(s) in %.2f s",
               spec.origin.c_str(), o.cells_total, o.cells_skipped, o.runs, comm.size(), o.seconds);
  if (o.cells_run > 0 && o.seconds > 0.0) {
    std::fprintf(stderr, " (%.3g cells/s, %.3g runs/s)", static_cast<double>(o.cells_run) / o.seconds,
                 static_cast<double>(o.runs) / o.seconds);
  }
  std::fprintf(stderr, "; wrote %s/{sweep.json,runs.csv,cells.csv}\n", options.out_dir.c_str());
  int rc = 0;
  if (o.failed_cells > 0) {
    std::fputs(o.failures.c_str(), stderr);
    std::fprintf(stderr, "ringsched: %zu cell(s) failed (errors are in their rows)\n", o.failed_cells);
    rc = 1;
  }
  if (!plot_dir.empty()) {
    const int prc = run_plot_script(options.out_dir, plot_dir, options.plot_time_unit);
    if (rc == 0) rc = prc;
  }
  return rc;
}

}  // namespace ringsched
