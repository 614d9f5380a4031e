// sim/sweeps/sweep_results.h — what a sweep produced, per cell: its levels, strategies and replicate runs (and
// the prediction errors when the cell asks for them); the output files sweep.json, runs.csv and cells.csv (identical
// bytes for any thread or rank count) and reading sweep.json back for --resume. Formats: docs/sweeps.md.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/engine/metrics.h"
#include "sim/experiments/replicate.h"
#include "sim/sweeps/sweep_spec.h"

namespace ringsched {

using SweepRun = RunOutcome;  // what a sweep keeps of a run (sim/experiments/replicate.h)

struct SweepCellResult {
  bool done = false;
  std::string error;  // the cell's config is invalid (then runs is empty)
  std::vector<std::string> levels;
  std::vector<std::string> strategies;
  std::vector<SweepRun> runs;  // by level, then strategy, then replicate
  // The cell config's prediction-error table when it asks for one (output.prediction_errors): an array of
  // {source, jobs, speed_mape_pct, speed_mape_16plus_pct, work_mape_pct}; null otherwise.
  nlohmann::json prediction_errors = nullptr;
};

struct SweepResults {
  std::vector<SweepCellResult> cells;  // indexed like SweepSpec::cells
  [[nodiscard]] std::size_t done_cells() const;
  [[nodiscard]] std::size_t failed_cells() const;  // cells with a config error or at least one failed run
};

// Output files (only cells with done == true appear; identical bytes for any thread or rank count).
nlohmann::json sweep_results_json(const SweepSpec& spec, const SweepResults& results);
std::string sweep_runs_csv(const SweepSpec& spec, const SweepResults& results);
std::string sweep_cells_csv(const SweepSpec& spec, const SweepResults& results);
// Reads a sweep.json back for --resume. Throws InputError with the reason when it belongs to another sweep
// (config hash), another ringsched version or format, or is unreadable.
SweepResults read_sweep_results(const SweepSpec& spec, const nlohmann::json& doc, const std::string& origin);

// Numbers as results files write them: finite values as JSON numbers, others as "nan" / "inf" / "-inf"; exact_num is
// the shortest text that reads back as the same double (CSV cells).
std::string exact_num(double v);
nlohmann::json num_json(double v);
double json_num(const nlohmann::json& j, const std::string& where);
// One run's metrics as {name: value} and back (InputError naming `where` for a missing or bad value).
nlohmann::json metrics_json(const RunMetrics& m);
RunMetrics metrics_from_json(const nlohmann::json& j, const std::string& where);

}  // namespace ringsched
