// sim/engine/job_runtime.cpp — a job's runtime at its start and the steps it measures (see the header).
#include "sim/engine/job_runtime.h"

#include <cmath>

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
  if (!(r.work > 0.0 && std::isfinite(r.work))) {
    throw InputError("job '" + t.name + "': its work (" + number_text(r.work) + ") is not a positive finite amount");
  }
}

StepObservation measured(StepObservation truth, std::uint64_t seed, int job, std::uint32_t n, double sigma) {
  const double z = keyed_normal(seed, Stream::kAgentSteps, static_cast<std::uint64_t>(job), n);
  truth.throughput *= std::exp(sigma * z - 0.5 * sigma * sigma);
  return truth;
}

}  // namespace ringsched::engine_detail
