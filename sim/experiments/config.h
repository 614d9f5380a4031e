// sim/experiments/config.h — an experiment config: the cluster, the workload (its truth: catalog, arrivals or trace,
// per-job noise), contention levels, strategies, how beliefs are made, the restart cost, seeds and outputs; parsed
// and validated from JSON with file + JSON-path errors (InputError, exit code 2). The in-sample Table 3 and the
// held-out evaluation are two configs of this one shape (builtin_configs.h). Format: docs/config.md.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/beliefs/history_training.h"
#include "sim/cluster/cluster_config.h"
#include "sim/engine/engine.h"
#include "sim/engine/metrics.h"
#include "traces/trace_workload.h"
#include "workloads/gavel_jobs.h"

namespace ringsched {

struct StrategySpec {
  std::string name;     // registered strategy name
  std::string label;    // column label (default: name, or name[beliefs] when beliefs differ from the default)
  std::string beliefs;  // belief source name
  nlohmann::json params = nlohmann::json::object();
  std::string json_path;  // where it was declared, for messages
};

struct LevelSpec {
  std::string name;
  double load = 0.0;        // offered load (0 when given as a rate)
  double rate_per_s = 0.0;  // resolved arrival rate
};

// `workload`: the truth the engine runs.
struct WorkloadConfig {
  std::shared_ptr<const Catalog> catalog;  // job classes with their true speed and work
  int jobs = 100;                          // per replicate (a trace's rows, capped by workload.jobs)
  double speed_sigma = 0.0;                // lognormal sigma of each job's speed factor
  double loss_sigma = 0.02;                // lognormal sigma of each loss a job reports (`online` beliefs)
  std::shared_ptr<const Trace> trace;      // null = Poisson arrivals at each level's rate
  TraceWorkloadSpec trace_spec;            // the trace's own settings (class, time_scale, max_gpus, oversize)
  std::string trace_file;                  // workload.trace.file as written in the config (for outputs)
  TraceNotes trace_notes;                  // what the run does to the trace (truncation, oversize, offered load)
  // workload.arrival.process: "poisson" (each job's class by weight, its work the class's) or "gavel" (Gavel's job
  // generator, workloads/gavel_jobs.h, with arrival.multi_gpu, arrival.reference_gpu_type, arrival.streams,
  // arrival.job_table and arrival.first_seed).
  std::string arrival_process = "poisson";
  bool gavel_multi_gpu = false;
  std::string gavel_reference_type = "v100";
  GavelStreams gavel_streams = GavelStreams::kBoost;
  GavelJobTable gavel_job_table = GavelJobTable::kPublished;
  std::uint64_t gavel_first_seed = 0;  // python streams: Gavel's seed of the run's first seed (then +1 per seed)
  MeasureWindow measure;               // workload.measure: the jobs the JCT metrics are taken over
};

// `beliefs`: how the belief sources are built.
struct BeliefsConfig {
  // `beliefs.history`: unset = the catalog's class models (in-sample, the paper's setting); set = fitted on these
  // training runs (held-out).
  std::optional<TrainingSpec> training;
  std::shared_ptr<const Catalog> history;  // the fitted catalog when `training` is set (built at parse time)
  // `beliefs.<source>`: each source's own options (sim/beliefs/belief_sources.h), read by the source.
  BeliefOptions options;
};

enum class EventsMode { kNone, kFirstSeed, kAll };

// `output`: what a run records beyond the per-run metrics.
struct OutputConfig {
  EventsMode events = EventsMode::kFirstSeed;
  bool optimality_gap = false;     // each decision's gap to the exact optimum
  bool prediction_errors = false;  // the belief sources' speed and work errors on the jobs (prediction_errors.h)
  // breakdown.csv, jobs.csv's rho and the queueing/fairness metrics (--breakdown; sim/experiments/breakdown_report.h).
  bool breakdown = false;
  // series.csv: busy GPUs, queued and running jobs every series_s seconds (--series; 0 = off).
  double series_s = 0.0;
};

// output.series_s / --series: the interval's bounds (seconds).
inline constexpr double kMinSeriesS = 0.001;
inline constexpr double kMaxSeriesS = 1e9;

struct ExperimentConfig {
  std::string origin;                                // file name (or "builtin:table3") for messages
  nlohmann::json source = nlohmann::json::object();  // the config as given
  std::string description;
  ClusterConfig cluster;
  WorkloadConfig workload;
  std::vector<LevelSpec> levels;
  std::vector<StrategySpec> strategies;
  BeliefsConfig beliefs;
  RestartCost restart;
  SchedulerConfig scheduler;
  int seeds = 20;
  std::uint64_t base_seed = 1;
  OutputConfig output;

  [[nodiscard]] int total_gpus() const { return cluster.total_gpus(); }
  // The catalog `history` beliefs (and the priors of `online` and `exploration`) come from.
  [[nodiscard]] std::shared_ptr<const Catalog> history_catalog() const {
    return beliefs.history ? beliefs.history : workload.catalog;
  }
};

// The default contention levels of table3 (offered load; see README "Contention levels").
std::vector<std::pair<std::string, double>> default_levels();

// Parses and validates; errors are InputError "origin: json.path: message". base_dir resolves relative paths.
ExperimentConfig parse_experiment(const nlohmann::json& doc, const std::string& origin, const std::string& base_dir);
ExperimentConfig load_experiment(const std::string& path);

// What would make every run fail (or never end) although each value passes its own check: trace rows that cannot
// finish before the simulated clock's horizon (1e12 s) after time_scale, repeat and the round grid; a restart not
// shorter than the round; a class Gavel's generator cannot time on its reference type. InputError naming the JSON
// path; `root` reads the config document. parse_experiment calls it last. Defined in sim/experiments/run_checks.cpp.
class JsonReader;
void check_runs_can_finish(const JsonReader& root, const ExperimentConfig& c);

}  // namespace ringsched
