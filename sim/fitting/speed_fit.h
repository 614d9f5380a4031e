// sim/fitting/speed_fit.h — speed models fitted from measured points under a named profiling protocol (`paper`,
// `two-level`, `multi-node`, `two-node`, or every point) or an explicit probe set, and the fit quality: R^2,
// leave-one-GPU-count-out MAPE, the model's leave-one-probe-out choice, the prediction at every point not profiled
// (MAPE overall, at 16+ and 32+ GPUs, per node count) and warnings on degenerate input. Doc: docs/heldout.md.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "models/fit.h"
#include "models/network_model.h"
#include "models/phys_model.h"
#include "models/step_time_model.h"
#include "sim/fitting/multi_node_model.h"
#include "sim/fitting/phys_fit.h"
#include "workloads/job_class.h"

namespace ringsched {

// paper: Eq. 5 fitted on power-of-two GPU counts within one node (w = 1, 2, 4, ... <= gpus_per_node, nodes = 1).
// two-level: Eq. 5 with separate intra-node and inter-node communication terms, fitted on the paper's points plus
// two multi-node probes: 2 GPUs on 2 nodes and 2*gpus_per_node GPUs on 2 nodes (Pollux: placements 11 and 44).
// eq5-all / two-level-all: the same models fitted on every point (no held-out points).
// multi-node: the model of sim/fitting/multi_node_model.h on 1, 2, 4 GPUs in one node plus probes 11, 44, 4444.
// two-node: the `net` model (models/network_model.h, variant chosen by leave-one-probe-out error) on every point
// spanning at most 2 nodes. net-all: the same model on every point.
enum class FitProtocol { kPaper, kTwoLevel, kEq5All, kTwoLevelAll, kMultiNode, kTwoNode, kNetAll };

std::vector<std::string> fit_protocol_names();
FitProtocol parse_fit_protocol(const std::string& name, const std::string& where);
std::string to_string(FitProtocol p);
// Whether the protocol profiles (fits on) a measurement at w GPUs spanning `nodes` nodes.
bool protocol_profiles(FitProtocol p, int w, int nodes, int gpus_per_node);
// Minimum number of points the protocol's model needs.
int protocol_min_points(FitProtocol p);
// Whether the protocol's model needs a point spanning several nodes (two-level, multi-node, two-node and theirs).
bool protocol_needs_multi_node(FitProtocol p);
// The model family a protocol fits: "eq5", "two-level", "multi-node" or "net".
std::string protocol_model(FitProtocol p);

// A profiled position: w GPUs over `nodes` nodes. Written in configs as a GPU count (packed on nodes: ceil(w / GPUs
// per node)), a placement string of per-node GPU counts ("44": 8 GPUs on 2 nodes) or {"gpus", "nodes"}; on the
// command line (parse_probe_token) as a GPU count ("8"), a placement with '+' ("4+4") or GPUs@nodes ("8@2").
struct ProbePoint {
  int w = 1;
  int nodes = 1;
  bool packed = false;  // given as a GPU count: nodes follows the GPUs per node
  std::string label;    // as written ("4", "44", "4+4"); empty: derived
  [[nodiscard]] bool matches(int pw, int pnodes, int gpus_per_node) const;
  [[nodiscard]] std::string text() const;  // the label, else "4" or "8 GPUs on 2 nodes"
};
// One token of `--probes`; InputError naming `where` and the token when malformed.
ProbePoint parse_probe_token(const std::string& token, const std::string& where);

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
  bool net = false;
  models::NetFit netfit;    // net: the chosen variant and every candidate's leave-one-probe-out error
  bool phys = false;        // the phys model won (or was asked for); `net` is then false
  models::PhysFit physfit;  // fitted when phys or auto was asked for (its candidates: every phys variant's LOPO)
  // two-level, multi-node, net: coefficients the points could not identify, fixed at 0 (models::nnls_identified).
  std::vector<std::string> fixed;
  models::Eq5Coeffs eq5;
  TwoLevelCoeffs two;
  MultiNodeCoeffs multi;
  double model_size = 0.0;
  [[nodiscard]] double step_seconds(int w, int nodes, double m) const;
  // The fitted model as a speed kind: `eq5`, or `allreduce` (ring, intra/inter-node parameters) for two-level.
  [[nodiscard]] models::StepTimeModelPtr model() const;
  [[nodiscard]] nlohmann::json speed_json() const;
  // "eq5", "two-level", "multi-node", or "net:<variant>".
  [[nodiscard]] std::string model_name() const;
  // Coefficients that the model has but were not fitted (none identifiable from the points): fixed at 0.
  [[nodiscard]] std::vector<std::string> fixed_coefficients() const;
  [[nodiscard]] int free_coefficients() const;
};

// Fits the protocol's model on exactly these points (the caller selects them). Throws InputError naming `origin`
// when there are too few points (saying how many are needed) or, for two-level, no multi-node point.
SpeedFit fit_speed_points(FitProtocol p, const std::vector<models::SpeedPoint>& points, double model_size,
                          const std::string& origin, const SpeedModelChoice& choice = {});

