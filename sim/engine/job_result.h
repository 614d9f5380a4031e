// sim/engine/job_result.h — one job's record in a run's results (RunResult::jobs): what it was, when it ran and
// finished, what it held and did, and (Shockwave traces) its isolated time.
#pragma once

#include <string>

#include "sim/engine/failure_book.h"

namespace ringsched {

struct JobResult {
  int id = 0;
  std::string name;
  std::string class_name;
  std::string user;  // the trace's user and virtual cluster (JobTruth::user, vc); "" when the trace has none
  std::string vc;
  double arrival = 0.0;
  double first_start = 0.0;
  double finish = 0.0;
  int restarts = 0;
  double gpu_seconds = 0.0;  // allocated GPU-seconds, restarts included
  int max_gpus = 0;          // the largest allocation it held
  double work = 0.0;         // samples
  std::string gpu_type;      // typed clusters: the GPU type it ran on last ("" on the untyped cluster)
  // Link contention (cluster.network): the time-averaged iteration time shared / alone over the time it held GPUs,
  // and whether it ever shared a link with another job. 1 / false without contention.
  double contention_slowdown = 1.0;
  bool shared_link = false;
  JobFailureStats failure;  // all 0 without cluster.failures
  // Shockwave traces: the job's run time alone as Shockwave defines it (the sum of its epochs' durations), the base
  // of its finish-time fairness rho (sim/engine/fairness_metric.h); 0 for other jobs.
  double isolated_s = 0.0;
  // The GPUs the trace asked for (JobTruth::requested_gpus; 0 = none): the size of breakdown.csv's `size` groups.
  int requested_gpus = 0;
  // Its run time alone (the base of its finish-time fairness rho = JCT / alone_s, sim/engine/fairness_metric.h): its
  // work at the true speed of its class on G GPUs packed on nodes (the job's speed factor; no restart, contention,
  // placement or waiting), G = requested_gpus when the trace gives one, else min(8, its class's max) (at least the
  // class's min), at most the cluster's (its pool's) GPUs; set after the run by set_alone_times. 0 (no rho) for
  // goodput-model and epoch-scheduled jobs (their speed is not one number per count).
  double alone_s = 0.0;
};

}  // namespace ringsched
