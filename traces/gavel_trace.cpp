// traces/gavel_trace.cpp — the "gavel" trace format: its reader (both column layouts) and what a row means (a job
// type with a number of steps on its scale factor's GPUs).
#include "traces/gavel_trace.h"

#include <algorithm>
#include <array>
#include <fstream>
#include <sstream>

#include "workloads/csv.h"

namespace ringsched {
namespace {

const std::vector<std::string> kTenColumns = {
    "job_type",    "command",      "working_directory", "num_steps_arg", "needs_data_dir",
    "total_steps", "scale_factor", "priority_weight",   "SLO",           "arrival_time"};
const std::vector<std::string> kSevenColumns = {"job_type",    "command",      "num_steps_arg", "needs_data_dir",
                                                "total_steps", "arrival_time", "scale_factor"};

// The trace as a table with the layout's column names, so fields get CsvTable's checked accessors and messages.
CsvTable read_tab_lines(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(path + ": cannot open the trace file");
  CsvTable t;
  t.file = path;
  std::string line;
  int number = 0;
  while (std::getline(in, line)) {
    ++number;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.find_first_not_of(" \t") == std::string::npos) continue;
    CsvRow row;
    row.line = number;
    std::size_t start = 0;
    while (true) {
      const std::size_t tab = line.find('\t', start);
      row.fields.push_back(line.substr(start, tab == std::string::npos ? std::string::npos : tab - start));
      if (tab == std::string::npos) break;
      start = tab + 1;
    }
    if (t.header.empty()) {
      if (row.fields.size() == kTenColumns.size()) {
        t.header = kTenColumns;
      } else if (row.fields.size() == kSevenColumns.size()) {
        t.header = kSevenColumns;
      } else {
        throw InputError(path + ":" + std::to_string(number) + ": " + std::to_string(row.fields.size()) +
                         " tab-separated columns; a Gavel trace has 10 (" + join_names(kTenColumns) + ") or 7 (" +
                         join_names(kSevenColumns) + ")");
      }
    } else if (row.fields.size() != t.header.size()) {
      throw InputError(path + ":" + std::to_string(number) + ": " + std::to_string(row.fields.size()) +
                       " tab-separated columns where the first line has " + std::to_string(t.header.size()));
    }
    for (auto& f : row.fields) {  // Gavel's own lines end in '\n' inside the last field; trim spaces too
      const auto b = f.find_first_not_of(' ');
      const auto e = f.find_last_not_of(' ');
      f = b == std::string::npos ? std::string() : f.substr(b, e - b + 1);
    }
    t.rows.push_back(std::move(row));
  }
  if (in.bad()) throw InputError(path + ": read error");
  if (t.rows.empty()) throw InputError(path + ":1: empty trace (no jobs)");
  return t;
}

// Steps -> samples: a step processes the class's global batch at the job's size.
double samples_per_step(const JobClass& c, int gpus) {
  return global_batch(c, std::max(1, gpus));
}

class GavelTraceFormat final : public TraceFormat {
 public:
  [[nodiscard]] std::string name() const override { return "gavel"; }
  [[nodiscard]] std::string description() const override {
    return "Gavel's trace files: tab-separated job type, steps, scale factor and arrival per line (its 10- and "
           "7-column layouts; the job type is the class)";
  }
  [[nodiscard]] std::vector<std::string> keys() const override { return {}; }
  [[nodiscard]] bool reads_seconds() const override { return true; }

  [[nodiscard]] Trace read(const std::string& path, const JsonReader& /*options*/, const std::string& time_unit,
                           const Catalog& /*catalog*/, TraceWorkloadSpec& /*spec*/) const override {
    return read_gavel_trace(path, time_unit);
  }

  [[nodiscard]] int row_class(const TraceJob& row, const Catalog& cat, int /*default_class*/,
                              const std::string& at) const override {
    const int cls = cat.find(row.application);
    if (cls < 0) {
      throw InputError(at + "job type '" + row.application + "' is not a class of catalog " + cat.name +
                       " (classes: " + join_names(cat.class_names()) + ")");
    }
    return cls;
  }

  // The steps the trace gives, as samples at the size the job asked for.
  void fill_job(const TraceJob& row, const JobClass& c, int asked, int /*gpus_per_node*/, double /*z_work*/,
                JobTruth& job) const override {
    job.work_samples = row.steps * samples_per_step(c, asked);
  }

  // The steps at the class's reference speed on the GPUs asked for, times those GPUs.
  [[nodiscard]] double offered_gpu_seconds(const TraceJob& row, const JobClass& c, int asked,
                                           int gpus_per_node) const override {
    const int gpn = std::max(1, gpus_per_node);
    const double rate = class_throughput(c, asked, packed_nodes(asked, gpn));
    return rate > 0.0 ? row.steps * samples_per_step(c, asked) / rate * asked : 0.0;
  }
};

}  // namespace

Trace read_gavel_trace(const std::string& path, const std::string& time_unit) {
  const double unit = time_unit_seconds(time_unit, path + ": time_unit");
  const CsvTable t = read_tab_lines(path);
  const int c_type = t.require_column("job_type");
  const int c_steps = t.require_column("total_steps");
  const int c_sf = t.require_column("scale_factor");
  const int c_arrival = t.require_column("arrival_time");
  const int c_priority = t.column("priority_weight");
  const int c_slo = t.column("SLO");
  Trace tr;
  tr.file = path;
  tr.format = &gavel_trace_format();
  for (const CsvRow& row : t.rows) {
    TraceJob j;
    j.line = row.line;
    j.name = "line-" + std::to_string(row.line);
    j.application = t.text(row, c_type);
    if (j.application.empty()) t.fail(row, "column 'job_type': empty");
    j.steps = t.positive(row, c_steps);
    if (j.steps < 1.0 || j.steps > 1e15)
      t.fail(row, "column 'total_steps': " + t.text(row, c_steps) + " is outside 1..1e15");
    j.gpus = t.integer_in(row, c_sf, 1, 1 << 20);
    j.submit_s = t.non_negative(row, c_arrival) * unit;
    if (!(j.submit_s <= kMaxTraceSeconds)) {
      t.fail(row, "column 'arrival_time': " + t.text(row, c_arrival) + " " + time_unit +
                      " is beyond 1e12 s (about 31,700 years)");
    }
    if (c_priority >= 0 && t.number(row, c_priority) != 1.0) {
      t.fail(row, "column 'priority_weight': " + t.text(row, c_priority) +
                      " (only 1 is supported: ringsched's Gavel policies give every job the same weight)");
    }
    if (c_slo >= 0 && t.number(row, c_slo) != -1.0) {
      t.fail(row, "column 'SLO': " + t.text(row, c_slo) + " (only -1, no SLO, is supported)");
    }
    tr.jobs.push_back(j);
  }
  sort_and_rebase(tr);
  return tr;
}

const TraceFormat& gavel_trace_format() {
  static const GavelTraceFormat format;
  return format;
}

}  // namespace ringsched
