// traces/generic_trace.cpp — the "generic" trace format: its reader (column mapping, datetimes, units) and what a
// row means (a duration on the GPUs it asked for, in the configured class).
#include "traces/generic_trace.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <unordered_map>
#include <utility>

#include "traces/recorded_run.h"
#include "traces/trace_time.h"
#include "workloads/catalog.h"
#include "workloads/io/csv.h"

namespace ringsched {
namespace {

// "YYYY-MM-DD HH:MM:SS" (or with 'T') -> seconds since the epoch, UTC. Returns false if malformed.
bool parse_plain_datetime(const std::string& s, double& out) {
  int y = 0;
  unsigned mo = 0;
  unsigned d = 0;
  unsigned h = 0;
  unsigned mi = 0;
  unsigned se = 0;
  char sep = 0;
  char tail = 0;
  if (std::sscanf(s.c_str(), "%4d-%2u-%2u%c%2u:%2u:%2u%c", &y, &mo, &d, &sep, &h, &mi, &se, &tail) != 7) return false;
  if ((sep != ' ' && sep != 'T') || mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || se > 60) return false;
  out = static_cast<double>(days_from_civil(y, mo, d)) * 86400.0 + h * 3600.0 + mi * 60.0 + se;
  return true;
}

// "YYYY-MM-DD HH:MM:SS" (or with 'T'; fields of one or two digits, as this reader always took them), else a trace
// date-time with fractional seconds and a UTC offset (traces/trace_time.h) -> seconds since the epoch, UTC. Returns
// false if malformed.
bool parse_datetime(const std::string& s, double& out) {
  if (parse_plain_datetime(s, out)) return true;
  return parse_trace_datetime(s, out);
}

// The words for a time unit in messages ("a number of minutes").
std::string unit_words(const std::string& unit) {
  if (unit == "ms") return "milliseconds";
  if (unit == "min") return "minutes";
  if (unit == "h") return "hours";
  return "seconds";
}

// A decimal number as CsvTable::number reads one (finite; a leading '+' allowed).
bool is_number(const std::string& s) {
  double v = 0.0;
  const char* first = s.data() + (!s.empty() && s[0] == '+' ? 1 : 0);
  const char* last = s.data() + s.size();
  const auto res = std::from_chars(first, last, v);
  return !s.empty() && res.ec == std::errc() && res.ptr == last && std::isfinite(v);
}

// The submit column's time in seconds, read as spec.submit_format says; a field that is neither says what each format
// takes (a malformed date-time is not "expected a finite number").
double submit_seconds(const CsvTable& t, const CsvRow& row, int col, const GenericTraceSpec& spec, double unit) {
  const std::string& sub = t.text(row, col);
  const std::string at = "column '" + spec.submit_column + "': ";
  const std::string shown = "'" + (sub.size() > 60 ? sub.substr(0, 57) + "..." : sub) + "'";
  double dt = 0.0;
  if (spec.submit_format != "number" && parse_datetime(sub, dt)) return dt;
  if (spec.submit_format == "datetime") {
    t.fail(row, at +
                    "expected a date-time like 2017-10-03 14:26:27 (YYYY-MM-DD HH:MM:SS[.fraction][+HH:MM], UTC "
                    "without an offset; submit_format is "
                    "\"datetime\"), got " +
                    shown);
  }
  if (spec.submit_format == "number" && !is_number(sub)) {
    t.fail(row, at + "expected a number of " + unit_words(spec.time_unit) +
                    (parse_datetime(sub, dt) ? " (submit_format is \"number\"; \"auto\" reads date-times too)" : "") +
                    ", got " + shown);
  }
  if (!is_number(sub)) {
    t.fail(row, at +
                    "expected a date-time like 2017-10-03 14:26:27 (YYYY-MM-DD HH:MM:SS[.fraction][+HH:MM], UTC "
                    "without an offset) or a number of " +
                    unit_words(spec.time_unit) + ", got " + shown);
  }
  return t.non_negative(row, col) * unit;
}

// A header read as one column: when it holds another common separator, say so (only commas separate fields here).
void one_column_hint(const CsvTable& t, const std::string& path) {
  const std::string& h = t.header[0];
  for (const auto& [c, word] : {std::pair<char, const char*>{';', "';'"}, {'\t', "tabs"}, {'|', "'|'"}}) {
    if (h.find(c) == std::string::npos) continue;
    throw InputError(path + ":1: the header is one column ('" + (h.size() > 60 ? h.substr(0, 57) + "..." : h) +
                     "'): the file seems separated by " + word +
                     ", but generic traces are comma-separated (convert it first, e.g. with Python's csv module)");
  }
}

// The catalog class a row's class cell names: through class_map, else the name itself when the catalog has it.
// `seen` caches the names met so far (a trace of a million rows names a few models).
const std::string& generic_row_class(const CsvTable& t, const CsvRow& row, int col, const GenericTraceSpec& spec,
                                     std::unordered_map<std::string, std::string>& seen) {
  const std::string& cell = t.text(row, col);
  if (const auto it = seen.find(cell); it != seen.end()) return it->second;
  if (const auto m = spec.class_map.find(cell); m != spec.class_map.end())
    return seen.emplace(cell, m->second).first->second;
  if (std::find(spec.catalog_classes.begin(), spec.catalog_classes.end(), cell) != spec.catalog_classes.end()) {
    if (!cell.empty()) return seen.emplace(cell, cell).first->second;
  }
  const std::string shown = "'" + (cell.size() > 60 ? cell.substr(0, 57) + "..." : cell) + "'";
  t.fail(row, "column '" + spec.class_column +
                  "': " + (cell.empty() ? std::string("no class") : "unknown class " + shown) + " (catalog " +
                  spec.catalog_name + " has " + join_names(spec.catalog_classes) +
                  "; map the trace's names to them with the trace's \"class_map\")");
}

// workload.trace.columns and class_map into `g` (class_map only with columns.class, its values catalog classes).
void read_generic_columns(const JsonReader& tr, const Catalog& cat, GenericTraceSpec& g) {
  if (auto cols = tr.maybe("columns")) {
    cols->expect_object({"submit", "duration", "gpus", "id", "gpu_type", "class", "user", "vc"});
    g.id_column = cols->string_or("id", "");
    g.submit_column = cols->string_or("submit", g.submit_column);
    g.duration_column = cols->string_or("duration", g.duration_column);
    g.gpus_column = cols->string_or("gpus", g.gpus_column);
    g.gpu_type_column = cols->string_or("gpu_type", "");
    g.class_column = cols->string_or("class", "");
    g.user_column = cols->string_or("user", "");
    g.vc_column = cols->string_or("vc", "");
    if (!g.class_column.empty() && tr.has("class")) {
      tr.at("class").fail(
          "give either \"class\" (one class for every job) or columns.class (each row's class), not both");
    }
  }
  g.catalog_classes = cat.class_names();
  g.catalog_name = cat.name;
  if (auto map = tr.maybe("class_map")) {
    if (g.class_column.empty()) map->fail("needs columns.class (the column whose names it maps)");
    if (!map->value().is_object()) map->fail("expected an object of trace name -> catalog class");
    for (const auto& [name, value] : map->value().items()) {
      const JsonReader v = map->at(name);
      const std::string cls = v.as_string();
      if (cat.find(cls) < 0) {
        v.fail("class '" + cls + "' is not in catalog " + cat.name + " (classes: " + join_names(cat.class_names()) +
               ")");
      }
      g.class_map[name] = cls;
    }
  }
}

class GenericTraceFormat final : public RecordedRunFormat {
 public:
  [[nodiscard]] std::string name() const override { return "generic"; }
  [[nodiscard]] std::string description() const override {
    return "submit time, duration and GPUs per row (column names, units and the class configurable)";
  }
  [[nodiscard]] std::vector<std::string> keys() const override {
    return {"columns", "submit_format", "class", "zero_gpus", "class_map"};
  }

