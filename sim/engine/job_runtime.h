// sim/engine/job_runtime.h — the engine's private records: an event on its heap (and the order of simultaneous
// events) and one job's runtime state (progress, rate, GPUs held, restart and observation bookkeeping).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "sim/engine/goodput_job.h"
#include "sim/engine/job_result.h"
#include "strategies/strategy.h"
#include "workloads/workload.h"

namespace ringsched::engine_detail {

// At equal times: completions (and epoch ends), restart ends, arrivals, wake-ups, scheduling ticks, then node
// failures and repairs (cluster.failures).
enum class EvKind : std::uint8_t {
  kCompletion = 0,
  kRestartEnd = 1,
  kArrival = 2,
  kWakeup = 3,
  kTick = 4,
  kHealth = 5
};

struct Event {
  double time;
  EvKind kind;
  int job;
  std::uint32_t version;
  std::uint64_t seq;
  bool operator>(const Event& o) const {
    if (time != o.time) return time > o.time;
    if (kind != o.kind) return kind > o.kind;
    return seq > o.seq;
  }
};

// One job as the engine runs it.
struct Runtime {
  double work = 0.0;
  double work_done = 0.0;
  double last_t = 0.0;
  double rate = 0.0;
  int gpus = 0;
  JobState state = JobState::kWaiting;
  double ready_at = 0.0;
  std::uint32_t version = 0;
  bool started = false;
  bool active = false;
  bool done = false;
  bool observed = false;  // its belief observes progress or runs (Belief::observes), read once
  double attained = 0.0;
  int restarts = 0;
  std::unique_ptr<GoodputJob> gp;  // the goodput model's state (null for other classes)
  // An epoch-scheduled job (JobTruth::schedule; null otherwise, or under the goodput model) and the phase it runs,
  // set when it starts running (start_phase) from its progress.
  const EpochSchedule* sched = nullptr;
  std::size_t phase = 0;
  // The stretch the job runs now, for beliefs that learn from its measured steps (`agent`): reported once, at the
  // first snapshot after it started running (allocations change only at decisions, so the job still runs it then).
  bool step_pending = false;
  std::uint32_t steps_reported = 0;
  std::uint32_t observations = 0;  // steps and goodput reports its belief received (belief scoring re-scores on change)
  double step_since = 0.0;
};

// A job's runtime before it arrives: its goodput model's state (goodput-model classes; `adapts_batch`: the strategy
// lets adaptive jobs choose their batch, which also sets the public batch and GPU cap in `pub`) and its work.
// InputError (naming the job) for an arrival outside the simulated horizon or a work that is not positive and finite.
// On a typed cluster (`gpu_types` of its pools, empty when untyped) a goodput-model class needs tables for each type.
void start_runtime(Runtime& r, JobPublic& pub, const JobTruth& t, const JobClass& cls, bool adapts_batch,
                   const std::vector<std::string>& gpu_types);

// The job's record in the run's results: id, name, class, arrival, work and (Shockwave traces) its isolated time.
void fill_result(JobResult& result, const JobTruth& t, const JobClass& cls, const Runtime& r);

// The end of the job's current phase of constant speed: its epoch's (goodput jobs) or schedule phase's
// (epoch-scheduled jobs) when before its completion, else its work.
double phase_end(const Runtime& r);
// The factor of the job's speed in its current phase (epoch-scheduled jobs; 1 for the others).
inline double phase_factor(const Runtime& r) {
  return r.sched != nullptr && !r.gp ? r.sched->factor[r.phase] : 1.0;
}
// The job starts running: a goodput job's agent observes its configuration; an epoch-scheduled job's phase is the one
// its progress is in.
void start_phase(Runtime& r);

// What a strategy sees of a job (its public facts, belief, GPUs, state, progress); `first_start` -1 before it started.
JobView view_of(const Runtime& r, const JobPublic* pub, const Belief* belief, double first_start, int pool);

// An event past the simulated horizon (or NaN): InputError naming the job (its class, work) for a job's event,
// std::logic_error naming the strategy for its wake-up (`job` null).
[[noreturn]] void beyond_horizon(double time, const std::string& strategy, const JobTruth* job,
                                 const std::string& class_name, double work);

// The step a job measures of its own run (true throughput in `truth`), with lognormal noise of `sigma` keyed by
// (seed, job, n): independent of decision order.
StepObservation measured(StepObservation truth, std::uint64_t seed, int job, std::uint32_t n, double sigma);

}  // namespace ringsched::engine_detail
