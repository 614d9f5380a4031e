// traces/pai_trace.cpp — the "pai" trace format: Alibaba PAI's job and task tables (cluster-trace-gpu-v2020), each
// job's GPUs summed over its tasks (fractional GPUs rounded or dropped), its GPU type, times, user and status, and
// the jobs that are not jobs of the workload (Trace::skipped).
#include "traces/pai_trace.h"

#include <algorithm>
#include <cmath>
#include <unordered_map>
#include <vector>

#include "traces/recorded_run.h"
#include "workloads/io/csv.h"
#include "workloads/io/input_path.h"
#include "workloads/io/number_text.h"

namespace ringsched {
namespace {

// The published column names (cluster-trace-gpu-v2020/data/*.header).
const std::vector<std::string> kPaiJobColumns = {"job_name", "inst_id", "user", "status", "start_time", "end_time"};
const std::vector<std::string> kPaiTaskColumns = {"job_name", "task_name", "inst_num", "status",   "start_time",
                                                  "end_time", "plan_cpu",  "plan_mem", "plan_gpu", "gpu_type"};
enum PaiJobColumn { kJobName = 0, kJobUser = 2, kJobStatus = 3, kJobStart = 4, kJobEnd = 5 };
enum PaiTaskColumn { kTaskJob = 0, kTaskInsts = 2, kTaskStart = 4, kTaskEnd = 5, kTaskGpu = 8, kTaskType = 9 };

// The largest GPU total a job may ask for (as the other formats: 2^20 GPUs), in percent of a GPU.
constexpr double kPaiMaxGpuPercent = 100.0 * (1 << 20);

// One job's tasks, summed.
struct PaiTasks {
  double gpu_percent = 0.0;   // sum of inst_num x plan_gpu
  double first_start = -1.0;  // the earliest task start_time (-1: none recorded)
  double last_end = -1.0;     // the latest task end_time (-1: none recorded)
  std::string gpu_type;       // of the task asking for the most GPUs
  double type_percent = 0.0;  // that task's inst_num x plan_gpu
  int line = 0;               // the job's first task row
  int job_line = 0;           // its row in the job table (0: not seen yet)
};

using PaiTaskMap = std::unordered_map<std::string, PaiTasks>;

// A time in seconds; false when not recorded ("" or 0, as the PAI analysis reads them).
bool pai_time(const CsvTable& t, const CsvRow& row, int col, double& out) {
  if (t.text(row, col).empty()) return false;
  out = t.non_negative(row, col);
  if (!(out <= kMaxTraceSeconds)) {
    t.fail(row, "column '" + t.header[static_cast<std::size_t>(col)] + "': " + t.text(row, col) +
                    " s is beyond 1e12 s (about 31,700 years)");
  }
  return out > 0.0;
}

void pai_task_row(const CsvTable& t, const CsvRow& row, PaiTaskMap& tasks) {
  const std::string& job = t.text(row, kTaskJob);
  if (job.empty()) t.fail(row, "column 'job_name': empty job name");
  const double insts = t.non_negative(row, kTaskInsts);
  const double plan = t.text(row, kTaskGpu).empty() ? 0.0 : t.non_negative(row, kTaskGpu);
  const double percent = insts * plan;
  double start = 0.0;
  double end = 0.0;
  const bool has_start = pai_time(t, row, kTaskStart, start);
  const bool has_end = pai_time(t, row, kTaskEnd, end);
  auto [it, fresh] = tasks.try_emplace(job);
  PaiTasks& p = it->second;
  if (fresh) p.line = row.line;
  p.gpu_percent += percent;
  if (!(p.gpu_percent <= kPaiMaxGpuPercent)) {
    t.fail(row, "column 'plan_gpu': the job's tasks ask for more than 1048576 GPUs in all (inst_num x plan_gpu / 100)");
  }
  if (has_start && (p.first_start < 0.0 || start < p.first_start)) p.first_start = start;
  if (has_end && end > p.last_end) p.last_end = end;
  if (percent > p.type_percent) {
    p.type_percent = percent;
    p.gpu_type = t.text(row, kTaskType);
  }
}

PaiTaskMap read_pai_tasks(const std::string& path) {
  PaiTaskMap tasks;
  const std::size_t rows = for_each_headerless_csv_row(
      path, kPaiTaskColumns, [&](const CsvTable& t, const CsvRow& row) { pai_task_row(t, row, tasks); });
  if (rows == 0) throw InputError(path + ":1: empty task table (no rows)");
  return tasks;
}

enum class PaiKeep { kJob, kNeverRan, kStillRunning, kZeroGpus, kFractional };

// The job's GPUs from its tasks' percentages: whole, rounded up, dropped or refused as spec.fractional says.
PaiKeep pai_gpus(const CsvTable& t, const CsvRow& row, const PaiTasks& p, const PaiTraceSpec& spec,
                 const std::string& task_path, TraceJob& j, bool& rounded) {
  const double gpus = p.gpu_percent / 100.0;
  const double whole = std::round(gpus);
  if (std::fabs(gpus - whole) <= 1e-6) {
    j.gpus = static_cast<int>(whole);
    return PaiKeep::kJob;
  }
  switch (spec.fractional) {
    case FractionalGpus::kCeil:
      j.gpus = static_cast<int>(std::ceil(gpus - 1e-6));
      rounded = true;
      return PaiKeep::kJob;
    case FractionalGpus::kDrop:
      return PaiKeep::kFractional;
    case FractionalGpus::kError:
      break;
  }
  t.fail(row, "job '" + j.name + "': its tasks ask for " + number_text(gpus) + " GPUs in all (inst_num x plan_gpu / " +
                  "100, " + task_path + ":" + std::to_string(p.line) +
                  "); set the trace's \"fractional_gpus\" to \"ceil\" or \"drop\" to run such traces");
}

JobOutcome pai_outcome(const CsvTable& t, const CsvRow& row, PaiKeep& skip) {
  const std::string& s = t.text(row, kJobStatus);
  skip = PaiKeep::kJob;
  if (s == "Terminated") return JobOutcome::kCompleted;
  if (s == "Failed") return JobOutcome::kFailed;
  if (s == "Running") {
    skip = PaiKeep::kStillRunning;
  } else if (s == "Waiting") {
    skip = PaiKeep::kNeverRan;
  } else {
    t.fail(row, "column 'status': unknown status '" + (s.size() > 40 ? s.substr(0, 37) + "..." : s) +
                    "' (valid: Terminated, Failed, Running, Waiting)");
  }
  return JobOutcome::kUnknown;
}

// One job row into `j` (the reasons in pai_trace.h's order).
PaiKeep pai_job_row(const CsvTable& t, const CsvRow& row, PaiTaskMap& tasks, const PaiTraceSpec& spec, TraceJob& j,
                    bool& rounded) {
  j.line = row.line;
  j.name = t.text(row, kJobName);
  if (j.name.empty()) t.fail(row, "column 'job_name': empty job name");
  j.user = t.text(row, kJobUser);
  PaiKeep status_skip = PaiKeep::kJob;
  j.outcome = pai_outcome(t, row, status_skip);
  double submit = 0.0;
  double end = 0.0;
  const bool has_submit = pai_time(t, row, kJobStart, submit);
  const bool has_end = pai_time(t, row, kJobEnd, end);
  const auto it = tasks.find(j.name);
  if (it != tasks.end()) {
    if (it->second.job_line != 0) {
      t.fail(row, "column 'job_name': job '" + j.name + "' is given twice (also line " +
                      std::to_string(it->second.job_line) + ")");
    }
    it->second.job_line = row.line;
  }
  if (status_skip != PaiKeep::kJob) return status_skip;
  if (it == tasks.end()) return PaiKeep::kNeverRan;
  const PaiTasks& p = it->second;
  if (p.gpu_percent == 0.0) {
    if (spec.drop_zero_gpus) return PaiKeep::kZeroGpus;
    t.fail(row, "job '" + j.name + "': its tasks ask for 0 GPUs (a CPU job, " + spec.task_table + ":" +
                    std::to_string(p.line) + "); set the trace's \"zero_gpus\": \"drop\" to leave such jobs out");
  }
  const double stop = has_end ? end : p.last_end;
  if (!has_submit || p.first_start < 0.0 || stop < 0.0) return PaiKeep::kNeverRan;
  if (stop < p.first_start) {
    t.fail(row, "column 'end_time': job '" + j.name + "' ends (" + number_text(stop) +
                    " s) before its first task starts (" + number_text(p.first_start) + " s, " + spec.task_table + ":" +
                    std::to_string(p.line) + ")");
  }
  j.submit_s = submit;
  j.duration_s = stop - p.first_start;
  if (j.duration_s == 0.0) return PaiKeep::kNeverRan;
  j.gpu_type = p.gpu_type;
  return pai_gpus(t, row, p, spec, spec.task_table, j, rounded);
}

FractionalGpus parse_fractional_gpus(const JsonReader& tr) {
  const std::string v = tr.string_or("fractional_gpus", "ceil");
  if (v == "ceil") return FractionalGpus::kCeil;
  if (v == "drop") return FractionalGpus::kDrop;
  if (v == "error") return FractionalGpus::kError;
  tr.at("fractional_gpus").fail("unknown value '" + v + "' (valid: ceil, drop, error)");
}

class PaiTraceFormat final : public RecordedRunFormat {
 public:
  [[nodiscard]] std::string name() const override { return "pai"; }
  [[nodiscard]] std::string description() const override {
    return "Alibaba PAI's 2020 GPU trace (pai_job_table.csv with task_table pai_task_table.csv): each GPU job's run "
           "time on its GPUs (fractional GPUs rounded up by default), with its status, user and GPU type";
  }
  [[nodiscard]] std::vector<std::string> keys() const override {
    return {"class", "zero_gpus", "task_table", "fractional_gpus"};
  }

