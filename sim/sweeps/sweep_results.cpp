// sim/sweeps/sweep_results.cpp — sweep results: per-group statistics, sweep.json / runs.csv / cells.csv, and
// reading sweep.json back for --resume.
#include "sim/sweeps/sweep_results.h"

#include <algorithm>
#include <cmath>
#include <sstream>
#include <stdexcept>

#include "sim/experiments/report.h"
#include "workloads/io/json_reader.h"

namespace ringsched {

// Shortest text that reads back as the same double (nlohmann's round-trip formatting); "nan"/"inf" otherwise.
std::string exact_num(double v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  return nlohmann::json(v).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

nlohmann::json num_json(double v) {
  if (std::isfinite(v)) return v;
  return exact_num(v);
}

double json_num(const nlohmann::json& j, const std::string& where) {
  if (j.is_number()) return j.get<double>();
  if (j.is_string()) {
    const auto s = j.get<std::string>();
    if (s == "nan") return std::nan("");
    if (s == "inf") return HUGE_VAL;
    if (s == "-inf") return -HUGE_VAL;
  }
  throw InputError(where + ": expected a number");
}

nlohmann::json metrics_json(const RunMetrics& m) {
  nlohmann::json j = nlohmann::json::object();
  for (const auto& name : metric_names())
    j[name] = num_json(metric_value(m, name));
  return j;
}

RunMetrics metrics_from_json(const nlohmann::json& j, const std::string& where) {
  RunMetrics m;
  if (!j.is_object()) throw InputError(where + ": expected an object of metrics");
  for (const auto& name : metric_names()) {
    if (!j.contains(name)) throw InputError(where + ": missing metric " + name);
    set_metric_value(m, name, json_num(j.at(name), where + "." + name));
  }
  return m;
}

std::size_t SweepResults::done_cells() const {
  return static_cast<std::size_t>(std::count_if(cells.begin(), cells.end(), [](const auto& c) { return c.done; }));
}

std::size_t SweepResults::failed_cells() const {
  std::size_t n = 0;
  for (const auto& c : cells) {
    if (!c.done) continue;
    const bool failed = !c.error.empty() ||
                        std::any_of(c.runs.begin(), c.runs.end(), [](const SweepRun& r) { return !r.error.empty(); });
    n += failed ? 1 : 0;
  }
  return n;
}

namespace {

struct GroupStats {
  int n = 0;
  int failed = 0;
  std::string first_error;
  std::vector<Aggregate> metrics;  // by metric_names()
};

GroupStats group_stats(const SweepCellResult& c, int level, int strategy) {
  GroupStats g;
  std::vector<std::vector<double>> vals(metric_names().size());
  for (const auto& run : c.runs) {
    if (run.level != level || run.strategy != strategy) continue;
    if (!run.error.empty()) {
      ++g.failed;
      if (g.first_error.empty()) g.first_error = run.error;
      continue;
    }
    ++g.n;
    for (std::size_t m = 0; m < metric_names().size(); ++m)
      vals[m].push_back(metric_value(run.metrics, metric_names()[m]));
  }
  for (const auto& v : vals)
    g.metrics.push_back(aggregate(v));
  return g;
}

std::string csv_header_comment(const SweepSpec& spec) {
  return std::string("# ringsched-sweep format ") + std::to_string(kSweepFormatVersion) + ", ringsched " +
         RINGSCHED_VERSION + ", config_hash " + spec.config_hash + ", cells " + std::to_string(spec.size()) + "\n";
}

std::string axis_columns(const SweepSpec& spec) {
  std::string out;
  for (const auto& a : spec.axes) {
    out += ',';
    out += csv_field(a.name);
  }
  return out;
}

std::string axis_values(const SweepSpec& spec, std::size_t cell) {
  std::string out;
  for (const auto& v : spec.cells[cell]) {
    out += ',';
    out += csv_field(axis_value_text(v));
  }
  return out;
}

}  // namespace

nlohmann::json sweep_results_json(const SweepSpec& spec, const SweepResults& results) {
  nlohmann::json j;
  j["format"] = "ringsched-sweep";
  j["format_version"] = kSweepFormatVersion;
  j["ringsched_version"] = RINGSCHED_VERSION;
  j["config_hash"] = spec.config_hash;
  j["sweep_file"] = spec.origin;
  j["description"] = spec.description;
  nlohmann::json axes = nlohmann::json::array();
  for (const auto& a : spec.axes)
    axes.push_back({{"name", a.name}, {"path", a.path}});
  j["axes"] = axes;
  j["metrics"] = metric_names();
  j["total_cells"] = spec.size();
  j["done_cells"] = results.done_cells();
  j["complete"] = results.done_cells() == spec.size();
  nlohmann::json cells = nlohmann::json::array();
  for (std::size_t i = 0; i < results.cells.size(); ++i) {
    const auto& c = results.cells[i];
    if (!c.done) continue;
    nlohmann::json jc;
    jc["cell"] = i;
    jc["label"] = spec.cell_label(i);
    nlohmann::json values = nlohmann::json::object();
    for (std::size_t a = 0; a < spec.axes.size(); ++a) {
      if (!spec.cells[i][a].is_null()) values[spec.axes[a].name] = spec.cells[i][a];
    }
    jc["values"] = values;
    if (!c.error.empty()) jc["error"] = c.error;
    jc["levels"] = c.levels;
    jc["strategies"] = c.strategies;
    nlohmann::json groups = nlohmann::json::array();
    for (int l = 0; l < static_cast<int>(c.levels.size()); ++l) {
      for (int s = 0; s < static_cast<int>(c.strategies.size()); ++s) {
        const GroupStats g = group_stats(c, l, s);
        nlohmann::json jg;
        jg["level"] = c.levels[static_cast<std::size_t>(l)];
        jg["strategy"] = c.strategies[static_cast<std::size_t>(s)];
        jg["n"] = g.n;
        jg["failed"] = g.failed;
        nlohmann::json ms = nlohmann::json::object();
        for (std::size_t m = 0; m < metric_names().size(); ++m) {
          const Aggregate& a = g.metrics[m];
          // Absent figures are null, never 0: no mean when no replicate succeeded, no sd or CI from one.
          ms[metric_names()[m]] = {{"mean", a.n > 0 ? num_json(a.mean) : nullptr},
                                   {"sd", a.n > 1 ? num_json(a.sd) : nullptr},
                                   {"ci95", a.n > 1 ? num_json(a.ci95) : nullptr},
                                   {"n", a.n}};
        }
        jg["metrics"] = ms;
        nlohmann::json runs = nlohmann::json::array();
        for (const auto& run : c.runs) {
          if (run.level != l || run.strategy != s) continue;
          nlohmann::json jr;
          jr["replicate"] = run.replicate;
          jr["seed"] = run.seed;
          if (run.error.empty()) {
            jr["metrics"] = metrics_json(run.metrics);
          } else {
            jr["error"] = run.error;
          }
          runs.push_back(jr);
        }
        jg["runs"] = runs;
        groups.push_back(jg);
      }
    }
    jc["groups"] = groups;
    if (!c.prediction_errors.is_null()) jc["prediction_errors"] = c.prediction_errors;
    cells.push_back(jc);
  }
  j["cells"] = cells;
  return j;
}

std::string sweep_runs_csv(const SweepSpec& spec, const SweepResults& results) {
  std::ostringstream out;
  out << csv_header_comment(spec) << "cell" << axis_columns(spec) << ",level,strategy,replicate,seed";
  for (const auto& m : metric_names())
    out << ',' << m;
  out << ",error\n";
  const std::string empty_metrics(metric_names().size(), ',');
  for (std::size_t i = 0; i < results.cells.size(); ++i) {
    const auto& c = results.cells[i];
    if (!c.done) continue;
    const std::string prefix = std::to_string(i) + axis_values(spec, i);
    if (!c.error.empty()) {
      out << prefix << ",,,," << empty_metrics << ',' << csv_field(c.error) << '\n';
      continue;
    }
    for (const auto& run : c.runs) {
      out << prefix << ',' << csv_field(c.levels[static_cast<std::size_t>(run.level)]) << ','
          << csv_field(c.strategies[static_cast<std::size_t>(run.strategy)]) << ',' << run.replicate << ',' << run.seed;
      if (run.error.empty()) {
        for (const auto& m : metric_names())
          out << ',' << exact_num(metric_value(run.metrics, m));
        out << ",\n";
      } else {
        out << empty_metrics << ',' << csv_field(run.error) << '\n';
      }
    }
  }
  return out.str();
}

std::string sweep_cells_csv(const SweepSpec& spec, const SweepResults& results) {
  std::ostringstream out;
  out << csv_header_comment(spec) << "cell" << axis_columns(spec) << ",level,strategy,n,failed";
  for (const auto& m : metric_names())
    out << ',' << m << "_mean," << m << "_sd," << m << "_ci95";
  out << ",error\n";
  const std::string empty_metrics(metric_names().size() * 3, ',');
  for (std::size_t i = 0; i < results.cells.size(); ++i) {
    const auto& c = results.cells[i];
    if (!c.done) continue;
    const std::string prefix = std::to_string(i) + axis_values(spec, i);
    if (!c.error.empty()) {
      out << prefix << ",,,0,0" << empty_metrics << ',' << csv_field(c.error) << '\n';
      continue;
    }
    for (int l = 0; l < static_cast<int>(c.levels.size()); ++l) {
      for (int s = 0; s < static_cast<int>(c.strategies.size()); ++s) {
        const GroupStats g = group_stats(c, l, s);
        out << prefix << ',' << csv_field(c.levels[static_cast<std::size_t>(l)]) << ','
            << csv_field(c.strategies[static_cast<std::size_t>(s)]) << ',' << g.n << ',' << g.failed;
        for (const auto& a : g.metrics)  // absent (empty) as in sweep.json: the mean at n = 0, sd and CI at n < 2
          out << ',' << (a.n > 0 ? exact_num(a.mean) : "") << ',' << (a.n > 1 ? exact_num(a.sd) : "") << ','
              << (a.n > 1 ? exact_num(a.ci95) : "");
        out << ',' << csv_field(g.first_error) << '\n';
      }
    }
  }
  return out.str();
}

namespace {

// The number of runs each (level, strategy) group of a cell must hold: its config's seeds (default 20, as
// parse_experiment).
std::size_t expected_runs(const SweepSpec& spec, std::size_t cell) {
  const nlohmann::json doc = spec.cell_document(cell);
  const auto it = doc.find("seeds");
  if (it != doc.end() && it->is_number_integer() && it->get<std::int64_t>() > 0) {
    return static_cast<std::size_t>(it->get<std::int64_t>());
  }
  return 20;
}

std::int64_t integer_field(const nlohmann::json& j, const char* key, std::int64_t lo, std::int64_t hi,
                           const std::string& where) {
  const auto it = j.find(key);
  if (it == j.end()) throw InputError(where + ": " + key + ": missing");
  if (!it->is_number_integer()) throw InputError(where + ": " + key + ": must be an integer");
  if (it->is_number_unsigned() && it->get<std::uint64_t>() > static_cast<std::uint64_t>(hi)) {
    throw InputError(where + ": " + key + ": out of range");
  }
  const auto v = it->get<std::int64_t>();
  if (v < lo || v > hi) throw InputError(where + ": " + key + ": out of range");
  return v;
}

void read_cell(const SweepSpec& spec, const nlohmann::json& jc, const std::string& origin, SweepResults& res) {
  if (!jc.is_object()) throw InputError(origin + ": cells: each entry must be an object");
  const auto i = static_cast<std::size_t>(
      integer_field(jc, "cell", 0, static_cast<std::int64_t>(spec.size()) - 1, origin + ": cells[]"));
  const std::string where = origin + ": cells[cell " + std::to_string(i) + "]";
  SweepCellResult& c = res.cells[i];
  if (c.done) throw InputError(where + ": cell listed twice");
  c.done = true;
  c.error = jc.value("error", std::string());
  c.levels = jc.at("levels").get<std::vector<std::string>>();
  c.strategies = jc.at("strategies").get<std::vector<std::string>>();
  if (jc.contains("prediction_errors")) c.prediction_errors = jc.at("prediction_errors");
  const auto& groups = jc.at("groups");
  if (!groups.is_array()) throw InputError(where + ": groups: must be an array");
  if (!c.error.empty() && groups.empty()) return;  // a cell that failed as a whole has no groups
  if (groups.size() != c.levels.size() * c.strategies.size() || groups.empty()) {
    throw InputError(where + ": wrong number of groups");
  }
  const std::size_t want = expected_runs(spec, i);
  for (std::size_t g = 0; g < groups.size(); ++g) {
    const auto& runs = groups[g].at("runs");
    if (!runs.is_array() || runs.size() != want) {
      throw InputError(where + ": groups[" + std::to_string(g) + "]: " + std::to_string(runs.size()) +
                       " runs, the sweep has " + std::to_string(want) + " replicates (an incomplete cell)");
    }
    std::vector<char> seen(want, 0);
    for (const auto& jr : runs) {
      SweepRun run;
      run.level = static_cast<int>(g / c.strategies.size());
      run.strategy = static_cast<int>(g % c.strategies.size());
      run.replicate = static_cast<int>(integer_field(jr, "replicate", 0, static_cast<std::int64_t>(want) - 1,
                                                     where + ": groups[" + std::to_string(g) + "]"));
      if (seen[static_cast<std::size_t>(run.replicate)]++) throw InputError(where + ": a replicate is listed twice");
      const auto seed = jr.at("seed");
      if (!seed.is_number_integer()) throw InputError(where + ": seed: must be an integer");
      run.seed = seed.get<std::uint64_t>();
      if (jr.contains("error")) {
        run.error = jr.at("error").get<std::string>();
      } else {
        run.metrics = metrics_from_json(jr.at("metrics"), where);
      }
      c.runs.push_back(std::move(run));
    }
  }
}

}  // namespace

SweepResults read_sweep_results(const SweepSpec& spec, const nlohmann::json& doc, const std::string& origin) {
  auto refuse = [&](const std::string& why) -> void { throw InputError(origin + ": " + why); };
  SweepResults res;
  try {
    if (!doc.is_object() || doc.value("format", std::string()) != "ringsched-sweep") {
      refuse("not a ringsched sweep results file (no \"format\": \"ringsched-sweep\")");
    }
    if (doc.value("format_version", -1) != kSweepFormatVersion) {
      refuse(
          "results format version " +
          doc.value("format_version", nlohmann::json()).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) +
          ", this ringsched writes " + std::to_string(kSweepFormatVersion) +
          "; refusing to mix results (use another --out, or --force to overwrite)");
    }
    const std::string version = doc.value("ringsched_version", std::string("?"));
    if (version != RINGSCHED_VERSION) {
      refuse("written by ringsched " + version + ", this is ringsched " + RINGSCHED_VERSION +
             "; refusing to mix results (use another --out, or --force to overwrite)");
    }
    const std::string hash = doc.value("config_hash", std::string("?"));
    if (hash != spec.config_hash) {
      refuse("belongs to another sweep config (config hash " + hash + ", " + spec.origin + " has " + spec.config_hash +
             "); refusing to mix results: use another --out, or --force to overwrite");
    }
    const auto& cells = doc.at("cells");
    if (!cells.is_array()) refuse("damaged results file: cells must be an array");
    res.cells.resize(spec.size());
    for (const auto& jc : cells)
      read_cell(spec, jc, origin, res);
  } catch (const nlohmann::json::exception& e) {
    refuse(std::string("damaged results file: ") + e.what() + " (use another --out, or --force to overwrite)");
  }
  return res;
}

}  // namespace ringsched
