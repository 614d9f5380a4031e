// workloads/gavel_jobs.h — Gavel's (OSDI'20) job generator as a workload (arrival process "gavel"): the scale factor,
// duration and job type of each job drawn in the order and from the distributions of Gavel's utils.generate_job, and
// exponential inter-arrival times with the first job at t = 0 (Scheduler.simulate), either from ringsched's Boost
// streams (the default) or from Python's `random` streams seeded as Gavel seeds them, over Gavel's job table in the
// order of its published runs or of today's code, so that the jobs are Gavel's own. Sources: docs/fidelity.md "Gavel".
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "workloads/workload.h"

namespace ringsched {

// Where the generator's draws come from: ringsched's Boost streams (make_rng: the same distributions, other jobs) or
// Python's random.Random streams as Gavel's Scheduler._initialize_seeds seeds them (job generator seed + 2,
// inter-arrival times seed + 3; workloads/python_random.h).
enum class GavelStreams { kBoost, kPython };

// The order of Gavel's job table (scheduler/job_table.py), which `rng.choice(JobTable)` indexes: the published runs'
// (before Gavel's commit 19a0dd2: A3C after the Transformers) or today's (A3C after the Recommendations).
enum class GavelJobTable { kPublished, kCurrent };

// One template of Gavel's job table: its model (a job type of the throughputs file, a class of the `gavel` catalog)
// and whether it may run on more than one GPU.
struct GavelTemplate {
  std::string model;
  bool distributed = false;
};

// Gavel's 26 job templates in the given order.
const std::vector<GavelTemplate>& gavel_job_table(GavelJobTable order);

struct GavelJobsSpec {
  double rate_per_s = 0.0;              // arrivals per second (> 0)
  int jobs = 0;                         // jobs generated
  bool multi_gpu = false;               // scale factors 1/2/4/8 (else every job on 1 GPU)
  std::string reference_type = "v100";  // a job's duration is its time alone on this type at its scale factor
  GavelStreams streams = GavelStreams::kBoost;
  GavelJobTable job_table = GavelJobTable::kPublished;  // python streams only
};

// Per job, from one stream: u = U(0,1) gives the scale factor (>= 0.95: 8, >= 0.8: 4, >= 0.7: 2, else 1; drawn
// always, then 1 unless multi_gpu); the duration is 60 x 10^U(3, 4) s with probability 0.2 (a second U(0,1) >= 0.8),
// else 60 x 10^U(1.5, 3) s; the job type is uniform over the catalog's classes, drawn again while the scale factor
// exceeds the class's GPUs (Gavel: "distributed" job types). Work = duration x the class's throughput on
// `reference_type` at that many GPUs (samples = steps for the gavel catalog); requested_gpus = the scale factor.
// InputError when a class has no speed on `reference_type`, or no class runs on more than one GPU with multi_gpu.
//
// With python streams, `seed` is Gavel's seed and every draw is Gavel's (utils.generate_job, called from
// Scheduler.simulate with always_generate_scale_factor): from random.Random(seed + 2), per job, uniform(0, 1) for the
// scale factor (0.7 <= r <= 0.8: 2, then <= 0.95: 4, then 8; else 1), random() >= 0.8 for a long job and uniform(3, 4)
// or uniform(1.5, 3) for the exponent, then choice(job table) until the template is distributed or the scale factor
// is 1; steps = duration x the class's throughput on `reference_type` at that scale factor. Arrivals: the first at 0,
// then each gap -log(1 - random()) x lam from random.Random(seed + 3) (_sample_arrival_time_delta, lam = 1 / rate).
// InputError also when the catalog lacks a model of the job table.
Workload generate_gavel_workload(std::shared_ptr<const Catalog> catalog, const GavelJobsSpec& spec, std::uint64_t seed);

// The catalog classes of Gavel's job table in the given order (class indices); InputError naming the first model
// the catalog has no class for.
std::vector<int> gavel_table_classes(const Catalog& catalog, GavelJobTable order);

}  // namespace ringsched
