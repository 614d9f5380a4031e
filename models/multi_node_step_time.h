// models/multi_node_step_time.h — the `multi-node` speed-model kind: a flat ring with separate single-node and
// multi-node communication terms (its NNLS fit on probe placements lives in sim/fitting/multi_node_model.h).
#pragma once

#include <array>
#include <string>

#include "models/step_time_model.h"

namespace ringsched {

// step = t0 m/w + t3 + [nodes == 1] (a_in (w-1) + b_in 2(w-1)/w n)
//                    + [nodes > 1]  (a_x (w-1) + b_x 2(w-1)/w n + g_x nodes)
struct MultiNodeCoeffs {
  double t0 = 0.0;
  double t3 = 0.0;
  double a_in = 0.0;
  double b_in = 0.0;
  double a_x = 0.0;
  double b_x = 0.0;
  double g_x = 0.0;
};

// The seven columns of the model at one point (coefficient order of MultiNodeCoeffs); m = global batch, n = model
// size (millions of parameters).
std::array<double, 7> multi_node_columns(int w, int nodes, double m, double n);

// Seconds per step.
double multi_node_step_time(const MultiNodeCoeffs& c, int w, int nodes, double m, double n);

class MultiNodeStepTime final : public models::StepTimeModel {
 public:
  MultiNodeStepTime(MultiNodeCoeffs c, double model_size) : c_(c), n_(model_size) {}
  [[nodiscard]] double step_seconds(int w, int nodes, double global_batch) const override;
  [[nodiscard]] std::string kind() const override { return "multi-node"; }

 private:
  MultiNodeCoeffs c_;
  double n_;
};

}  // namespace ringsched
