// models/phys_posterior.h — what the probes leave undecided about the `phys` model: the posterior of its
// coefficients inside the hardware bounds (sampled), a 90% predictive interval at every point, and probe planning
// (the next measurement, or a budget of them, that narrows the intervals at the target points most).
// Doc: docs/heldout.md ("The `phys` model").
#pragma once

#include <array>
#include <vector>

#include "models/fit.h"
#include "models/phys_model.h"

namespace ringsched::models {

struct PhysInterval {
  double lo = 0.0;   // seconds per step: the 5% quantile of the posterior predictive
  double mid = 0.0;  // its median
  double hi = 0.0;   // its 95% quantile
};

// Posterior of the selected variant's coefficients given the probes:
//   - likelihood: the relative step residuals are independent N(0, sigma^2), sigma^2 = sum of squared relative
//     residuals of the bounded fit / max(1, points - free coefficients);
//   - prior: flat on the box of the hardware bounds (models::phys_bounds); a coefficient whose column is zero on every
//     probe stays at its fitted value (the probes say nothing of it);
//   - sampled by hit-and-run (random directions and coordinate directions in unit-norm column coordinates, each step
//     drawn exactly from the truncated normal along the line, uniform where the likelihood is flat along it), from a
//     fixed seed, so the same probes give the same bytes.
// The predictive at a point multiplies each sample's step by exp(noise z), z ~ N(0, 1), noise = max(sigma, the root
// mean square of the variant's leave-one-probe-out relative errors): noise the fit never saw at unmeasured positions.
class PhysPosterior {
 public:
  // Precondition: probes non-empty and valid; `fit` fitted on them with `hw`.
  PhysPosterior(const std::vector<SpeedPoint>& probes, const PhysVariantFit& fit, const PhysHardware& hw,
                int samples = 2000);
  // As above with the predictive noise given (probe planning keeps the current one).
  PhysPosterior(const std::vector<SpeedPoint>& probes, const PhysVariantFit& fit, const PhysHardware& hw, int samples,
                double noise);
  [[nodiscard]] PhysInterval interval(int w, int nodes, double global_batch) const;
  [[nodiscard]] double sigma() const { return sigma_; }
  [[nodiscard]] double noise() const { return noise_; }
  [[nodiscard]] int probe_nodes() const { return max_nodes_; }
  [[nodiscard]] const std::vector<std::array<double, kPhysColumns>>& samples() const { return samples_; }

 private:
  void sample(const std::vector<SpeedPoint>& probes, const PhysVariantFit& fit, int count);
  PhysVariant variant_;
  double overlap_ = 0.0;
  double sigma_ = 0.0;
  double noise_ = 0.0;
  int max_nodes_ = 1;
  std::vector<std::array<double, kPhysColumns>> samples_;
  std::vector<double> z_;  // one standard normal per sample, for the predictive noise
  PhysBounds bounds_;
};

// One planned measurement and what it is expected to leave of the intervals at the targets.
struct PhysProbePlanStep {
  int gpus = 0;
  int nodes = 0;
  double global_batch = 0.0;
  double width_after = 0.0;  // mean relative width (hi - lo) / mid over the targets after this and earlier steps
};
struct PhysProbePlan {
  double width_before = 0.0;
  std::vector<PhysProbePlanStep> steps;  // empty: no candidate beyond the probes' node count
};

// A position a plan may measure: w GPUs on `nodes` nodes.
struct PhysProbeCandidate {
  int gpus = 0;
  int nodes = 0;
};
// The packed positions k x gpus_per_node GPUs on k nodes, k from the probes' largest node count + 1 to max_nodes, and
// the `measured` positions beyond the probes' node count (a table's unprofiled rows smaller than the targets, so a
// plan can be checked against a measurement), without repeats, by node count then GPUs.
std::vector<PhysProbeCandidate> phys_probe_candidates(const std::vector<SpeedPoint>& probes,
                                                      const std::vector<PhysProbeCandidate>& measured,
                                                      int gpus_per_node, int max_nodes);

// Greedy plan of `budget` measurements among the candidates (a planned position is not planned again): each step
// picks the candidate whose measurement would leave the smallest mean relative width at the targets, the measurement
// taken as the current posterior median there (in a linear-Gaussian model the posterior's width does not depend on
// the value measured, only near the bounds), refitting the variant and keeping the predictive noise; ties: the
// earlier candidate. The candidate's per-GPU batch is the probes' most common one.
PhysProbePlan plan_phys_probes(const std::vector<SpeedPoint>& probes, const std::vector<SpeedPoint>& targets,
                               const PhysVariantFit& fit, const PhysHardware& hw,
                               const std::vector<PhysProbeCandidate>& candidates, int budget);

}  // namespace ringsched::models
