// workloads/job_class.h — a job class: its true speed model, batch mode, work to convergence and GPU limits.
#pragma once

#include <memory>
#include <string>

#include "models/step_time_model.h"
#include "workloads/loss_curve.h"

namespace ringsched {
class GoodputApp;
}

namespace ringsched {

// fixed_global: m is the same on any w (Optimus / Eq. 5 convention). fixed_per_worker: m = b*w (Horovod + Eq. 7).
enum class BatchMode { kFixedGlobal, kFixedPerWorker };

std::string to_string(BatchMode mode);

struct JobClass {
  std::string name;
  std::string description;
  models::StepTimeModelPtr speed;  // seconds per step (true behaviour of the class, before per-job noise)
  BatchMode batch_mode = BatchMode::kFixedGlobal;
  double batch_size = 0.0;          // global batch (fixed_global) or per-worker batch (fixed_per_worker)
  double model_size_mparams = 0.0;  // public fact: model size, millions of parameters
  double work_samples = 0.0;        // samples to convergence (epochs x data set size), mean over jobs
  double work_sigma = 0.0;          // lognormal sigma of per-job work around work_samples (0 = identical jobs)
  double weight = 1.0;              // share of arrivals of this class (normalised over the catalog)
  int min_gpus = 1;
  int max_gpus = 1;
  // Optional statistical-efficiency penalty for large global batches (fixed_per_worker only): progress per sample
  // is divided by 1 + penalty * log2(m(w) / m(1)). 0 (default) = none, as in the paper.
  double large_batch_penalty = 0.0;
  // Convergence, optional (the `online` belief source needs it): the class's true loss curve against samples
  // processed (truth; a job with work W follows it stretched by W / work_samples, so it reaches target_loss at W);
  // target_loss, the public convergence threshold the job's owner states; loss_interval_samples, the public spacing
  // of loss observations (an evaluation every that many samples, e.g. one epoch). Null / 0 = the class reports no
  // loss.
  std::shared_ptr<const LossCurve> convergence;
  double target_loss = 0.0;
  double loss_interval_samples = 0.0;
  // The goodput job model (workloads/goodput_app.h), optional: when set, a job's truth is the measured application
  // (step time by placement and per-GPU batch, gradient accumulation, efficiency gain, progress by epoch), its work
  // is the application's total progress x its initial batch ("samples-equivalent"), and `speed` / `batch_size` are
  // a view of it at epoch 0 for load arithmetic and catalog-level beliefs. adaptive_batch: under a scheduler that
  // adapts batch sizes (pollux) the job picks its batch from its own fitted model; otherwise (and always when false)
  // it keeps the batch it was submitted with (a trace's batch_size, else batch_size here).
  std::shared_ptr<const GoodputApp> goodput;
  bool adaptive_batch = true;
};

// Global batch on w workers.
double global_batch(const JobClass& c, int w);

// Useful samples per second on w workers over `nodes` nodes (step throughput x batch, divided by the large-batch
// penalty), times `speed_factor` (per-job noise; 1 = the class model).
double class_throughput(const JobClass& c, int w, int nodes, double speed_factor = 1.0);

// Nodes a packed allocation of w GPUs spans on nodes with gpus_per_node GPUs each.
int packed_nodes(int w, int gpus_per_node);

}  // namespace ringsched
