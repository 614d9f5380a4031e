// traces/gavel_trace.cpp — the "gavel" trace format: its reader (both column layouts) and what a row means (a job
// type with a number of steps on its scale factor's GPUs).
#include "traces/gavel_trace.h"

#include <algorithm>
#include <array>
#include <functional>

#include "workloads/io/csv.h"
#include "workloads/io/input_file.h"

namespace ringsched {
namespace {

const std::vector<std::string> kTenColumns = {
    "job_type",    "command",      "working_directory", "num_steps_arg", "needs_data_dir",
    "total_steps", "scale_factor", "priority_weight",   "SLO",           "arrival_time"};
const std::vector<std::string> kSevenColumns = {"job_type",    "command",      "num_steps_arg", "needs_data_dir",
                                                "total_steps", "arrival_time", "scale_factor"};

// Streams the trace's lines as rows of a table with the layout's column names, so fields get CsvTable's checked
// accessors and messages; returns the number of rows.
std::size_t for_each_tab_line(const std::string& path,
                              const std::function<void(const CsvTable&, const CsvRow&)>& on_row) {
  CsvTable t;
  t.file = path;
  CsvRow row;
  std::string line;
  std::size_t rows = 0;
  int number = 0;
  auto take_line = [&](std::string& text) {
    // A byte-order mark (spreadsheets and Windows editors write one) is no part of the first job type.
    if (++number == 1 && text.rfind("\xEF\xBB\xBF", 0) == 0) text.erase(0, 3);
    if (!text.empty() && text.back() == '\r') text.pop_back();
    if (text.find_first_not_of(" \t") == std::string::npos) return;
    row.line = number;
    row.fields.clear();
    std::size_t start = 0;
    while (true) {
      const std::size_t tab = text.find('\t', start);
      row.fields.push_back(text.substr(start, tab == std::string::npos ? std::string::npos : tab - start));
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
    ++rows;
    on_row(t, row);
  };
  for_each_input_line(path, "trace file", take_line);
  if (rows == 0) throw InputError(path + ":1: empty trace (no jobs)");
  return rows;
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
                           const Catalog& /*catalog*/, TraceWorkloadSpec& spec) const override {
    return read_gavel_trace(path, time_unit, static_cast<std::size_t>(std::max(0, spec.max_jobs)));
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
    job.work_samples = row.steps * trace_samples_per_step(c, asked);
  }

  // The steps at the class's reference speed on the GPUs asked for, times those GPUs.
  [[nodiscard]] double offered_gpu_seconds(const TraceJob& row, const JobClass& c, int asked,
                                           int gpus_per_node) const override {
    const int gpn = std::max(1, gpus_per_node);
    const double rate = class_throughput(c, asked, packed_nodes(asked, gpn));
    return rate > 0.0 ? row.steps * trace_samples_per_step(c, asked) / rate * asked : 0.0;
  }
};

}  // namespace

Trace read_gavel_trace(const std::string& path, const std::string& time_unit, std::size_t keep) {
  const double unit = time_unit_seconds(time_unit, path + ": time_unit");
  Trace tr;
  tr.file = path;
  tr.format = &gavel_trace_format();
  TraceRows kept(path, keep);
  int c_type = -1;
  int c_steps = -1;
  int c_sf = -1;
  int c_arrival = -1;
  int c_priority = -1;
  int c_slo = -1;
  for_each_tab_line(path, [&](const CsvTable& t, const CsvRow& row) {
    if (c_type < 0) {
      c_type = t.require_column("job_type");
      c_steps = t.require_column("total_steps");
      c_sf = t.require_column("scale_factor");
      c_arrival = t.require_column("arrival_time");
      c_priority = t.column("priority_weight");
      c_slo = t.column("SLO");
    }
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
    if (c_priority >= 0) j.priority_weight = t.positive(row, c_priority);  // > 0 and finite, else exit 2
    if (c_slo >= 0 && t.number(row, c_slo) != -1.0) {
      t.fail(row, "column 'SLO': " + t.text(row, c_slo) + " (only -1, no SLO, is supported)");
    }
    kept.add(std::move(j));
  });
  kept.finish(tr, true);
  return tr;
}

double trace_samples_per_step(const JobClass& c, int gpus) {
  return global_batch(c, std::max(1, gpus));
}

const TraceFormat& gavel_trace_format() {
  static const GavelTraceFormat format;
  return format;
}
const TraceFormatRegistrar gavel_trace_registrar{gavel_trace_format, 30};

}  // namespace ringsched
