// sim/engine/engine.h — the discrete-event engine: arrivals, completions, restarts and strategy wake-ups on a binary
// heap (no fixed time step). It owns the truth; strategies see a Snapshot of public facts, progress and beliefs.
#pragma once

#include <cstdint>
#include <functional>
#include <iterator>
#include <memory>
#include <string>
#include <vector>

#include "sim/beliefs/belief_sources.h"
#include "sim/cluster/cluster_config.h"
#include "sim/cluster/cluster_runtime.h"
#include "sim/cluster/placement.h"
#include "sim/engine/belief_scoring.h"
#include "sim/engine/check_view.h"
#include "sim/engine/failure_book.h"
#include "sim/engine/horizon.h"
#include "sim/engine/job_result.h"
#include "sim/engine/public_facts.h"
#include "strategies/strategy.h"
#include "workloads/workload.h"

namespace ringsched {

// What a resize costs (the `restart` key of a config): a started job that changes its GPU count (or resumes) pauses
// for cost_s + cost_per_gpu_s x its new GPU count, holding its new GPUs and making no progress.
// The paper's measured stop-and-restart time of a ring all-reduce job (about 10 s): the default of `restart.cost_s`.
inline constexpr double kDefaultRestartCostS = 10.0;
struct RestartCost {
  double cost_s = kDefaultRestartCostS;
  double cost_per_gpu_s = 0.0;
  bool on_first_start = false;  // the first start pays it too (the Pollux artifact's simulator does)
  // The pause of a job of a class whose own restart is `class_cost_s` (goodput.restart_s; < 0: none, cost_s applies)
  // on `gpus` GPUs.
  [[nodiscard]] double of(double class_cost_s, int gpus) const {
    return (class_cost_s >= 0.0 ? class_cost_s : cost_s) + cost_per_gpu_s * static_cast<double>(gpus);
  }
};

// When the strategy is asked (the `scheduler` key of a config): interval_s = 0 at every arrival, completion and
// requested wake-up (event-driven, the default); interval_s > 0 only at t = k x interval_s (k >= 1), seeing the jobs
// that arrived by then, as a round-based scheduler such as the Pollux artifact's (60 s) does; wake-ups are ignored.
// Rounds in which no job is active (none arrived yet, or all finished before the next arrival) decide nothing: the
// clock jumps to the first round at or after the next arrival (the same round walking would reach;
// sim/engine/rounds.h).
struct SchedulerConfig {
  double interval_s = 0.0;
  bool walk_idle_rounds = false;  // tests: tick through idle rounds one by one (same results, more events)
};

struct EngineConfig {
  ClusterConfig cluster;
  RestartCost restart;
  SchedulerConfig scheduler;
  bool record_events = true;  // keep the allocation-change log
  // Call Strategy::decide with the full job list even for incremental strategies (tests compare both paths).
  bool dense_snapshots = false;
  // Called every 65,536 events and when the run ends with the events handled and jobs finished since the last call
  // (progress lines; sim/experiments/progress.h). Empty = not called.
  std::function<void(std::uint64_t events, int finished)> progress;
  // Asked every 65,536 events: true ends the run with an error "stopped after N events" (the Python module's Ctrl-C
  // cuts a long run short). Empty = never asked.
  std::function<bool()> stop;
  std::uint64_t seed = 1;  // measurement-noise stream of the Probe
  // Lognormal sigma of the steps a job measures of its own runs, reported to beliefs that learn from them (`agent`;
  // the config's beliefs.agent.measurement_sigma). Keyed by (seed, job, measurement): independent of decision order.
  double step_measurement_sigma = 0.05;
  // Score the beliefs at every decision (RunResult::belief_score): the prediction-error pass of learning beliefs.
  bool score_beliefs = false;
  [[nodiscard]] int total_gpus() const { return cluster.total_gpus(); }
};

// kFail: a node under the job failed (cluster.failures): to 0 GPUs, as a preemption.
enum class AllocKind { kStart, kResize, kPreempt, kResume, kFinish, kMigrate, kFail };
inline std::string to_string(AllocKind kind) {
  static const char* const kNames[] = {"start",  "resize",  "preempt", "resume",
                                       "finish", "migrate", "fail"};  // enum order
  const auto k = static_cast<std::size_t>(kind);
  return k < std::size(kNames) ? kNames[k] : "start";
}

struct AllocationEvent {
  double time = 0.0;
  int job = 0;
  int from = 0;
  int to = 0;
  AllocKind kind = AllocKind::kStart;
  int pool = 0;  // typed clusters: the pool of `to` (of `from` when to = 0)
};

struct RunResult {
  std::vector<JobResult> jobs;  // by job id
  std::vector<AllocationEvent> events;
  double first_arrival = 0.0;
  double last_finish = 0.0;
  double allocated_gpu_seconds = 0.0;
  std::vector<double> pool_gpu_seconds;  // typed clusters: allocated GPU-seconds per pool (cluster.pools order)
  std::uint64_t events_processed = 0;    // heap events handled
  std::uint64_t decisions = 0;           // strategy calls
  BeliefScore belief_score;              // with EngineConfig::score_beliefs
  // Placement metrics (only with a placement policy; see sim/cluster/placement.h).
  bool placed = false;
  int migrations = 0;
  double fragmented_gpu_seconds = 0.0;
  double node_span_seconds = 0.0;
  double holding_job_seconds = 0.0;
  // Link contention (cluster.network with contention on): time-averaged utilisation of each level's links.
  bool contention = false;
  std::vector<std::pair<std::string, double>> link_utilisation;
  // Failures (cluster.failures): on, and the exposure and failures of jobs by the GPUs they held.
  bool failures = false;
  std::vector<FailureSize> failure_sizes;
  // A run's failure figures (cluster.failures): each job's, by job id, and exposure by job size.
  void add_failures(const std::vector<JobFailureStats>& per_job, std::vector<FailureSize> sizes) {
    failures = true;
    for (std::size_t id = 0; id < jobs.size() && id < per_job.size(); ++id)
      jobs[id].failure = per_job[id];
    failure_sizes = std::move(sizes);
  }
  // A placed run's placement metrics (migrations the strategy asked for are counted already).
  void add_placement(const PlacementTotals& t) {
    placed = true;
    migrations += t.migrations;
    fragmented_gpu_seconds += t.fragmented_gpu_seconds;
    node_span_seconds += t.node_span_seconds;
    holding_job_seconds += t.holding_job_seconds;
  }
  // A run's link-contention figures (cluster.network with contention on).
  void add_contention(const ContentionTotals& t) {
    contention = true;
    for (std::size_t id = 0; id < jobs.size() && id < t.slowdown.size(); ++id) {
      jobs[id].contention_slowdown = t.slowdown[id];
      jobs[id].shared_link = t.shared[id] != 0;
    }
    link_utilisation = t.links;
  }
};

// Runs one replicate. Throws std::logic_error if the strategy returns an invalid decision (wrong size, counts
// outside a job's limits, more GPUs than exist) or leaves jobs waiting forever.
RunResult simulate(const Workload& workload, Strategy& strategy, const BeliefSource& beliefs,
                   const EngineConfig& config, const EngineChecker& checker = nullptr);

}  // namespace ringsched
