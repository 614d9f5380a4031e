// workloads/workload.h — a concrete workload: the jobs of one replicate with their ground truth (arrival, class,
// work, per-job speed factor). Only the engine reads JobTruth; strategies see public facts and beliefs.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "workloads/catalog.h"
#include "workloads/epoch_schedule.h"

namespace ringsched {

struct JobTruth {
  int id = 0;
  double arrival = 0.0;          // seconds
  int class_index = 0;           // into Workload::catalog->classes
  double work_samples = 0;       // samples (reference-batch equivalent) to convergence
  double speed_factor = 1;       // multiplies the class throughput (per-job noise)
  int requested_gpus = 0;        // from a trace (0 = none); rigid strategies may use it
  std::string name;              // from a trace, else "job-<id>"
  double batch_size = 0.0;       // global batch the job was submitted with, from a trace (0 = its class's batch)
  double priority_weight = 1.0;  // from a Gavel trace (> 0); Gavel's max-min policies weigh jobs by it
  std::string user{};            // from a trace with users (philly_log, acme, helios, generic `user`); "" = none
  std::string vc{};              // from a trace with virtual clusters (philly_log, helios, generic `vc`); "" = none
  // A speed that changes at epoch boundaries (Shockwave traces: workloads/epoch_schedule.h); null = constant speed.
  std::shared_ptr<const EpochSchedule> schedule = nullptr;
};

struct Workload {
  std::shared_ptr<const Catalog> catalog;
  std::vector<JobTruth> jobs;  // sorted by arrival, ids 0..n-1 in that order
};

struct PoissonSpec {
  double rate_per_s = 0.0;   // arrival rate
  int jobs = 0;              // number of jobs
  double speed_sigma = 0.0;  // lognormal sigma of the per-job speed factor
};

// Poisson arrivals (exponential gaps, Boost.Random), classes drawn by weight, per-job lognormal noise on work
// (class work_sigma) and speed (spec.speed_sigma). Deterministic for a seed.
Workload generate_poisson_workload(std::shared_ptr<const Catalog> catalog, const PoissonSpec& spec, std::uint64_t seed);

// Expected GPU-seconds one job of the catalog needs on 8 GPUs (or its max if smaller), packed on nodes of
// gpus_per_node GPUs: sum over classes of share * E[work] / throughput(8) * 8.
double gpu_seconds_on_eight(const Catalog& catalog, int gpus_per_node);

// Arrival rate giving the offered load: load = rate * gpu_seconds_on_eight / total_gpus.
double rate_for_load(const Catalog& catalog, double load, int total_gpus, int gpus_per_node);

}  // namespace ringsched
