// traces/trace.cpp — trace readers (Pollux workload files, generic traces) and trace-driven workloads.
#include "traces/trace.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <stdexcept>

#include <boost/random/normal_distribution.hpp>

#include "workloads/csv.h"
#include "workloads/goodput_app.h"
#include "workloads/json_reader.h"
#include "workloads/rng.h"

namespace ringsched {
namespace {
constexpr double kMaxTraceSeconds = 1e12;  // times and durations; the engine's horizon
}  // namespace

Trace read_pollux_workload(const std::string& path) {
  const CsvTable t = read_csv_file(path);
  if (t.rows.empty()) throw InputError(path + ":2: empty trace (no jobs)");
  const int c_name = t.require_column("name");
  const int c_time = t.require_column("time");
  const int c_app = t.require_column("application");
  const int c_reps = t.require_column("num_replicas");
  const int c_bsz = t.require_column("batch_size");
  Trace tr;
  tr.file = path;
  tr.format = "pollux";
  double last = 0.0;
  for (const CsvRow& row : t.rows) {
    TraceJob j;
    j.line = row.line;
    j.name = t.text(row, c_name);
    j.submit_s = t.non_negative(row, c_time);
    if (!(j.submit_s <= kMaxTraceSeconds)) t.fail(row, "column 'time': beyond 1e12 s (about 31,700 years)");
    if (j.submit_s < last) {
      t.fail(row,
             "column 'time': times must not decrease, got " + t.text(row, c_time) + " after " + std::to_string(last));
    }
    last = j.submit_s;
    j.application = t.text(row, c_app);
    if (j.application.empty()) t.fail(row, "column 'application': empty");
    j.gpus = t.integer_in(row, c_reps, 1, 1 << 20);
    j.batch_size = t.positive(row, c_bsz);
    tr.jobs.push_back(j);
  }
  return tr;
}

double time_unit_seconds(const std::string& unit, const std::string& where) {
  if (unit == "s") return 1.0;
  if (unit == "ms") return 1e-3;
  if (unit == "min") return 60.0;
  if (unit == "h") return 3600.0;
  throw InputError(where + ": unknown time unit '" + unit + "' (valid: s, ms, min, h)");
}

namespace {

// Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's days_from_civil).
long long days_from_civil(long long y, unsigned m, unsigned d) {
  y -= m <= 2 ? 1 : 0;
  const long long era = (y >= 0 ? y : y - 399) / 400;
  const auto yoe = static_cast<unsigned>(y - era * 400);
  const unsigned doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + static_cast<long long>(doe) - 719468;
}

// "YYYY-MM-DD HH:MM:SS" (or with 'T') -> seconds since the epoch, UTC. Returns false if malformed.
bool parse_datetime(const std::string& s, double& out) {
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

}  // namespace

Trace read_generic_trace(const std::string& path, const GenericTraceSpec& spec) {
  const double unit = time_unit_seconds(spec.time_unit, path + ": time_unit");
  if (spec.submit_format != "auto" && spec.submit_format != "number" && spec.submit_format != "datetime") {
    throw InputError(path + ": unknown submit format '" + spec.submit_format + "' (valid: auto, number, datetime)");
  }
  const CsvTable t = read_csv_file(path);
  if (t.rows.empty()) throw InputError(path + ":2: empty trace (no jobs)");
  const int c_sub = t.require_column(spec.submit_column);
  const int c_dur = t.require_column(spec.duration_column);
  const int c_gpus = t.require_column(spec.gpus_column);
  const int c_id = spec.id_column.empty() ? -1 : t.require_column(spec.id_column);
  Trace tr;
  tr.file = path;
  tr.format = "generic";
  for (const CsvRow& row : t.rows) {
    TraceJob j;
    j.line = row.line;
    j.name = "line-" + std::to_string(row.line);
    if (c_id >= 0) {
      j.name = t.text(row, c_id);
      if (j.name.empty()) t.fail(row, "column '" + spec.id_column + "': empty job id");
    }
    const std::string& sub = t.text(row, c_sub);
    double dt = 0.0;
    const bool try_date = spec.submit_format != "number";
    if (try_date && parse_datetime(sub, dt)) {
      j.submit_s = dt;
    } else if (spec.submit_format == "datetime") {
      t.fail(row, "column '" + spec.submit_column + "': expected YYYY-MM-DD HH:MM:SS, got '" + sub + "'");
    } else {
      j.submit_s = t.non_negative(row, c_sub) * unit;
    }
    j.duration_s = t.non_negative(row, c_dur) * unit;
    if (!(j.submit_s <= kMaxTraceSeconds)) {
      t.fail(row, "column '" + spec.submit_column + "': " + t.text(row, c_sub) + " " + spec.time_unit +
                      " is beyond 1e12 s (about 31,700 years)");
    }
    if (!(j.duration_s <= kMaxTraceSeconds)) {
      t.fail(row, "column '" + spec.duration_column + "': " + t.text(row, c_dur) + " " + spec.time_unit +
                      " is beyond 1e12 s (about 31,700 years)");
    }
    j.gpus = t.integer_in(row, c_gpus, 1, 1 << 20);
    tr.jobs.push_back(j);
  }
  std::stable_sort(tr.jobs.begin(), tr.jobs.end(),
                   [](const TraceJob& a, const TraceJob& b) { return a.submit_s < b.submit_s; });
  const double t0 = tr.jobs.front().submit_s;
  for (auto& j : tr.jobs)
    j.submit_s -= t0;
  return tr;
}

Trace repeat_trace(const Trace& trace, int copies, double every) {
  if (copies < 1) throw std::invalid_argument("repeat_trace: copies must be >= 1");
  // Order by (time, copy, row): the order a stable sort of the copies appended one after the other gives, found on
  // small keys instead of moving whole rows.
  struct Key {
    double t;
    int copy;
    std::size_t row;
  };
  std::vector<Key> keys;
  keys.reserve(trace.jobs.size() * static_cast<std::size_t>(copies));
  for (int k = 0; k < copies; ++k) {
    const double shift = static_cast<double>(k) * every;
    for (std::size_t i = 0; i < trace.jobs.size(); ++i)
      keys.push_back({trace.jobs[i].submit_s + shift, k, i});
  }
  std::sort(keys.begin(), keys.end(), [](const Key& a, const Key& b) {
    if (a.t != b.t) return a.t < b.t;
    if (a.copy != b.copy) return a.copy < b.copy;
    return a.row < b.row;
  });
  Trace out;
  out.file = trace.file;
  out.format = trace.format;
  out.jobs.reserve(keys.size());
  for (const Key& key : keys) {
    TraceJob c = trace.jobs[key.row];
    c.submit_s = key.t;
    if (key.copy > 0) c.name += "~" + std::to_string(key.copy);
    out.jobs.push_back(std::move(c));
  }
  return out;
}

std::string to_string(Oversize o) {
  switch (o) {
    case Oversize::kError:
      return "error";
    case Oversize::kClamp:
      return "clamp";
    case Oversize::kDrop:
      return "drop";
  }
  return "error";
}

Oversize parse_oversize(const std::string& name, const std::string& where) {
  if (name == "error") return Oversize::kError;
  if (name == "clamp") return Oversize::kClamp;
  if (name == "drop") return Oversize::kDrop;
  throw InputError(where + ": unknown value '" + name + "' (valid: error, clamp, drop)");
}

namespace {

// How one trace row becomes a job: its class, the GPUs it asks for and the GPUs it runs at.
struct RowPlan {
  int cls = 0;
  int asked = 0;
  int gpus = 0;
  bool keep = true;
  bool clamped = false;
};

int generic_class_index(const Trace& trace, const Catalog& cat, const TraceWorkloadSpec& spec) {
  if (trace.format == "pollux" || spec.class_name.empty()) return 0;
  const int c = cat.find(spec.class_name);
  if (c < 0) {
    throw InputError(trace.file + ": class '" + spec.class_name + "' is not in catalog " + cat.name +
                     " (classes: " + join_names(cat.class_names()) + ")");
  }
  return c;
}

RowPlan plan_row(const Trace& trace, const TraceJob& tj, const Catalog& cat, const TraceWorkloadSpec& spec,
                 int generic_class) {
  const std::string at = trace.file + ":" + std::to_string(tj.line) + ": ";
  RowPlan p;
  p.cls = generic_class;
  if (trace.format == "pollux") {
    p.cls = cat.find(tj.application);
    if (p.cls < 0) {
      throw InputError(at + "unknown application '" + tj.application + "' (known: " + join_names(cat.class_names()) +
                       ")");
    }
  }
  const JobClass& c = cat.classes[static_cast<std::size_t>(p.cls)];
  if (trace.format == "pollux" && c.goodput) {
    const auto lo = c.goodput->init_batch_size();
    const auto hi = c.goodput->max_batch_size();
    if (tj.batch_size < lo || tj.batch_size > hi) {
      char buf[160];
      std::snprintf(buf, sizeof buf, "batch_size %g is outside %s's validated batch sizes %g..%g", tj.batch_size,
                    tj.application.c_str(), lo, hi);
      throw InputError(at + buf);
    }
  }
  p.asked = tj.gpus;
  const int hi = spec.max_gpus > 0 ? std::min(c.max_gpus, spec.max_gpus) : c.max_gpus;
  const int lo = std::min(c.min_gpus, hi);
  p.gpus = std::clamp(p.asked, lo, hi);
  if (p.gpus == p.asked) return p;
  switch (spec.oversize) {
    case Oversize::kError:
      throw InputError(at + "job '" + tj.name + "' asks for " + std::to_string(p.asked) + " GPUs; class " + c.name +
                       " runs on " + std::to_string(c.min_gpus) + ".." + std::to_string(c.max_gpus) +
                       (spec.max_gpus > 0 ? " and the cluster allows at most " + std::to_string(spec.max_gpus) : "") +
                       " (set workload.trace.oversize to \"clamp\" or \"drop\" to run such traces, counted in "
                       "the output)");
    case Oversize::kClamp:
      p.clamped = true;
      break;
    case Oversize::kDrop:
      p.keep = false;
      break;
  }
  return p;
}

std::size_t rows_used(const Trace& trace, const TraceWorkloadSpec& spec) {
  return spec.max_jobs > 0 ? std::min(trace.jobs.size(), static_cast<std::size_t>(spec.max_jobs)) : trace.jobs.size();
}

}  // namespace

Workload workload_from_trace(const Trace& trace, std::shared_ptr<const Catalog> catalog, const TraceWorkloadSpec& spec,
                             std::uint64_t seed) {
  Workload w;
  w.catalog = std::move(catalog);
  const Catalog& cat = *w.catalog;
  const int generic_class = generic_class_index(trace, cat, spec);
  Rng noise = make_rng(seed, Stream::kJobNoise);
  boost::random::normal_distribution<double> gauss(0.0, 1.0);
  const std::size_t n = rows_used(trace, spec);
  for (std::size_t i = 0; i < n; ++i) {
    const TraceJob& tj = trace.jobs[i];
    const RowPlan plan = plan_row(trace, tj, cat, spec, generic_class);
    // Both normals are drawn for every row, kept or not, so a dropped row does not shift the others' noise.
    const double zw = gauss(noise);
    const double zs = gauss(noise);
    if (!plan.keep) continue;
    JobTruth j;
    j.id = static_cast<int>(w.jobs.size());
    j.arrival = tj.submit_s * spec.time_scale;
    j.name = tj.name;
    j.class_index = plan.cls;
    const JobClass& c = cat.classes[static_cast<std::size_t>(plan.cls)];
    j.requested_gpus = plan.gpus;
    if (trace.format == "pollux") {
      j.work_samples = c.work_samples * std::exp(c.work_sigma * zw - 0.5 * c.work_sigma * c.work_sigma);
      if (c.goodput) j.batch_size = tj.batch_size;
    } else {
      // The work the job did in the trace, at the size it asked for (also when it runs clamped).
      const int gpn = std::max(1, spec.gpus_per_node);
      j.work_samples = std::max(1.0, tj.duration_s) * class_throughput(c, plan.asked, packed_nodes(plan.asked, gpn));
    }
    j.speed_factor = std::exp(spec.speed_sigma * zs - 0.5 * spec.speed_sigma * spec.speed_sigma);
    w.jobs.push_back(j);
  }
  if (w.jobs.empty()) throw InputError(trace.file + ": no job left (every request was dropped by oversize \"drop\")");
  return w;
}

TraceNotes trace_notes(const Trace& trace, const Catalog& cat, const TraceWorkloadSpec& spec, int total_gpus) {
  TraceNotes notes;
  notes.rows = trace.jobs.size();
  const std::size_t n = rows_used(trace, spec);
  notes.truncated = notes.rows - n;
  const int generic_class = generic_class_index(trace, cat, spec);
  const int gpn = std::max(1, spec.gpus_per_node);
  double gpu_seconds = 0.0;
  double first = 0.0;
  double last = 0.0;
  for (std::size_t i = 0; i < n; ++i) {
    const TraceJob& tj = trace.jobs[i];
    const RowPlan plan = plan_row(trace, tj, cat, spec, generic_class);
    if (!plan.keep) {
      ++notes.dropped;
      continue;
    }
    notes.clamped += plan.clamped ? 1 : 0;
    const double t = tj.submit_s * spec.time_scale;
    if (notes.jobs == 0) first = t;
    last = t;
    ++notes.jobs;
    if (trace.format == "pollux") {
      const JobClass& c = cat.classes[static_cast<std::size_t>(plan.cls)];
      const int w8 = std::min(8, c.max_gpus);
      gpu_seconds += c.work_samples / class_throughput(c, w8, packed_nodes(w8, gpn)) * w8;
    } else {
      gpu_seconds += std::max(1.0, tj.duration_s) * plan.asked;
    }
  }
  const double span = last - first;
  if (span > 0.0 && total_gpus > 0 && std::isfinite(gpu_seconds)) {
    notes.offered_load = gpu_seconds / (span * static_cast<double>(total_gpus));
  }
  return notes;
}

}  // namespace ringsched
