// sim/cluster/failures/failure_process.h — when nodes fail and come back (cluster.failures, docs/failures.md): each
// node's own renewal process (time to failure exponential or Weibull with mean node_mtbf, then repair_s down), each
// switch's (a group of the topology's switch level: all its nodes go down together), and the rows of a failure
// trace. A node is down while any of these holds it down. Draws come from their own stream (Stream::kFailures) in a
// fixed order (nodes, then switches, at the start; then one draw per repair, in event order), so they never move
// another stream's draws and the same seed gives the same failures whatever the strategy does.
#pragma once

#include <cstdint>
#include <queue>
#include <vector>

#include "sim/cluster/failures/failure_config.h"
#include "sim/cluster/topology.h"
#include "workloads/rng.h"

namespace ringsched::fail {

// Nodes whose state changed at one instant: went down, came back (each ascending).
struct HealthChange {
  std::vector<int> down;
  std::vector<int> up;
  // Per node of `down`: the notice its jobs had (failures.preemptions), the shortest among what took it down at this
  // instant; 0 when a failure did.
  std::vector<double> notice;
};

class FailureProcess {
 public:
  // `topology`: the cluster's (switch failures need it; may be null otherwise).
  FailureProcess(const FailureOptions& options, int nodes, const Topology* topology, std::uint64_t seed);
  // The time of the next change (infinity when none is left).
  [[nodiscard]] double next_time() const;
  // Applies every failure and repair due at or before `now` and returns the nodes whose state changed.
  HealthChange step(double now);
  [[nodiscard]] bool down(int node) const { return holds_[static_cast<std::size_t>(node)] > 0; }
  [[nodiscard]] int nodes() const { return static_cast<int>(holds_.size()); }
  // Whether a job leaving a node with this notice keeps its work (FailureOptions::notice_suffices).
  [[nodiscard]] bool notice_suffices(double notice_s) const { return options_.notice_suffices(notice_s); }

 private:
  enum class Kind : std::uint8_t { kNodeFail, kNodeRepair, kSwitchFail, kSwitchRepair, kTraceFail, kTraceRepair };
  struct Item {
    double time;
    Kind kind;
    int target;  // node or switch (group) index
    std::uint64_t seq;
    bool operator>(const Item& o) const { return time != o.time ? time > o.time : seq > o.seq; }
  };
  void push(double time, Kind kind, int target);
  [[nodiscard]] double node_lifetime();
  [[nodiscard]] double exponential(double mean);
  void hold(int node, int delta, std::vector<int>& touched, double notice = 0.0);
  void apply(const Item& it, std::vector<int>& touched);

  FailureOptions options_;
  Rng rng_;
  double weibull_scale_ = 0.0;
  std::vector<std::vector<int>> switch_nodes_;  // the nodes below each switch
  std::vector<int> holds_;                      // per node: how many sources hold it down
  std::vector<char> was_down_;                  // scratch: state before a step
  std::vector<double> notice_;                  // scratch: the shortest notice of what took a node down this step
  std::vector<TraceFailure> rows_;              // the failure trace's rows, then the preemption trace's
  std::priority_queue<Item, std::vector<Item>, std::greater<>> queue_;
  std::uint64_t seq_ = 0;
};

}  // namespace ringsched::fail
