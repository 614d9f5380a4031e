// models/scale_table.h — the `scale_table` speed-model kind: a job's measured throughput at a few GPU counts (steps
// per second, all its GPUs together; e.g. Gavel's throughputs per scale factor), for jobs whose step time does not
// depend on where the GPUs are or on the batch (one step = one unit of work).
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "models/step_time_model.h"

namespace ringsched::models {

class ScaleTableStepTime final : public StepTimeModel {
 public:
  // (GPUs, steps per second) with distinct GPU counts >= 1 and throughputs >= 0 (0 = cannot run at that count);
  // std::invalid_argument otherwise.
  explicit ScaleTableStepTime(std::vector<std::pair<int, double>> points);
  // 1 / throughput at w: measured counts exactly; between two measured counts the throughput is interpolated
  // linearly in log2(w) (between a measured 0 and a positive value: 0, cannot run); below the smallest count the
  // smallest's throughput x w / w_min, above the largest the largest's (no speedup past what was measured).
  // +inf where the throughput is 0. `nodes` and `global_batch` are not used.
  [[nodiscard]] double step_seconds(int w, int nodes, double global_batch) const override;
  [[nodiscard]] std::string kind() const override { return "scale_table"; }
  // The measured throughput at w, or 0 when w is not a measured count.
  [[nodiscard]] double measured(int w) const;
  [[nodiscard]] const std::vector<std::pair<int, double>>& points() const { return points_; }

 private:
  [[nodiscard]] double throughput(int w) const;
  std::vector<std::pair<int, double>> points_;  // by GPU count
};

}  // namespace ringsched::models
