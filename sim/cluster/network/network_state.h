// sim/cluster/network/network_state.h — the running jobs' flows on the cluster's links and their shares: which jobs
// share links (connected components of the job-link graph), each job's contention slowdown, and the per-level link
// utilisation over time. Incremental: update() recomputes only the components that hold a job set or removed since
// the last call (or that held one: a removal can split a component), in time proportional to those components.
// The model is in job_flows.h (a job's flows), shares.h (rates and slowdowns) and priority.h (weights);
// docs/network.md.
#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "sim/cluster/network/job_flows.h"
#include "sim/cluster/network/link_set.h"
#include "sim/cluster/network/network_config.h"
#include "sim/cluster/topology.h"

namespace ringsched::net {

class NetworkState {
 public:
  NetworkState(const Topology& topo, NetworkOptions opt);

  // Add or replace job `id` (a start, resize or move). Throws std::invalid_argument on a bad JobComm (job_flows.h)
  // or a flow that cannot be routed; the state is then unchanged.
  void set_job(int id, const JobComm& job);
  void remove_job(int id);  // unknown ids are ignored
  // Recompute the shares of the components touched since the last call; returns the ids (ascending) of the present
  // jobs whose slowdown() changed (a new job compares against 1; removed jobs are not listed).
  std::vector<int> update();

  // As of the last update(): iteration time shared / alone (>= 1; 1 when alone, single-node or unknown id).
  [[nodiscard]] double slowdown(int id) const;
  // Its inter-node communication time per iteration alone (flow_bytes / alone rate; 0 on one node or unknown id)
  // and shared (as of the last update()): the model's view, for reports and checks.
  [[nodiscard]] double comm_alone_s(int id) const;
  [[nodiscard]] double comm_shared_s(int id) const;
  // One of its inter-node flows crosses a link that another job's flow crosses (as of the last update()).
  [[nodiscard]] bool on_shared_link(int id) const;
  // Integrate per-level link load up to `now` (seconds, non-decreasing; an earlier time is ignored). Call before
  // any change at `now`: the load of [last clock, now) is the one of the last update().
  void clock(double now);

  struct Totals {
    std::vector<std::string> level;   // LinkSet::level_names()
    std::vector<double> utilisation;  // time-averaged bytes carried / capacity per level over [0, last clock]
  };
  [[nodiscard]] Totals totals() const;

  [[nodiscard]] const LinkSet& link_set() const { return links_; }
  [[nodiscard]] const NetworkOptions& options() const { return opt_; }
  // Jobs whose shares were recomputed by update() since construction (locality checks, benchmarks).
  [[nodiscard]] std::uint64_t recomputed() const { return recomputed_; }
  // Fixed-point rounds of the largest component solved by the last update() (0 when it solved none).
  [[nodiscard]] int last_rounds() const { return last_rounds_; }
  // Components whose "expected" fixed point stopped at kMaxRounds unsettled, and the largest residual among them.
  [[nodiscard]] std::uint64_t unsettled() const { return unsettled_; }
  [[nodiscard]] double worst_residual() const { return worst_residual_; }

 private:
  struct Job {
    JobComm comm;
    JobFlows flows;
    std::vector<int> hops;      // global link ids its hops cross, a link once per hop (ShareJob::links)
    std::vector<int> at_level;  // per level: hop-link crossings
    double alone_rate = 0.0;
    double slowdown = 1.0;
    double mean_rate = 0.0;  // bytes/s per hop, averaged over its shared iteration
    double rate = 0.0;       // bytes/s per hop while it communicates (as of the last update())
    bool shared = false;
    std::uint64_t mark = 0;  // the update() that last visited it
  };

  void detach(int id, Job& job);
  void set_load(Job& job, double mean_rate);
  std::vector<int> component(int seed);
  void solve(const std::vector<int>& ids);

  LinkSet links_;
  NetworkOptions opt_;
  std::vector<int> gpu_node_;
  std::unordered_map<int, Job> jobs_;
  std::vector<std::vector<int>> on_link_;  // per link: the ids of the jobs crossing it (each once)
  std::vector<int> dirty_jobs_;
  std::vector<int> dirty_links_;
  std::vector<int> local_of_;  // link -> index in the component being solved, -1 otherwise
  std::vector<double> level_capacity_;
  std::vector<double> level_load_;     // bytes/s carried now per level
  std::vector<double> level_carried_;  // bytes carried per level over [0, clock_]
  double clock_ = 0.0;
  std::uint64_t pass_ = 0;
  std::uint64_t recomputed_ = 0;
  int last_rounds_ = 0;
  std::uint64_t unsettled_ = 0;
  double worst_residual_ = 0.0;
};

}  // namespace ringsched::net
