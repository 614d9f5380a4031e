// sim/experiments/breakdown_report.h — the opt-in outputs of the queueing and fairness metrics: breakdown.csv
// (output.breakdown, --breakdown: per run, every job, per user, per virtual cluster and per job size), series.csv
// (output.series_s, --series: the run's state at every interval boundary), the table printed after the summary and
// summary.json's "queue_fairness" per cell (written by report.cpp). Nothing here is written or printed unless asked, so
// default outputs are unchanged. docs/config.md ("Breakdowns and time series").
#pragma once

#include <string>
#include <vector>

#include "sim/experiments/atomic_file.h"
#include "sim/experiments/report.h"
#include "sim/experiments/runner.h"

namespace ringsched {

// The size group of a job on `gpus` GPUs: "1", "2", "3-4", "5-8", "9-16", "17-32", "33-64" or "65+".
std::string size_group(int gpus);

// breakdown.csv: its header and one run's rows (none for a failed run). Over the jobs of the measurement window:
// group_kind `all` (one row), `user` and `vc` (one row per value, sorted; only when the trace has users / VCs) and
// `size` (one row per non-empty size group, smallest first; a job's size = its trace's GPU request, else the largest
// allocation it held).
std::string breakdown_csv_header();
std::string breakdown_rows(const ExperimentConfig& c, const CellRun& run);

// series.csv: its header and one run's rows (CellRun::series).
std::string series_csv_header();
std::string series_rows(const ExperimentConfig& c, const CellRun& run);

// breakdown.csv and series.csv as run_and_report streams them (like RunRowStream: headers first, then each run's rows
// as it finishes); nothing unless the config asks for them.
class BreakdownStream {
 public:
  void begin(StagedOutput& out, const ExperimentConfig& c);
  void add(const ExperimentConfig& c, const CellRun& run);

 private:
  StagedOutput* out_ = nullptr;
};
// Both files from a whole result (the Python module's write).
void write_breakdown_outputs(StagedOutput& out, const ExperimentConfig& c, const ExperimentResult& r);

// The queueing and fairness metrics per (level, strategy), mean +- 95% CI over seeds: Markdown (delays in `unit`,
// --time-unit) or CSV (seconds) after the summary; empty without output.breakdown and for JSON (summary.json has them:
// breakdown_cell_json).
std::string render_breakdown_report(const ExperimentConfig& c, const ExperimentResult& r, Format f,
                                    const TimeUnit& unit = {});

}  // namespace ringsched