  // The row's class column (TraceJob::class_name) when the trace has one, else workload.trace.class.
  [[nodiscard]] int row_class(const TraceJob& row, const Catalog& catalog, int default_class,
                              const std::string& at) const override {
    if (row.class_name.empty()) return default_class;
    const int c = catalog.find(row.class_name);
    if (c < 0) {
      throw InputError(at + "class '" + row.class_name + "' is not in catalog " + catalog.name +
                       " (classes: " + join_names(catalog.class_names()) + ")");
    }
    return c;
  }

  [[nodiscard]] Trace read(const std::string& path, const JsonReader& tr, const std::string& time_unit,
                           const Catalog& cat, TraceWorkloadSpec& spec) const override {
    GenericTraceSpec g;
    g.time_unit = time_unit;
    g.submit_format = tr.string_or("submit_format", "auto");
    if (g.submit_format != "auto" && g.submit_format != "number" && g.submit_format != "datetime") {
      tr.at("submit_format").fail("unknown value '" + g.submit_format + "' (valid: auto, number, datetime)");
    }
    g.zero_gpus = tr.string_or("zero_gpus", "error");
    if (g.zero_gpus != "error" && g.zero_gpus != "drop") {
      tr.at("zero_gpus").fail("unknown value '" + g.zero_gpus + "' (valid: error, drop)");
    }
    read_generic_columns(tr, cat, g);
    read_class_key(tr, cat, spec);
    return read_generic_trace(path, g, static_cast<std::size_t>(std::max(0, spec.max_jobs)));
  }
};

}  // namespace

Trace read_generic_trace(const std::string& path, const GenericTraceSpec& spec, std::size_t keep) {
  const double unit = time_unit_seconds(spec.time_unit, path + ": time_unit");
  if (spec.submit_format != "auto" && spec.submit_format != "number" && spec.submit_format != "datetime") {
    throw InputError(path + ": unknown submit format '" + spec.submit_format + "' (valid: auto, number, datetime)");
  }
  Trace tr;
  tr.file = path;
  tr.format = &generic_trace_format();
  TraceRows kept(path, keep);
  int c_sub = -1;
  int c_dur = -1;
  int c_gpus = -1;
  int c_id = -1;
  int c_type = -1;
  int c_class = -1;
  int c_user = -1;
  int c_vc = -1;
  std::unordered_map<std::string, std::string> classes_seen;
  for_each_csv_row(path, [&](const CsvTable& t, const CsvRow& row) {
    if (c_sub < 0) {
      if (t.header.size() == 1) one_column_hint(t, path);
      c_sub = t.require_column(spec.submit_column);
      c_dur = t.require_column(spec.duration_column);
      c_gpus = t.require_column(spec.gpus_column);
      const auto optional = [&t](const std::string& name) { return name.empty() ? -1 : t.require_column(name); };
      c_id = optional(spec.id_column);
      c_type = optional(spec.gpu_type_column);
      c_class = optional(spec.class_column);
      c_user = optional(spec.user_column);
      c_vc = optional(spec.vc_column);
    }
    TraceJob j;
    j.line = row.line;
    j.name = "line-" + std::to_string(row.line);
    if (c_id >= 0) {
      j.name = t.text(row, c_id);
      if (j.name.empty()) t.fail(row, "column '" + spec.id_column + "': empty job id");
    }
    j.submit_s = submit_seconds(t, row, c_sub, spec, unit);
    j.duration_s = t.non_negative(row, c_dur) * unit;
    if (!(j.submit_s <= kMaxTraceSeconds)) {
      t.fail(row, "column '" + spec.submit_column + "': " + t.text(row, c_sub) + " " + spec.time_unit +
                      " is beyond 1e12 s (about 31,700 years)");
    }
    if (!(j.duration_s <= kMaxTraceSeconds)) {
      t.fail(row, "column '" + spec.duration_column + "': " + t.text(row, c_dur) + " " + spec.time_unit +
                      " is beyond 1e12 s (about 31,700 years)");
    }
    j.gpus = t.integer_in(row, c_gpus, 0, 1 << 20);
    if (j.gpus == 0) {
      if (spec.zero_gpus == "drop") {
        ++tr.skipped.zero_gpus;
        return;
      }
      t.fail(row, "column '" + spec.gpus_column +
                      "': 0 GPUs (a CPU job); set the trace's \"zero_gpus\": \"drop\" to leave such rows out");
    }
    if (c_type >= 0) j.gpu_type = t.text(row, c_type);
    if (c_user >= 0) j.user = t.text(row, c_user);
    if (c_vc >= 0) j.vc = t.text(row, c_vc);
    if (c_class >= 0) j.class_name = generic_row_class(t, row, c_class, spec, classes_seen);
    kept.add(std::move(j));
  });
  if (kept.rows() == 0 && tr.skipped.zero_gpus > 0) {
    throw InputError(path + ": no job to replay (all " + std::to_string(tr.skipped.zero_gpus) +
                     " rows ask for 0 GPUs and zero_gpus is \"drop\")");
  }
  if (kept.rows() == 0) throw InputError(path + ":2: empty trace (no jobs)");
  kept.finish(tr, true);
  return tr;
}

const TraceFormat& generic_trace_format() {
  static const GenericTraceFormat format;
  return format;
}
const TraceFormatRegistrar generic_trace_registrar{generic_trace_format, 20};

}  // namespace ringsched
