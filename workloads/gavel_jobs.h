// workloads/gavel_jobs.h — Gavel's (OSDI'20) job generator as a workload (arrival process "gavel"): the scale factor,
// duration and job type of each job drawn in the order and from the distributions of Gavel's utils.generate_job, and
// exponential inter-arrival times with the first job at t = 0 (Scheduler.simulate). Sources: docs/fidelity.md "Gavel".
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "workloads/workload.h"

namespace ringsched {

struct GavelJobsSpec {
  double rate_per_s = 0.0;              // arrivals per second (> 0)
  int jobs = 0;                         // jobs generated
  bool multi_gpu = false;               // scale factors 1/2/4/8 (else every job on 1 GPU)
  std::string reference_type = "v100";  // a job's duration is its time alone on this type at its scale factor
};

// Per job, from one stream: u = U(0,1) gives the scale factor (>= 0.95: 8, >= 0.8: 4, >= 0.7: 2, else 1; drawn
// always, then 1 unless multi_gpu); the duration is 60 x 10^U(3, 4) s with probability 0.2 (a second U(0,1) >= 0.8),
// else 60 x 10^U(1.5, 3) s; the job type is uniform over the catalog's classes, drawn again while the scale factor
// exceeds the class's GPUs (Gavel: "distributed" job types). Work = duration x the class's throughput on
// `reference_type` at that many GPUs (samples = steps for the gavel catalog); requested_gpus = the scale factor.
// InputError when a class has no speed on `reference_type`, or no class runs on more than one GPU with multi_gpu.
Workload generate_gavel_workload(std::shared_ptr<const Catalog> catalog, const GavelJobsSpec& spec, std::uint64_t seed);

}  // namespace ringsched
