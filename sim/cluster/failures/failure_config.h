// sim/cluster/failures/failure_config.h — the `cluster.failures` config key (docs/failures.md): per-node failures
// (exponential or Weibull time to failure), correlated switch failures, a replayed failure trace (CSV
// time_s,node,duration_s), the repair time and the jobs' checkpoint policy. Errors are InputError naming the file and
// JSON path (or the trace's file:line), exit 2.
#pragma once

#include <string>
#include <vector>

#include "workloads/io/json_reader.h"

namespace ringsched::fail {

// The repair time when `repair_h` is absent: 4 hours (a node is drained, repaired and returned within a shift).
inline constexpr double kDefaultRepairH = 4.0;

// One row of a failure trace: node `node` fails at `time_s` and is back `duration_s` later. A row of a preemption
// trace (failures.preemptions) also gives the notice its jobs had: `notice_s` before `time_s` (0 for failures).
struct TraceFailure {
  double time_s = 0.0;
  int node = 0;
  double duration_s = 0.0;
  double notice_s = 0.0;
};

// How jobs checkpoint (failures.checkpoint): every interval_s of running time, or with young_daly every
// sqrt(2 C M) with M the job's MTTF 1 / (nodes x node rate); each checkpoint costs cost_s of progress.
// No checkpoint key: no checkpoints (a failure loses everything since the job last started running) and no cost.
struct CheckpointPolicy {
  bool enabled = false;
  bool young_daly = false;
  double interval_s = 0.0;
  double cost_s = 0.0;
};

struct FailureOptions {
  double node_mtbf_s = 0.0;  // 0 = no random node failures
  bool weibull = false;      // distribution "weibull" (else "exponential")
  double shape = 1.0;        // Weibull shape k (the mean stays node_mtbf_s)
  double repair_s = kDefaultRepairH * 3600.0;
  double switch_mtbf_s = 0.0;  // 0 = no switch failures
  int switch_level = 0;        // the topology's bandwidth level whose groups fail together (0 = the lowest switches)
  std::string trace_file;      // "" = none
  std::vector<TraceFailure> trace;
  // Preemptible capacity (failures.preemptions): nodes that leave with a notice and return, from a capacity trace.
  std::string preemptions_file;  // "" = none
  std::vector<TraceFailure> preemptions;
  CheckpointPolicy checkpoint;
  // The per-node failure rate the Young/Daly interval uses (1 / node_mtbf_s; 0 without random node failures).
  [[nodiscard]] double node_rate() const { return node_mtbf_s > 0.0 ? 1.0 / node_mtbf_s : 0.0; }
  // The notice a job needs to leave a preempted node without losing work: time to write one checkpoint (its cost;
  // 0 without checkpoints, when a clean stop keeps everything as a resize does). A notice must also be > 0.
  [[nodiscard]] bool notice_suffices(double notice_s) const {
    return notice_s > 0.0 && notice_s >= (checkpoint.enabled ? checkpoint.cost_s : 0.0);
  }
};

// `r` is cluster.failures: {"node_mtbf_h", "distribution", "shape", "repair_h", "switch_mtbf_h", "switch_level",
// "trace", "preemptions", "checkpoint"}; at least one source of failures. `nodes`: the cluster's nodes (trace nodes are
// 0..nodes-1); `switch_levels`: the topology's bandwidth levels (0 = no topology: switch_mtbf_h is refused).
FailureOptions parse_failures(const JsonReader& r, int nodes, int switch_levels);

// One line for `ringsched validate`: the failure sources, the repair time and the checkpoint policy.
std::string describe_failures(const FailureOptions& o);

// Reads a failure trace: header `time_s,node,duration_s`, then one row per failure, times non-decreasing, nodes in
// [0, nodes), durations > 0. InputError "file:line: ..." otherwise.
std::vector<TraceFailure> read_failure_trace(const std::string& path, int nodes);
// The same from text (`origin` names it in messages): the fuzz target's entry point. With `notice`, the capacity
// trace of failures.preemptions: header `time_s,node,duration_s,notice_s`, notices >= 0.
std::vector<TraceFailure> parse_failure_trace(const std::string& text, const std::string& origin, int nodes,
                                              bool notice = false);
// Reads a preemption (capacity) trace: `time_s,node,duration_s,notice_s`, as read_failure_trace otherwise.
std::vector<TraceFailure> read_preemption_trace(const std::string& path, int nodes);

}  // namespace ringsched::fail
