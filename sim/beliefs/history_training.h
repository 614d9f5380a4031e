// sim/beliefs/history_training.h — how held-out `history` beliefs are made: training runs of every class (a
// disjoint seed, each with its own speed and work noise) are profiled at a declared subset of the measurable points
// (a fit protocol's points, or an explicit probe list) with measurement noise, and the protocol's speed model is
// fitted on those numbers; work = the mean training work. Nothing here reads a job the scheduler is evaluated on,
// and fit_history_catalog never reads the truth: only public class facts and the training numbers.
// Config keys: `beliefs.history` (docs/config.md); protocol: docs/heldout.md.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "models/fit.h"
#include "sim/fitting/speed_fit.h"
#include "workloads/catalog.h"

namespace ringsched {

struct TrainingSpec {
  int runs = 5;                      // training runs per class
  std::uint64_t seed = 1000003;      // seed of the training runs (keep it apart from the evaluated seeds)
  double speed_sigma = 0.0;          // lognormal sigma of each run's speed factor
  std::optional<double> work_sigma;  // lognormal sigma of each run's work; unset = each class's own work sigma
  double measurement_sigma = 0.05;   // lognormal noise of each profiled step time
  FitProtocol protocol = FitProtocol::kPaper;  // the model family, and the profiled points unless probes are given
  std::vector<ProbePoint> probes;              // non-empty: profile exactly these (w, nodes) points
  int gpus_per_node = 8;                       // of the cluster the runs were profiled on
  int max_gpus = 1 << 20;  // largest allocation measured on a model (non-table) truth: the cluster size
  // Which end of the fitted speed beliefs plan with (`beliefs.history.speed`): the model's prediction ("mid"), or the
  // upper end of its 90% interval, the slowest the probes admit ("high"; net protocols only: models/net_interval.h).
  bool speed_high = false;

  // Whether the runs profile a measurement at w GPUs over `nodes` nodes.
  [[nodiscard]] bool profiles(int w, int nodes) const;
  // "protocol paper" or "protocol two-level on probes 1, 2, 4, 44".
  [[nodiscard]] std::string describe() const;
};

// What the training runs measured: per class, the profiled points (noisy) and the work of each run.
struct TrainingData {
  std::vector<std::vector<models::SpeedPoint>> points;  // by class
  std::vector<std::vector<double>> work;                // by class
  // By class: the points profiled on each GPU type the class has a speed for (speed_by_type), in the class's order.
  std::vector<std::vector<std::pair<std::string, std::vector<models::SpeedPoint>>>> points_by_type;
};

// The measurable points of a class's truth, in a fixed order: a measured table's points (every measured per-GPU
// batch); otherwise every GPU count 1..min(max_gpus, spec.max_gpus) packed on nodes, plus the two- and four-node
// spreads (2 GPUs on 2 nodes, 2g on 2 and 4g on 4 for g GPUs per node) and the spec's probe points, at the class's
// batch (global_batch(c, w)).
std::vector<models::SpeedPoint> measurable_points(const JobClass& c, const TrainingSpec& spec);
// The same on one of the class's speed models (its speed on a GPU type).
std::vector<models::SpeedPoint> measurable_points(const JobClass& c, const models::StepTimeModel& speed,
                                                  const TrainingSpec& spec);

// Training runs of every class of `truth`: per run a speed factor and a work (lognormal), each profiled at the
// points the spec selects with measurement noise. Seeded by spec.seed only; one noise draw per measurable point,
// selected or not, so on a measured table the numbers do not depend on the selection. A class with speeds per GPU
// type is also profiled on each type (its own runs, from a stream per class and type: the reference-type numbers
// are those of an untyped class).
TrainingData make_training_data(const Catalog& truth, const TrainingSpec& spec);

// The `history` catalog: public facts of each class copied, speed fitted (the protocol's model) on the training
// points (per GPU type on that type's points: speed_by_type), work = mean training work. Reads no truth:
// `classes_public` holds none (ClassFacts) and `data` only numbers. Too few points for a class: InputError naming
// `origin`, the class and the points it has.
Catalog fit_history_catalog(const std::vector<ClassFacts>& classes_public, const TrainingData& data,
                            const TrainingSpec& spec, const std::string& origin);

}  // namespace ringsched
