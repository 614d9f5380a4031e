// sim/experiments/report.h — renders experiment results: the Table 3 view (levels x strategies, mean JCT +- 95% CI and
// the paired ratio to `eight`, plus verdict lines), the full metric summary, and the output files (summary.json,
// jobs.csv, events.csv) written atomically.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/experiments/atomic_file.h"
#include "sim/experiments/runner.h"

namespace ringsched {

enum class Format { kMarkdown, kCsv, kJson };
// "md", "csv", "json"; throws InputError otherwise.
Format parse_format(const std::string& name);

// The unit times are shown in by the printed tables, table.md and table.csv (--time-unit s|min|h; default min).
// summary.json, jobs.csv, events.csv and the summary CSV keep seconds.
struct TimeUnit {
  std::string name = "min";  // column suffix: mean_jct_min
  double seconds = 60.0;     // seconds per unit
  std::string word = "minutes";
  const char* fmt = "%.1f";  // printf format of a table cell
};
// "s", "min" (or "": the default), "h"; throws InputError otherwise.
TimeUnit parse_time_unit(const std::string& name);

struct PairedRatio {
  bool available = false;
  Aggregate ratio;  // per-seed JCT(strategy) / JCT(reference), aggregated over seeds
};

// Per-seed paired ratio of mean JCT between two strategies at one level.
PairedRatio paired_ratio(const ExperimentConfig& c, const ExperimentResult& r, int level, int strategy, int reference);
// Index of the strategy labelled `label`, or -1.
int strategy_index(const ExperimentConfig& c, const std::string& label);
// Aggregate of one metric over the seeds of a (level, strategy) cell (failed runs excluded).
Aggregate cell_aggregate(const ExperimentConfig& c, const ExperimentResult& r, int level, int strategy,
                         const std::string& metric);

// Cells with no successful seed (n = 0) show `-` (Markdown) or an empty field (CSV), never 0; a CI from fewer than 2
// seeds is absent the same way (there is no interval at one seed).
std::string render_table3(const ExperimentConfig& c, const ExperimentResult& r, Format f, const TimeUnit& unit = {});
// After the main table: the prediction-error table (when output.prediction_errors) and, when any measured-table
// lookup was made, how many fell outside the measured range. Markdown and CSV; empty for JSON (summary_json has both)
// and when there is nothing to report.
std::string render_belief_report(const ExperimentConfig& c, const ExperimentResult& r, Format f);
// The prediction errors as CSV: header `source,jobs,speed_mape_pct,speed_mape_16plus_pct,work_mape_pct`.
std::string prediction_errors_csv(const ExperimentResult& r);
// The Markdown heading of a table3 block ("## In-sample: ..." / "## Held-out: ..."), from the config.
std::string block_heading(const ExperimentConfig& c);
std::string render_summary(const ExperimentConfig& c, const ExperimentResult& r, Format f, const TimeUnit& unit = {});
// Aggregates are {mean, sd, ci95, n}: mean null when n = 0, sd and ci95 null when n < 2.
// With r.stats (--stats) it also holds "stats" (stats_json) and each run's events and decisions; those figures (time,
// memory) differ from run to run, so summary.json is byte-identical across runs only without --stats.
nlohmann::json summary_json(const ExperimentConfig& c, const ExperimentResult& r);
nlohmann::json stats_json(const RunStats& st);
// The metric table (sim/engine/metrics.h) for `ringsched metrics`, docs/config.md and scripts/plot: a Markdown table
// (metric, unit, column, shown as, in outputs, meaning) and a JSON array of the same fields.
std::string metric_table_markdown();
nlohmann::json metric_table_json();
// The --stats block after the tables: a sentence (md) or `stat,value` rows (csv); empty for json (in summary_json).
std::string render_stats(const RunStats& st, Format f);
std::string jobs_csv(const ExperimentConfig& c, const ExperimentResult& r);
std::string events_csv(const ExperimentConfig& c, const ExperimentResult& r);

class TraceOutcomeByName;

// jobs.csv and events.csv written run by run as runs finish (RunHooks::on_run), so no run's jobs are kept.
class RunRowStream {
 public:
  void begin(StagedOutput& out, const ExperimentConfig& c);  // the headers
  void add(const ExperimentConfig& c, const CellRun& run);

 private:
  StagedOutput* out_ = nullptr;
  std::shared_ptr<const TraceOutcomeByName> outcomes_;  // built once in begin(): jobs.csv's outcome column
};

// Writes summary.json, jobs.csv, events.csv (unless rows_streamed: a RunRowStream wrote them), table.md (with the
// belief report), table.csv and, with prediction errors, prediction_errors.csv into dir (created if needed).
void write_outputs(StagedOutput& out, const ExperimentConfig& c, const ExperimentResult& r, bool rows_streamed = false,
                   const TimeUnit& unit = {});

// Every file an experiment's output folder can hold (write_outputs, write_placement_outputs).
const std::vector<std::string>& output_file_names();
// An output folder (`--out`) that already holds an earlier run's files (output_file_names) is refused with an
// InputError naming them and --force, unless `force`: then the new run's set replaces the whole earlier set
// (StagedOutput::replace), stale files included.
void check_earlier_results(const std::string& dir, bool force);

// Number of failed runs; their errors are listed by describe_failures.
int failed_runs(const ExperimentResult& r);
std::string describe_failures(const ExperimentConfig& c, const ExperimentResult& r);

// A CSV field: as is, or quoted (inner quotes doubled) when it holds a comma, quote or newline.
std::string csv_field(const std::string& s);

}  // namespace ringsched
