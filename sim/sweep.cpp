// sim/sweep.cpp — sweep file parsing and expansion, the batch runner (threads x ranks, fixed output order),
// incremental atomic output and --resume.
#include "sim/sweep.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <mutex>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <thread>

#include "sim/atomic_file.h"
#include "sim/parallel.h"
#include "sim/plot.h"
#include "sim/progress.h"
#include "workloads/json_reader.h"

namespace ringsched {
namespace {

constexpr int kFormatVersion = 1;
constexpr std::size_t kMaxCells = 10'000'000;

// Shortest text that reads back as the same double (nlohmann's round-trip formatting); "nan"/"inf" otherwise.
std::string exact_num(double v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  return nlohmann::json(v).dump();
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

// A cell value as CSV text: strings raw, everything else as compact JSON.
std::string value_text(const nlohmann::json& v) {
  if (v.is_null()) return "";
  if (v.is_string()) return v.get<std::string>();
  return v.dump();
}

void set_metric(RunMetrics& m, const std::string& name, double v) {
  if (name == "mean_jct_s") {
    m.mean_jct_s = v;
  } else if (name == "median_jct_s") {
    m.median_jct_s = v;
  } else if (name == "p95_jct_s") {
    m.p95_jct_s = v;
  } else if (name == "makespan_s") {
    m.makespan_s = v;
  } else if (name == "mean_queue_s") {
    m.mean_queue_s = v;
  } else if (name == "gpu_utilisation") {
    m.gpu_utilisation = v;
  } else if (name == "restarts_per_job") {
    m.restarts_per_job = v;
  } else {
    throw std::invalid_argument("unknown metric " + name);
  }
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
    set_metric(m, name, json_num(j.at(name), where + "." + name));
  }
  return m;
}

std::string path_text(const std::vector<JsonPathSegment>& path, std::size_t upto) {
  std::string out;
  for (std::size_t i = 0; i < upto && i < path.size(); ++i) {
    if (const auto* key = std::get_if<std::string>(&path[i])) {
      if (!out.empty()) out += '.';
      out += *key;
    } else {
      out += '[';
      out += std::to_string(std::get<std::size_t>(path[i]));
      out += ']';
    }
  }
  return out.empty() ? "(top level)" : out;
}

// Writes v at path in doc; the path must exist. Returns false (and a reason) otherwise.
bool set_json_path(nlohmann::json& doc, const std::vector<JsonPathSegment>& path, const nlohmann::json& v,
                   std::string* missing) {
  nlohmann::json* cur = &doc;
  for (std::size_t i = 0; i < path.size(); ++i) {
    if (const auto* key = std::get_if<std::string>(&path[i])) {
      if (!cur->is_object() || !cur->contains(*key)) {
        if (missing) *missing = path_text(path, i) + " has no key '" + *key + "'";
        return false;
      }
      cur = &(*cur)[*key];
    } else {
      const std::size_t idx = std::get<std::size_t>(path[i]);
      if (!cur->is_array() || idx >= cur->size()) {
        if (missing) *missing = path_text(path, i) + " has no element [" + std::to_string(idx) + "]";
        return false;
      }
      cur = &(*cur)[idx];
    }
  }
  *cur = v;
  return true;
}

std::vector<nlohmann::json> expand_range(const JsonReader& rr) {
  rr.expect_object({"from", "to", "step", "count"});
  const double from = rr.at("from").as_number();
  const double to = rr.at("to").as_number();
  const bool has_step = rr.has("step");
  const bool has_count = rr.has("count");
  if (has_step == has_count) rr.fail("give exactly one of step or count");
  auto integral = [](const nlohmann::json& j) { return j.is_number_integer(); };
  bool ints = integral(rr.at("from").value()) && integral(rr.at("to").value());
  std::vector<double> vals;
  if (has_step) {
    const double step = rr.at("step").as_number();
    ints = ints && integral(rr.at("step").value());
    if (step == 0.0) rr.at("step").fail("must not be 0");
    if ((to - from) / step < 0.0) {
      rr.at("step").fail("goes from " + exact_num(from) + " away from " + exact_num(to) + ": the range is empty");
    }
    const double n = std::floor((to - from) / step + 1e-9) + 1.0;
    if (n > static_cast<double>(kMaxCells)) rr.fail("more than 10,000,000 values");
    for (std::size_t i = 0; i < static_cast<std::size_t>(n); ++i)
      vals.push_back(from + static_cast<double>(i) * step);
  } else {
    const auto count = rr.at("count").as_integer_in(1, static_cast<std::int64_t>(kMaxCells));
    for (std::int64_t i = 0; i < count; ++i) {
      vals.push_back(count == 1 ? from : from + (to - from) * static_cast<double>(i) / static_cast<double>(count - 1));
    }
    for (double v : vals)
      ints = ints && v == std::floor(v);
  }
  std::vector<nlohmann::json> out;
  for (double v : vals) {
    if (ints) {
      out.emplace_back(static_cast<std::int64_t>(std::llround(v)));
    } else {
      // Round away the binary noise of from + i * step (0.1 + 2 * 0.1 -> 0.3) so values read as written.
      char buf[64];
      std::snprintf(buf, sizeof buf, "%.12g", v);
      out.emplace_back(std::strtod(buf, nullptr));
    }
  }
  return out;
}

SweepAxis make_axis(const std::string& path, const JsonReader& where_path, const nlohmann::json& base) {
  SweepAxis a;
  a.path = path;
  a.name = path;
  a.segments = parse_json_path(path, where_path.where());
  std::string missing;
  if (find_json_path(base, a.segments, &missing) == nullptr) {
    where_path.fail("'" + path + "' does not exist in the base config (" + missing +
                    "); a swept key must be present in the base, e.g. with its default value");
  }
  return a;
}

}  // namespace

std::string fnv1a64_hex(const std::string& text) {
  std::uint64_t h = 1469598103934665603ULL;
  for (unsigned char ch : text) {
    h ^= ch;
    h *= 1099511628211ULL;
  }
  char buf[32];
  std::snprintf(buf, sizeof buf, "fnv1a64:%016llx", static_cast<unsigned long long>(h));
  return buf;
}

std::vector<JsonPathSegment> parse_json_path(const std::string& path, const std::string& where) {
  std::vector<JsonPathSegment> out;
  auto bad = [&](const std::string& why) -> void {
    throw InputError(where + ": bad JSON path '" + path + "': " + why +
                     " (write keys separated by '.', array indices as [n], e.g. levels[0].load)");
  };
  if (path.empty()) bad("empty");
  std::size_t i = 0;
  bool expect_key = true;
  while (i < path.size()) {
    if (path[i] == '[') {
      const auto close = path.find(']', i);
      if (close == std::string::npos || close == i + 1) bad("unclosed or empty [ ]");
      const std::string digits = path.substr(i + 1, close - i - 1);
      if (digits.find_first_not_of("0123456789") != std::string::npos || digits.size() > 9)
        bad("index must be a number");
      out.emplace_back(static_cast<std::size_t>(std::stoul(digits)));
      i = close + 1;
      expect_key = false;
      if (i < path.size() && path[i] != '.' && path[i] != '[') bad("expected '.' or '[' after ]");
      continue;
    }
    if (path[i] == '.') {
      if (expect_key || i + 1 >= path.size()) bad("empty key");
      ++i;
      expect_key = true;
      continue;
    }
    const auto end = path.find_first_of(".[", i);
    const std::string key = path.substr(i, end == std::string::npos ? std::string::npos : end - i);
    if (!expect_key && !out.empty()) bad("missing '.' before '" + key + "'");
    out.emplace_back(key);
    i = end == std::string::npos ? path.size() : end;
    expect_key = false;
  }
  return out;
}

const nlohmann::json* find_json_path(const nlohmann::json& doc, const std::vector<JsonPathSegment>& path,
                                     std::string* missing) {
  const nlohmann::json* cur = &doc;
  for (std::size_t i = 0; i < path.size(); ++i) {
    if (const auto* key = std::get_if<std::string>(&path[i])) {
      if (!cur->is_object() || !cur->contains(*key)) {
        if (missing) {
          *missing = path_text(path, i) + " has no key '" + *key + "'";
          if (cur->is_object()) {
            std::vector<std::string> keys;
            for (const auto& item : cur->items())
              keys.push_back(item.key());
            *missing += " (keys: " + join_names(keys) + ")";
          }
        }
        return nullptr;
      }
      cur = &cur->at(*key);
    } else {
      const std::size_t idx = std::get<std::size_t>(path[i]);
      if (!cur->is_array() || idx >= cur->size()) {
        if (missing) {
          *missing = path_text(path, i) +
                     (cur->is_array() ? " has " + std::to_string(cur->size()) + " element(s)" : " is not an array");
        }
        return nullptr;
      }
      cur = &cur->at(idx);
    }
  }
  return cur;
}

nlohmann::json SweepSpec::cell_document(std::size_t cell) const {
  nlohmann::json doc = base;
  const auto& vals = cells.at(cell);
  for (std::size_t a = 0; a < axes.size(); ++a) {
    if (vals[a].is_null()) continue;
    std::string missing;
    if (!set_json_path(doc, axes[a].segments, vals[a], &missing)) {
      throw InputError(origin + ": cell " + std::to_string(cell) + ": axis '" + axes[a].name +
                       "': path does not exist after applying the other axes (" + missing + ")");
    }
  }
  return doc;
}

std::string SweepSpec::cell_label(std::size_t cell) const {
  std::string out;
  const auto& vals = cells.at(cell);
  for (std::size_t a = 0; a < axes.size(); ++a) {
    if (vals[a].is_null()) continue;
    if (!out.empty()) out += ", ";
    out += axes[a].name + "=" + value_text(vals[a]);
  }
  return out.empty() ? "(base)" : out;
}

SweepSpec parse_sweep(const nlohmann::json& doc, const std::string& origin, const std::string& base_dir) {
  JsonReader r(doc, origin);
  r.expect_object({"description", "base", "replicates", "axes", "cells"});
  SweepSpec spec;
  spec.origin = origin;
  spec.description = r.string_or("description", "");
  const auto b = r.at("base");
  if (b.is_string()) {
    const std::string name = b.as_string();
    if (name == "builtin:table3") {
      spec.base = parse_json_text(table3_config_text(), name);
      spec.base_origin = name;
    } else {
      std::filesystem::path p(name);
      if (p.is_relative() && !base_dir.empty()) p = std::filesystem::path(base_dir) / p;
      std::error_code ec;
      if (!std::filesystem::is_regular_file(p, ec)) {
        b.fail("cannot read base config '" + p.string() + "' (give a config file or builtin:table3)");
      }
      spec.base = read_json_file(p.string());
      spec.base_origin = p.string();
      spec.base_dir = p.parent_path().string();
    }
  } else if (b.is_object()) {
    spec.base = b.value();
    spec.base_origin = origin + " (base)";
    spec.base_dir = base_dir;
  } else {
    b.fail("must be an experiment config object, a config file name or builtin:table3");
  }
  if (auto rep = r.maybe("replicates")) spec.base["seeds"] = rep->as_integer_in(1, 100000);
  // The base must be valid on its own: a typo there would otherwise fail every cell.
  (void)parse_experiment(spec.base, spec.base_origin, spec.base_dir);

  const bool has_axes = r.has("axes");
  const bool has_cells = r.has("cells");
  if (has_axes == has_cells) r.fail("give exactly one of axes (cartesian product) or cells (explicit list)");
  if (has_axes) {
    std::size_t total = 1;
    for (const auto& ar : r.at("axes").non_empty_elements()) {
      ar.expect_object({"name", "path", "values", "range"});
      SweepAxis a = make_axis(ar.at("path").as_string(), ar.at("path"), spec.base);
      a.name = ar.string_or("name", a.path);
      if (a.name.empty()) ar.at("name").fail("must not be empty");
      for (const auto& other : spec.axes) {
        if (other.path == a.path) ar.at("path").fail("axis '" + a.path + "' is given twice");
        if (other.name == a.name) ar.at("name").fail("axis name '" + a.name + "' is given twice");
      }
      const bool has_values = ar.has("values");
      if (has_values == ar.has("range")) ar.fail("give exactly one of values (a list) or range");
      if (has_values) {
        const auto vr = ar.at("values");
        if (!vr.is_array()) vr.fail("must be a list of values");
        if (vr.value().empty()) vr.fail("must not be empty (an axis needs at least one value)");
        for (const auto& v : vr.value()) {
          if (v.is_null()) vr.fail("null is not a valid axis value");
          a.values.push_back(v);
        }
      } else {
        a.values = expand_range(ar.at("range"));
      }
      total *= a.values.size();
      if (total > kMaxCells) ar.fail("the product of the axes has more than 10,000,000 cells");
      spec.axes.push_back(std::move(a));
    }
    // Row-major: the last axis varies fastest.
    for (std::size_t i = 0; i < total; ++i) {
      std::vector<nlohmann::json> vals(spec.axes.size());
      std::size_t rest = i;
      for (std::size_t k = spec.axes.size(); k-- > 0;) {
        vals[k] = spec.axes[k].values[rest % spec.axes[k].values.size()];
        rest /= spec.axes[k].values.size();
      }
      spec.cells.push_back(std::move(vals));
    }
  } else {
    const auto list = r.at("cells").non_empty_elements();
    if (list.size() > kMaxCells) r.at("cells").fail("more than 10,000,000 cells");
    // Columns: every path named by some cell, in order of first appearance.
    for (const auto& cr : list) {
      if (!cr.is_object()) cr.fail("must be an object of {\"json.path\": value}");
      for (const auto& item : cr.value().items()) {
        const bool known =
            std::any_of(spec.axes.begin(), spec.axes.end(), [&](const SweepAxis& a) { return a.path == item.key(); });
        if (!known) spec.axes.push_back(make_axis(item.key(), cr.at(item.key()), spec.base));
      }
    }
    for (const auto& cr : list) {
      std::vector<nlohmann::json> vals(spec.axes.size());
      for (std::size_t k = 0; k < spec.axes.size(); ++k) {
        if (cr.has(spec.axes[k].path)) {
          vals[k] = cr.value().at(spec.axes[k].path);
          if (vals[k].is_null()) cr.at(spec.axes[k].path).fail("null is not a valid value");
        }
      }
      spec.cells.push_back(std::move(vals));
    }
  }
  nlohmann::json canon;
  canon["format_version"] = kFormatVersion;
  canon["base"] = spec.base;
  nlohmann::json axes = nlohmann::json::array();
  for (const auto& a : spec.axes)
    axes.push_back({{"name", a.name}, {"path", a.path}});
  canon["axes"] = axes;
  nlohmann::json cells = nlohmann::json::array();
  for (const auto& c : spec.cells)
    cells.push_back(c);
  canon["cells"] = cells;
  spec.config_hash = fnv1a64_hex(canon.dump());
  return spec;
}

SweepSpec load_sweep(const std::string& path) {
  const auto doc = read_json_file(path);
  return parse_sweep(doc, path, std::filesystem::path(path).parent_path().string());
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
  return std::string("# ringsched-sweep format ") + std::to_string(kFormatVersion) + ", ringsched " +
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
    out += csv_field(value_text(v));
  }
  return out;
}

}  // namespace