// MAPE (percent) of predicted speeds (1/step) against measured ones; NaN for no points.
double speed_mape(const SpeedFit& f, const std::vector<models::SpeedPoint>& points);

// A measured point the fit did not use, and what the fit predicts there.
struct UnprofiledPoint {
  int w = 1;
  int nodes = 1;
  double global_batch = 0.0;
  double measured_s = 0.0;
  double predicted_s = 0.0;
  double ape_pct = 0.0;  // speed APE: |measured / predicted - 1| x 100
  // net models: the 90% interval of the prediction (models/net_interval.h); NaN for other models.
  double predicted_lo_s = 0.0;
  double predicted_hi_s = 0.0;
};

// How the net model's 90% intervals did on the unprofiled points (NaN where there are none).
struct IntervalQuality {
  bool available = false;  // net and phys models only
  std::string method;      // "envelope" (net: models/net_interval.h) or "posterior" (phys: models/phys_posterior.h)
  double noise_pct = 0.0;  // q: the widening for residual noise
  int probe_nodes = 0;     // the largest node count the fitted points measured
  double coverage_pct = 0.0;
  double coverage_32_pct = 0.0;
  double median_width_32_pct = 0.0;  // (hi - lo) / measured, median over 32+ GPU points
  int points_32 = 0;
};

struct NodeCountError {
  int nodes = 1;
  int points = 0;
  double mape = 0.0;
};

struct FitQuality {
  std::string protocol;
  std::string model;      // SpeedFit::model_name()
  std::string probes;     // "protocol points" or the probe list
  int gpus_per_node = 0;  // used to place packed probes and the protocols' points
  bool gpus_per_node_inferred = false;
  int points_total = 0;
  int points_fit = 0;
  double r2 = 0.0;
  double mape_fit = 0.0;         // in-sample MAPE on the fitted points
  double cv_mape = 0.0;          // leave-one-GPU-count-out over the fitted points (NaN if < 2 counts)
  int points_heldout = 0;        // points the protocol did not profile
  double mape_heldout = 0.0;     // NaN if none
  int points_heldout_16 = 0;     // of them, at 16+ GPUs
  double mape_heldout_16 = 0.0;  // NaN if none
  int points_heldout_32 = 0;
  double mape_heldout_32 = 0.0;    // NaN if none
  double median_heldout_32 = 0.0;  // median speed APE at 32+ GPUs; NaN if none
  std::vector<NodeCountError> heldout_by_nodes;
  std::vector<UnprofiledPoint> unprofiled;
  IntervalQuality intervals;
  std::vector<models::NetCandidate> model_selection;  // net models: every variant's leave-one-probe-out MAPE
  std::vector<models::PhysCandidate> phys_selection;  // phys or auto: every phys variant's leave-one-probe-out MAPE
  nlohmann::json hardware;  // phys or auto: what was declared, the bounds and what the defaults assume; else null
  std::vector<std::string> fixed;     // coefficients fixed at 0 (not identifiable)
  std::vector<std::string> warnings;  // degenerate input: duplicates, too few GPU counts, no variance
};

struct FitOutcome {
  SpeedFit fit;
  FitQuality quality;
  std::vector<models::SpeedPoint> fitted;  // the points the fit used (the probes' measurements)
};

// What to fit: the protocol (its model, and its points unless probes are given), the GPUs per node (0: inferred).
struct FitRequest {
  FitProtocol protocol = FitProtocol::kPaper;
  std::vector<ProbePoint> probes;        // non-empty: fit on exactly the measured points at these positions
  std::vector<ProbePoint> added_probes;  // with no `probes`: these positions' points join the protocol's points
  int gpus_per_node = 0;                 // 0: infer_gpus_per_node(points)
  double model_size = 0.0;
  std::string origin;  // names the input in messages
  SpeedModelChoice speed_model;
};

// The smallest GPUs per node consistent with the points: max over points of ceil(w / nodes), and of w on one node.
int infer_gpus_per_node(const std::vector<models::SpeedPoint>& points);

// Selects the points (protocol or probes), fits, and scores. InputError naming `origin` for probes the points lack
// (all of them named), GPUs per node smaller than a one-node point, or too few points (saying which measured
// positions would make it fit).
FitOutcome fit_with_request(const FitRequest& r, const std::vector<models::SpeedPoint>& points);
// The same with the protocol's own points.
FitOutcome fit_with_protocol(FitProtocol p, const std::vector<models::SpeedPoint>& points, double model_size,
                             int gpus_per_node, const std::string& origin);

nlohmann::json quality_json(const FitQuality& q);

// A catalog class entry (the JSON object of one class in a catalog's "classes").
nlohmann::json class_entry_json(const std::string& name, const std::string& description, const SpeedFit& fit,
                                BatchMode mode, double batch_size, double work_samples, int max_gpus,
                                const std::vector<std::string>& derivation);

}  // namespace ringsched
