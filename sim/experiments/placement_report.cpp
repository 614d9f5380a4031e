// sim/experiments/placement_report.cpp — per (level, strategy) means over seeds of the placement metrics and the gap
// figures.
#include "sim/experiments/placement_report.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <sstream>

#include "sim/experiments/atomic_file.h"
#include "workloads/io/number_text.h"

namespace ringsched {
namespace {

struct Row {
  std::string level, strategy;
  int runs = 0;
  bool placed = false;
  double frag = 0, span = 0, migr = 0;
  long gap_decisions = 0;
  double gap_mean = 0, gap_p95 = 0, gap_max = 0;  // means over seeds of per-run mean and p95; max of per-run max
};

bool anything(const ExperimentConfig& c) {
  return c.cluster.topology != nullptr || !c.cluster.placement.empty() || c.output.optimality_gap;
}

std::vector<Row> rows(const ExperimentConfig& c, const ExperimentResult& r) {
  std::vector<Row> out;
  for (std::size_t l = 0; l < c.levels.size(); ++l) {
    for (std::size_t s = 0; s < c.strategies.size(); ++s) {
      Row row;
      row.level = c.levels[l].name;
      row.strategy = c.strategies[s].label;
      int gap_runs = 0;
      for (int k = 0; k < c.seeds; ++k) {
        const CellRun& run = r.run(c, static_cast<int>(l), static_cast<int>(s), k);
        if (!run.error.empty()) continue;
        const RunMetrics& m = run.metrics;
        ++row.runs;
        row.placed = row.placed || m.placed;
        row.frag += m.fragmentation;
        row.span += m.mean_nodes_spanned;
        row.migr += m.migrations_per_job;
        if (m.gap_decisions > 0) {
          ++gap_runs;
          row.gap_decisions += m.gap_decisions;
          row.gap_mean += m.gap_mean;
          row.gap_p95 += m.gap_p95;
          row.gap_max = std::max(row.gap_max, m.gap_max);
        }
      }
      if (row.runs > 0) {
        row.frag /= row.runs;
        row.span /= row.runs;
        row.migr /= row.runs;
      }
      if (gap_runs > 0) {
        row.gap_mean /= gap_runs;
        row.gap_p95 /= gap_runs;
      }
      out.push_back(row);
    }
  }
  return out;
}

}  // namespace

std::string placement_csv(const ExperimentConfig& c, const ExperimentResult& r) {
  std::ostringstream o;
  o << "level,strategy,runs,fragmentation,mean_nodes_spanned,migrations_per_job,gap_decisions,gap_mean,gap_p95,"
       "gap_max\n";
  for (const Row& row : rows(c, r)) {
    o << row.level << ',' << row.strategy << ',' << row.runs << ',';
    if (row.placed) {
      o << formatted("%.6g", row.frag) << ',' << formatted("%.6g", row.span) << ',' << formatted("%.6g", row.migr);
    } else {
      o << ",,";
    }
    o << ',' << row.gap_decisions << ',';
    if (row.gap_decisions > 0) {
      o << formatted("%.6g", row.gap_mean) << ',' << formatted("%.6g", row.gap_p95) << ','
        << formatted("%.6g", row.gap_max);
    } else {
      o << ",,";
    }
    o << '\n';
  }
  return o.str();
}

std::string render_placement_report(const ExperimentConfig& c, const ExperimentResult& r, Format f) {
  if (!anything(c) || f == Format::kJson) return "";
  std::ostringstream o;
  o << '\n';
  if (f == Format::kCsv) {
    o << placement_csv(c, r);
    return o.str();
  }
  o << "Placement and optimality gap (means over seeds; gap = objective / optimum - 1 per decision; gap max = over "
       "all runs)\n\n| level | strategy | fragmentation | nodes/job | migrations/job | decisions | gap mean | "
       "gap p95 | gap max |\n|---|---|---|---|---|---|---|---|---|\n";
  for (const Row& row : rows(c, r)) {
    o << "| " << row.level << " | " << row.strategy << " | ";
    if (row.placed) {
      o << formatted("%.4f", row.frag) << " | " << formatted("%.3f", row.span) << " | " << formatted("%.3f", row.migr);
    } else {
      o << "- | - | -";
    }
    o << " | " << row.gap_decisions << " | ";
    if (row.gap_decisions > 0) {
      o << formatted("%.4f%%", 100 * row.gap_mean) << " | " << formatted("%.4f%%", 100 * row.gap_p95) << " | "
        << formatted("%.4f%%", 100 * row.gap_max);
    } else {
      o << "- | - | -";
    }
    o << " |\n";
  }
  return o.str();
}

void write_placement_outputs(StagedOutput& out, const ExperimentConfig& c, const ExperimentResult& r) {
  if (!anything(c)) return;
  out.write("placement.csv", placement_csv(c, r));
}

}  // namespace ringsched
