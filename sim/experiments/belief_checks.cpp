// sim/experiments/belief_checks.cpp — clamped table lookups per table and strategy, believed work against a trace's
// durations, and the warnings they raise.
#include "sim/experiments/belief_checks.h"

#include "models/quantile.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>

#include "sim/engine/metrics.h"
#include "sim/experiments/config.h"
#include "sim/experiments/runner.h"
#include "workloads/io/number_text.h"

namespace ringsched {
namespace {

std::string pct(double share) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f%%", 100.0 * share);
  return buf;
}

std::string span(int lo, int hi) {
  return lo == hi ? std::to_string(lo) : std::to_string(lo) + "-" + std::to_string(hi);
}
std::string span(double lo, double hi) {
  return lo == hi ? number_text(lo) : number_text(lo) + "-" + number_text(hi);
}

// "asked 32-64 GPUs on 8-16 nodes, per-GPU batch 12 (measured: 1-16 GPUs on 1-4 nodes, per-GPU batch 4-12)"
std::string range_text(const TableClampRow& row) {
  const auto& s = row.stats;
  const auto& m = row.measured;
  return "asked " + span(s.w_min, s.w_max) + " GPUs on " + span(s.nodes_min, s.nodes_max) + " nodes at per-GPU batch " +
         span(s.batch_min, s.batch_max) + " (measured: " + span(m.w_min, m.w_max) + " GPUs on " +
         span(m.nodes_min, m.nodes_max) + " nodes, per-GPU batch " + span(m.batch_min, m.batch_max) + ")";
}

void add_rows(std::vector<TableClampRow>& out, const Catalog& cat, const std::string& role,
              const std::vector<std::pair<const models::TableStepTime*, models::TableClampStats>>& stats) {
  for (const auto& cls : cat.classes) {
    const auto* table = dynamic_cast<const models::TableStepTime*>(cls.speed.get());
    if (table == nullptr) continue;
    const auto it = std::find_if(stats.begin(), stats.end(), [table](const auto& e) { return e.first == table; });
    if (it == stats.end() || it->second.lookups == 0) continue;
    out.push_back({cls.name, role, it->second, table->range()});
  }
}

double share_of(std::uint64_t part, std::uint64_t whole) {
  return whole > 0 ? static_cast<double>(part) / static_cast<double>(whole) : 0.0;
}

// Lookups and clamped lookups of one strategy's runs, over every measured table.
std::pair<std::uint64_t, std::uint64_t> strategy_clamps(const ExperimentResult& r, std::size_t strategy) {
  std::uint64_t lookups = 0;
  std::uint64_t clamped = 0;
  for (const auto& [table, st] : r.table_clamps(static_cast<int>(strategy))) {
    lookups += st.lookups;
    clamped += st.clamped;
  }
  return {lookups, clamped};
}

}  // namespace

double TableClampRow::share() const {
  return share_of(stats.clamped, stats.lookups);
}

std::vector<TableClampRow> table_clamp_rows(const ExperimentConfig& c, const ExperimentResult& r) {
  std::vector<TableClampRow> out;
  const auto stats = r.table_clamps();
  if (stats.empty()) return out;
  add_rows(out, *c.workload.catalog, "truth", stats);
  if (c.beliefs.history && c.beliefs.history != c.workload.catalog) add_rows(out, *c.beliefs.history, "history", stats);
  return out;
}

std::optional<WorkCheck> trace_work_check(const ExperimentConfig& c) {
  const auto& trace = c.workload.trace;
  if (!trace || trace->jobs.empty()) return std::nullopt;
  const bool durations =
      std::any_of(trace->jobs.begin(), trace->jobs.end(), [](const TraceJob& j) { return j.duration_s >= 0.0; });
  if (!durations) return std::nullopt;
  const Workload wl = make_workload(c, 0, c.base_seed);
  const Catalog& truth = *wl.catalog;
  const auto history = c.history_catalog();
  std::vector<double> apes;
  apes.reserve(wl.jobs.size());
  for (const JobTruth& t : wl.jobs) {
    const int k = history->find(truth.classes[static_cast<std::size_t>(t.class_index)].name);
    if (k < 0 || !(t.work_samples > 0.0)) continue;
    const double believed = history->classes[static_cast<std::size_t>(k)].work_samples;
    apes.push_back(std::abs(believed - t.work_samples) / t.work_samples);
  }
  if (apes.empty()) return std::nullopt;
  WorkCheck w;
  w.jobs = apes.size();
  double sum = 0.0;
  for (double a : apes)
    sum += a;
  w.mean_ape = sum / static_cast<double>(apes.size());
  w.median_ape = models::quantile(std::move(apes), 0.5);
  return w;
}

