// sim/cluster/cluster_runtime.h — the running cluster: its pools of GPUs (the untyped cluster is one pool of type
// ""), their nodes and placers, the GPUs held in each pool and the pool each job runs in, and the one place a job's
// true speed is computed for an assignment (pool, GPUs, nodes spanned, ring). GPU types are resolved once, when
// the runtime is built, to an index into each class's speed table. The engine keeps time, events and decisions and
// asks the runtime everything about the cluster; it never branches on cluster features (pools, placement,
// topology). With cluster.network it also holds the links jobs share (one net::NetworkState per pool, over the pool's
// topology) and divides each job's speed by its contention slowdown. With cluster.failures it keeps node health: the
// failure timeline (sim/cluster/failures/), failed nodes' GPUs out of the placer's reach until repaired, and each
// job's exposure (time holding GPUs) and failures by its size.
#pragma once

#include <algorithm>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "sim/cluster/cluster_config.h"
#include "sim/cluster/failures/failure_process.h"
#include "sim/cluster/network/network_state.h"
#include "sim/cluster/placement.h"
#include "strategies/strategy.h"
#include "workloads/job_class.h"
#include "workloads/workload.h"

namespace ringsched {

// A run's link-contention figures, by job id: each job's time-averaged slowdown and whether it ever shared a link;
// each link level's time-averaged utilisation (ClusterRuntime::link_utilisation).
struct ContentionTotals {
  std::vector<double> slowdown;
  std::vector<char> shared;
  std::vector<std::pair<std::string, double>> links;
};

// Failures by job size (cluster.failures): the time jobs of `gpus` GPUs held them and the failures that hit them.
struct FailureSize {
  int gpus = 0;
  double exposure_s = 0.0;
  int failures = 0;
};

class ClusterRuntime final : public ClusterView {
 public:
  // `classes`: the catalog's classes (speed tables are resolved per class and pool); `jobs`: the jobs (ids 0..n-1),
  // whose class and speed factor the network's traffic model reads. Both must outlive the runtime.
  // `seed`: the failure stream's (cluster.failures).
  ClusterRuntime(const ClusterConfig& config, const std::vector<JobClass>& classes, const std::vector<JobTruth>& jobs,
                 std::uint64_t seed = 1);

  // The pools as strategies see them (Snapshot::pools, with the GPUs held now); empty on the untyped cluster.
  [[nodiscard]] std::span<const PoolInfo> strategy_pools();
  [[nodiscard]] bool typed() const { return typed_; }
  // Whether jobs are placed on concrete GPUs (a placement policy or a topology is configured).
  [[nodiscard]] bool placed() const { return placed_; }
  [[nodiscard]] bool defragments() const { return placed_ && pools_.front().placer->defragment(); }
  [[nodiscard]] int total_gpus() const { return total_gpus_; }
  [[nodiscard]] int gpus_in_use() const { return in_use_; }
  [[nodiscard]] std::size_t pool_count() const { return pools_.size(); }
  [[nodiscard]] int pool_gpus(std::size_t pool) const { return pools_[pool].gpus; }
  [[nodiscard]] int pool_in_use(std::size_t pool) const { return pools_[pool].in_use; }
  // The pool job `id` holds GPUs in (the last it held once it holds none; 0 before it ever held any).
  [[nodiscard]] int pool_of(int id) const { return job_pool_[static_cast<std::size_t>(id)]; }
  // The GPU type of a pool ("" on the untyped cluster).
  [[nodiscard]] const std::string& gpu_type(int pool) const { return pools_[static_cast<std::size_t>(pool)].gpu_type; }

  // Job `id` goes from `from` to `to` GPUs, in `pool` when to > 0 (the GPUs held per pool follow).
  void hold(int id, int from, int to, int pool);

  // True useful samples per second of job `id` (class `cls`, catalog index `class_index`, per-job `speed_factor`)
  // on `gpus` GPUs of its pool: from the class's speed on the pool's GPU type at the nodes its ring spans (its
  // placement, or packed), with the ring's bandwidth and latency when the pool has a topology. 0 when the class has
  // no speed on the pool's type.
  [[nodiscard]] double true_rate(int id, const JobClass& cls, int class_index, int gpus, double speed_factor) const;
  // Nodes job `id` spans on `gpus` GPUs (its placement, or packed on its pool's nodes).
  [[nodiscard]] int nodes_spanned(int id, int gpus) const;
  // GPUs per node of job `id`'s allocation of `gpus`, in allocation order (its placement, or packed).
  [[nodiscard]] std::vector<int> placement(int id, int gpus) const;

  // Placement (placed() only). Integrates the placement metrics up to `now` (before any change at `now`).
  void clock(double now);
  void release(int id);
  // Places the jobs of a decision whose assignment changed (`ids[k]` holds `held[k]` GPUs in pool_of before,
  // gets d.jobs[k]): releases them, then places them on the nodes the decision names or by the pool's policy (in
  // d.place_order, else largest first). Jobs that keep their count and pool but move nodes are added to `moved`.
  void place(std::span<const int> ids, std::span<const int> held, const Decision& d, std::vector<int>& moved);
  // Places an incremental decision's changes (job-id order; `held(id)`: the GPUs job id holds before), clocking the
  // cluster to `now`: releases the jobs whose count, pool or named nodes change, then places each in turn on the nodes
  // it names (Change::nodes) or by its pool's policy. Jobs that keep their count and pool but move nodes are added to
  // `moved`.
  void place_changes(double now, std::span<const Change> changes, const std::function<int(int)>& held,
                     std::vector<int>& moved);
  // GPUs held on `node` (ClusterView's numbering) now; 0 when jobs are not placed.
  [[nodiscard]] int node_in_use(int node) const;
  // cluster.virtual_clusters as strategies see them (Snapshot::vcs; empty without).
  [[nodiscard]] std::span<const VirtualClusterInfo> vcs() const { return vcs_; }
  // The cluster's part of a snapshot as of now: total_gpus (usable), cluster (when placed), pools, vcs and their
  // placement, gpus_in_use.
  void describe(Snapshot& s);
  // Moves job `id` to strictly better GPUs of its pool if its policy finds some (defragmentation).
  bool try_improve(int id);
  [[nodiscard]] PlacementTotals placement_totals() const;

