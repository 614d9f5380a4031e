// workloads/pollux_data.h — the Pollux (OSDI'21) artifact tables as per-application truth: measured step-time tables
// (placements.csv + scalability.csv), work to the target metric (validation-<B>.csv, rule below) and loss-like
// progress points for Eq. 1. The catalogs built from them: workloads/pollux.h. Formats: docs/heldout.md.
#pragma once

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "models/fit.h"
#include "models/input_error.h"
#include "models/table_speed.h"

namespace ringsched {

// One measured step-time row: placement digits ("1122"; empty for scalability.csv rows), GPUs, nodes, per-GPU batch.
struct PolluxStepRow {
  std::string placement;
  int w = 1;
  int nodes = 1;
  double local_batch = 0.0;
  double step_seconds = 0.0;
  double sync_seconds = 0.0;
  std::string file;
  int line = 0;
  std::string gpu_type;  // tables with a gpu_type column only (read_pollux_step_file with `typed`)
};

struct PolluxEpoch {
  double progress = 0.0;
  double iteration = 0.0;  // steps done at the end of this epoch
  double metric = 0.0;
};

// A full training run at global batch `batch` (validation-<batch>.csv).
struct PolluxRun {
  int batch = 0;
  std::string file;
  std::vector<PolluxEpoch> epochs;
};

struct PolluxApp {
  std::string name;
  std::string dir;
  std::vector<PolluxStepRow> steps;  // placements.csv rows, then scalability.csv rows
  std::vector<PolluxRun> runs;       // by increasing batch
  std::shared_ptr<const models::TableStepTime> table;
  bool higher_is_better = true;  // metric direction: the sign of (last - first) epoch, summed over runs
  double target_metric = 0.0;    // the rule of pollux_work_samples
};

// cifar10, imagenet, bert, ncf, yolov3, deepspeech2 (the artifact's order).
std::vector<std::string> pollux_app_names();
// The shipped data: $RINGSCHED_POLLUX_DIR if set, else <source tree>/workloads/data/pollux.
std::string default_pollux_dir();
// Reads <dir>/traces/<name>/. Unknown names fail listing the known ones; bad rows fail with file:line.
PolluxApp load_pollux_app(const std::string& dir, const std::string& name);
// Cached per (dir, name) for the process (the tables are read-only); thread-safe.
std::shared_ptr<const PolluxApp> pollux_app(const std::string& dir, const std::string& name);

// Work rule: target = the best metric that every run reaches (min over runs of each run's best when higher is
// better, max over runs of each run's best (lowest) otherwise). Work at batch B = samples B * iteration at the first
// epoch of validation-B whose metric reaches the target (the final epoch if none does, which the rule excludes
// for the shipped files). Throws InputError if no run has that batch (lists the batches).
double pollux_work_samples(const PolluxApp& app, int batch);
// Loss-like points of validation-B for Eq. 1: k = samples (B * iteration); loss = metric when lower is better,
// else ceiling - metric with ceiling 1 for metrics in [0, 1] and 100 otherwise (accuracy / F1 in percent).
std::vector<models::LossPoint> pollux_loss_points(const PolluxApp& app, int batch);
// The work rule's target metric on the same loss-like scale: the convergence threshold of the held-out classes.
double pollux_target_loss(const PolluxApp& app);
// Every measured row as an Eq. 5 fit point (global batch = local batch * w).
std::vector<models::SpeedPoint> pollux_speed_points(const PolluxApp& app);
// Approximate model size in millions of parameters (public facts about the networks; only scales Eq. 5's t2).
double pollux_model_size(const std::string& name);

// One step-time table in the Pollux format: placements.csv's columns (placement digits) when `placements`, else
// scalability.csv's (num_nodes, num_replicas); rows appended to `out`. `typed`: a non-empty `gpu_type` column is
// required (one table holding several GPU types); otherwise a `gpu_type` column is refused (the rows of several
// types must not be read as one type's). Bad rows fail with file:line.
void read_pollux_step_file(const std::string& path, bool placements, bool typed, std::vector<PolluxStepRow>& out);

// The step-time rows of a folder in the Pollux table format: placements.csv and/or scalability.csv (at least one).
// Bad rows fail with file:line.
std::vector<PolluxStepRow> read_pollux_step_tables(const std::string& folder);

// The validation runs of an application folder: (global batch B, path) of every validation-<B>.csv, by batch.
// InputError when B is not an integer in 1..1e8 or the folder cannot be listed; an empty list when there are none.
std::vector<std::pair<long, std::string>> validation_files(const std::string& folder);
// InputError listing the known applications unless `name` is one.
void check_pollux_app_name(const std::string& name);

}  // namespace ringsched