std::vector<std::string> experiment_warnings(const ExperimentConfig& c, const ExperimentResult& r,
                                             const std::optional<WorkCheck>& work) {
  std::vector<std::string> out;
  for (const auto& row : table_clamp_rows(c, r)) {
    if (row.share() <= kClampWarnShare) continue;
    out.push_back(pct(row.share()) + " of the lookups of class " + row.class_name + "'s " +
                  (row.role == "truth" ? "truth" : "fitted history") + " table were answered by clamping: " +
                  range_text(row) + "; measure that range, or read these speeds as the table's edge values");
  }
  for (std::size_t s = 0; s < c.strategies.size(); ++s) {
    const auto [lookups, clamped] = strategy_clamps(r, s);
    if (share_of(clamped, lookups) <= kClampWarnShare) continue;
    out.push_back(pct(share_of(clamped, lookups)) + " of the measured-table lookups in " + c.strategies[s].label +
                  "'s runs were answered by clamping (the per-table lines say which class and range)");
  }
  int late = 0;
  int late_runs = 0;
  for (const auto& run : r.runs) {
    late += run.measured_after_arrivals;
    late_runs += run.measured_after_arrivals > 0 ? 1 : 0;
  }
  if (late > 0) {
    out.push_back(std::to_string(late) + " measured job(s) (workload.measure) in " + std::to_string(late_runs) +
                  " run(s) finished after the last job arrived, on a cluster no longer receiving work: their JCTs "
                  "understate a steady load; raise workload.jobs");
  }
  if (const auto& w = work; w && w->median_ape > kWorkWarnMedianApe) {
    out.push_back("the work beliefs assume (each class's work.samples) is " + pct(w->median_ape) +
                  " off the work the trace's durations imply (median over " + std::to_string(w->jobs) +
                  " jobs): a placeholder? Set the class's work.samples to what its jobs need, or compare strategies "
                  "that do not plan with work");
  }
  return out;
}

std::string belief_checks_md(const ExperimentConfig& c, const ExperimentResult& r) {
  std::ostringstream out;
  const auto rows = table_clamp_rows(c, r);
  if (!rows.empty()) {
    out << "\nClamped lookups per measured table (all runs):\n\n"
           "| class | table | lookups | clamped | share | clamped lookups asked | measured |\n"
           "|---|---|---|---|---|---|---|\n";
    for (const auto& row : rows) {
      const auto& s = row.stats;
      const auto& m = row.measured;
      out << "| " << row.class_name << " | " << row.role << " | " << s.lookups << " | " << s.clamped << " | "
          << pct(row.share()) << " | ";
      if (s.clamped > 0) {
        out << span(s.w_min, s.w_max) << " GPUs, " << span(s.nodes_min, s.nodes_max) << " nodes, batch "
            << span(s.batch_min, s.batch_max);
      } else {
        out << "-";
      }
      out << " | " << span(m.w_min, m.w_max) << " GPUs, " << span(m.nodes_min, m.nodes_max) << " nodes, batch "
          << span(m.batch_min, m.batch_max) << " |\n";
    }
    out << "\nBy strategy:";
    for (std::size_t s = 0; s < c.strategies.size(); ++s) {
      const auto [lookups, clamped] = strategy_clamps(r, s);
      out << (s == 0 ? " " : ", ") << c.strategies[s].label << " " << pct(share_of(clamped, lookups)) << " of "
          << lookups;
    }
    out << ".\n";
  }
  if (const auto w = trace_work_check(c)) {
    out << "\nBelieved work against the trace's durations: median APE " << pct(w->median_ape) << ", mean "
        << pct(w->mean_ape) << " over " << w->jobs << " jobs"
        << (w->median_ape > kWorkWarnMedianApe ? " (warning)" : "") << ".\n";
  }
  return out.str();
}

void add_belief_checks_json(nlohmann::json& j, const ExperimentConfig& c, const ExperimentResult& r) {
  const auto rows = table_clamp_rows(c, r);
  if (!rows.empty()) {
    nlohmann::json arr = nlohmann::json::array();
    for (const auto& row : rows) {
      const auto& s = row.stats;
      const auto& m = row.measured;
      nlohmann::json e = {{"class", row.class_name},
                          {"table", row.role},
                          {"lookups", s.lookups},
                          {"clamped", s.clamped},
                          {"clamped_pct", 100.0 * row.share()},
                          {"measured",
                           {{"gpus", {m.w_min, m.w_max}},
                            {"nodes", {m.nodes_min, m.nodes_max}},
                            {"per_gpu_batch", {m.batch_min, m.batch_max}}}}};
      if (s.clamped > 0) {
        e["clamped_asked"] = {{"gpus", {s.w_min, s.w_max}},
                              {"nodes", {s.nodes_min, s.nodes_max}},
                              {"per_gpu_batch", {s.batch_min, s.batch_max}}};
      }
      arr.push_back(e);
    }
    j["table_clamps"] = arr;
    nlohmann::json by = nlohmann::json::array();
    for (std::size_t s = 0; s < c.strategies.size(); ++s) {
      const auto [lookups, clamped] = strategy_clamps(r, s);
      by.push_back({{"strategy", c.strategies[s].label},
                    {"lookups", lookups},
                    {"clamped", clamped},
                    {"clamped_pct", 100.0 * share_of(clamped, lookups)}});
    }
    j["table_clamps_by_strategy"] = by;
  }
  const auto work = trace_work_check(c);
  if (const auto& w = work) {
    j["trace_work_check"] = {
        {"jobs", w->jobs}, {"median_ape_pct", 100.0 * w->median_ape}, {"mean_ape_pct", 100.0 * w->mean_ape}};
  }
  const auto warnings = experiment_warnings(c, r, work);
  if (!warnings.empty()) j["warnings"] = warnings;
}

}  // namespace ringsched