nlohmann::json sweep_results_json(const SweepSpec& spec, const SweepResults& results) {
  nlohmann::json j;
  j["format"] = "ringsched-sweep";
  j["format_version"] = kFormatVersion;
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
          ms[metric_names()[m]] = {
              {"mean", num_json(a.mean)}, {"sd", num_json(a.sd)}, {"ci95", num_json(a.ci95)}, {"n", a.n}};
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
        for (const auto& a : g.metrics)
          out << ',' << exact_num(a.mean) << ',' << exact_num(a.sd) << ',' << exact_num(a.ci95);
        out << ',' << csv_field(g.first_error) << '\n';
      }
    }
  }
  return out.str();
}

SweepResults read_sweep_results(const SweepSpec& spec, const nlohmann::json& doc, const std::string& origin) {
  auto refuse = [&](const std::string& why) -> void { throw InputError(origin + ": " + why); };
  if (!doc.is_object() || doc.value("format", std::string()) != "ringsched-sweep") {
    refuse("not a ringsched sweep results file (no \"format\": \"ringsched-sweep\")");
  }
  if (doc.value("format_version", -1) != kFormatVersion) {
    refuse("results format version " + doc.value("format_version", nlohmann::json()).dump() +
           ", this ringsched writes " + std::to_string(kFormatVersion) +
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
  SweepResults res;
  res.cells.resize(spec.size());
  try {
    for (const auto& jc : doc.at("cells")) {
      const auto i = jc.at("cell").get<std::size_t>();
      const std::string where = origin + ": cells[cell " + std::to_string(i) + "]";
      if (i >= spec.size()) throw InputError(where + ": cell index out of range");
      SweepCellResult& c = res.cells[i];
      c.done = true;
      c.error = jc.value("error", std::string());
      c.levels = jc.at("levels").get<std::vector<std::string>>();
      c.strategies = jc.at("strategies").get<std::vector<std::string>>();
      const auto& groups = jc.at("groups");
      if (groups.size() != c.levels.size() * c.strategies.size()) throw InputError(where + ": wrong number of groups");
      for (std::size_t g = 0; g < groups.size(); ++g) {
        for (const auto& jr : groups[g].at("runs")) {
          SweepRun run;
          run.level = static_cast<int>(g / c.strategies.size());
          run.strategy = static_cast<int>(g % c.strategies.size());
          run.replicate = jr.at("replicate").get<int>();
          run.seed = jr.at("seed").get<std::uint64_t>();
          if (jr.contains("error")) {
            run.error = jr.at("error").get<std::string>();
          } else {
            run.metrics = metrics_from_json(jr.at("metrics"), where);
          }
          c.runs.push_back(std::move(run));
        }
      }
    }
  } catch (const nlohmann::json::exception& e) {
    refuse(std::string("damaged results file: ") + e.what());
  }
  return res;
}

// ---- the runner ----

namespace {

class LocalComm final : public SweepComm {
 public:
  [[nodiscard]] int rank() const override { return 0; }
  [[nodiscard]] int size() const override { return 1; }
  std::string broadcast(const std::string& text) override { return text; }
  std::vector<std::string> gather(const std::string& text) override { return {text}; }
};

struct WorkItem {
  std::size_t cell_pos;  // position in the batch
  int level;
  int strategy;
  int replicate;
};

struct BatchCell {
  std::size_t cell;
  std::optional<ExperimentConfig> config;
  std::string error;
};

void write_outputs(const std::string& dir, const SweepSpec& spec, const SweepResults& res) {
  // CSVs first, sweep.json (what --resume reads) last; each file is replaced atomically.
  write_file_atomic(dir + "/runs.csv", sweep_runs_csv(spec, res));
  write_file_atomic(dir + "/cells.csv", sweep_cells_csv(spec, res));
  write_file_atomic(dir + "/sweep.json", sweep_results_json(spec, res).dump(1) + "\n");
}

}  // namespace

std::unique_ptr<SweepComm> make_local_comm() {
  return std::make_unique<LocalComm>();
}

SweepOutcome run_sweep(const SweepSpec& spec, const SweepOptions& opt, SweepComm& comm) {
  const auto t0 = std::chrono::steady_clock::now();
  const bool root = comm.rank() == 0;
  const std::size_t ranks = static_cast<std::size_t>(std::max(1, comm.size()));
  const std::size_t my_rank = static_cast<std::size_t>(comm.rank());
  const int threads = resolve_threads(opt.threads);

  SweepOutcome outcome;
  outcome.cells_total = spec.size();
  SweepResults results;
  results.cells.resize(spec.size());

  // Rank 0 checks the output folder and earlier results, then tells every rank what to run (or why not).
  std::string plan_text;
  if (root) {
    nlohmann::json plan;
    try {
      if (opt.out_dir.empty()) throw InputError("sweep: --out DIR is required");
      ensure_directory(opt.out_dir);
      const std::string path = opt.out_dir + "/sweep.json";
      std::error_code ec;
      if (std::filesystem::exists(path, ec)) {
        if (opt.resume) {
          results = read_sweep_results(spec, read_json_file(path), path);
        } else if (!opt.force) {
          throw InputError(path +
                           ": results of an earlier sweep are there; pass --resume to continue them or --force "
                           "to overwrite them");
        }
      }
      std::vector<std::size_t> todo;
      for (std::size_t i = 0; i < spec.size(); ++i) {
        if (!results.cells[i].done) todo.push_back(i);
      }
      // Batches of whole cells, big enough to keep every thread of every rank busy (32 runs each), small
      // enough that output is flushed often. Boundaries never change results, only when they are written.
      const ExperimentConfig base = parse_experiment(spec.base, spec.base_origin, spec.base_dir);
      const std::size_t runs_per_cell =
          std::max<std::size_t>(1, base.levels.size() * base.strategies.size() * static_cast<std::size_t>(base.seeds));
      // Over ranks every batch ends in a gather (a barrier), so batches are 8x bigger there.
      const std::size_t target_runs = (ranks > 1 ? 256 : 32) * static_cast<std::size_t>(threads) * ranks;
      std::size_t per_batch = std::max<std::size_t>(1, (target_runs + runs_per_cell - 1) / runs_per_cell);
      if (opt.stop_after_cells > 0) per_batch = std::min(per_batch, static_cast<std::size_t>(opt.stop_after_cells));
      plan["ok"] = true;
      plan["todo"] = todo;
      plan["per_batch"] = per_batch;
      plan["threads"] = threads;
    } catch (const InputError& e) {
      plan = {{"ok", false}, {"input", true}, {"error", e.what()}};
    } catch (const std::exception& e) {
      plan = {{"ok", false}, {"input", false}, {"error", e.what()}};
    }
    plan_text = plan.dump();
  }
  plan_text = comm.broadcast(plan_text);
  const auto plan = nlohmann::json::parse(plan_text);
  if (!plan.at("ok").get<bool>()) {
    if (plan.at("input").get<bool>()) throw InputError(plan.at("error").get<std::string>());
    throw std::runtime_error(plan.at("error").get<std::string>());
  }
  const auto todo = plan.at("todo").get<std::vector<std::size_t>>();
  const auto per_batch = plan.at("per_batch").get<std::size_t>();
  outcome.cells_skipped = spec.size() - todo.size();

  ProgressBar progress(spec.size(), outcome.cells_skipped,
                       root && !opt.quiet && ProgressBar::stderr_is_terminal() && !todo.empty());
  auto last_flush = std::chrono::steady_clock::now();
  // Rewriting the files costs time proportional to the cells done so far: wait at least 10x the last rewrite so
  // that flushing stays under ~10% of the run time instead of growing quadratically.
  double flush_interval = opt.flush_seconds;
  if (root && todo.empty()) write_outputs(opt.out_dir, spec, results);

  for (std::size_t b0 = 0; b0 < todo.size(); b0 += per_batch) {
    const std::size_t b1 = std::min(todo.size(), b0 + per_batch);
    // Every rank expands the batch's cells the same way.
    std::vector<BatchCell> cells;
    std::vector<WorkItem> items;
    for (std::size_t k = b0; k < b1; ++k) {
      BatchCell bc;
      bc.cell = todo[k];
      try {
        const std::string origin =
            spec.origin + " cell " + std::to_string(bc.cell) + " [" + spec.cell_label(bc.cell) + "]";
        bc.config = parse_experiment(spec.cell_document(bc.cell), origin, spec.base_dir);
      } catch (const std::exception& e) {
        bc.error = e.what();
      }
      if (bc.config) {
        for (int l = 0; l < static_cast<int>(bc.config->levels.size()); ++l)
          for (int s = 0; s < static_cast<int>(bc.config->strategies.size()); ++s)
            for (int r = 0; r < bc.config->seeds; ++r)
              items.push_back({cells.size(), l, s, r});
      }
      cells.push_back(std::move(bc));
    }
    // Static round-robin over ranks: item j runs on rank j mod N; threads share a rank's items dynamically.
    std::vector<std::size_t> mine;
    for (std::size_t j = my_rank; j < items.size(); j += ranks)
      mine.push_back(j);
    std::vector<SweepRun> out(mine.size());
    std::atomic<std::size_t> next{0};
    std::atomic<std::size_t> cells_finished{0};
    std::vector<std::atomic<int>> remaining(cells.size());
    for (auto& r : remaining)
      r.store(0);
    for (std::size_t j : mine)
      remaining[items[j].cell_pos].fetch_add(1);
    auto worker = [&]() {
      for (;;) {
        const std::size_t m = next.fetch_add(1);
        if (m >= mine.size()) return;
        const WorkItem& it = items[mine[m]];
        const ExperimentConfig& cfg = *cells[it.cell_pos].config;
        SweepRun& run = out[m];
        run.level = it.level;
        run.strategy = it.strategy;
        run.replicate = it.replicate;
        run.seed = cfg.base_seed + static_cast<std::uint64_t>(it.replicate);
        try {
          run.metrics = run_cell(cfg, it.level, it.strategy, it.replicate, false).metrics;
        } catch (const std::exception& e) {
          run.error = e.what();
        }
        if (remaining[it.cell_pos].fetch_sub(1) == 1) cells_finished.fetch_add(1);
      }
    };
    const int n_threads = static_cast<int>(std::min<std::size_t>(static_cast<std::size_t>(threads), mine.size()));
    if (n_threads <= 1) {
      worker();
    } else {
      std::vector<std::thread> pool;
      std::mutex mu;
      std::condition_variable cv;
      int running = n_threads;
      for (int t = 0; t < n_threads; ++t) {
        pool.emplace_back([&]() {
          worker();
          std::lock_guard<std::mutex> lock(mu);
          --running;
          cv.notify_all();
        });
      }
      {
        std::unique_lock<std::mutex> lock(mu);
        while (running > 0) {
          cv.wait_for(lock, std::chrono::milliseconds(100));
          if (ranks == 1) progress.update(outcome.cells_skipped + outcome.cells_run + cells_finished.load());
        }
      }
      for (auto& t : pool)
        t.join();
    }

    // Gather to rank 0 (serialised as JSON, which reads back every double exactly).
    std::vector<std::vector<SweepRun>> by_rank;
    if (ranks == 1) {
      by_rank.push_back(std::move(out));
    } else {
      nlohmann::json mine_json = nlohmann::json::array();
      for (const auto& run : out) {
        nlohmann::json jr = {{"l", run.level}, {"s", run.strategy}, {"r", run.replicate}, {"seed", run.seed}};
        if (run.error.empty()) {
          jr["m"] = metrics_json(run.metrics);
        } else {
          jr["e"] = run.error;
        }
        mine_json.push_back(jr);
      }
      const auto texts = comm.gather(mine_json.dump());
      for (const auto& t : texts) {
        std::vector<SweepRun> runs;
        for (const auto& jr : nlohmann::json::parse(t)) {
          SweepRun run;
          run.level = jr.at("l").get<int>();
          run.strategy = jr.at("s").get<int>();
          run.replicate = jr.at("r").get<int>();
          run.seed = jr.at("seed").get<std::uint64_t>();
          if (jr.contains("e")) {
            run.error = jr.at("e").get<std::string>();
          } else {
            run.metrics = metrics_from_json(jr.at("m"), "gathered results");
          }
          runs.push_back(std::move(run));
        }
        by_rank.push_back(std::move(runs));
      }
    }
    outcome.runs += items.size();
    outcome.cells_run += cells.size();
    if (root) {
      for (const auto& bc : cells) {
        SweepCellResult& c = results.cells[bc.cell];
        c.done = true;
        c.error = bc.error;
        if (bc.config) {
          for (const auto& l : bc.config->levels)
            c.levels.push_back(l.name);
          for (const auto& s : bc.config->strategies)
            c.strategies.push_back(s.label);
        }
      }
      // Item j came from rank j mod N, as that rank's (j / N)-th result; items are in cell, level, strategy,
      // replicate order, so appending keeps each cell's runs in that order.
      for (std::size_t j = 0; j < items.size(); ++j) {
        const SweepRun& run = by_rank.at(j % ranks).at(j / ranks);
        results.cells[cells[items[j].cell_pos].cell].runs.push_back(run);
      }
      progress.update(outcome.cells_skipped + outcome.cells_run);
      const auto now = std::chrono::steady_clock::now();
      const bool last = b1 == todo.size();
      const bool stop = opt.stop_after_cells > 0 && outcome.cells_run >= static_cast<std::size_t>(opt.stop_after_cells);
      if (last || stop || std::chrono::duration<double>(now - last_flush).count() >= flush_interval) {
        write_outputs(opt.out_dir, spec, results);
        last_flush = std::chrono::steady_clock::now();
        flush_interval = std::max(opt.flush_seconds, 10.0 * std::chrono::duration<double>(last_flush - now).count());
      }
    }
    if (opt.stop_after_cells > 0 && outcome.cells_run >= static_cast<std::size_t>(opt.stop_after_cells) &&
        b1 < todo.size()) {
      progress.finish();
      std::fprintf(stderr, "ringsched: sweep stopped after %zu cell(s) (RINGSCHED_SWEEP_STOP_AFTER)\n",
                   outcome.cells_run);
      std::fflush(stderr);
      std::_Exit(75);  // like a kill: no further writes, no clean-up
    }
  }
  progress.finish();

  if (root) {
    outcome.failed_cells = results.failed_cells();
    std::ostringstream f;
    for (std::size_t i = 0; i < results.cells.size(); ++i) {
      const auto& c = results.cells[i];
      if (!c.done) continue;
      if (!c.error.empty()) f << "cell " << i << " [" << spec.cell_label(i) << "]: " << c.error << '\n';
      for (const auto& run : c.runs) {
        if (run.error.empty()) continue;
        f << "cell " << i << " [" << spec.cell_label(i) << "] level " << c.levels[static_cast<std::size_t>(run.level)]
          << ", strategy " << c.strategies[static_cast<std::size_t>(run.strategy)] << ", seed " << run.seed << ": "
          << run.error << '\n';
      }
    }
    outcome.failures = f.str();
  }
  outcome.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return outcome;
}

int sweep_command(const std::string& config_path, SweepOptions options, const std::string& plot_dir, SweepComm& comm) {
  const SweepSpec spec = load_sweep(config_path);
  if (const char* stop = std::getenv("RINGSCHED_SWEEP_STOP_AFTER"); stop != nullptr && *stop != '\0') {
    options.stop_after_cells = std::atoi(stop);
  }
  const bool root = comm.rank() == 0;
  const SweepOutcome o = run_sweep(spec, options, comm);
  if (!root) return o.failed_cells > 0 ? 1 : 0;
  std::fprintf(stderr, "ringsched: sweep %s: %zu cell(s) (%zu already done), %zu run(s) on %d rank(s) in %.2f s",
               spec.origin.c_str(), o.cells_total, o.cells_skipped, o.runs, comm.size(), o.seconds);
  if (o.cells_run > 0 && o.seconds > 0.0) {
    std::fprintf(stderr, " (%.3g cells/s, %.3g runs/s)", static_cast<double>(o.cells_run) / o.seconds,
                 static_cast<double>(o.runs) / o.seconds);
  }
  std::fprintf(stderr, "; wrote %s/{sweep.json,runs.csv,cells.csv}\n", options.out_dir.c_str());
  int rc = 0;
  if (o.failed_cells > 0) {
    std::fputs(o.failures.c_str(), stderr);
    std::fprintf(stderr, "ringsched: %zu cell(s) failed (errors are in their rows)\n", o.failed_cells);
    rc = 1;
  }
  if (!plot_dir.empty()) {
    const int prc = run_plot_script(options.out_dir, plot_dir);
    if (rc == 0) rc = prc;
  }
  return rc;
}

}  // namespace ringsched
