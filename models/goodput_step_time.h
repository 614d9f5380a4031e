// models/goodput_step_time.h — the `goodput` speed-model kind: a goodput model (models/goodput.h) seen as a speed
// model at epoch 0, over the measured profile of one application (GoodputProfile; the Pollux artifact's tables in
// workloads/goodput_app.h implement it).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "models/goodput.h"
#include "models/step_time_model.h"

namespace ringsched {

// What the goodput speed model reads of an application's measurements.
class GoodputProfile {
 public:
  virtual ~GoodputProfile() = default;
  // The smallest validated global batch: progress is counted in steps at this batch.
  [[nodiscard]] virtual double init_batch_size() const = 0;
  // Batch configuration for a fixed global batch on `replicas` GPUs.
  [[nodiscard]] virtual models::BatchConfig fixed_batch(double batch_size, int replicas) const = 0;
  // Seconds per step and the synchronisation part, at `atomic_bsz` per GPU on `placement` (GPUs per node).
  [[nodiscard]] virtual models::StepSync step_time(const std::vector<int>& placement, double atomic_bsz) const = 0;
  // Gradient statistics at `batch_size` during epoch `epoch`.
  [[nodiscard]] virtual models::GradStats grad_stats(double batch_size, int epoch) const = 0;
};

// The artifact's packed placement of w GPUs on nodes of `per_node`: (per_node, ..., per_node, rest).
std::vector<int> packed_placement(int w, int per_node);

// step_seconds(w, nodes, B) = B x seconds per accumulated step / (init batch x gain(B, epoch 0)), the fixed-batch
// configuration of B on w GPUs spread evenly (ceil(w / nodes) per node) over `nodes` nodes, so that
// class_throughput = init batch x goodput: progress in samples-equivalent per second (for load arithmetic and
// catalog-level beliefs).
class GoodputStepTime final : public models::StepTimeModel {
 public:
  explicit GoodputStepTime(std::shared_ptr<const GoodputProfile> app) : app_(std::move(app)) {}
  [[nodiscard]] double step_seconds(int w, int nodes, double global_batch) const override;
  [[nodiscard]] std::string kind() const override { return "goodput"; }

 private:
  std::shared_ptr<const GoodputProfile> app_;
};

}  // namespace ringsched
