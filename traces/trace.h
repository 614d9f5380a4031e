// traces/trace.h — job traces as read by a trace format (traces/trace_format.h: the Pollux workload files, generic
// submit/duration/GPU traces, Gavel's traces, Philly's job log, Acme's and Helios' job CSVs and Alibaba PAI's job and
// task tables with each job's outcome), their tiling, and the settings that turn one into a Workload
// (traces/trace_workload.h). Formats: docs/config.md.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace ringsched {

struct EpochSchedule;

// How a job ended in its trace (formats that record it: philly_log, acme, helios, pai); kUnknown for the others.
enum class JobOutcome : std::uint8_t { kUnknown, kCompleted, kFailed, kKilled };
std::string to_string(JobOutcome o);  // "unknown", "completed", "failed", "killed"

struct TraceJob {
  std::string name;
  double submit_s = 0.0;         // seconds after the trace's first submission
  double duration_s = -1.0;      // generic traces: run time on `gpus` GPUs; -1 = not given
  int gpus = 0;                  // GPUs asked for
  std::string application;       // Pollux workloads: the application (class) name
  double batch_size = 0.0;       // Pollux workloads: the job's global batch (its class's batch for non-goodput classes)
  double steps = 0.0;            // Gavel traces: the job's total steps (total_steps)
  double priority_weight = 1.0;  // Gavel traces: the job's priority weight (> 0, finite; 1 elsewhere)
  int line = 0;                  // line in the file
  int attempts = 0;              // philly_log: the attempts the job log records (0 elsewhere)
  JobOutcome outcome = JobOutcome::kUnknown;  // philly_log, acme, helios, pai: how it ended
  std::string user;  // philly_log, acme, helios, pai, generic `user` column: the user (a hash in the public traces)
  std::string vc;    // philly_log, helios, generic `vc` column: the virtual cluster (a hash in the public traces)
  // pai (the type its GPU tasks ran on, e.g. "V100", "MISC"), generic `gpu_type` column: carried with the job, not yet
  // honoured by placement; "" elsewhere.
  std::string gpu_type;
  std::string class_name;  // generic `class` column: the row's catalog class (after class_map); "" elsewhere
  // shockwave: the job's batch-size schedule and the speed factor of each phase (workloads/epoch_schedule.h).
  std::shared_ptr<const EpochSchedule> schedule = nullptr;
};

// Rows of a file that are not jobs of the workload, by reason (formats recording outcomes; every row is counted,
// also those past a job cap). Never dropped silently: validate and the docs say what each count is.
struct TraceSkipped {
  // No attempt with both a start and an end (philly_log); no start or 0 s run (acme, helios); status Waiting, no task,
  // no task start or end, or 0 s run (pai).
  std::size_t never_ran = 0;
  // Running when the log was taken: the last attempt started and has no end (philly_log); status Running (pai).
  std::size_t still_running = 0;
  std::size_t zero_gpus = 0;        // 0 GPUs (CPU jobs)
  std::size_t fractional_gpus = 0;  // pai with fractional_gpus "drop": a fractional total of GPUs (e.g. 0.5)
  [[nodiscard]] std::size_t total() const { return never_ran + still_running + zero_gpus + fractional_gpus; }
};

class TraceFormat;

struct Trace {
  std::string file;
  const TraceFormat* format = nullptr;  // the format that read it (trace_format_registry())
  std::vector<TraceJob> jobs;           // by submit time (stable for ties)
  // Rows the file had (times repeat's copies) when a reader kept only the first of them (TraceRows); 0 = `jobs` holds
  // every row. total_rows() is the count either way.
  std::size_t file_rows = 0;
  TraceSkipped skipped;  // rows of the file that are not jobs (not in `jobs` nor in file_rows)
  // pai with fractional_gpus "ceil" (the default): jobs whose fractional total of GPUs was rounded up (over the file).
  std::size_t gpus_rounded_up = 0;

