// traces/acme_trace.cpp — the "acme" trace format: Acme's Seren and Kalos job CSVs (either layout), each GPU job's
// submit time, GPUs, duration, state and user, and the rows that are not jobs of the workload (Trace::skipped).
#include "traces/acme_trace.h"

#include <algorithm>

#include "traces/recorded_run.h"
#include "traces/trace_time.h"
#include "workloads/io/csv.h"

namespace ringsched {
namespace {

// The columns of each cluster's file (AcmeTrace's README); Kalos adds memory and fail/stop times.
const std::vector<std::string> kSerenColumns = {"job_id",   "user",  "node_num",    "gpu_num",    "cpu_num",
                                                "type",     "state", "submit_time", "start_time", "end_time",
                                                "duration", "queue", "gpu_time"};
const std::vector<std::string> kKalosColumns = {
    "job_id",   "user",  "node_num",    "gpu_num",    "cpu_num",  "mem_per_pod_GB", "shared_mem_per_pod",
    "type",     "state", "submit_time", "start_time", "end_time", "fail_time",      "stop_time",
    "duration", "queue", "gpu_time"};

struct AcmeColumns {
  int id = -1;
  int user = -1;
  int gpus = -1;
  int state = -1;
  int submit = -1;
  int start = -1;
  int duration = -1;
};

AcmeColumns acme_columns(const CsvTable& t) {
  const auto& layout = t.column("mem_per_pod_GB") >= 0 ? kKalosColumns : kSerenColumns;
  for (const auto& c : layout)
    (void)t.require_column(c);
  AcmeColumns c;
  c.id = t.column("job_id");
  c.user = t.column("user");
  c.gpus = t.column("gpu_num");
  c.state = t.column("state");
  c.submit = t.column("submit_time");
  c.start = t.column("start_time");
  c.duration = t.column("duration");
  return c;
}

std::string acme_shown(const std::string& s) {
  return "'" + (s.size() > 40 ? s.substr(0, 37) + "..." : s) + "'";
}

JobOutcome acme_outcome(const CsvTable& t, const CsvRow& row, int col) {
  const std::string& s = t.text(row, col);
  if (s == "COMPLETED") return JobOutcome::kCompleted;
  if (s == "CANCELLED") return JobOutcome::kKilled;
  if (s == "FAILED" || s == "TIMEOUT" || s == "NODE_FAIL") return JobOutcome::kFailed;
  t.fail(row, "column 'state': unknown state " + acme_shown(s) +
                  " (valid: COMPLETED, CANCELLED, FAILED, TIMEOUT, NODE_FAIL)");
}

double acme_time(const CsvTable& t, const CsvRow& row, int col) {
  double out = 0.0;
  if (!parse_trace_datetime(t.text(row, col), out)) {
    t.fail(row, "column '" + t.header[static_cast<std::size_t>(col)] +
                    "': expected a date-time like 2023-03-01 00:18:22+08:00, got " + acme_shown(t.text(row, col)));
  }
  return out;
}

class AcmeTraceFormat final : public RecordedRunFormat {
 public:
  [[nodiscard]] std::string name() const override { return "acme"; }
  [[nodiscard]] std::string description() const override {
    return "Acme's job traces (trace_seren.csv, trace_kalos.csv): each GPU job's duration on its GPUs, with its "
           "state and user";
  }
  [[nodiscard]] std::vector<std::string> keys() const override { return {"class"}; }

  [[nodiscard]] Trace read(const std::string& path, const JsonReader& tr, const std::string& time_unit,
                           const Catalog& cat, TraceWorkloadSpec& spec) const override {
    if (time_unit != "s") tr.at("time_unit").fail("Acme traces give date-times and seconds: time_unit must be \"s\"");
    read_class_key(tr, cat, spec);
    return read_acme_trace(path, static_cast<std::size_t>(std::max(0, spec.max_jobs)));
  }
};

}  // namespace

Trace read_acme_trace(const std::string& path, std::size_t keep) {
  Trace tr;
  tr.file = path;
  tr.format = &acme_trace_format();
  TraceRows kept(path, keep);
  AcmeColumns c;
  for_each_csv_row(path, [&](const CsvTable& t, const CsvRow& row) {
    if (c.id < 0) c = acme_columns(t);
    TraceJob j;
    j.line = row.line;
    j.name = t.text(row, c.id);
    if (j.name.empty()) t.fail(row, "column 'job_id': empty job id");
    j.user = t.text(row, c.user);
    j.outcome = acme_outcome(t, row, c.state);
    j.submit_s = acme_time(t, row, c.submit);
    j.gpus = t.integer_in(row, c.gpus, 0, 1 << 20);
    if (j.gpus == 0) {
      ++tr.skipped.zero_gpus;
      return;
    }
    if (t.text(row, c.start).empty()) {
      ++tr.skipped.never_ran;
      return;
    }
    (void)acme_time(t, row, c.start);
    j.duration_s = t.non_negative(row, c.duration);
    if (!(j.duration_s <= kMaxTraceSeconds)) {
      t.fail(row, "column 'duration': " + t.text(row, c.duration) + " s is beyond 1e12 s (about 31,700 years)");
    }
    if (j.duration_s == 0.0) {
      ++tr.skipped.never_ran;
      return;
    }
    kept.add(std::move(j));
  });
  if (kept.rows() == 0) {
    throw InputError(path + ": no job to replay (" + std::to_string(tr.skipped.zero_gpus) + " with 0 GPUs, " +
                     std::to_string(tr.skipped.never_ran) + " never ran)");
  }
  kept.finish(tr, true);
  return tr;
}

const TraceFormat& acme_trace_format() {
  static const AcmeTraceFormat format;
  return format;
}
const TraceFormatRegistrar acme_trace_registrar{acme_trace_format, 50};

}  // namespace ringsched
