// workloads/job_class.h — a job class: its public facts (name, batch mode, GPU limits, stated convergence target)
// and its truth (speed model, work to convergence, loss curve, goodput model).
#pragma once

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "models/step_time_model.h"
#include "workloads/loss_curve.h"

namespace ringsched {
class GoodputApp;
}

namespace ringsched {

// fixed_global: m is the same on any w (Optimus / Eq. 5 convention). fixed_per_worker: m = b*w (Horovod + Eq. 7).
enum class BatchMode { kFixedGlobal, kFixedPerWorker };

std::string to_string(BatchMode mode);

// What a class's jobs state in public: what a strategy may know of every job of the class (JobPublic embeds it, per
// job adjusted to the cluster and the job's batch) and what a belief fitted from history starts from.
struct ClassFacts {
  std::string name;
  BatchMode batch_mode = BatchMode::kFixedGlobal;
  double batch_size = 0.0;          // global batch (fixed_global) or per-worker batch (fixed_per_worker)
  double model_size_mparams = 0.0;  // model size, millions of parameters
  int min_gpus = 1;
  int max_gpus = 1;
  double weight = 1.0;  // share of arrivals of this class (normalised over the catalog)
  // Optional statistical-efficiency penalty for large global batches (fixed_per_worker only), a declared property
  // of the class: progress per sample is divided by 1 + penalty * log2(m(w) / m(1)). 0 (default) = none, as in the
  // paper.
  double large_batch_penalty = 0.0;
  // Convergence facts the job's owner states: target_loss, the loss threshold; loss_interval_samples, the spacing
  // of loss observations (an evaluation every that many samples, e.g. one epoch). 0 = the class reports no loss.
  double target_loss = 0.0;
  double loss_interval_samples = 0.0;
};

// How a class's jobs really behave: the simulator's truth, never shown to a strategy.
struct ClassTruth {
  std::string description;
  models::StepTimeModelPtr speed;  // seconds per step (true behaviour of the class, before per-job noise)
  // On a cluster with GPU types (cluster.pools): the speed on each type, by type name (catalog key speed_by_type).
  // `speed` stays the reference (load levels, the untyped cluster). Empty = the class has no per-type speeds.
  std::vector<std::pair<std::string, models::StepTimeModelPtr>> speed_by_type;
  double work_samples = 0.0;  // samples to convergence (epochs x data set size), mean over jobs
  double work_sigma = 0.0;    // lognormal sigma of per-job work around work_samples (0 = identical jobs)
  // Convergence, optional (the `online` belief source needs it): the class's true loss curve against samples
  // processed (a job with work W follows it stretched by W / work_samples, so it reaches target_loss at W). Null =
  // the class reports no loss (its jobs' target_loss and loss_interval_samples are then 0).
  std::shared_ptr<const LossCurve> convergence;
  // The goodput job model (workloads/goodput_app.h), optional: when set, a job's truth is the measured application
  // (step time by placement and per-GPU batch, gradient accumulation, efficiency gain, progress by epoch), its work
  // is the application's total progress x its initial batch ("samples-equivalent"), and `speed` / `batch_size` are
  // a view of it at epoch 0 for load arithmetic and catalog-level beliefs. adaptive_batch: under a scheduler that
  // adapts batch sizes (pollux) the job picks its batch from its own fitted model; otherwise (and always when false)
  // it keeps the batch it was submitted with (a trace's batch_size, else batch_size here).
  std::shared_ptr<const GoodputApp> goodput;
  // On a cluster with GPU types: the goodput model on each type, by type name (catalog key goodput.by_type; each
  // type's speed view is in speed_by_type). `goodput` is then the reference type's. Empty = one application only.
  std::vector<std::pair<std::string, std::shared_ptr<const GoodputApp>>> goodput_by_type;
  bool adaptive_batch = true;
  // Goodput classes, optional (catalog keys goodput.slowdown, goodput.restart_s; Sia's simulator_config.py SLOWDOWNS
  // and applications.py rescale_time): every job's true goodput is divided by `goodput_slowdown` (folded into its
  // speed factor, so `oracle` beliefs see it too); restart_cost_s >= 0 replaces restart.cost_s for the class's jobs
  // (-1: the config's).
  double goodput_slowdown = 1.0;
  double restart_cost_s = -1.0;
};

// A class of a catalog: its public facts and its truth.
struct JobClass : ClassFacts, ClassTruth {};

// The public facts of each class, in order (what a history fit may read).
std::vector<ClassFacts> class_facts(const std::vector<JobClass>& classes);

// Global batch on w workers.
double global_batch(const JobClass& c, int w);

// Useful samples per second on w workers over `nodes` nodes (step throughput x batch, divided by the large-batch
// penalty), times `speed_factor` (per-job noise; 1 = the class model).
double class_throughput(const JobClass& c, int w, int nodes, double speed_factor = 1.0);

// class_throughput with another speed model of the class (its speed on a GPU type).
double model_throughput(const JobClass& c, const models::StepTimeModel& speed, int w, int nodes,
                        double speed_factor = 1.0);

// The class's speed model on GPU type `gpu_type` ("" = the reference `speed`); null when the class gives none for it.
const models::StepTimeModel* speed_on(const JobClass& c, const std::string& gpu_type);

// The class's goodput model on GPU type `gpu_type` ("" = the reference `goodput`); null when it has none for it.
std::shared_ptr<const GoodputApp> goodput_on(const JobClass& c, const std::string& gpu_type);

// class_throughput on GPU type `gpu_type` (its speed_by_type model; "" = the reference). Precondition: speed_on is
// not null (configs check every class against the cluster's types).
double class_throughput_on(const JobClass& c, const std::string& gpu_type, int w, int nodes, double speed_factor = 1.0);

// Nodes a packed allocation of w GPUs spans on nodes with gpus_per_node GPUs each.
int packed_nodes(int w, int gpus_per_node);

}  // namespace ringsched
