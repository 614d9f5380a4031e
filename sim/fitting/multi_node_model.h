// sim/fitting/multi_node_model.h — the `multi-node` fit protocol's model: a flat ring with separate single-node and
// multi-node communication terms, fitted by NNLS on a fixed set of probe placements, and its speed-model and
// catalog-table forms. The protocol's selection lives in sim/fitting/speed_fit.h. Doc: docs/heldout.md.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "models/fit.h"
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

// Seconds per step; m = global batch, n = model size (millions of parameters).
double multi_node_step_time(const MultiNodeCoeffs& c, int w, int nodes, double m, double n);

// NNLS (all coefficients >= 0) on step times weighted by 1/step (relative error), columns scaled to unit norm;
// coefficients the points cannot identify are 0 and named in `fixed` when given (models::nnls_identified).
// Precondition (checked by the caller, fit_speed_points): points non-empty and valid.
MultiNodeCoeffs fit_multi_node(const std::vector<models::SpeedPoint>& points, double n,
                               std::vector<std::string>* fixed = nullptr);

// Whether the multi-node protocol profiles (w, nodes): (1,1) (2,1) (4,1) when gpus_per_node >= 4, i.e. powers of two
// up to gpus_per_node in one node, and the multi-node probes (2,2), (2 g, 2), (4 g, 4) with g = gpus_per_node
// (Pollux placements 11, 44, 4444).
bool multi_node_profiles(int w, int nodes, int gpus_per_node);

class MultiNodeStepTime final : public models::StepTimeModel {
 public:
  MultiNodeStepTime(MultiNodeCoeffs c, double model_size) : c_(c), n_(model_size) {}
  [[nodiscard]] double step_seconds(int w, int nodes, double global_batch) const override;
  [[nodiscard]] std::string kind() const override { return "multi-node"; }

 private:
  MultiNodeCoeffs c_;
  double n_;
};

// The model as a catalog `table` speed kind sampled at w = 1..max_gpus, nodes in {1, 2, w}, per-GPU batch 1 and
// 1024 (exact under the table's interpolation inside that batch range: the model is linear in batch and, off-node,
// in the node count).
nlohmann::json multi_node_table_json(const MultiNodeCoeffs& c, double model_size, int max_gpus);

}  // namespace ringsched
