// traces/pollux_trace.cpp — the "pollux" trace format: its reader and what a row means.
#include "traces/pollux_trace.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "workloads/goodput_app.h"
#include "workloads/io/csv.h"

namespace ringsched {
namespace {
class PolluxTraceFormat final : public TraceFormat {
 public:
  [[nodiscard]] std::string name() const override { return "pollux"; }
  [[nodiscard]] std::string description() const override {
    return "Pollux workload files: name,time,application,num_replicas,batch_size (the application is the class)";
  }
  [[nodiscard]] std::vector<std::string> keys() const override { return {}; }
  [[nodiscard]] bool reads_seconds() const override { return false; }

  [[nodiscard]] Trace read(const std::string& path, const JsonReader& /*options*/, const std::string& /*time_unit*/,
                           const Catalog& /*catalog*/, TraceWorkloadSpec& spec) const override {
    return read_pollux_workload(path, static_cast<std::size_t>(std::max(0, spec.max_jobs)));
  }

  [[nodiscard]] int row_class(const TraceJob& row, const Catalog& cat, int /*default_class*/,
                              const std::string& at) const override {
    const int cls = cat.find(row.application);
    if (cls < 0) {
      throw InputError(at + "unknown application '" + row.application + "' (known: " + join_names(cat.class_names()) +
                       ")");
    }
    const JobClass& c = cat.classes[static_cast<std::size_t>(cls)];
    if (c.goodput) {
      const auto lo = c.goodput->init_batch_size();
      const auto hi = c.goodput->max_batch_size();
      if (row.batch_size < lo || row.batch_size > hi) {
        char buf[160];
        std::snprintf(buf, sizeof buf, "batch_size %g is outside %s's validated batch sizes %g..%g", row.batch_size,
                      row.application.c_str(), lo, hi);
        throw InputError(at + buf);
      }
    }
    return cls;
  }

  void fill_job(const TraceJob& row, const JobClass& c, int /*asked*/, int /*gpus_per_node*/, double z_work,
                JobTruth& job) const override {
    job.work_samples = c.work_samples * std::exp(c.work_sigma * z_work - 0.5 * c.work_sigma * c.work_sigma);
    if (c.goodput) job.batch_size = row.batch_size;
  }

  // As Poisson levels define load: the class's GPU-seconds on min(8, max) GPUs.
  [[nodiscard]] double offered_gpu_seconds(const TraceJob& /*row*/, const JobClass& c, int /*asked*/,
                                           int gpus_per_node) const override {
    const int w8 = std::min(8, c.max_gpus);
    return c.work_samples / class_throughput(c, w8, packed_nodes(w8, gpus_per_node)) * w8;
  }

  [[nodiscard]] std::string column_notes(const Catalog& cat) const override {
    std::string fixed;
    for (const auto& c : cat.classes) {
      if (!c.goodput) fixed += (fixed.empty() ? "" : ", ") + c.name;
    }
    return "columns: name = job name; time = arrival (s); application = class; num_replicas = GPUs asked "
           "(rigid strategies); batch_size = the job's global batch" +
           (fixed.empty() ? std::string()
                          : " for goodput-model classes; NOT used by " + fixed +
                                " (their speed model fixes the batch: catalog pollux-goodput models it)");
  }
};

}  // namespace

Trace read_pollux_workload(const std::string& path, std::size_t keep) {
  Trace tr;
  tr.file = path;
  tr.format = &pollux_trace_format();
  TraceRows kept(path, keep);
  int c_name = -1;
  int c_time = -1;
  int c_app = -1;
  int c_reps = -1;
  int c_bsz = -1;
  double last = 0.0;
  for_each_csv_row(path, [&](const CsvTable& t, const CsvRow& row) {
    if (c_name < 0) {
      c_name = t.require_column("name");
      c_time = t.require_column("time");
      c_app = t.require_column("application");
      c_reps = t.require_column("num_replicas");
      c_bsz = t.require_column("batch_size");
    }
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
    kept.add(std::move(j));
  });
  if (kept.rows() == 0) throw InputError(path + ":2: empty trace (no jobs)");
  kept.finish(tr, false);
  return tr;
}

const TraceFormat& pollux_trace_format() {
  static const PolluxTraceFormat format;
  return format;
}
const TraceFormatRegistrar pollux_trace_registrar{pollux_trace_format, 10};

}  // namespace ringsched
