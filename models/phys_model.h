// models/phys_model.h — the `phys` speed model: compute (per sample, per step) plus the all-reduce of the job's
// gradient on its links, with the link rates and per-hop latencies as parameters bounded by the declared hardware
// (NIC and intra-node rates, GPUs per node, bytes per parameter, an assumed per-hop latency ceiling); its bounded fit,
// leave-one-probe-out error and the choice among its communication variants. Intervals and probe planning:
// models/phys_posterior.h. Doc: docs/heldout.md ("The `phys` model").
#pragma once

#include <array>
#include <string>
#include <vector>

#include "models/fit.h"
#include "models/step_time_model.h"

namespace ringsched::models {

// What the user declares about the machine and the job (0 = not declared). Rates in gigabits per second.
struct PhysHardware {
  double nic_gbps = 0.0;          // one node's network interface (all its NICs together)
  double intra_gbps = 0.0;        // one GPU's link inside a node (NVLink, PCIe)
  double model_mparams = 0.0;     // parameters (millions): with bytes_per_param, the gradient bytes all-reduced
  double bytes_per_param = 4.0;   // fp32 gradients
  double bucket_mb = 25.0;        // gradient bucket (PyTorch DDP's default): one all-reduce call per bucket
  double hop_latency_us = 100.0;  // ceiling on one ring hop's latency per call (TCP across a switch; IB is ~5 us)
  double overlap = 0.0;           // fraction of the all-reduce hidden behind compute, in [0, 1)
  // Gradient bytes per step; 0 without a model size.
  [[nodiscard]] double gradient_bytes() const { return model_mparams * 1e6 * bytes_per_param; }
};

// How traffic crosses nodes:
//   hier:   hierarchical: reduce-scatter / all-gather inside each node, a ring across the N nodes per shard; a node's
//           NIC carries 2(N-1)/N of the gradient, 2(N-1) hops of latency;
//   flat:   one ring over all w GPUs whose slowest hop is the NIC: 2(w-1)/w of the gradient, 2(w-1) hops;
//   shared: one ring per GPU sharing the node's NIC (no in-node reduction first): g 2(w-1)/w, 2(w-1) hops.
enum class PhysVariant { kHier, kFlat, kShared };
const std::vector<PhysVariant>& phys_variants();
std::string to_string(PhysVariant v);  // "hier", "flat", "shared"
// InputError naming `where` for an unknown name.
PhysVariant parse_phys_variant(const std::string& name, const std::string& where);

// step = per_sample b + per_step + (1 - overlap) comm, with g = ceil(w / nodes) GPUs per node, N = nodes:
//   comm = intra_bw 2(g-1)/g + intra_hop 2(g-1)          [hier: always; flat, shared: one node only]
//        + inter_bw X(variant) + inter_hop H(variant)    [N > 1]
// intra_bw = gradient bytes / intra-node rate (seconds), inter_bw = gradient bytes / NIC rate, *_hop = seconds per
// hop per step (latency x calls).
inline constexpr int kPhysColumns = 6;
const std::array<const char*, kPhysColumns>& phys_coefficient_names();
std::array<double, kPhysColumns> phys_columns(PhysVariant v, int w, int nodes, double global_batch, double overlap);
double phys_step_time(PhysVariant v, const std::array<double, kPhysColumns>& c, int w, int nodes, double global_batch,
                      double overlap);

// Bounds on the coefficients from the hardware: intra_bw >= bytes / intra rate, inter_bw >= bytes / NIC rate,
// *_hop <= ceil(bytes / bucket) x hop latency; everything >= 0. Undeclared rates (or no model size) leave a bound
// open (0 or +inf); `assumed` says in words what the defaults assume.
struct PhysBounds {
  std::array<double, kPhysColumns> lo{};
  std::array<double, kPhysColumns> hi{};
  std::vector<std::string> assumed;
};
PhysBounds phys_bounds(const PhysHardware& hw);

struct PhysVariantFit {
  PhysVariant variant = PhysVariant::kHier;
  std::array<double, kPhysColumns> coeffs{};
  std::vector<std::string> fixed;  // at a bound because the points cannot identify them
  int free_coefficients = 0;
};
// Bounded least squares on step times weighted by 1/step (relative error), columns scaled to unit norm: the lower
// bounds by shifting (NNLS on the rest), a column the points cannot identify (models::nnls_identified) fixed at its
// lower bound, and a coefficient past its upper bound fixed there with the rest refitted (repeated until none is).
// Precondition: points non-empty and valid.
PhysVariantFit fit_phys_variant(const std::vector<SpeedPoint>& points, PhysVariant v, const PhysHardware& hw);

// Leave-one-probe-out speed APEs (percent, 100 where a fold predicts no time) and their mean (NaN: < 2 positions).
std::vector<double> phys_lopo_apes(const std::vector<SpeedPoint>& points, PhysVariant v, const PhysHardware& hw);
double phys_lopo_mape(const std::vector<SpeedPoint>& points, PhysVariant v, const PhysHardware& hw);

struct PhysCandidate {
  PhysVariant variant = PhysVariant::kHier;
  double lopo_mape_pct = 0.0;
  int free_coefficients = 0;
  std::vector<std::string> fixed;
};
struct PhysFit {
  PhysVariantFit selected;
  std::vector<PhysCandidate> candidates;  // phys_variants() order
  PhysHardware hardware;
};
// Every variant fitted; the smallest leave-one-probe-out MAPE wins (ties within 1e-9 keep the earlier variant).
PhysFit fit_phys(const std::vector<SpeedPoint>& points, const PhysHardware& hw);

class PhysStepTime final : public StepTimeModel {
 public:
  PhysStepTime(PhysVariant v, std::array<double, kPhysColumns> c, double overlap) : v_(v), c_(c), overlap_(overlap) {}
  [[nodiscard]] double step_seconds(int w, int nodes, double global_batch) const override {
    return phys_step_time(v_, c_, w, nodes, global_batch, overlap_);
  }
  [[nodiscard]] std::string kind() const override { return "phys"; }

 private:
  PhysVariant v_;
  std::array<double, kPhysColumns> c_;
  double overlap_;
};

}  // namespace ringsched::models
