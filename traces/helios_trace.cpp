// traces/helios_trace.cpp — the "helios" trace format: Helios' cluster_log.csv (and the Helios artifact's Philly
// conversion), each GPU job's submit time, GPUs, run time, state, user and virtual cluster, and the rows that are not
// jobs of the workload (Trace::skipped).
#include "traces/helios_trace.h"

#include <algorithm>

#include "traces/recorded_run.h"
#include "traces/trace_time.h"
#include "workloads/io/csv.h"

namespace ringsched {
namespace {

struct HeliosColumns {
  int name = -1;  // jobname when present, else job_id
  int user = -1;
  int vc = -1;
  int gpus = -1;
  int state = -1;
  int submit = -1;
  int start = -1;
  int end = -1;       // -1 when the file has none
  int duration = -1;  // -1 when the file has none
};

HeliosColumns helios_columns(const CsvTable& t) {
  HeliosColumns c;
  c.name = t.column("jobname");
  if (c.name < 0) {
    c.name = t.column("job_id");
    if (c.name < 0) {
      throw InputError(t.file + ":1: missing column 'job_id' (or 'jobname'): a Helios trace names each job (header: " +
                       std::to_string(t.header.size()) + " columns)");
    }
  }
  c.user = t.require_column("user");
  c.vc = t.require_column("vc");
  c.gpus = t.require_column("gpu_num");
  c.state = t.require_column("state");
  c.submit = t.require_column("submit_time");
  c.start = t.require_column("start_time");
  c.end = t.column("end_time");
  c.duration = t.column("duration");
  if (c.end < 0 && c.duration < 0) {
    throw InputError(t.file +
                     ":1: missing column 'duration' (or 'end_time'): a Helios trace gives each job's run time");
  }
  return c;
}

std::string helios_shown(const std::string& s) {
  return "'" + (s.size() > 40 ? s.substr(0, 37) + "..." : s) + "'";
}

JobOutcome helios_outcome(const CsvTable& t, const CsvRow& row, int col) {
  const std::string& s = t.text(row, col);
  if (s == "COMPLETED" || s == "Pass") return JobOutcome::kCompleted;
  if (s == "CANCELLED" || s == "Killed") return JobOutcome::kKilled;
  if (s == "FAILED" || s == "TIMEOUT" || s == "NODE_FAIL" || s == "Failed") return JobOutcome::kFailed;
  if (s == "SUSPENDED") return JobOutcome::kUnknown;
  t.fail(row, "column 'state': unknown state " + helios_shown(s) +
                  " (valid: COMPLETED, CANCELLED, FAILED, TIMEOUT, NODE_FAIL, SUSPENDED; Pass, Failed, Killed)");
}

double helios_time(const CsvTable& t, const CsvRow& row, int col) {
  double out = 0.0;
  if (!parse_trace_datetime(t.text(row, col), out)) {
    t.fail(row, "column '" + t.header[static_cast<std::size_t>(col)] +
                    "': expected a date-time like 2020-06-09 18:41:01 (YYYY-MM-DD HH:MM:SS[.fraction][+HH:MM], UTC "
                    "without an offset), got " +
                    helios_shown(t.text(row, col)));
  }
  return out;
}

enum class HeliosKeep { kJob, kNeverRan, kStillRunning, kZeroGpus };

// One row into `j`: whether it is a job of the workload (the reasons in helios_trace.h's order).
HeliosKeep helios_row(const CsvTable& t, const CsvRow& row, const HeliosColumns& c, const HeliosTraceSpec& spec,
                      TraceJob& j) {
  j.line = row.line;
  j.name = t.text(row, c.name);
  if (j.name.empty()) t.fail(row, "column '" + t.header[static_cast<std::size_t>(c.name)] + "': empty job name");
  j.user = t.text(row, c.user);
  j.vc = t.text(row, c.vc);
  j.outcome = helios_outcome(t, row, c.state);
  j.submit_s = helios_time(t, row, c.submit);
  j.gpus = t.integer_in(row, c.gpus, 0, 1 << 20);
  if (j.gpus == 0) {
    if (spec.drop_zero_gpus) return HeliosKeep::kZeroGpus;
    t.fail(row,
           "column 'gpu_num': 0 GPUs (a CPU job; about half of Helios' rows are); set the trace's \"zero_gpus\": "
           "\"drop\" to leave such rows out");
  }
  if (t.text(row, c.start).empty()) return HeliosKeep::kNeverRan;
  const double start = helios_time(t, row, c.start);
  const bool has_duration = c.duration >= 0 && !t.text(row, c.duration).empty();
  const bool has_end = c.end >= 0 && !t.text(row, c.end).empty();
  const double end = has_end ? helios_time(t, row, c.end) : 0.0;
  if (has_duration) {
    j.duration_s = t.non_negative(row, c.duration);
  } else if (has_end) {
    if (end < start) t.fail(row, "column 'end_time': the job ends before it starts (start_time)");
    j.duration_s = end - start;
  } else {
    return HeliosKeep::kStillRunning;
  }
  if (!(j.duration_s <= kMaxTraceSeconds)) {
    t.fail(row, "column '" + std::string(has_duration ? "duration" : "end_time") +
                    "': a run time beyond 1e12 s (about 31,700 years)");
  }
  return j.duration_s == 0.0 ? HeliosKeep::kNeverRan : HeliosKeep::kJob;
}

class HeliosTraceFormat final : public RecordedRunFormat {
 public:
  [[nodiscard]] std::string name() const override { return "helios"; }
  [[nodiscard]] std::string description() const override {
    return "Helios' job traces (cluster_log.csv, and the Helios artifact's Philly conversion): each GPU job's "
           "duration on its GPUs, with its state, user and virtual cluster";
  }
  [[nodiscard]] std::vector<std::string> keys() const override { return {"class", "zero_gpus"}; }

