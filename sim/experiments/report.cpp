// sim/experiments/report.cpp — Table 3 and summary rendering, CSV/JSON outputs.
#include "sim/experiments/report.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <sstream>

#include "sim/engine/fairness_metric.h"
#include "sim/experiments/atomic_file.h"
#include "sim/experiments/belief_checks.h"
#include "sim/experiments/builtin_configs.h"
#include "sim/experiments/failure_summary.h"
#include "sim/experiments/trace_kind.h"
#include "sim/experiments/trace_outcome_report.h"
#include "traces/trace_format.h"
#include "workloads/io/number_text.h"

namespace ringsched {

std::string csv_field(const std::string& s) {
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string out = "\"";
  for (char ch : s) {
    if (ch == '"') out += '"';
    out += ch;
  }
  return out + "\"";
}

namespace {

// Absent figures are null, never 0: no mean without a successful seed, no spread or interval from one seed.
nlohmann::json agg_json(const Aggregate& a) {
  const auto value_if = [](bool present, double v) { return present ? nlohmann::json(v) : nlohmann::json(nullptr); };
  return nlohmann::json{{"mean", value_if(a.n > 0, a.mean)},
                        {"sd", value_if(a.n > 1, a.sd)},
                        {"ci95", value_if(a.n > 1, a.ci95)},
                        {"n", a.n}};
}

// Table cells: `-` for what is absent (n = 0: the mean; n < 2: the CI).
std::string shown_mean(const Aggregate& a, const char* f, double scale) {
  return a.n > 0 ? formatted(f, a.mean * scale) : "-";
}
std::string shown_ci(const Aggregate& a, const char* f, double scale) {
  return a.n > 1 ? formatted(f, a.ci95 * scale) : "-";
}
// CSV fields: empty for what is absent (pandas reads it as NaN).
std::string csv_mean(const Aggregate& a, double scale) {
  return a.n > 0 ? number_text(a.mean * scale) : "";
}
std::string csv_spread(const Aggregate& a, double v, double scale) {
  return a.n > 1 ? number_text(v * scale) : "";
}

// The display scale and format of a metric in Markdown: time metrics (unit s) in the chosen unit, others as the
// metric table says.
std::pair<double, const char*> display_of(const MetricInfo& m, const TimeUnit& unit) {
  if (std::string(m.unit) == "s") return {1.0 / unit.seconds, unit.fmt};
  return {m.display_scale, m.display_fmt};
}

// table.csv's `load` and `rate_per_hour`: empty when the level has none (a rate level has no load, a trace no rate).
std::string level_load_field(const LevelSpec& l) {
  return l.load > 0.0 ? number_text(l.load) : "";
}
std::string level_rate_field(const LevelSpec& l) {
  return l.rate_per_s > 0.0 ? number_text(l.rate_per_s * 3600.0) : "";
}

std::string level_desc(const LevelSpec& l) {
  if (l.load > 0.0) return l.name + " (load " + number_text(l.load) + ")";
  if (l.rate_per_s > 0.0) return l.name + " (" + number_text(l.rate_per_s * 3600.0) + " jobs/h)";
  return l.name;  // a trace: its own arrival times
}

std::string trace_notes_text(const ExperimentConfig& c) {
  if (!c.workload.trace) return "";
  const TraceNotes& n = c.workload.trace_notes;
  std::ostringstream out;
  out << "\nTrace " << c.workload.trace_file << ": " << n.jobs << " jobs from " << n.rows << " rows";
  if (n.truncated > 0)
    out << "; " << n.truncated << " rows after the first " << (n.rows - n.truncated)
        << " not used (workload.jobs / --jobs)";
  if (n.clamped > 0) out << "; " << n.clamped << " requests run at the nearest size allowed (oversize clamp)";
  if (n.dropped > 0) out << "; " << n.dropped << " requests dropped (oversize drop)";
  out << "; offered load " << formatted("%.3f", n.offered_load) << ".\n";
  out << trace_outcomes_text(n);
  return out.str();
}

nlohmann::json trace_notes_json(const ExperimentConfig& c) {
  const TraceNotes& n = c.workload.trace_notes;
  nlohmann::json j{{"file", c.workload.trace_file},
                   {"format", c.workload.trace->format->name()},
                   {"rows", n.rows},
                   {"jobs", n.jobs},
                   {"truncated_rows", n.truncated},
                   {"oversize", to_string(c.workload.trace_spec.oversize)},
                   {"clamped", n.clamped},
                   {"dropped", n.dropped},
                   {"offered_load", n.offered_load}};
  add_trace_outcomes_json(n, j);
  return j;
}

}  // namespace

Format parse_format(const std::string& name) {
  if (name == "md") return Format::kMarkdown;
  if (name == "csv") return Format::kCsv;
  if (name == "json") return Format::kJson;
  throw InputError("--format: unknown format '" + name + "' (valid: md, csv, json)");
}

TimeUnit parse_time_unit(const std::string& name) {
  if (name == "s") return {"s", 1.0, "seconds", "%.0f"};
  if (name == "min" || name.empty()) return {};
  if (name == "h") return {"h", 3600.0, "hours", "%.2f"};
  throw InputError("--time-unit: unknown unit '" + name + "' (valid: s, min, h)");
}

int strategy_index(const ExperimentConfig& c, const std::string& label) {
  for (std::size_t i = 0; i < c.strategies.size(); ++i) {
    if (c.strategies[i].label == label) return static_cast<int>(i);
  }
  return -1;
}

Aggregate cell_aggregate(const ExperimentConfig& c, const ExperimentResult& r, int level, int strategy,
                         const std::string& metric) {
  std::vector<double> v;
  for (int s = 0; s < c.seeds; ++s) {
    const auto& run = r.run(c, level, strategy, s);
    if (run.error.empty()) v.push_back(metric_value(run.metrics, metric));
  }
  return aggregate(v);
}

PairedRatio paired_ratio(const ExperimentConfig& c, const ExperimentResult& r, int level, int strategy, int reference) {
  PairedRatio p;
  if (strategy < 0 || reference < 0) return p;
  std::vector<double> v;
  for (int s = 0; s < c.seeds; ++s) {
    const auto& a = r.run(c, level, strategy, s);
    const auto& b = r.run(c, level, reference, s);
    if (a.error.empty() && b.error.empty() && b.metrics.mean_jct_s > 0.0) {
      v.push_back(a.metrics.mean_jct_s / b.metrics.mean_jct_s);
    }
  }
  if (v.empty()) return p;
  p.available = true;
  p.ratio = aggregate(v);
  return p;
}

namespace {

// Whether any (level, strategy) cell of the JCT table lacks a mean or a CI.
bool any_absent(const ExperimentConfig& c, const ExperimentResult& r) {
  for (int l = 0; l < static_cast<int>(c.levels.size()); ++l)
    for (int s = 0; s < static_cast<int>(c.strategies.size()); ++s)
      if (cell_aggregate(c, r, l, s, "mean_jct_s").n < 2) return true;
  return false;
}

std::string table3_csv(const ExperimentConfig& c, const ExperimentResult& r, const TimeUnit& unit) {
  const int eight = strategy_index(c, "eight");
  std::ostringstream out;
  out << "level,load,rate_per_hour,strategy,mean_jct_" << unit.name << ",ci95_" << unit.name
      << ",n,ratio_to_eight,ratio_ci95\n";
  const double scale = 1.0 / unit.seconds;
  for (int l = 0; l < static_cast<int>(c.levels.size()); ++l) {
    for (int s = 0; s < static_cast<int>(c.strategies.size()); ++s) {
      const Aggregate a = cell_aggregate(c, r, l, s, "mean_jct_s");
      const PairedRatio pr = paired_ratio(c, r, l, s, eight);
      out << csv_field(c.levels[l].name) << ',' << level_load_field(c.levels[l]) << ',' << level_rate_field(c.levels[l])
          << ',' << csv_field(c.strategies[s].label) << ',' << csv_mean(a, scale) << ',' << csv_spread(a, a.ci95, scale)
          << ',' << a.n << ',' << (pr.available ? number_text(pr.ratio.mean) : "") << ','
          << (pr.available ? csv_spread(pr.ratio, pr.ratio.ci95, 1.0) : "") << '\n';
    }
  }
  return out.str();
}

// "precompute/eight JCT = 0.45 +- 0.03 (2.22x faster): at least 2x better: yes." (CI absent from one seed pair)
std::string precompute_verdict(const PairedRatio& pr) {
  const double m = pr.ratio.mean;
  const bool ci = pr.ratio.n > 1;
  std::string answer = "no";
  if (m <= 0.5) {
    answer = !ci ? "yes (point estimate; one seed, no CI)"
                 : (m + pr.ratio.ci95 <= 0.5 ? "yes" : "yes (point estimate; CI reaches above 0.5)");
  }
  return " precompute/eight JCT = " + formatted("%.2f", m) + " +- " + shown_ci(pr.ratio, "%.2f", 1.0) + " (" +
         formatted("%.2f", 1.0 / m) + "x faster): at least 2x better: " + answer + ".";
}

std::string exploratory_verdict(const PairedRatio& pr) {
  const double hi = pr.ratio.mean + pr.ratio.ci95;
  const double lo = pr.ratio.mean - pr.ratio.ci95;
  const std::string answer = pr.ratio.n < 2 ? "no test (one seed, no CI)"
                                            : (hi < 1.0 ? "yes" : (lo > 1.0 ? "no (worse)" : "not significantly"));
  return " exploratory/eight JCT = " + formatted("%.2f", pr.ratio.mean) + " +- " + shown_ci(pr.ratio, "%.2f", 1.0) +
         ": beats eight: " + answer + ".";
}

std::string table3_verdicts(const ExperimentConfig& c, const ExperimentResult& r) {
  const int eight = strategy_index(c, "eight");
  const int pre = strategy_index(c, "precompute");
  const int exp = strategy_index(c, "exploratory");
  if (eight < 0 || (pre < 0 && exp < 0)) return "";
  std::ostringstream out;
  out << '\n';
  for (int l = 0; l < static_cast<int>(c.levels.size()); ++l) {
    out << "- " << c.levels[l].name << ':';
    if (pre >= 0) {
      const PairedRatio pr = paired_ratio(c, r, l, pre, eight);
      if (pr.available) out << precompute_verdict(pr);
    }
    if (exp >= 0) {
      const PairedRatio pr = paired_ratio(c, r, l, exp, eight);
      if (pr.available) out << exploratory_verdict(pr);
    }
    out << '\n';
  }
  return out.str();
}

}  // namespace

std::string render_table3(const ExperimentConfig& c, const ExperimentResult& r, Format f, const TimeUnit& unit) {
  const int eight = strategy_index(c, "eight");
  const int L = static_cast<int>(c.levels.size());
  const int S = static_cast<int>(c.strategies.size());
  if (f == Format::kJson)
    return summary_json(c, r).dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
  if (f == Format::kCsv) return table3_csv(c, r, unit);
  std::ostringstream out;
  out << "Mean job completion time in " << unit.word << " (mean +- 95% CI over " << c.seeds << " seeds, "
      << c.workload.jobs << " jobs each, " << c.total_gpus() << " GPUs)"
      << (eight >= 0 ? "; in brackets the paired ratio to eight (lower is better)" : "")
      << (any_absent(c, r) ? "; - = absent (no successful seed; no CI from fewer than 2 seeds)" : "") << ".\n\n";
  out << "| contention |";
  for (const auto& s : c.strategies)
    out << ' ' << s.label << " |";
  out << "\n|---|";
  for (int s = 0; s < S; ++s)
    out << "---|";
  out << '\n';
  const double scale = 1.0 / unit.seconds;
  for (int l = 0; l < L; ++l) {
    out << "| " << level_desc(c.levels[l]) << " |";
    for (int s = 0; s < S; ++s) {
      const Aggregate a = cell_aggregate(c, r, l, s, "mean_jct_s");
      if (a.n == 0) {
        out << " - |";
        continue;
      }
      out << ' ' << shown_mean(a, unit.fmt, scale) << " +- " << shown_ci(a, unit.fmt, scale);
      const PairedRatio pr = paired_ratio(c, r, l, s, eight);
      if (pr.available && s != eight) out << " (" << formatted("%.2f", pr.ratio.mean) << "x)";
      out << " |";
    }
    out << '\n';
  }
  out << table3_verdicts(c, r);
  return out.str();
}

std::string render_summary(const ExperimentConfig& c, const ExperimentResult& r, Format f, const TimeUnit& unit) {
  if (f == Format::kJson)
    return summary_json(c, r).dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
  const auto& names = metric_names();
  std::ostringstream out;
  const int L = static_cast<int>(c.levels.size());
  const int S = static_cast<int>(c.strategies.size());
  if (f == Format::kCsv) {
    out << "level,strategy,metric,mean,sd,ci95,n\n";
    for (int l = 0; l < L; ++l)
      for (int s = 0; s < S; ++s)
        for (const auto& m : names) {
          const Aggregate a = cell_aggregate(c, r, l, s, m);
          out << csv_field(c.levels[l].name) << ',' << csv_field(c.strategies[s].label) << ',' << m << ','
              << csv_mean(a, 1.0) << ',' << csv_spread(a, a.sd, 1.0) << ',' << csv_spread(a, a.ci95, 1.0) << ',' << a.n
              << '\n';
        }
    return out.str();
  }
  out << "Per level and strategy: mean +- 95% CI over " << c.seeds << " seeds (times in " << unit.word << ")"
      << (any_absent(c, r) ? "; - = absent (no successful seed; no CI from fewer than 2 seeds)" : "") << ".\n\n";
  out << "| level | strategy |";
  for (const auto& m : names)
    out << ' ' << metric_info(m).label << " |";
  out << "\n|---|---|";
  for (std::size_t i = 0; i < names.size(); ++i)
    out << "---|";
  out << '\n';
  for (int l = 0; l < L; ++l) {
    for (int s = 0; s < S; ++s) {
      out << "| " << c.levels[l].name << " | " << c.strategies[s].label << " |";
      for (const auto& m : names) {
        const Aggregate a = cell_aggregate(c, r, l, s, m);
        const auto [scale, spec] = display_of(metric_info(m), unit);
        out << ' ' << (a.n == 0 ? "-" : shown_mean(a, spec, scale) + " +- " + shown_ci(a, spec, scale)) << " |";
      }
      out << '\n';
    }
  }
  return out.str();
}

std::string metric_table_markdown() {
  std::ostringstream out;
  out << "| metric | unit | column | shown as | in outputs | meaning |\n|---|---|---|---|---|---|\n";
  for (const MetricInfo& m : metric_table()) {
    const std::string shown = *m.display_unit != 0 ? m.display_unit : m.unit;
    out << "| `" << m.name << "` | " << m.unit << " | " << m.label << " | " << shown << " | "
        << (m.standard ? "always" : "on request") << " | " << m.meaning << " |\n";
  }
  return out.str();
}

nlohmann::json metric_table_json() {
  nlohmann::json a = nlohmann::json::array();
  for (const MetricInfo& m : metric_table()) {
    a.push_back({{"name", m.name},
                 {"unit", m.unit},
                 {"label", m.label},
                 {"display_scale", m.display_scale},
                 {"display_unit", m.display_unit},
                 {"standard", m.standard},
                 {"meaning", m.meaning}});
  }
  return a;
}

nlohmann::json stats_json(const RunStats& st) {
  return {{"runs", st.runs},
          {"events", st.events},
          {"decisions", st.decisions},
          {"wall_s", st.wall_s},
          {"cpu_s", st.cpu_s},
          {"events_per_cpu_s", st.cpu_s > 0.0 ? static_cast<double>(st.events) / st.cpu_s : 0.0},
          {"peak_rss_mb", st.peak_rss_mb}};
}

std::string render_stats(const RunStats& st, Format f) {
  const double rate = st.cpu_s > 0.0 ? static_cast<double>(st.events) / st.cpu_s : 0.0;
  char buf[512];
  if (f == Format::kJson) return "";
  if (f == Format::kCsv) {
    std::snprintf(
        buf, sizeof buf,
        "\nstat,value\nruns,%zu\nevents,%llu\ndecisions,%llu\nwall_s,%.3f\ncpu_s,%.3f\nevents_per_cpu_s,%.0f\n"
        "peak_rss_mb,%.1f\n",
        st.runs, static_cast<unsigned long long>(st.events), static_cast<unsigned long long>(st.decisions), st.wall_s,
        st.cpu_s, rate, st.peak_rss_mb);
    return buf;
  }
  std::snprintf(buf, sizeof buf,
                "\nStats: %zu runs, %llu events, %llu decisions in %.2f s wall, %.2f s CPU (%.3g events per CPU "
                "second); peak memory %.0f MiB.\n",
                st.runs, static_cast<unsigned long long>(st.events), static_cast<unsigned long long>(st.decisions),
                st.wall_s, st.cpu_s, rate, st.peak_rss_mb);
  return buf;
}

namespace {

// Typed clusters: each pool's utilisation, allocated GPU-seconds / (its GPUs x makespan), aggregated over seeds.
nlohmann::json pool_utilisation_json(const ExperimentConfig& c, const ExperimentResult& r, int level, int strategy) {
  nlohmann::json by_type = nlohmann::json::object();
  for (std::size_t p = 0; p < c.cluster.pools.size(); ++p) {
    std::vector<double> v;
    for (int s = 0; s < c.seeds; ++s) {
      const auto& run = r.run(c, level, strategy, s);
      if (!run.error.empty() || p >= run.metrics.pool_gpu_seconds.size()) continue;
      const double denominator = static_cast<double>(c.cluster.pools[p].gpus()) * run.metrics.makespan_s;
      v.push_back(denominator > 0.0 ? run.metrics.pool_gpu_seconds[p] / denominator : 0.0);
    }
    by_type[c.cluster.pools[p].gpu_type] = agg_json(aggregate(v));
  }
  return by_type;
}

// summary.json "cells": per (level, strategy) every metric aggregated over seeds, and the paired ratio to eight.
nlohmann::json cells_json(const ExperimentConfig& c, const ExperimentResult& r) {
  const int eight = strategy_index(c, "eight");
  nlohmann::json cells = nlohmann::json::array();
  for (int l = 0; l < static_cast<int>(c.levels.size()); ++l) {
    for (int s = 0; s < static_cast<int>(c.strategies.size()); ++s) {
      nlohmann::json cell;
      cell["level"] = c.levels[l].name;
      cell["strategy"] = c.strategies[s].label;
      nlohmann::json metrics;
      for (const auto& m : metric_names())
        metrics[m] = agg_json(cell_aggregate(c, r, l, s, m));
      cell["metrics"] = metrics;
      if (c.cluster.typed()) cell["gpu_utilisation_by_type"] = pool_utilisation_json(c, r, l, s);
      if (c.output.breakdown) {
        nlohmann::json qf = nlohmann::json::object();
        for (const auto& m : queue_fairness_metric_names()) {
          Aggregate a = cell_aggregate(c, r, l, s, m);
          if (zero_means_no_rho(m) && a.mean == 0.0) a = Aggregate{};  // no job with a rho: absent, not 0
          qf[m] = agg_json(a);
        }
        cell["queue_fairness"] = qf;
      }
      const PairedRatio pr = paired_ratio(c, r, l, s, eight);
      if (pr.available) cell["jct_ratio_to_eight"] = agg_json(pr.ratio);
      cells.push_back(cell);
    }
  }
  return cells;
}

// summary.json "runs": each replicate's metrics (or its error), with engine counters under --stats.
nlohmann::json runs_json(const ExperimentConfig& c, const ExperimentResult& r) {
  nlohmann::json runs = nlohmann::json::array();
  for (const auto& run : r.runs) {
    nlohmann::json jr;
    jr["level"] = c.levels[static_cast<std::size_t>(run.level)].name;
    jr["strategy"] = c.strategies[static_cast<std::size_t>(run.strategy)].label;
    jr["seed"] = run.seed;
    if (r.stats) {
      jr["events"] = run.events_processed;
      jr["decisions"] = run.decisions;
    }
    if (!run.error.empty()) {
      jr["error"] = run.error;
    } else {
      nlohmann::json m;
      for (const auto& name : metric_names())
        m[name] = metric_value(run.metrics, name);
      jr["metrics"] = m;
    }
    runs.push_back(jr);
  }
  return runs;
}

// summary.json "prediction_errors" (all classes) and "prediction_errors_by_class".
void add_prediction_errors_json(nlohmann::json& j, const ExperimentResult& r) {
  nlohmann::json errs = nlohmann::json::array();
  nlohmann::json by_class = nlohmann::json::array();
  for (const auto& e : r.prediction_errors) {
    nlohmann::json row = {{"source", e.source},
                          {"jobs", e.jobs},
                          {"speed_mape_pct", e.speed_mape},
                          {"speed_mape_16plus_pct", e.speed_mape_16},
                          {"work_mape_pct", e.work_mape}};
    if (e.class_name.empty()) {
      errs.push_back(row);
    } else {
      row["class"] = e.class_name;
      by_class.push_back(row);
    }
  }
  j["prediction_errors"] = errs;
  j["prediction_errors_by_class"] = by_class;
}

}  // namespace

nlohmann::json summary_json(const ExperimentConfig& c, const ExperimentResult& r) {
  nlohmann::json j;
  j["ringsched_version"] = RINGSCHED_VERSION;
  j["config_origin"] = c.origin;
  j["config"] = c.source;
  j["total_gpus"] = c.total_gpus();
  j["seeds"] = c.seeds;
  j["jobs_per_run"] = c.workload.jobs;
  if (c.workload.trace) j["trace"] = trace_notes_json(c);
  nlohmann::json levels = nlohmann::json::array();
  for (const auto& l : c.levels) {
    levels.push_back({{"name", l.name}, {"load", l.load}, {"rate_per_hour", l.rate_per_s * 3600.0}});
  }
  j["levels"] = levels;
  nlohmann::json strats = nlohmann::json::array();
  for (const auto& s : c.strategies) {
    strats.push_back({{"label", s.label}, {"name", s.name}, {"beliefs", s.beliefs}, {"params", s.params}});
  }
  j["strategies"] = strats;
  j["cells"] = cells_json(c, r);
  j["runs"] = runs_json(c, r);
  if (r.stats) j["stats"] = stats_json(*r.stats);
  if (c.output.prediction_errors) add_prediction_errors_json(j, r);
  if (r.table_lookups() > 0) {
    j["table_lookups"] = r.table_lookups();
    j["table_clamped"] = r.table_clamped();
  }
  add_belief_checks_json(j, c, r);
  if (c.cluster.failures) j["failures"] = failures_json(c, r);
  return j;
}

std::string prediction_errors_csv(const ExperimentResult& r) {
  std::ostringstream out;
  out << "source,jobs,speed_mape_pct,speed_mape_16plus_pct,work_mape_pct,class\n";
  for (const auto& e : r.prediction_errors) {
    out << e.source << ',' << e.jobs << ',' << e.speed_mape << ',' << e.speed_mape_16 << ',' << e.work_mape << ','
        << (e.class_name.empty() ? "all" : e.class_name) << '\n';
  }
  return out.str();
}

namespace {

std::string prediction_errors_md(const ExperimentConfig& c, const ExperimentResult& r) {
  int top = 1;
  for (const auto& cls : c.workload.catalog->classes)
    top = std::max(top, std::min(cls.max_gpus, c.total_gpus()));
  std::ostringstream out;
  out << "\nPrediction error of each belief source on the " << (c.beliefs.training ? "held-out " : "")
      << "jobs (first level, all seeds; speed over every GPU count 1-" << top << ", packed on "
      << c.cluster.gpus_per_node << "-GPU nodes; "
      << (c.beliefs.training ? "history fitted under " + c.beliefs.training->describe()
                             : std::string("history = the catalog's class models"))
      << "; online@P%: the online belief once the job has done P% of its true work):\n\n";
  out << "| belief source | used by | jobs | speed MAPE | speed MAPE 16+ GPUs | work MAPE "
         "|\n|---|---|---|---|---|---|\n";
  bool per_class = false;
  for (const auto& e : r.prediction_errors) {
    if (!e.class_name.empty()) {
      per_class = true;
      continue;
    }
    out << "| " << e.source << " | " << prediction_error_used_by(c, e.source) << " | " << e.jobs << " | "
        << formatted("%.1f", e.speed_mape) << "% | " << formatted("%.1f", e.speed_mape_16) << "% | "
        << formatted("%.1f", e.work_mape) << "% |\n";
  }
  if (!per_class) return out.str();
  out << "\nPer class (oracle omitted: 0% by construction; a class whose jobs may not reach 16 GPUs shows - at "
         "16+):\n\n"
         "| class | belief source | jobs | speed MAPE | speed MAPE 16+ GPUs | work MAPE |\n|---|---|---|---|---|---|\n";
  for (const auto& e : r.prediction_errors) {
    if (e.class_name.empty() || e.source == "oracle") continue;
    const bool has16 = std::any_of(c.workload.catalog->classes.begin(), c.workload.catalog->classes.end(),
                                   [&](const JobClass& k) { return k.name == e.class_name && k.max_gpus >= 16; }) &&
                       c.total_gpus() >= 16;
    out << "| " << e.class_name << " | " << e.source << " | " << e.jobs << " | " << formatted("%.1f", e.speed_mape)
        << "% | " << (has16 ? formatted("%.1f", e.speed_mape_16) + "%" : std::string("-")) << " | "
        << formatted("%.1f", e.work_mape) << "% |\n";
  }
  return out.str();
}

}  // namespace

std::string render_belief_report(const ExperimentConfig& c, const ExperimentResult& r, Format f) {
  if (f == Format::kJson) return "";
  std::ostringstream out;
  if (f == Format::kCsv) {
    if (c.output.prediction_errors) out << '\n' << prediction_errors_csv(r);
    return out.str();
  }
  if (c.output.prediction_errors) out << prediction_errors_md(c, r);
  out << trace_notes_text(c);
  const std::uint64_t lookups = r.table_lookups();
  if (lookups > 0) {
    const std::uint64_t clamped = r.table_clamped();
    const double pct = 100.0 * static_cast<double>(clamped) / static_cast<double>(lookups);
    out << "\nMeasured-table lookups outside the measured range (answered by clamping): " << clamped << " of "
        << lookups << " (" << formatted("%.1f", pct) << "%).\n";
  }
  out << belief_checks_md(c, r);
  return out.str();
}

namespace {

// The truth catalog's class names, comma-separated, in catalog order.
std::string class_names(const ExperimentConfig& c) {
  std::string out;
  for (const auto& k : c.workload.catalog->classes)
    out += (out.empty() ? "" : ", ") + k.name;
  return out;
}

}  // namespace

std::string block_heading(const ExperimentConfig& c) {
  const std::string builtin = builtin_config_name_of_origin(c.origin);
  std::ostringstream out;
  out << "## ";
  if (builtin == "in-sample") {
    out << "In-sample: the paper's setting, " << c.cluster.nodes << " nodes x " << c.cluster.gpus_per_node << " GPUs, `"
        << c.workload.catalog->name << "` catalog; the scheduler's beliefs are the simulator's truth";
  } else if (builtin == "held-out") {
    out << "Held-out: six Pollux applications (" << class_names(c) << ") on " << c.cluster.nodes << " nodes x "
        << c.cluster.gpus_per_node << " GPUs, measured-table truth (noise sigma " << c.workload.speed_sigma << ")";
    if (c.beliefs.training) {
      out << ", history fitted on " << c.beliefs.training->runs << " training runs per class under "
          << c.beliefs.training->describe();
    }
    out << " (docs/heldout.md)";
  } else {
    out << (c.beliefs.training ? "Held-out: " : "In-sample: ") << c.origin;
    if (!c.description.empty()) out << ": " << c.description;
    if (c.beliefs.training) out << " (classes: " << class_names(c) << ")";
  }
  out << "\n\n";
  return out.str();
}

// On a typed cluster (cluster.pools) both files have a gpu_type column; jobs.csv ends with `measured` (1 when the
// job is in the measurement window, workload.measure, whose jobs the JCT metrics are taken over; else 0). With
// cluster.network, jobs.csv has contention_slowdown before it (the job's time-averaged iteration time shared / alone
// over the time it held GPUs; 1 when it never shared a link or contention is off). With cluster.failures, `failures`
// (node failures that hit the job) comes before `measured`. A trace that records how its jobs ended (philly_log,
// acme) adds `outcome` (completed, failed, killed: as recorded; the run replays the job's recorded run time) before
// `measured`.
// A trace with users / virtual clusters adds `user` / `vc` after `class`; output.breakdown (--breakdown) adds `rho`
// (JCT / run time alone; empty for a job without one) where a Shockwave trace does not have it already.
std::string jobs_csv_header(const ExperimentConfig& c) {
  return std::string("level,strategy,seed,job_id,name,class") + (has_trace_users(c) ? ",user" : "") +
         (has_trace_vcs(c) ? ",vc" : "") +
         ",arrival_s,first_start_s,finish_s,jct_s,queue_s,restarts,gpu_seconds,max_gpus,work_samples" +
         (c.cluster.typed() ? ",gpu_type" : "") + (c.cluster.network ? ",contention_slowdown" : "") +
         (c.cluster.failures ? ",failures" : "") + (has_trace_outcomes(c) ? ",outcome" : "") +
         (has_shockwave_trace(c) || c.output.breakdown ? ",rho" : "") + ",measured\n";
}

std::string events_csv_header(const ExperimentConfig& c) {
  return std::string("level,strategy,seed,time_s,job_id,from_gpus,to_gpus,kind") +
         (c.cluster.typed() ? ",gpu_type\n" : "\n");
}

// `outcomes`: each trace job's recorded outcome (built once per experiment, not per run).
std::string job_rows(const ExperimentConfig& c, const CellRun& run, const TraceOutcomeByName& outcomes) {
  std::ostringstream out;
  const std::string prefix = csv_field(c.levels[static_cast<std::size_t>(run.level)].name) + ',' +
                             csv_field(c.strategies[static_cast<std::size_t>(run.strategy)].label) + ',' +
                             std::to_string(run.seed) + ',';
  const bool shockwave = has_shockwave_trace(c);
  const bool users = has_trace_users(c);
  const bool vcs = has_trace_vcs(c);
  for (const auto& j : run.jobs) {
    out << prefix << j.id << ',' << csv_field(j.name) << ',' << csv_field(j.class_name);
    if (users) out << ',' << csv_field(j.user);
    if (vcs) out << ',' << csv_field(j.vc);
    out << ',' << number_text(j.arrival) << ',' << number_text(j.first_start) << ',' << number_text(j.finish) << ','
        << number_text(j.finish - j.arrival) << ',' << number_text(j.first_start - j.arrival) << ',' << j.restarts
        << ',' << number_text(j.gpu_seconds) << ',' << j.max_gpus << ',' << number_text(j.work);
    if (c.cluster.typed()) out << ',' << csv_field(j.gpu_type);
    if (c.cluster.network) out << ',' << number_text(j.contention_slowdown);
    if (c.cluster.failures) out << ',' << j.failure.failures;
    if (outcomes.on()) out << ',' << outcomes.of(j.name);
    if (shockwave) {
      out << ',' << number_text(shockwave_rho(j, run.jobs.size(), c.total_gpus()));
    } else if (c.output.breakdown) {
      const double rho = job_rho(j, run.jobs.size(), c.total_gpus());
      out << ',' << (rho > 0.0 ? number_text(rho) : "");
    }
    out << ',' << (c.workload.measure.contains(j.id) ? '1' : '0') << '\n';
  }
  return out.str();
}

std::string event_rows(const ExperimentConfig& c, const CellRun& run) {
  std::ostringstream out;
  const std::string prefix = csv_field(c.levels[static_cast<std::size_t>(run.level)].name) + ',' +
                             csv_field(c.strategies[static_cast<std::size_t>(run.strategy)].label) + ',' +
                             std::to_string(run.seed) + ',';
  for (const auto& e : run.events) {
    out << prefix << number_text(e.time) << ',' << e.job << ',' << e.from << ',' << e.to << ',' << to_string(e.kind);
    if (c.cluster.typed()) out << ',' << csv_field(c.cluster.pools[static_cast<std::size_t>(e.pool)].gpu_type);
    out << '\n';
  }
  return out.str();
}

std::string jobs_csv(const ExperimentConfig& c, const ExperimentResult& r) {
  std::string out = jobs_csv_header(c);
  const TraceOutcomeByName outcomes(c);
  for (const auto& run : r.runs)
    out += job_rows(c, run, outcomes);
  return out;
}

std::string events_csv(const ExperimentConfig& c, const ExperimentResult& r) {
  std::string out = events_csv_header(c);
  for (const auto& run : r.runs)
    out += event_rows(c, run);
  return out;
}

void RunRowStream::begin(StagedOutput& out, const ExperimentConfig& c) {
  out_ = &out;
  outcomes_ = std::make_shared<const TraceOutcomeByName>(c);
  out.append("jobs.csv", jobs_csv_header(c));
  out.append("events.csv", events_csv_header(c));
}

void RunRowStream::add(const ExperimentConfig& c, const CellRun& run) {
  if (out_ == nullptr) return;
  out_->append("jobs.csv", job_rows(c, run, *outcomes_));
  out_->append("events.csv", event_rows(c, run));
}

void write_outputs(StagedOutput& out, const ExperimentConfig& c, const ExperimentResult& r, bool rows_streamed,
                   const TimeUnit& unit) {
  out.write("summary.json", summary_json(c, r).dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n");
  if (!rows_streamed) {
    out.write("jobs.csv", jobs_csv(c, r));
    out.write("events.csv", events_csv(c, r));
  }
  out.write("table.md", render_table3(c, r, Format::kMarkdown, unit) + render_belief_report(c, r, Format::kMarkdown));
  out.write("table.csv", render_table3(c, r, Format::kCsv, unit));
  if (c.output.prediction_errors) out.write("prediction_errors.csv", prediction_errors_csv(r));
}

const std::vector<std::string>& output_file_names() {
  static const std::vector<std::string> names = {
      "summary.json",          "jobs.csv",    "events.csv",   "table.md",      "table.csv", "placement.csv",
      "prediction_errors.csv", "network.csv", "failures.csv", "breakdown.csv", "series.csv"};
  return names;
}

void check_earlier_results(const std::string& dir, bool force) {
  if (force || dir.empty()) return;
  std::string found;
  for (const auto& name : output_file_names()) {
    std::error_code ec;
    if (std::filesystem::exists(std::filesystem::path(dir) / name, ec)) found += (found.empty() ? "" : ", ") + name;
  }
  if (found.empty()) return;
  throw InputError(dir + ": holds the results of an earlier run (" + found +
                   "); pass --force to replace that run's files (all of them), or choose another folder");
}

int failed_runs(const ExperimentResult& r) {
  int n = 0;
  for (const auto& run : r.runs)
    n += run.error.empty() ? 0 : 1;
  return n;
}

std::string describe_failures(const ExperimentConfig& c, const ExperimentResult& r) {
  std::ostringstream out;
  for (const auto& run : r.runs) {
    if (run.error.empty()) continue;
    out << "run failed: level " << c.levels[static_cast<std::size_t>(run.level)].name << ", strategy "
        << c.strategies[static_cast<std::size_t>(run.strategy)].label << ", seed " << run.seed << ": " << run.error
        << '\n';
  }
  return out.str();
}

}  // namespace ringsched
