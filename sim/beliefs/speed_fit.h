// sim/beliefs/speed_fit.h — speed models fitted from measured points under a named profiling protocol (`paper`,
// `two-level`, `multi-node`, or every point), and the fit quality: R^2, leave-one-GPU-count-out MAPE, prediction
// error at the points the protocol did not profile (in particular at 16+ GPUs). Doc: docs/heldout.md.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "models/fit.h"
#include "models/step_time_model.h"
#include "sim/beliefs/multi_node_model.h"
#include "workloads/job_class.h"

namespace ringsched {

// paper: Eq. 5 fitted on power-of-two GPU counts within one node (w = 1, 2, 4, ... <= gpus_per_node, nodes = 1).
// two-level: Eq. 5 with separate intra-node and inter-node communication terms, fitted on the paper's points plus
// two multi-node probes: 2 GPUs on 2 nodes and 2*gpus_per_node GPUs on 2 nodes (Pollux: placements 11 and 44).
// eq5-all / two-level-all: the same models fitted on every point (no held-out points).
// multi-node: the model of sim/beliefs/multi_node_model.h on 1, 2, 4 GPUs in one node plus probes 11, 44, 4444.
enum class FitProtocol { kPaper, kTwoLevel, kEq5All, kTwoLevelAll, kMultiNode };

std::vector<std::string> fit_protocol_names();
FitProtocol parse_fit_protocol(const std::string& name, const std::string& where);
std::string to_string(FitProtocol p);
// Whether the protocol profiles (fits on) a measurement at w GPUs spanning `nodes` nodes.
bool protocol_profiles(FitProtocol p, int w, int nodes, int gpus_per_node);
// Minimum number of points the protocol's model needs.
int protocol_min_points(FitProtocol p);

// step = t0 m/w + t3 + (w-1) t1 + ((w-1)/w) n t2, with (t1, t2) = (t1_intra, t2_intra) within one node and
// (t1_inter, t2_inter) across nodes.
struct TwoLevelCoeffs {
  double t0 = 0.0;
  double t3 = 0.0;
  double t1_intra = 0.0;
  double t2_intra = 0.0;
  double t1_inter = 0.0;
  double t2_inter = 0.0;
};

double two_level_step_time(const TwoLevelCoeffs& c, int w, int nodes, double m, double n);

struct SpeedFit {
  FitProtocol protocol = FitProtocol::kPaper;
  bool two_level = false;
  bool multi_node = false;
  models::Eq5Coeffs eq5;
  TwoLevelCoeffs two;
  MultiNodeCoeffs multi;
  double model_size = 0.0;
  [[nodiscard]] double step_seconds(int w, int nodes, double m) const;
  // The fitted model as a speed kind: `eq5`, or `allreduce` (ring, intra/inter-node parameters) for two-level.
  [[nodiscard]] models::StepTimeModelPtr model() const;
  [[nodiscard]] nlohmann::json speed_json() const;
};

// Fits the protocol's model on exactly these points (the caller selects them). Throws InputError naming `origin`
// when there are too few points (saying how many are needed) or, for two-level, no multi-node point.
SpeedFit fit_speed_points(FitProtocol p, const std::vector<models::SpeedPoint>& points, double model_size,
                          const std::string& origin);

// MAPE (percent) of predicted speeds (1/step) against measured ones; NaN for no points.
double speed_mape(const SpeedFit& f, const std::vector<models::SpeedPoint>& points);

struct FitQuality {
  std::string protocol;
  int points_total = 0;
  int points_fit = 0;
  double r2 = 0.0;
  double mape_fit = 0.0;         // in-sample MAPE on the fitted points
  double cv_mape = 0.0;          // leave-one-GPU-count-out over the fitted points (NaN if < 2 counts)
  int points_heldout = 0;        // points the protocol did not profile
  double mape_heldout = 0.0;     // NaN if none
  int points_heldout_16 = 0;     // of them, at 16+ GPUs
  double mape_heldout_16 = 0.0;  // NaN if none
};

struct FitOutcome {
  SpeedFit fit;
  FitQuality quality;
};

// Selects the protocol's points out of `points`, fits, and scores.
FitOutcome fit_with_protocol(FitProtocol p, const std::vector<models::SpeedPoint>& points, double model_size,
                             int gpus_per_node, const std::string& origin);

nlohmann::json quality_json(const FitQuality& q);

// A catalog class entry (the JSON object of one class in a catalog's "classes").
nlohmann::json class_entry_json(const std::string& name, const std::string& description, const SpeedFit& fit,
                                BatchMode mode, double batch_size, double work_samples, int max_gpus,
                                const std::vector<std::string>& derivation);

}  // namespace ringsched
