// sim/fitting/multi_node_model.h — fitting the `multi-node` speed model (models/multi_node_step_time.h) by NNLS on a
// fixed set of probe placements, and its catalog-table form. The protocol's selection lives in
// sim/fitting/speed_fit.h. Doc: docs/heldout.md.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "models/fit.h"
#include "models/multi_node_step_time.h"

namespace ringsched {

// NNLS (all coefficients >= 0) on step times weighted by 1/step (relative error), columns scaled to unit norm;
// coefficients the points cannot identify are 0 and named in `fixed` when given (models::nnls_identified).
// Precondition (checked by the caller, fit_speed_points): points non-empty and valid.
MultiNodeCoeffs fit_multi_node(const std::vector<models::SpeedPoint>& points, double n,
                               std::vector<std::string>* fixed = nullptr);

// Whether the multi-node protocol profiles (w, nodes): (1,1) (2,1) (4,1) when gpus_per_node >= 4, i.e. powers of two
// up to gpus_per_node in one node, and the multi-node probes (2,2), (2 g, 2), (4 g, 4) with g = gpus_per_node
// (Pollux placements 11, 44, 4444).
bool multi_node_profiles(int w, int nodes, int gpus_per_node);

// The model as a catalog `table` speed kind sampled at w = 1..max_gpus, nodes in {1, 2, w}, per-GPU batch 1 and
// 1024 (exact under the table's interpolation inside that batch range: the model is linear in batch and, off-node,
// in the node count).
nlohmann::json multi_node_table_json(const MultiNodeCoeffs& c, double model_size, int max_gpus);

}  // namespace ringsched
