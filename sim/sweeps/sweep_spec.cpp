// sim/sweeps/sweep_spec.cpp — sweep file parsing: JSON paths, axes (values or ranges) or explicit cells, the
// expansion into cells and the config hash.
#include "sim/sweeps/sweep_spec.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>

#include "sim/experiments/builtin_configs.h"
#include "sim/experiments/config.h"
#include "workloads/io/json_reader.h"

namespace ringsched {
namespace {

constexpr std::size_t kMaxCells = 10'000'000;

// Shortest text that reads back as the same double, for messages.
std::string number_text(double v) {
  return nlohmann::json(v).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
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
  // Bounds within +-1e15: integers stay exact in a double and (to - from) / step cannot overflow.
  const double from = rr.at("from").as_number_in(-1e15, 1e15);
  const double to = rr.at("to").as_number_in(-1e15, 1e15);
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
      rr.at("step").fail("goes from " + number_text(from) + " away from " + number_text(to) + ": the range is empty");
    }
    const double n = std::floor((to - from) / step + 1e-9) + 1.0;
    if (!(n <= static_cast<double>(kMaxCells))) rr.fail("more than 10,000,000 values");
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

std::string axis_value_text(const nlohmann::json& v) {
  if (v.is_null()) return "";
  if (v.is_string()) return v.get<std::string>();
  return v.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

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
    out += axes[a].name + "=" + axis_value_text(vals[a]);
  }
  return out.empty() ? "(base)" : out;
}

namespace {

// `base`: a config object, a config file (relative to the sweep file) or a built-in config's origin.
void parse_base(const JsonReader& b, const std::string& origin, const std::string& base_dir, SweepSpec& spec) {
  if (b.is_object()) {
    spec.base = b.value();
    spec.base_origin = origin + " (base)";
    spec.base_dir = base_dir;
    return;
  }
  if (!b.is_string())
    b.fail("must be an experiment config object, a config file name, builtin:table3 or builtin:heldout");
  const std::string name = b.as_string();
  if (const std::string builtin = builtin_config_name_of_origin(name); !builtin.empty()) {
    spec.base = parse_json_text(builtin_config_text(builtin), name);
    spec.base_origin = name;
    return;
  }
  std::filesystem::path p(name);
  if (p.is_relative() && !base_dir.empty()) p = std::filesystem::path(base_dir) / p;
  std::error_code ec;
  if (!std::filesystem::is_regular_file(p, ec)) {
    b.fail("cannot read base config '" + p.string() + "' (give a config file, builtin:table3 or builtin:heldout)");
  }
  spec.base = read_json_file(p.string());
  spec.base_origin = p.string();
  spec.base_dir = p.parent_path().string();
}

// `axes`: the cartesian product, row-major (the last axis varies fastest).
void parse_axes(const JsonReader& list, SweepSpec& spec) {
  std::size_t total = 1;
  for (const auto& ar : list.non_empty_elements()) {
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
  for (std::size_t i = 0; i < total; ++i) {
    std::vector<nlohmann::json> vals(spec.axes.size());
    std::size_t rest = i;
    for (std::size_t k = spec.axes.size(); k-- > 0;) {
      vals[k] = spec.axes[k].values[rest % spec.axes[k].values.size()];
      rest /= spec.axes[k].values.size();
    }
    spec.cells.push_back(std::move(vals));
  }
}

// `cells`: an explicit list; its columns are every path some cell names, in order of first appearance.
void parse_cell_list(const JsonReader& cells, SweepSpec& spec) {
  const auto list = cells.non_empty_elements();
  if (list.size() > kMaxCells) cells.fail("more than 10,000,000 cells");
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

// The hash of the canonical sweep (format version, base, axes, cells): what --resume compares.
std::string config_hash(const SweepSpec& spec) {
  nlohmann::json canon;
  canon["format_version"] = kSweepFormatVersion;
  canon["base"] = spec.base;
  nlohmann::json axes = nlohmann::json::array();
  for (const auto& a : spec.axes)
    axes.push_back({{"name", a.name}, {"path", a.path}});
  canon["axes"] = axes;
  nlohmann::json cells = nlohmann::json::array();
  for (const auto& c : spec.cells)
    cells.push_back(c);
  canon["cells"] = cells;
  return fnv1a64_hex(canon.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
}

}  // namespace

SweepSpec parse_sweep(const nlohmann::json& doc, const std::string& origin, const std::string& base_dir) {
  JsonReader r(doc, origin);
  r.expect_object({"description", "base", "replicates", "axes", "cells"});
  SweepSpec spec;
  spec.origin = origin;
  spec.description = r.string_or("description", "");
  parse_base(r.at("base"), origin, base_dir, spec);
  if (auto rep = r.maybe("replicates")) spec.base["seeds"] = rep->as_integer_in(1, 100000);
  // The base must be valid on its own: a typo there would otherwise fail every cell.
  (void)parse_experiment(spec.base, spec.base_origin, spec.base_dir);
  const bool has_axes = r.has("axes");
  if (has_axes == r.has("cells")) r.fail("give exactly one of axes (cartesian product) or cells (explicit list)");
  if (has_axes) {
    parse_axes(r.at("axes"), spec);
  } else {
    parse_cell_list(r.at("cells"), spec);
  }
  spec.config_hash = config_hash(spec);
  return spec;
}

SweepSpec load_sweep(const std::string& path) {
  const auto doc = read_json_file(path);
  return parse_sweep(doc, path, std::filesystem::path(path).parent_path().string());
}

}  // namespace ringsched
