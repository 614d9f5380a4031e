// models/goodput.h — the arithmetic of goodput (Pollux, OSDI'21; the artifact's simulator and its goodput.py):
// batch configurations with gradient accumulation, the statistical-efficiency gain from gradient statistics, and the
// seven-parameter step-time model an AdaptDL job fits to its own measurements to choose its batch size and to tell
// the scheduler its speedup. Pure functions; formulas and their sources in docs/fidelity.md.
#pragma once

#include <array>
#include <string>
#include <vector>

namespace ringsched::models {

struct StepSync {
  double step = 0.0;  // seconds per step (compute + synchronisation)
  double sync = 0.0;  // of which gradient synchronisation
};

struct GradStats {
  double sqr = 0.0;  // squared gradient norm estimate
  double var = 0.0;  // gradient variance estimate
};

// `replicas` GPUs each computing `accum_steps + 1` atomic batches of `atomic_bsz` samples per optimiser step.
struct BatchConfig {
  int replicas = 0;
  int atomic_bsz = 0;
  int accum_steps = 0;
  [[nodiscard]] double batch_size() const { return static_cast<double>(replicas) * atomic_bsz * (accum_steps + 1); }
};

// The configuration for a fixed global batch (simulator.py update_local_bsz): local = ceil(B / r), accumulation
// steps = ceil(local / max_local) - 1 (at least 1 on one GPU when B exceeds init_batch, so gradient statistics can be
// estimated), atomic = ceil(local / (accum + 1)), capped at floor(max_batch / (r (accum + 1))). `force_accum_on_one`:
// at least one accumulation step on one GPU whatever B (the artifact's Optimus prediction does this).
BatchConfig fixed_batch_config(double batch_size, int replicas, double init_batch, double max_batch, double max_local,
                               bool force_accum_on_one = false);

// Statistical efficiency gain of batch B over the initial batch B0 (goodput.py): with scale = B / B0,
// gain = (var + sqr) / (var / scale + sqr); 1 when the denominator is not positive.
double efficiency_gain(const GradStats& g, double batch_size, double init_batch);

// Seconds per optimiser step with accumulation: step + (step - sync) * accum_steps.
double accumulated_step(const StepSync& s, int accum_steps);

// The step-time model (goodput.py PerfParams): compute alpha_c + beta_c b per atomic batch b; network alpha + beta
// (replicas - 2) with (alpha_n, beta_n) across nodes and (alpha_r, beta_r) within one node (none on one GPU); an
// optimiser step takes (compute^gamma + network^gamma)^(1/gamma).
struct PerfParams {
  double alpha_c = 0.0;
  double beta_c = 0.0;
  double alpha_n = 0.0;
  double beta_n = 0.0;
  double alpha_r = 0.0;
  double beta_r = 0.0;
  double gamma = 1.0;
  [[nodiscard]] std::array<double, 7> as_array() const {
    return {alpha_c, beta_c, alpha_n, beta_n, alpha_r, beta_r, gamma};
  }
  static PerfParams from_array(const std::array<double, 7>& a) { return {a[0], a[1], a[2], a[3], a[4], a[5], a[6]}; }
};

double predict_accum_time(const PerfParams& p, double atomic_bsz);
double predict_network_time(const PerfParams& p, int nodes, int replicas);
double predict_optim_time(const PerfParams& p, double accum_time, double network_time);
// Samples per second of a configuration under the model.
double model_throughput(const PerfParams& p, int nodes, int replicas, double atomic_bsz, int accum_steps);

// One measurement an AdaptDL job makes of itself: (nodes, replicas, atomic batch) -> step and sync seconds.
struct ProfilePoint {
  int nodes = 1;
  int replicas = 1;
  double atomic_bsz = 0.0;
  double step = 0.0;
  double sync = 0.0;
};

// Fits PerfParams to the profile (goodput.py fit_perf_params): minimises RMSLE of the compute (step - sync) and step
// predictions plus 1e-3 (gamma - 1)^2 plus 1e-2 ((beta_n / alpha_n)^2 + (beta_r / alpha_r)^2), parameters bounded
// below by 1e-8 (gamma in [1, 10]); parameters the profile cannot inform are held at their bounds (alpha_c at half
// the mean compute time with one atomic batch size; network terms without the matching observations); without a
// multi-node observation the inter-node terms are raised to 1.1 x the intra-node ones. L-BFGS-B 3.0 (the Fortran code
// SciPy wraps, from Debian's liblbfgsb) with SciPy's defaults, from the artifact's starting point, with an analytic
// gradient. A fit is a pure function of the profile. Empty or invalid profile: std::invalid_argument.
PerfParams fit_perf_params(const std::vector<ProfilePoint>& profile);

// What a job's AdaptDL agent tells the scheduler (Pollux's job info): its fitted step-time model once it has measured
// something, its current gradient statistics, the largest GPU count it has run on, and its batch limits.
// What the agent fitted on one GPU type (a job on a cluster with GPU types profiles each type it ran on apart).
struct GoodputTypeFit {
  std::string gpu_type;
  bool fitted = false;  // perf holds a fit of the steps measured on this type
  PerfParams perf;
  int max_profiled_replicas = 0;
  double min_local_bsz = 0.0;
  double max_local_bsz = 0.0;
};

struct GoodputReport {
  bool fitted = false;  // perf holds a fit
  PerfParams perf;
  GradStats grad;
  int max_profiled_replicas = 0;
  double init_batch = 0.0;
  double max_batch = 0.0;
  double min_local_bsz = 0.0;
  double max_local_bsz = 0.0;
  double target_batch = 0.0;  // > 0: the job keeps this batch
  // Jobs whose application has tables per GPU type: the fit on each type it has run on (the fields above are the
  // current type's). Empty for a job of an untyped application.
  std::vector<GoodputTypeFit> by_type;
  // The fit on `gpu_type`, or null when the job has not run there.
  [[nodiscard]] const GoodputTypeFit* on(const std::string& gpu_type) const {
    for (const auto& f : by_type)
      if (f.gpu_type == gpu_type) return &f;
    return nullptr;
  }
};

// The goodput model a job reports: its fitted parameters, current gradient statistics and batch limits.
struct GoodputModel {
  PerfParams perf;
  GradStats grad;
  double init_batch = 0.0;
  double max_batch = 0.0;
  double min_atomic = 0.0;
  double max_atomic = 0.0;
  // Goodput (samples per second x efficiency / scale: progress units x init batch per second) of a configuration.
  [[nodiscard]] double evaluate(int nodes, int replicas, int atomic_bsz, int accum_steps) const;
  // The best configuration over 50 geometrically spaced global batches (goodput.py optimize with accumulation):
  // returns its goodput (0 when none is valid) and sets cfg.
  double optimize(int nodes, int replicas, BatchConfig& cfg) const;
};

}  // namespace ringsched::models
