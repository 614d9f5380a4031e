// workloads/pollux.h — the catalogs built from a Pollux (OSDI'21) artifact data folder (workloads/pollux_data.h):
// the held-out job classes with measured-table truth (`pollux`) and the goodput job model (`pollux-goodput`).
// Formats: docs/heldout.md.
#pragma once

#include <string>
#include <vector>

#include "workloads/catalog.h"
#include "workloads/pollux_data.h"

namespace ringsched {

// The held-out job class of an application (fixed_per_worker): per-GPU batch b = the largest batch measured in
// every (w, nodes) group; work at the validation batch closest to 8 b in log scale; GPUs 1..64; truth = the table.
// Convergence: that validation run's loss points as the loss curve, target = pollux_target_loss, one evaluation per
// epoch on average (interval = the run's last k / its number of epochs).
struct PolluxClassChoice {
  int local_batch = 0;
  int validation_batch = 0;
};
PolluxClassChoice pollux_class_choice(const PolluxApp& app);
JobClass pollux_job_class(const PolluxApp& app, double work_sigma);
// The six applications as one catalog, equal weights.
Catalog pollux_catalog(const std::string& dir, double work_sigma);

// The six applications with the goodput job model, as the artifact's simulator sets them up (applications.py):
// max_epochs bert 2, cifar10 100, ncf 10, imagenet 90, deepspeech2 80, yolov3 50; yolov3's per-GPU batch at most 8;
// ncf keeps its submitted batch even under a batch-adapting scheduler (the artifact fixes it at 32768); GPUs 1..64.
Catalog pollux_goodput_catalog(const std::string& dir);

}  // namespace ringsched
