// sim/cli/run_options.h — what `table3` and `simulate` share: the run options (seeds, jobs, threads, format, out,
// strategies, restart cost, optimality gap), their application to a config document (the overridden document is what
// summary.json records), and running one config and reporting it.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "sim/experiments/config.h"

namespace ringsched {
class StagedOutput;
}  // namespace ringsched

namespace ringsched::cli {

struct RunOptions {
  std::optional<int> seeds;
  std::optional<int> jobs;
  std::optional<double> restart_cost;
  int threads = 0;
  std::string format = "md";
  std::string out;
  std::string strategies;
  bool optimality_gap = false;
  bool quiet = false;            // no progress line, no "N runs in T s" line
  bool stats = false;            // events, decisions, time and peak memory in the output and summary.json
  bool force = false;            // --out may replace an earlier run's files
  std::string time_unit;         // --time-unit: s, min or h for the printed tables, table.md/.csv and plots; "" = min
  bool breakdown = false;        // --breakdown: output.breakdown (breakdown.csv, queueing and fairness metrics)
  std::optional<double> series;  // --series SECONDS: output.series_s (series.csv)
};

void add_run_options(CLI::App* cmd, RunOptions& o);

// --strategies: "all" (every registered strategy that runs on the cluster: with GPU pools (`typed`) those that
// choose types, otherwise those that do not need them; with virtual clusters (`vcs`) those that queue per VC) or a
// comma-separated list of name / name[beliefs].
std::vector<std::string> strategy_list(const std::string& arg, bool typed, bool vcs = false);

// Writes the options into the config document (seeds, workload.jobs, restart.cost_s, output.optimality_gap,
// strategies). A document that is not an object is left for parse_experiment to reject with its path.
void apply_run_options(nlohmann::json& doc, const RunOptions& o);

// How a block is printed: `table3` prints the Table 3 view under a heading, `simulate` every metric.
enum class View { kTable3, kSummary };

// Runs the config and prints its view, the belief report, the placement report and (--stats) the stats on stdout;
// streams jobs.csv and events.csv into o.out's staging folder as runs finish and writes the rest after (the folder
// changes only when everything was written); draws the live progress line on stderr for runs that last (unless
// --quiet) and reports timing and failures on stderr ("ringsched: <label>: N runs in T s"). Returns 1 when a run
// failed.
// With `table` non-null the view is stored there instead of printed, and the reports after it (belief, placement,
// stats) are not printed (`table3 --format csv|json` prints its blocks as one document; --out has them all).
// --out takes the folder's OutputLock for the whole run and checks it before any work (earlier results, free space,
// no folder where an output file goes). With `shared` non-null the files go into that set (its current subfolder)
// and are not committed: the caller locked and checked o.out and commits every block in one step (table3).
int run_and_report(const ExperimentConfig& cfg, const RunOptions& o, View view, const std::string& label,
                   std::string* table = nullptr, StagedOutput* shared = nullptr);

}  // namespace ringsched::cli