  [[nodiscard]] Trace read(const std::string& path, const JsonReader& tr, const std::string& time_unit,
                           const Catalog& cat, TraceWorkloadSpec& spec) const override {
    if (time_unit != "s") tr.at("time_unit").fail("Helios traces give date-times and seconds: time_unit must be \"s\"");
    HeliosTraceSpec h;
    const std::string zero = tr.string_or("zero_gpus", "error");
    if (zero != "error" && zero != "drop") tr.at("zero_gpus").fail("unknown value '" + zero + "' (valid: error, drop)");
    h.drop_zero_gpus = zero == "drop";
    read_class_key(tr, cat, spec);
    return read_helios_trace(path, h, static_cast<std::size_t>(std::max(0, spec.max_jobs)));
  }
};

}  // namespace

Trace read_helios_trace(const std::string& path, const HeliosTraceSpec& spec, std::size_t keep) {
  Trace tr;
  tr.file = path;
  tr.format = &helios_trace_format();
  TraceRows kept(path, keep);
  HeliosColumns c;
  bool have_columns = false;
  const std::size_t rows = for_each_csv_row(path, [&](const CsvTable& t, const CsvRow& row) {
    if (!have_columns) {
      c = helios_columns(t);
      have_columns = true;
    }
    TraceJob j;
    switch (helios_row(t, row, c, spec, j)) {
      case HeliosKeep::kJob:
        kept.add(std::move(j));
        break;
      case HeliosKeep::kNeverRan:
        ++tr.skipped.never_ran;
        break;
      case HeliosKeep::kStillRunning:
        ++tr.skipped.still_running;
        break;
      case HeliosKeep::kZeroGpus:
        ++tr.skipped.zero_gpus;
        break;
    }
  });
  if (rows == 0) throw InputError(path + ":2: empty trace (a header and no rows)");
  if (kept.rows() == 0) {
    throw InputError(path + ": no job to replay (" + std::to_string(tr.skipped.zero_gpus) + " with 0 GPUs, " +
                     std::to_string(tr.skipped.never_ran) + " never ran, " + std::to_string(tr.skipped.still_running) +
                     " still running)");
  }
  kept.finish(tr, true);
  return tr;
}

const TraceFormat& helios_trace_format() {
  static const HeliosTraceFormat format;
  return format;
}
const TraceFormatRegistrar helios_trace_registrar{helios_trace_format, 60};

}  // namespace ringsched
