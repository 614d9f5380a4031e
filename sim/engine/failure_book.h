// sim/engine/failure_book.h — what failures cost each job (cluster.failures, docs/failures.md): its running stretches
// and checkpoints, the work a failure takes back, and the GPU time lost (recomputed work, checkpoints, restarts
// after a failure, waiting while evicted). The engine asks it at a few points (a job starts running, stops, fails,
// restarts); without failures it holds nothing and every call returns at once.
#pragma once

#include <cstddef>
#include <optional>
#include <vector>

#include "sim/cluster/failures/failure_config.h"

namespace ringsched {

// What failures cost a job (cluster.failures; docs/failures.md): failures that hit it, work taken back (samples),
// its running time and the part of it kept as progress (checkpoint overhead and recomputed work taken out), and the
// GPU-seconds lost to recomputed work, checkpoints, restarts after a failure and waiting while evicted.
struct JobFailureStats {
  int failures = 0;
  int preemptions = 0;  // evictions with enough notice (failures.preemptions): a checkpoint written, nothing lost
  double lost_work = 0.0;
  double run_s = 0.0;
  double productive_s = 0.0;
  double recompute_gpu_s = 0.0;
  double checkpoint_gpu_s = 0.0;
  double restart_gpu_s = 0.0;
  double wait_gpu_s = 0.0;
};

}  // namespace ringsched

namespace ringsched::engine_detail {

class FailureBook {
 public:
  FailureBook(const std::optional<fail::FailureOptions>& options, std::size_t jobs);
  [[nodiscard]] bool on() const { return on_; }
  // The job's progress rate with its checkpoints' cost taken out: rate x interval / (interval + cost).
  [[nodiscard]] double scaled(int id, double rate) const {
    return on_ ? rate * jobs_[static_cast<std::size_t>(id)].factor : rate;
  }
  // The job runs from `now` (work done `work`) on `gpus` GPUs over `nodes` nodes: a new stretch, checkpointed every
  // interval (Young/Daly: from the failure rate of `nodes` nodes). An open stretch ends first (an epoch end or a
  // re-tuned batch of a goodput job is a checkpoint).
  void running(int id, double now, double work, int gpus, int nodes);
  // The job stops running (resized, preempted, migrated, finished): its stretch ends; a stop-and-restart saves a
  // checkpoint, so nothing is lost.
  void stop(int id, double now);
  // A node under the job failed at `now`: returns its work done after going back to its last checkpoint (work done
  // `work` now; `gpus` held). The job is evicted until it restarts. `noticed`: the node was preempted with enough
  // notice to write a checkpoint first (its cost is charged), so nothing is lost and it counts as a preemption.
  double fail(int id, double now, double work, int gpus, bool noticed = false);
  // The job restarts at `now` on `gpus` GPUs, paying `cost_s`: after a failure, its wait and this restart are lost.
  void restarting(int id, double now, double cost_s, int gpus);
  // Cumulative work the job lost to failures (samples; the engine checker's conservation counts it).
  [[nodiscard]] double lost_work(int id) const { return on_ ? jobs_[static_cast<std::size_t>(id)].f.lost_work : 0.0; }
  // Each job's failure figures, by job id (empty without failures).
  [[nodiscard]] std::vector<JobFailureStats> stats() const;

 private:
  struct Job {
    double factor = 1.0;  // interval / (interval + cost) of the stretch it runs (or ran last)
    bool open = false;
    double start = 0.0;
    double start_work = 0.0;
    double cycle = 0.0;  // interval + cost (infinity without checkpoints)
    int gpus = 0;
    bool evicted = false;
    double evicted_at = 0.0;
    int evicted_gpus = 0;
    JobFailureStats f;  // what failures cost it so far
  };
  void close(Job& j, double now, double saved_s);

  bool on_ = false;
  fail::CheckpointPolicy checkpoint_;
  double node_rate_ = 0.0;
  std::vector<Job> jobs_;
};

}  // namespace ringsched::engine_detail
