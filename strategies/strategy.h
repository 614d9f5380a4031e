// strategies/strategy.h — the Strategy interface: a read-only snapshot in (time, GPUs, each active job's public
// facts, progress and the scheduler's beliefs), decisions out (GPU counts, and when to be called again).
// A strategy never sees a job's ground truth: JobView carries no JobTruth and Belief is a separate type.
#pragma once

#include <limits>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "workloads/job_class.h"

namespace ringsched {

// What the scheduler believes about one job. Built by a belief source (oracle, history, ...), never the truth
// object itself.
class Belief {
 public:
  virtual ~Belief() = default;
  // Believed useful samples per second on w GPUs spanning `nodes` nodes.
  [[nodiscard]] virtual double throughput(int w, int nodes) const = 0;
  // Believed total work (samples) to convergence.
  [[nodiscard]] virtual double total_work() const = 0;
  [[nodiscard]] virtual std::string source() const = 0;
  // The engine reports the job's observable progress (samples done) before each snapshot that shows the job. Beliefs
  // that learn from progress (`online`: the loss the job has produced so far) update here; others ignore it.
  virtual void observe_progress(double /*work_done*/) {}
};

// What the user submitted with the job: public.
struct JobPublic {
  int id = 0;
  std::string name;
  std::string class_name;
  double arrival = 0.0;
  BatchMode batch_mode = BatchMode::kFixedGlobal;
  double batch_size = 0.0;
  double model_size_mparams = 0.0;
  int min_gpus = 1;
  int max_gpus = 1;
  int requested_gpus = 0;  // from a trace; 0 = none
  // Convergence facts stated with the job (JobClass): the loss threshold and the samples between loss observations.
  // 0 = the job reports no loss.
  double target_loss = 0.0;
  double loss_interval_samples = 0.0;
};

enum class JobState { kWaiting, kRunning, kRestarting };

struct JobView {
  const JobPublic* pub = nullptr;
  const Belief* belief = nullptr;  // null when the strategy asked for no beliefs
  int gpus = 0;
  JobState state = JobState::kWaiting;
  bool started = false;               // has run before (a restart costs time)
  double work_done = 0.0;             // samples processed so far (observable progress)
  double ready_at = 0.0;              // when a restart ends (state == kRestarting)
  double attained_gpu_seconds = 0.0;  // GPU-seconds received so far (for least-attained-service policies)
  double first_start = -1.0;          // time of first start, -1 if never started
};

// Measures a running job's throughput at its current allocation, with multiplicative lognormal noise of the given
// sigma (the engine draws it from the replicate's measurement stream). Returns 0 for a job with no GPUs.
class Probe {
 public:
  virtual ~Probe() = default;
  virtual double measure_throughput(int job_id, double sigma) = 0;
};

struct Snapshot {
  double now = 0.0;
  int total_gpus = 0;
  int gpus_per_node = 1;
  std::span<const JobView> jobs;  // active (arrived, unfinished) jobs in arrival order
  Probe* probe = nullptr;
};

struct Decision {
  std::vector<int> gpus;                                       // one entry per snapshot job, same order
  double wakeup_at = std::numeric_limits<double>::infinity();  // call again at this time (if no event comes first)
};

class Strategy {
 public:
  virtual ~Strategy() = default;
  [[nodiscard]] virtual std::string name() const = 0;
  virtual Decision decide(const Snapshot& snapshot) = 0;
  // Called when a job finishes, so per-job state can be dropped.
  virtual void on_finish(int /*job_id*/) {}
};

// Remaining work the strategy believes is left (>= 1 sample so times stay finite).
double believed_remaining(const JobView& job);

}  // namespace ringsched
