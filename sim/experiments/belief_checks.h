// sim/experiments/belief_checks.h — checks that tell a user when beliefs rest on placeholders or on clamped tables:
// measured-table lookups answered by clamping, per table (which class, truth or belief) with the range asked beyond
// the measured one, and per strategy; and on a trace with durations, the work beliefs assume against the work the
// trace implies. Each yields warnings (stderr and summary.json) past a threshold. Doc: docs/heldout.md.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "models/table_speed.h"

namespace ringsched {

struct ExperimentConfig;
struct ExperimentResult;

// Warn when more than this share of one table's lookups (or one strategy's) is answered by clamping.
inline constexpr double kClampWarnShare = 0.05;
// Warn when the median APE of believed work against the trace-implied work exceeds this.
inline constexpr double kWorkWarnMedianApe = 0.5;

struct TableClampRow {
  std::string class_name;
  std::string role;  // "truth" or "history" (the belief's fitted table)
  models::TableClampStats stats;
  models::TableRange measured;
  [[nodiscard]] double share() const;
};

// Every measured table of the truth catalog and of the history catalog that was looked up, in catalog order (truth
// first).
std::vector<TableClampRow> table_clamp_rows(const ExperimentConfig& c, const ExperimentResult& r);

// Believed work (the history catalog's class work) against each job's work as the trace implies it (duration x the
// class's speed on the GPUs it had); only for traces whose rows give durations.
struct WorkCheck {
  std::size_t jobs = 0;
  double median_ape = 0.0;  // a fraction
  double mean_ape = 0.0;
};
std::optional<WorkCheck> trace_work_check(const ExperimentConfig& c);

// One sentence per threshold crossed (clamped share per table and per strategy, believed work given trace_work_check's
// result), for stderr and summary.json "warnings".
std::vector<std::string> experiment_warnings(const ExperimentConfig& c, const ExperimentResult& r,
                                             const std::optional<WorkCheck>& work);

// Markdown: the per-table clamp table and the per-strategy shares (empty without measured tables), and the work
// check (empty without durations).
std::string belief_checks_md(const ExperimentConfig& c, const ExperimentResult& r);
// summary.json keys: "table_clamps" (per table), "table_clamps_by_strategy", "trace_work_check", "warnings"; only
// those that apply are set.
void add_belief_checks_json(nlohmann::json& summary, const ExperimentConfig& c, const ExperimentResult& r);

}  // namespace ringsched
