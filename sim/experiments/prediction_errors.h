// sim/experiments/prediction_errors.h — how far each belief source is from the truth on an experiment's jobs (the
// `output.prediction_errors` option; the held-out block's error table): speed APE over every GPU count a job may
// get (packed on nodes) and over 16+ GPUs, and work APE; `online` scored after 25%, 50% and 75% of each job's true
// work. Computed on the first level's jobs of every seed (classes and noise do not depend on the level).
#pragma once

#include <string>
#include <vector>

namespace ringsched {

struct ExperimentConfig;

struct PredictionError {
  std::string source;      // "history"; "online@25%": the online belief after 25% of the job's true work
  std::string class_name;  // empty: every class; else one class of the truth catalog
  int jobs = 0;
  double speed_mape = 0.0;     // over w = 1..max_gpus (packed), percent
  double speed_mape_16 = 0.0;  // over w = 16..max_gpus
  double work_mape = 0.0;
};

// oracle, history, exploration, online@25%/50%/75% when every class has a loss curve, and `agent` when a strategy
// plans with agent beliefs: every source over all classes first, then the same per class (catalog order).
// Deterministic.
// `agent` learns from the job's own runs, so it is scored inside runs: the first strategy with agent beliefs is
// run on the first level of every seed, and at every decision each active job's belief is scored (speed APE over
// w as above, work APE), averaged over job-decisions.
std::vector<PredictionError> prediction_errors(const ExperimentConfig& config);

// The index of the strategy whose runs score `agent` beliefs (the first planning with them), or -1.
int agent_scoring_strategy(const ExperimentConfig& config);

// The error table's "used by" column: the labels of the config's strategies that plan with the source (exploratory
// takes only its work from history, and measures speeds as `exploration` does).
std::string prediction_error_used_by(const ExperimentConfig& config, const std::string& source);

}  // namespace ringsched
