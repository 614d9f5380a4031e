// models/network_model.h — the `net` speed model: compute per sample and per step, plus all-reduce costs inside one
// node (ring bandwidth and per-hop terms) and across nodes (ring bandwidth, a constant, a shared-NIC term); its NNLS
// fit, which fixes at 0 every coefficient the points cannot identify, and the choice among its cross-node variants
// by leave-one-probe-out error. Doc: docs/heldout.md ("The `two-node` protocol and the `net` model").
#pragma once

#include <array>
#include <string>
#include <vector>

#include "models/fit.h"
#include "models/step_time_model.h"

namespace ringsched::models {

// step = per_sample b + per_step
//      + [nodes = 1] (intra_bw 2(w-1)/w + intra_hop (w-1))
//      + [nodes > 1] (inter_bw 2(w-1)/w + inter_const + inter_nic 2(w-1)/nodes)
// b = global batch / w (the per-GPU batch). Every coefficient >= 0; one GPU costs per_sample b + per_step.
struct NetCoeffs {
  double per_sample = 0.0;
  double per_step = 0.0;
  double intra_bw = 0.0;
  double intra_hop = 0.0;
  double inter_bw = 0.0;
  double inter_const = 0.0;
  double inter_nic = 0.0;
};

inline constexpr int kNetColumns = 7;
// Coefficient names in column order (as in the catalog's `net` speed kind, without the `_s` suffix).
const std::array<const char*, kNetColumns>& net_coefficient_names();
std::array<double, kNetColumns> net_columns(int w, int nodes, double global_batch);
std::array<double, kNetColumns> to_array(const NetCoeffs& c);
NetCoeffs net_coeffs_from(const std::array<double, kNetColumns>& a);
double net_step_time(const NetCoeffs& c, int w, int nodes, double global_batch);

// Cross-node variants (which of inter_bw, inter_const, inter_nic may be non-zero), in order of preference on ties.
enum class NetVariant { kRing, kRingConst, kRingNic };
const std::vector<NetVariant>& net_variants();
std::string to_string(NetVariant v);  // "ring", "ring+const", "ring+nic"

// One variant fitted: NNLS on step times weighted by 1/step (relative error), columns scaled to unit norm. Columns
// are admitted in declared order (per_sample, per_step, intra_bw, intra_hop, then the variant's cross-node
// columns); a column that is zero on every point, or linearly dependent on the admitted ones (column-pivoted QR
// of the scaled design, relative threshold 1e-8), is fixed at 0 and named in `fixed`. So no coefficient the points
// cannot identify ever changes a prediction.
struct NetVariantFit {
  NetVariant variant = NetVariant::kRing;
  NetCoeffs coeffs;
  std::vector<std::string> fixed;  // coefficient names fixed at 0
  int free_coefficients = 0;
};
// Precondition: points non-empty, every point valid (w >= 1, 1 <= nodes <= w, positive finite batch and step).
NetVariantFit fit_net_variant(const std::vector<SpeedPoint>& points, NetVariant v);

// Leave-one-probe-out: for every probe position (w, nodes) - all its points at once - fit the variant on the other
// positions and predict the left-out ones. Each point's speed APE (percent; 100 where the fold predicts no time),
// grouped by position; empty with < 2 positions.
std::vector<double> net_lopo_apes(const std::vector<SpeedPoint>& points, NetVariant v);
// Their mean; NaN with < 2 positions.
double net_lopo_mape(const std::vector<SpeedPoint>& points, NetVariant v);

struct NetCandidate {
  NetVariant variant = NetVariant::kRing;
  double lopo_mape_pct = 0.0;  // NaN when undefined
  int free_coefficients = 0;
  std::vector<std::string> fixed;
};

struct NetFit {
  NetVariantFit selected;
  std::vector<NetCandidate> candidates;  // every variant, in net_variants() order
};
// Fits every variant and keeps the one with the smallest leave-one-probe-out MAPE (a tie within 1e-9 % keeps the
// earlier, simpler variant; undefined LOPO everywhere: the first variant).
NetFit fit_net(const std::vector<SpeedPoint>& points);

class NetStepTime final : public StepTimeModel {
 public:
  explicit NetStepTime(NetCoeffs c) : c_(c) {}
  [[nodiscard]] double step_seconds(int w, int nodes, double global_batch) const override;
  [[nodiscard]] std::string kind() const override { return "net"; }
  [[nodiscard]] const NetCoeffs& coeffs() const { return c_; }

 private:
  NetCoeffs c_;
};

}  // namespace ringsched::models