  [[nodiscard]] Trace read(const std::string& path, const JsonReader& tr, const std::string& time_unit,
                           const Catalog& cat, TraceWorkloadSpec& spec) const override {
    if (time_unit != "s") tr.at("time_unit").fail("PAI's tables give seconds: time_unit must be \"s\"");
    PaiTraceSpec p;
    const auto task = tr.at("task_table");
    try {
      p.task_table = resolve_input_path(task.as_string(), current_input_base_dir());
    } catch (const InputError& e) {
      task.fail(e.what());
    }
    p.fractional = parse_fractional_gpus(tr);
    const std::string zero = tr.string_or("zero_gpus", "error");
    if (zero != "error" && zero != "drop") tr.at("zero_gpus").fail("unknown value '" + zero + "' (valid: error, drop)");
    p.drop_zero_gpus = zero == "drop";
    read_class_key(tr, cat, spec);
    return read_pai_trace(path, p, static_cast<std::size_t>(std::max(0, spec.max_jobs)));
  }
};

// A task row whose job the job table does not hold: the first such row, by line.
void check_pai_tasks_matched(const PaiTaskMap& tasks, const std::string& task_path, const std::string& job_path) {
  const std::pair<const std::string, PaiTasks>* first = nullptr;
  for (const auto& entry : tasks)
    if (entry.second.job_line == 0 && (first == nullptr || entry.second.line < first->second.line)) first = &entry;
  if (first != nullptr) {
    const std::string& n = first->first;
    throw InputError(task_path + ":" + std::to_string(first->second.line) + ": column 'job_name': job '" +
                     (n.size() > 40 ? n.substr(0, 37) + "..." : n) + "' is not in the job table (" + job_path + ")");
  }
}

}  // namespace

Trace read_pai_trace(const std::string& job_table, const PaiTraceSpec& spec, std::size_t keep) {
  PaiTaskMap tasks = read_pai_tasks(spec.task_table);
  Trace tr;
  tr.file = job_table;
  tr.format = &pai_trace_format();
  TraceRows kept(job_table, keep);
  const std::size_t rows =
      for_each_headerless_csv_row(job_table, kPaiJobColumns, [&](const CsvTable& t, const CsvRow& row) {
        TraceJob j;
        bool rounded = false;
        switch (pai_job_row(t, row, tasks, spec, j, rounded)) {
          case PaiKeep::kJob:
            tr.gpus_rounded_up += rounded ? 1 : 0;
            kept.add(std::move(j));
            break;
          case PaiKeep::kNeverRan:
            ++tr.skipped.never_ran;
            break;
          case PaiKeep::kStillRunning:
            ++tr.skipped.still_running;
            break;
          case PaiKeep::kZeroGpus:
            ++tr.skipped.zero_gpus;
            break;
          case PaiKeep::kFractional:
            ++tr.skipped.fractional_gpus;
            break;
        }
      });
  if (rows == 0) throw InputError(job_table + ":1: empty job table (no rows)");
  check_pai_tasks_matched(tasks, spec.task_table, job_table);
  if (kept.rows() == 0) {
    throw InputError(job_table + ": no job to replay (" + std::to_string(tr.skipped.still_running) +
                     " still running, " + std::to_string(tr.skipped.never_ran) + " never ran, " +
                     std::to_string(tr.skipped.zero_gpus) + " with 0 GPUs, " +
                     std::to_string(tr.skipped.fractional_gpus) + " with fractional GPUs)");
  }
  kept.finish(tr, true);
  return tr;
}

const TraceFormat& pai_trace_format() {
  static const PaiTraceFormat format;
  return format;
}
const TraceFormatRegistrar pai_trace_registrar{pai_trace_format, 70};

}  // namespace ringsched
