// sim/experiment.h — experiment configs (JSON, validated with file + JSON-path errors) and the replicate runner:
// levels x strategies x seeds, run on a thread pool with results in a fixed order (same output for any thread count).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/belief_sources.h"
#include "sim/engine.h"
#include "sim/metrics.h"
#include "sim/topology.h"
#include "strategies/registry.h"
#include "workloads/trace.h"

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

enum class EventsMode { kNone, kFirstSeed, kAll };

struct ExperimentConfig {
  std::string origin;                                // file name (or "builtin:table3") for messages
  nlohmann::json source = nlohmann::json::object();  // the config as given
  std::string description;
  int nodes = 8;
  int gpus_per_node = 8;
  std::shared_ptr<const Catalog> catalog;
  int jobs = 100;
  double speed_sigma = 0.0;
  double loss_sigma = 0.02;  // workload.loss_sigma: noise of each loss a job reports to `online` beliefs
  std::vector<LevelSpec> levels;
  std::vector<StrategySpec> strategies;
  double restart_cost_s = 10.0;
  double restart_cost_per_gpu_s = 0.0;
  int seeds = 20;
  std::uint64_t base_seed = 1;
  EventsMode events = EventsMode::kFirstSeed;
  // cluster.topology / cluster.placement (docs/topology.md); null / "" = none (the default engine behaviour).
  std::shared_ptr<const Topology> topology;
  std::string placement;
  bool defragment = false;
  bool optimality_gap = false;  // output.optimality_gap: record each decision's gap to the exact optimum
  // workload.trace (docs/config.md "Trace-driven arrivals"): arrivals, classes and GPU requests from a trace file
  // instead of Poisson arrivals; null = Poisson. `jobs` caps the trace's rows.
  std::shared_ptr<const Trace> trace;
  TraceWorkloadSpec trace_spec;

  [[nodiscard]] int total_gpus() const { return nodes * gpus_per_node; }
};

// The default contention levels of table3 (offered load; see README "Contention levels").
std::vector<std::pair<std::string, double>> default_levels();

// Parses and validates; errors are InputError "origin: json.path: message". base_dir resolves relative paths.
ExperimentConfig parse_experiment(const nlohmann::json& doc, const std::string& origin, const std::string& base_dir);
ExperimentConfig load_experiment(const std::string& path);

// The built-in Table 3 config (same text as workloads/examples/table3.json).
std::string table3_config_text();

struct CellRun {
  int level = 0;
  int strategy = 0;
  int seed_index = 0;
  std::uint64_t seed = 0;
  RunMetrics metrics;
  std::vector<JobResult> jobs;
  std::vector<AllocationEvent> events;
  std::uint64_t events_processed = 0;
  std::string error;  // non-empty if the run failed
};

struct ExperimentResult {
  std::vector<CellRun> runs;  // ordered by level, then strategy, then seed
  [[nodiscard]] const CellRun& run(const ExperimentConfig& c, int level, int strategy, int seed_index) const;
};

// Runs every (level, strategy, seed). threads <= 0 means all hardware threads.
ExperimentResult run_experiment(const ExperimentConfig& config, int threads);

// One replicate (used by run_experiment, sweeps and tests).
CellRun run_cell(const ExperimentConfig& config, int level, int strategy, int seed_index, bool keep_events);

Workload make_workload(const ExperimentConfig& config, int level, std::uint64_t seed);

// The engine settings of one replicate of this config (cluster, restart costs, topology, placement).
EngineConfig engine_config(const ExperimentConfig& config, std::uint64_t seed, bool keep_events);

}  // namespace ringsched