  // Links shared by jobs (cluster.network with contention on; otherwise these do nothing and return 1 / {}).
  [[nodiscard]] bool contention() const { return contention_; }
  // Brings the network up to date with the placements changed since the last call (jobs placed, moved, released)
  // and returns the ids, ascending, of the jobs whose slowdown changed: they run on at their new speed.
  std::vector<int> settle(double now);
  // Iteration time shared / alone of job `id` now (>= 1; 1 without contention). Inline: the engine asks it for every
  // goodput job's rate.
  [[nodiscard]] double slowdown(int id) const {
    return contention_ ? contention_of_[static_cast<std::size_t>(id)].slowdown : 1.0;
  }
  // Each job's time-averaged slowdown over the time it held GPUs and whether it ever shared a link; the links'
  // time-averaged utilisation per level (names "nic", "level2", ...; with several pools "<gpu type>/<level>").
  [[nodiscard]] ContentionTotals contention_totals() const;

  // Node failures (cluster.failures; without it nothing fails and next_health_change() is infinity).
  [[nodiscard]] bool fails() const { return failures_ != nullptr; }
  [[nodiscard]] double next_health_change() const;
  // Applies the failures and repairs due at `now` (clocking the cluster to it): releases the jobs holding GPUs on nodes
  // that fail and returns their ids, ascending (the engine makes them wait; their failure is counted); a failed node's
  // GPUs are out of the placer's reach until it is back.
  // A job every one of whose failed nodes was preempted with enough notice (failures.preemptions) is released the
  // same way but counted as preempted, not failed: evicted_with_notice() says which, until the next step.
  std::vector<int> health_step(double now);
  [[nodiscard]] bool evicted_with_notice(int id) const {
    return std::binary_search(noticed_.begin(), noticed_.end(), id);
  }
  // GPUs strategies may use now: total_gpus() less those of failed nodes.
  [[nodiscard]] int usable_gpus() const { return total_gpus_ - down_gpus_; }
  // Exposure and failures by the GPUs held, ascending (empty without failures).
  [[nodiscard]] std::vector<FailureSize> failure_sizes() const;

  // ClusterView: nodes in pool order (pool after pool).
  [[nodiscard]] int nodes() const override { return nodes_; }
  [[nodiscard]] std::vector<int> node_gpus(int job_id) const override;

 private:
  struct Pool : PoolInfo {
    int first_node = 0;
    int nodes = 0;
    std::unique_ptr<Placer> placer;              // null without placement
    bool ring_speed = false;                     // a topology: speeds use the ring's bandwidth and latency
    RingComm reference;                          // the ring the class speeds stand for
    std::shared_ptr<const Topology> topology;    // the placer's (a uniform two-level one without a topology)
    std::unique_ptr<net::NetworkState> network;  // contention on: the pool's shared links
  };
  // A job's contention record: its slowdown now and the time-weighted sum over the time it held GPUs.
  struct JobContention {
    double slowdown = 1.0;
    double since = 0.0;
    double weighted = 0.0;  // integral of slowdown dt over the time held
    double held = 0.0;      // time held
    int pool = -1;          // the pool whose network carries its flows, -1 = none
    bool shared = false;
  };
  [[nodiscard]] Placer& placer_of(int id) const;
  void place_moved(std::vector<std::size_t>& moved, std::span<const int> ids, const Decision& d);
  [[nodiscard]] double alone_rate(int id, const JobClass& cls, int class_index, int gpus, double speed_factor) const;
  void touch(int id);
  void close_interval(int id, double now);
  void resend_flows(int id, double now);
  [[nodiscard]] double mean_slowdown(int id) const;
  [[nodiscard]] std::vector<std::pair<std::string, double>> link_utilisation() const;

  bool typed_ = false;
  bool placed_ = false;
  int total_gpus_ = 0;
  int nodes_ = 0;
  int in_use_ = 0;
  std::vector<Pool> pools_;
  std::vector<PoolInfo> view_;  // strategy_pools()
  std::vector<VirtualClusterInfo> vcs_;
  std::string vc_placement_;
  std::vector<int> job_pool_;
  // speed_[class_index * pools + pool]: the class's speed model on the pool's GPU type (null: none).
  std::vector<const models::StepTimeModel*> speed_;
  const std::vector<JobClass>* classes_ = nullptr;
  const std::vector<JobTruth>* jobs_ = nullptr;
  bool contention_ = false;
  double bytes_per_param_ = 4.0;
  std::vector<JobContention> contention_of_;  // by job id (contention on only)
  std::vector<int> touched_;                  // placements changed since the last settle()
  // cluster.failures only:
  std::unique_ptr<fail::FailureProcess> failures_;
  int down_gpus_ = 0;
  std::vector<int> noticed_;            // jobs the last health_step evicted with enough notice, ascending
  double now_ = 0.0;                    // the last clock()
  std::vector<double> held_since_;      // by job: when it last went from no GPUs to some
  std::map<int, FailureSize> by_size_;  // by GPUs held
  void expose(int id, int from, int to);
};

}  // namespace ringsched
