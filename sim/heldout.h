// sim/heldout.h — the held-out Table 3 block: jobs drawn from the six Pollux applications whose truth is the measured
// tables (with per-job lognormal noise on speed and work), scheduled on beliefs that never read that truth:
// `history` fitted on a disjoint set of training runs (different seed, same classes) measured only at a protocol's
// profiling points, `exploration` fitted on each job's own few noisy measurements, `online` refitting Eq. 1 to the
// losses each job reports as it runs (the measured Pollux validation curves), `oracle` for reference.
// Also the prediction-error table (speed and work MAPE per belief source). Protocol: docs/heldout.md.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "sim/experiment.h"
#include "sim/fit_command.h"
#include "sim/report.h"

namespace ringsched {

struct HeldoutOptions {
  std::string pollux_dir;  // "" = default_pollux_dir()
  int nodes = 16;          // Pollux nodes hold 4 GPUs: 16 x 4 = 64 GPUs, as in-sample
  int gpus_per_node = 4;
  int jobs = 100;
  int seeds = 20;
  std::uint64_t base_seed = 1;
  double sigma = 0.1;                  // per-job lognormal noise on speed and work (truth and training runs)
  double measurement_sigma = 0.05;     // noise of each profiled / explored step-time measurement
  double loss_sigma = 0.02;            // lognormal noise of each loss a job reports (`online`)
  int train_runs = 5;                  // training runs per class for `history`
  std::uint64_t train_seed = 1000003;  // seed of the training runs (disjoint from base_seed .. base_seed + seeds - 1)
  std::string protocol = "paper";      // profiling points of the training runs (fit_command.h)
  double restart_cost_s = 10.0;
  int threads = 0;
  // Strategies as name or name[beliefs]; beliefs: history (default), oracle, exploration, online, none.
  std::vector<std::string> strategies = {"eight",   "precompute",         "exploratory",
                                         "optimus", "precompute[oracle]", "optimus[online]"};
};

// What the training runs measured: per class, the profiled points (noisy) and the work of each run.
struct TrainingData {
  std::vector<std::vector<models::SpeedPoint>> points;  // by class
  std::vector<std::vector<double>> work;                // by class
};

// Training runs of every class of `truth`: per run a speed factor and a work (lognormal, sigma), each profiled at
// the protocol's points (every measured per-GPU batch there) with measurement noise. Seeded by `seed` only.
TrainingData make_training_data(const Catalog& truth, FitProtocol protocol, int runs, double sigma,
                                double measurement_sigma, int gpus_per_node, std::uint64_t seed);

// The `history` catalog: public facts of each class copied, speed fitted (protocol's model) on the training points,
// work = mean training work. Reads no truth: only `classes_public` (speeds ignored) and `data`.
Catalog fit_history_catalog(const std::vector<JobClass>& classes_public, const TrainingData& data, FitProtocol protocol,
                            const std::string& origin);

struct PredictionError {
  std::string source;  // "online@25%": the online belief after 25% of the job's true work
  int jobs = 0;
  double speed_mape = 0.0;     // over w = 1..max_gpus (packed), percent
  double speed_mape_16 = 0.0;  // over w = 16..max_gpus
  double work_mape = 0.0;
};

struct HeldoutResult {
  ExperimentConfig config;  // levels, strategies, seeds (for render_table3)
  ExperimentResult result;
  std::vector<PredictionError> errors;
  std::uint64_t table_lookups = 0;
  std::uint64_t table_clamped = 0;
  std::string protocol;
};

// Runs the block (deterministic for any thread count).
HeldoutResult run_heldout(const HeldoutOptions& options);

// Markdown / CSV / JSON rendering: the held-out table (as render_table3), then the prediction-error table and the
// clamp count.
std::string render_heldout(const HeldoutResult& r, Format f);
nlohmann::json heldout_json(const HeldoutResult& r);

}  // namespace ringsched
