// sim/engine/belief_scoring.h — how far the beliefs were from the truth at decision time (EngineConfig::
// score_beliefs; RunResult::belief_score): at every decision, for every active job with a belief, the speed APE
// averaged over w = 1..max_gpus packed on nodes (and over w >= 16) and the believed work's APE, each job-decision
// counting once, by the job's true class. A belief is re-scored only after it observed something new.
#pragma once

#include <cstdint>
#include <vector>

#include "strategies/strategy.h"

namespace ringsched {

// How far the beliefs were from the truth at decision time (EngineConfig::score_beliefs): at every decision, for
// every active job with a belief, the speed APE averaged over w = 1..max_gpus packed on nodes (and over w >= 16),
// each job-decision counting once; by the job's true class (Workload::catalog order).
struct BeliefScore {
  struct Cell {
    double ape_sum = 0.0;  // sum over job-decisions of the mean APE over w (a fraction)
    double ape16_sum = 0.0;
    double work_ape_sum = 0.0;  // believed total work against the job's true work
    std::uint64_t job_decisions = 0;
    std::uint64_t job_decisions16 = 0;  // job-decisions of jobs that may get 16+ GPUs
    int jobs = 0;                       // distinct jobs scored
  };
  std::vector<Cell> by_class;
};

class BeliefScorer {
 public:
  BeliefScorer(std::size_t jobs, int gpus_per_node) : cache_(jobs), gpus_per_node_(gpus_per_node) {}
  // Adds one job-decision of job `id` (class `cls` at catalog index `class_index`, public facts `p`, per-job speed
  // factor and true work) whose belief `b` has received `observations` observations so far.
  void score(BeliefScore& out, int id, const Belief& b, const JobClass& cls, int class_index, const JobPublic& p,
             double speed_factor, double work, std::uint32_t observations);

 private:
  // A job's last score: its APE as of `version` observations.
  struct Cached {
    std::uint32_t version = ~std::uint32_t{0};
    bool counted = false;
    double ape = 0.0;
    double ape16 = 0.0;
  };
  std::vector<Cached> cache_;
  int gpus_per_node_;
};

}  // namespace ringsched
