// sim/engine/job_runtime.cpp — a job's runtime at its start and the steps it measures (see the header).
#include "sim/engine/job_runtime.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "models/input_error.h"
#include "sim/engine/horizon.h"
#include "sim/engine/public_facts.h"
#include "workloads/goodput_app.h"
#include "workloads/io/number_text.h"
#include "workloads/rng.h"

namespace ringsched::engine_detail {

void start_runtime(Runtime& r, JobPublic& pub, const JobTruth& t, const JobClass& cls, bool adapts_batch,
                   const std::vector<std::string>& gpu_types) {
  // Arrivals beyond the simulated clock's horizon (or NaN) come from absurd input (a trace time in the far future).
  if (!(t.arrival >= 0.0 && t.arrival <= kSimHorizonS)) {
    throw InputError("job '" + t.name + "': arrival time " + number_text(t.arrival) +
                     " s is not a time within the simulated horizon (0..1e12 s)");
  }
  if (cls.goodput) {
    for (const std::string& type : gpu_types) {
      if (goodput_on(cls, type) == nullptr) {
        throw InputError("job '" + t.name + "': its goodput-model class has no tables for GPU type '" + type +
                         "' of cluster.pools (goodput.by_type)");
      }
    }
    const bool adaptive = cls.adaptive_batch && adapts_batch;
    const double batch = t.batch_size > 0.0 ? t.batch_size : cls.batch_size;
    r.gp = std::make_unique<GoodputJob>(cls.goodput, batch, adaptive);
    pub = goodput_public_facts(pub, *cls.goodput, adaptive ? 0.0 : batch);
  }
  r.work = r.gp ? r.gp->total() : t.work_samples;
  if (!r.gp && t.schedule && !t.schedule->phase_end.empty()) r.sched = t.schedule.get();
  if (!(r.work > 0.0 && std::isfinite(r.work))) {
    throw InputError("job '" + t.name + "': its work (" + number_text(r.work) + ") is not a positive finite amount");
  }
}

void fill_result(JobResult& result, const JobTruth& t, const JobClass& cls, const Runtime& r) {
  result.id = t.id;
  result.name = t.name;
  result.class_name = cls.name;
  result.user = t.user;
  result.vc = t.vc;
  result.arrival = t.arrival;
  result.work = r.work;
  result.isolated_s = t.schedule ? t.schedule->isolated_s : 0.0;
  result.requested_gpus = t.requested_gpus;
}

double phase_end(const Runtime& r) {
  if (r.gp) return std::min(r.work, r.gp->epoch_end());
  if (r.sched != nullptr) return std::min(r.work, r.sched->phase_end[r.phase]);
  return r.work;
}

void start_phase(Runtime& r) {
  if (r.gp) r.gp->observe();
  if (r.sched != nullptr) r.phase = r.sched->phase_at(r.work_done);
}

StepObservation measured(StepObservation truth, std::uint64_t seed, int job, std::uint32_t n, double sigma) {
  const double z = keyed_normal(seed, Stream::kAgentSteps, static_cast<std::uint64_t>(job), n);
  truth.throughput *= std::exp(sigma * z - 0.5 * sigma * sigma);
  return truth;
}

JobView view_of(const Runtime& r, const JobPublic* pub, const Belief* belief, double first_start, int pool) {
  JobView v;
  v.pub = pub;
  v.belief = belief;
  v.gpus = r.gpus;
  v.state = r.state;
  v.started = r.started;
  v.work_done = r.work_done;
  v.ready_at = r.ready_at;
  v.attained_gpu_seconds = r.attained;
  v.first_start = r.started ? first_start : -1.0;
  v.restarts = r.restarts;
  v.pool = pool;
  return v;
}

void beyond_horizon(double time, const std::string& strategy, const JobTruth* job, const std::string& class_name,
                    double work) {
  if (job == nullptr)
    throw std::logic_error("strategy '" + strategy + "' asked to be woken at " + number_text(time) + " s");
  throw InputError("job '" + job->name + "' (class " + class_name + "): the simulated clock would reach " +
                   number_text(time) + " s, beyond the horizon of 1e12 s: its work (" + number_text(work) +
                   ") or its speed is absurd; check the class's work and batch or the trace's durations");
}

}  // namespace ringsched::engine_detail
