// sim/cli/run_options.cpp — shared run options of `table3` and `simulate`, and the run-and-report step.
#include "sim/cli/run_options.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <optional>

#include "sim/cli/flags.h"
#include "sim/experiments/atomic_file.h"
#include "sim/experiments/belief_checks.h"
#include "sim/experiments/breakdown_report.h"
#include "sim/experiments/failure_report.h"
#include "sim/experiments/fairness_report.h"
#include "sim/experiments/network_report.h"
#include "sim/experiments/placement_report.h"
#include "sim/experiments/progress.h"
#include "sim/experiments/report.h"
#include "sim/experiments/strategy_name.h"
#include "strategies/registry.h"

namespace ringsched::cli {

void add_run_options(CLI::App* cmd, RunOptions& o) {
  cmd->add_option("--seeds", o.seeds, "Replicates (seeds) per cell; overrides the config")
      ->check(strict_integer())
      ->check(CLI::Range(1, 100000));
  cmd->add_option("--jobs", o.jobs, "Jobs per replicate; overrides the config")
      ->check(strict_integer())
      ->check(CLI::Range(1, 10000000));
  cmd->add_option("--threads", o.threads,
                  "Worker threads for replicates (0 = all cores). Output is identical for any value")
      ->check(strict_integer())
      ->check(CLI::Range(0, 4096));
  cmd->add_option("--format", o.format, "Table format on stdout: md (Markdown), csv or json")
      ->check(CLI::IsMember({"md", "csv", "json"}));
  cmd->add_option("--out", o.out,
                  "Directory for summary.json, jobs.csv, events.csv, table.md, table.csv (written atomically, all "
                  "at once); a folder with an earlier run's files is refused unless --force")
      ->check(non_empty());
  cmd->add_flag("--force", o.force,
                "Let --out replace an earlier run's files (the whole set: files the new run does not write, such "
                "as an earlier prediction_errors.csv, are removed; other files are left alone)");
  cmd->add_option("--restart-cost", o.restart_cost, "Restart cost in seconds (restart.cost_s); overrides the config")
      ->check(strict_number())
      ->check(CLI::Range(0.0, 86400.0));
  cmd->add_flag(
      "--quiet", o.quiet,
      "No progress line on stderr (drawn for runs lasting over 1.5 s when stderr is a terminal, or always with "
      "RINGSCHED_PROGRESS=always) and no closing \"N runs in T s\" line; errors are still printed");
  cmd->add_flag("--stats", o.stats,
                "Print events, decisions, wall and CPU time, events per CPU second and peak memory after the tables, "
                "and add them to summary.json (\"stats\", and each run's events and decisions)");
  cmd->add_option("--time-unit", o.time_unit,
                  "Unit of the times in the printed tables, table.md, table.csv and the plots: s, min (default) or h; "
                  "summary.json, jobs.csv and events.csv stay in seconds")
      ->check(CLI::IsMember({"s", "min", "h"}));
  cmd->add_flag("--breakdown", o.breakdown,
                "Queueing delay (mean, median, p95) and finish-time fairness (rho, Jain's index) after the summary, "
                "per user, VC and job size in breakdown.csv, and jobs.csv's rho (output.breakdown; docs/config.md)");
  cmd->add_option("--series", o.series,
                  "Write series.csv: busy GPUs, utilisation, queued and running jobs every SECONDS from 0 to the "
                  "last finish, per run (output.series_s; 0.001 to 1e9)")
      ->check(strict_number())
      ->check(CLI::Validator(
          [](std::string& value) -> std::string {
            const double v = std::strtod(value.c_str(), nullptr);
            if (v >= kMinSeriesS && v <= kMaxSeriesS) return "";
            return "'" + value + "' is not an interval between 0.001 and 1e9 seconds";
          },
          "SECONDS"));
  cmd->add_flag("--optimality-gap", o.optimality_gap,
                "Record each decision's objective gap to the exact optimum and print its distribution "
                "(docs/topology.md)");
}

// "all": every strategy that runs on the config's cluster (with GPU pools: those that choose types).
std::vector<std::string> strategy_list(const std::string& arg, bool typed, bool vcs) {
  if (arg == "all") {
    std::vector<std::string> names;
    for (const auto& info : strategy_infos())
      if ((typed ? info.gpu_types : !info.needs_gpu_types) && (!vcs || info.virtual_clusters))
        names.push_back(info.name);
    return names;
  }
  // Comma-separated; an empty name ("eight,,precompute", a leading or trailing comma) is refused, naming its position,
  // rather than dropped: the run would silently compare one strategy fewer than asked.
  std::vector<std::string> names;
  std::size_t start = 0;
  while (true) {
    const std::size_t comma = arg.find(',', start);
    names.push_back(arg.substr(start, comma == std::string::npos ? std::string::npos : comma - start));
    if (names.back().empty()) {
      std::size_t count = 1;
      for (char ch : arg)
        count += ch == ',' ? 1 : 0;
      throw InputError("--strategies: name " + std::to_string(names.size()) + " of " + std::to_string(count) +
                       " is empty in '" + (arg.size() > 80 ? arg.substr(0, 77) + "..." : arg) +
                       "' (a comma too many? write names separated by single commas)");
    }
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return names;
}

void apply_run_options(nlohmann::json& doc, const RunOptions& o) {
  if (!doc.is_object()) return;  // parse_experiment reports it (file + path, exit 2)
  if (o.seeds) doc["seeds"] = *o.seeds;
  if (o.restart_cost) doc["restart"]["cost_s"] = *o.restart_cost;
  if (o.optimality_gap) doc["output"]["optimality_gap"] = true;
  if (o.breakdown) doc["output"]["breakdown"] = true;
  if (o.series) doc["output"]["series_s"] = *o.series;
  if (o.jobs && doc.contains("workload") && doc["workload"].is_object()) {
    nlohmann::json& wl = doc["workload"];
    wl["jobs"] = *o.jobs;
    // A quick run with fewer jobs than the measurement window reaches measures every job, and says so.
    if (wl.contains("measure") && wl["measure"].is_object() && wl["measure"].contains("to_job") &&
        wl["measure"]["to_job"].is_number() && wl["measure"]["to_job"].get<double>() > static_cast<double>(*o.jobs)) {
      std::fprintf(stderr, "ringsched: note: --jobs %d is below workload.measure.to_job; measuring every job\n",
                   *o.jobs);
      wl.erase("measure");
    }
  }
  if (o.strategies.empty()) return;
  nlohmann::json list = nlohmann::json::array();
  const bool typed = doc.contains("cluster") && doc["cluster"].is_object() && doc["cluster"].contains("pools");
  const bool vcs = doc.contains("cluster") && doc["cluster"].is_object() && doc["cluster"].contains("virtual_clusters");
  for (const auto& n : strategy_list(o.strategies, typed, vcs)) {
    // Names checked here so that a typo is blamed on the flag, not on the config it was written into.
    const StrategyName s = parse_strategy_name(n, "--strategies");
    if (s.beliefs.empty()) {
      list.push_back(n);
    } else {
      list.push_back({{"name", s.name}, {"beliefs", s.beliefs}});
    }
  }
  if (list.empty()) throw InputError("--strategies: empty list");
  doc["strategies"] = list;
}

namespace {

// The view and every report after it on stdout (each empty unless its part of the config is on).
void print_reports(const ExperimentConfig& cfg, const ExperimentResult& res, Format f, const TimeUnit& unit,
                   const std::string& main) {
  std::cout << main;
  std::cout << render_belief_report(cfg, res, f);           // empty unless prediction errors or measured tables
  std::cout << render_placement_report(cfg, res, f);        // empty unless topology/placement/gap
  std::cout << render_network_report(cfg, res, f);          // empty unless cluster.network
  std::cout << render_failure_report(cfg, res, f);          // empty unless cluster.failures
  std::cout << render_fairness_report(cfg, res, f);         // empty unless a Shockwave trace
  std::cout << render_breakdown_report(cfg, res, f, unit);  // empty unless output.breakdown
  if (res.stats) std::cout << render_stats(*res.stats, f);
  std::cout << std::flush;
}

}  // namespace

int run_and_report(const ExperimentConfig& cfg, const RunOptions& o, View view, const std::string& label,
                   std::string* table, StagedOutput* shared) {
  const Format f = parse_format(o.format);
  const TimeUnit unit = parse_time_unit(o.time_unit);
  // The output folder is checked before the run and changes only when everything was written: jobs.csv and
  // events.csv are streamed into its staging folder run by run, the rest follows the run.
  // Under the folder's lock for the whole run (a second writer is refused at once), after every check: earlier
  // results (unless --force), free space, no folder where an output file goes. With `shared` the caller did all that.
  std::optional<OutputLock> lock;
  std::optional<StagedOutput> own;
  StagedOutput* staged = shared;
  RunRowStream rows;
  BreakdownStream extra;  // breakdown.csv, series.csv (when asked)
  if (!o.out.empty() && shared == nullptr) {
    lock.emplace(o.out);
    check_earlier_results(o.out, o.force);
    check_output_dir(o.out);
    own.emplace(o.out);
    own->replace(output_file_names());
    staged = &*own;
  }
  if (staged != nullptr) {
    rows.begin(*staged, cfg);
    extra.begin(*staged, cfg);
  }
  const std::uint64_t jobs_per_run =
      cfg.workload.trace ? cfg.workload.trace_notes.jobs : static_cast<std::uint64_t>(cfg.workload.jobs);
  const std::size_t n_runs = cfg.levels.size() * cfg.strategies.size() * static_cast<std::size_t>(cfg.seeds);
  LiveProgress progress(n_runs, jobs_per_run * n_runs, LiveProgress::wanted(o.quiet),
                        LiveProgress::forced() ? 0.0 : 1.5);
  RunHooks hooks;
  hooks.progress = &progress;
  hooks.on_run = [&](const CellRun& run) {
    rows.add(cfg, run);
    extra.add(cfg, run);
  };
  const auto t0 = std::chrono::steady_clock::now();
  ExperimentResult res = run_experiment(cfg, o.threads, hooks);
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  progress.finish();
  if (o.stats) res.stats = collect_run_stats(res.runs, secs);
  for (const auto& w : experiment_warnings(cfg, res, trace_work_check(cfg)))
    std::fprintf(stderr, "ringsched: warning: %s\n", w.c_str());
  const std::string main = view == View::kTable3 ? render_table3(cfg, res, f, unit) : render_summary(cfg, res, f, unit);
  if (table != nullptr) {
    *table = main;
    const bool reports = !render_belief_report(cfg, res, f).empty() || !render_placement_report(cfg, res, f).empty() ||
                         !render_network_report(cfg, res, f).empty() || !render_failure_report(cfg, res, f).empty();
    if (reports && o.out.empty() && !o.quiet) {
      std::fprintf(stderr,
                   "ringsched: %snote: the prediction-error, clamping and placement reports are not printed with "
                   "--format %s (one document); --out DIR writes them (table.md, prediction_errors.csv, "
                   "placement.csv, network.csv, failures.csv)\n",
                   label.empty() ? "" : (label + ": ").c_str(), o.format.c_str());
    }
  } else {
    print_reports(cfg, res, f, unit, main);
  }
  const int failed = failed_runs(res);
  // A failed run's cells are empty: its outputs would replace earlier results with zeros, so none are written.
  if (staged != nullptr && failed == 0) {
    write_outputs(*staged, cfg, res, /*rows_streamed=*/true, unit);
    write_placement_outputs(*staged, cfg, res);
    write_network_outputs(*staged, cfg, res);
    write_failure_outputs(*staged, cfg, res);
    if (own) own->commit();  // a shared set is committed by its owner, with its other blocks
  }
  if (!o.quiet) {
    const bool wrote = own.has_value() && failed == 0;
    std::fprintf(stderr, "ringsched: %s%zu runs in %.2f s%s%s\n", label.empty() ? "" : (label + ": ").c_str(),
                 res.runs.size(), secs, wrote ? ", wrote " : "", wrote ? o.out.c_str() : "");
  }
  if (failed > 0) {
    std::cerr << describe_failures(cfg, res);
    std::fprintf(stderr, "ringsched: %d run(s) failed%s%s%s\n", failed, o.out.empty() ? "" : "; nothing written to ",
                 o.out.c_str(), o.out.empty() ? "" : " (earlier results there are unchanged)");
    return 1;
  }
  return 0;
}

}  // namespace ringsched::cli
