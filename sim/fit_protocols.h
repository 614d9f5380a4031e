// sim/fit_protocols.h — the `multi-node` fit protocol's model (a flat ring with separate single-node and multi-node
// communication terms, fitted by NNLS on a fixed set of probe placements), its speed-model form, and the noise-floor
// estimates of the Pollux tables (how well any predictor can do given the spread between same-size placements).
// The protocol's selection and its use by `ringsched fit` live in sim/fit_command.{h,cpp}. Doc: docs/heldout.md.
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

// NNLS (all coefficients >= 0) on step times weighted by 1/step (relative error), columns scaled to unit norm.
// Precondition (checked by the caller, fit_speed_points): points non-empty and valid.
MultiNodeCoeffs fit_multi_node(const std::vector<models::SpeedPoint>& points, double n);

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

// Noise floor of a measured table, speed APEs in percent.
struct NoiseFloor {
  // Leave-one-out mean of the other measurements with the same (w, nodes, per-GPU batch): only points whose group
  // has >= 2 measurements (e.g. placements 13 and 22, or 1444 and 2344).
  int group_points = 0;
  double group_mape = 0.0;  // NaN if none
  int group_points_16 = 0;
  double group_mape_16 = 0.0;
  // Leave-one-out interpolation of the table itself (models::TableStepTime on every other point) at 16+ GPUs.
  int table_points_16 = 0;
  double table_mape_16 = 0.0;
  double table_median_16 = 0.0;
  int table_clamped_16 = 0;  // of them, lookups outside the remaining points' range (edge value used)
};
NoiseFloor noise_floor(const std::vector<models::SpeedPoint>& points);

// Mean and median of speed APEs (percent); NaN for none.
double mean_of(std::vector<double> v);
double median_of(std::vector<double> v);
// "12.3%" (one decimal); "n/a" for NaN or infinity.
std::string format_pct(double v);

// `ringsched fit --pollux all`, second part (Markdown): per application and protocol (paper, two-level, multi-node),
// the mean and median speed APE at the held-out 16+ GPU points, next to the noise floor; then the medians over
// applications.
std::string render_pollux_heldout_summary(const std::string& pollux_dir);

}  // namespace ringsched