  [[nodiscard]] std::size_t total_rows() const { return file_rows > jobs.size() ? file_rows : jobs.size(); }
};

// The most rows a trace read without a job cap may have: a run keeps at most 2e7 job results (sim/experiments), so
// more could never run; refused while reading (naming the file and the row, and workload.jobs / --jobs), before
// they are held.
inline constexpr std::size_t kMaxUncappedTraceRows = 20'000'000;

// Collects a trace's rows as a reader streams them, keeping only the first `keep` by submit time (file order for
// ties; 0 = keep all): a run capped at N jobs holds N rows, however long the file. The rows kept are exactly the
// first `keep` of a stable sort of every row, so a capped read equals a full read truncated. Uncapped, a row past
// `uncapped_limit` is an InputError "FILE:LINE: ..." (`file` names the trace).
class TraceRows {
 public:
  TraceRows(std::string file, std::size_t keep, std::size_t uncapped_limit = kMaxUncappedTraceRows)
      : file_(std::move(file)), keep_(keep), uncapped_limit_(uncapped_limit) {}
  void add(TraceJob job);
  [[nodiscard]] std::size_t rows() const { return rows_; }
  // Moves the kept rows into `trace` in submit order (stable), sets trace.file_rows; with `rebase` shifts them so
  // the first is submitted at 0 (sort_and_rebase).
  void finish(Trace& trace, bool rebase);

 private:
  struct Held {
    TraceJob job;
    std::size_t seq;
  };
  std::string file_;
  std::size_t keep_;
  std::size_t uncapped_limit_;
  std::size_t rows_ = 0;
  std::vector<Held> held_;  // a max-heap on (submit_s, seq) once keep_ rows are held
};

// The latest submit time or longest duration a trace row may give: the engine's horizon (about 31,700 years).
inline constexpr double kMaxTraceSeconds = 1e12;

// Sorts the rows by submit time (stable: file order for ties) and shifts them so the first is submitted at 0, as
// every reader returns them.
void sort_and_rebase(Trace& trace);

// Seconds per unit; throws InputError naming `where` for an unknown unit.
double time_unit_seconds(const std::string& unit, const std::string& where);

// The trace tiled: `copies` copies of its rows (copy 0 is the trace itself), copy k shifted by k x `every` (in the
// trace's own time units, before time_scale), merged in submit order (stable: copy order for ties). Copy k > 0 of
// job `name` is named `name~k`; rows keep their file line. The result's total_rows() is copies x the trace's; a trace
// that holds only its first N rows gives every row of the tiled trace's first N. Builds million-job traces from the
// shipped ones for scale studies (workload.trace.repeat, docs/performance.md).
Trace repeat_trace(const Trace& trace, int copies, double every);

// What to do with a job whose GPU request the cluster or its class cannot satisfy (above the class's maximum or the
// cluster's GPUs, below the class's minimum).
enum class Oversize {
  kError,  // InputError naming file:line (the default: a trace is never altered silently)
  kClamp,  // run it at the nearest size allowed, with the work it did in the trace at the size it asked for
  kDrop,   // leave it out
};
std::string to_string(Oversize o);
Oversize parse_oversize(const std::string& name, const std::string& where);  // InputError for unknown names

struct TraceWorkloadSpec {
  std::string class_name;    // generic traces: the catalog class every job belongs to ("" = the first class)
  double speed_sigma = 0.0;  // per-job lognormal noise on speed
  double time_scale = 1.0;   // submit times are multiplied by this (< 1 compresses the trace)
  int max_jobs = 0;          // first N rows only (0 = all); readers keep only these (TraceRows)
  int gpus_per_node = 8;     // for the packed-node speed of a generic job's work
  int max_gpus = 0;          // the largest request allowed besides the class's maximum (the cluster; 0 = no limit)
  Oversize oversize = Oversize::kError;
};

}  // namespace ringsched
