// sim/cluster/placement.h — which GPUs a job gets. Strategies choose GPU counts; a placement policy chosen by name
// (`packed`, `spread`, `topology`) chooses the GPUs. The Placer keeps the cluster's GPU ownership, places and
// releases jobs for the engine, optionally migrates jobs to better placements (defragmentation), integrates the
// placement metrics over time, and derives a job's speed from its ring's communication parameters.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "sim/cluster/topology.h"
#include "workloads/job_class.h"

namespace ringsched {

// GPU ownership: -1 = free, -2 = on a failed node (cluster.failures), else the job id.
class ClusterState {
 public:
  static constexpr int kFree = -1;
  static constexpr int kDown = -2;
  explicit ClusterState(std::shared_ptr<const Topology> topo);
  [[nodiscard]] const Topology& topology() const { return *topo_; }
  [[nodiscard]] int free_on(int node) const { return free_[static_cast<std::size_t>(node)]; }
  [[nodiscard]] int total_free() const { return total_free_; }
  [[nodiscard]] bool is_free(int gpu) const { return owner_[static_cast<std::size_t>(gpu)] == kFree; }
  // The job holding `gpu`, -1 when free (-2 when its node is down).
  [[nodiscard]] int owner(int gpu) const { return owner_[static_cast<std::size_t>(gpu)]; }
  // The `k` lowest-numbered free GPUs of `node`, appended to `out`.
  void take_free(int node, int k, std::vector<int>& out) const;
  void assign(int gpu, int job);
  void release(int gpu);
  // A failed node's GPUs are neither free nor a job's until it is back; it must hold no job when it goes down.
  void set_down(int node, bool down);
  // Free GPUs on nodes that are partially occupied: a job that wants whole nodes cannot use them without
  // spanning an extra node (the fragmentation metric).
  [[nodiscard]] int fragmented_free() const;

 private:
  std::shared_ptr<const Topology> topo_;
  std::vector<int> owner_;
  std::vector<int> free_;
  int total_free_ = 0;
};

class PlacementPolicy {
 public:
  virtual ~PlacementPolicy() = default;
  [[nodiscard]] virtual std::string name() const = 0;
  // `count` free GPUs (1 <= count <= st.total_free()), in any order.
  [[nodiscard]] virtual std::vector<int> choose(const ClusterState& st, int count) const = 0;
  // Whether placement `a` is strictly better than `b` for this policy (used to decide migrations).
  [[nodiscard]] virtual bool better(const RingComm& a, const RingComm& b) const = 0;
};

// "packed", "spread", "topology", "contention" (sim/cluster/contention_placement.cpp: as "topology", choosing the
// groups of nodes fewest other jobs cross, docs/network.md), "most_free" (repeatedly the node with the most free GPUs,
// lowest index on ties, taking all it has up to what is left: how the Pollux artifact's Optimus and Tiresias place
// jobs); throws std::invalid_argument on an unknown name.
std::unique_ptr<PlacementPolicy> make_placement_policy(const std::string& name);
std::vector<std::string> placement_policy_names();  // name order

// A policy registers itself beside its class with one object at namespace scope (unique name, even in a unity
// build):   const PlacementPolicyRegistrar packed_placement_registrar{"packed", make_policy<Packed>};
// Two registrars of one name make every look-up throw std::logic_error naming it.
struct PlacementPolicyRegistrar {
  PlacementPolicyRegistrar(const std::string& name, std::unique_ptr<PlacementPolicy> (*make)());
};
template <class P>
std::unique_ptr<PlacementPolicy> make_policy() {
  return std::make_unique<P>();
}

// Fewest nodes, best fit, over the given nodes (all with free GPUs): one node with the fewest free GPUs that hold
// `count` if any; else the nodes with the most free GPUs in turn, the last piece on the node that fits it best.
std::vector<int> packed_choice(const ClusterState& st, std::vector<int> nodes, int count);
// Nodes with at least one free GPU, ascending.
std::vector<int> nodes_with_free(const ClusterState& st);
// The nodes of `nodes` in group `group` of bandwidth level `level` (Topology::group_of), in their order.
std::vector<int> group_members(const Topology& t, const std::vector<int>& nodes, std::size_t level, int group);
// Free GPUs of `nodes` summed per group of bandwidth level `level` (one entry per group of that level).
std::vector<int> group_free(const ClusterState& st, const std::vector<int>& nodes, std::size_t level);
// The `topology` and `contention` policies' order: `a` is a wider ring than `b`, or as wide on fewer nodes.
bool wider_ring(const RingComm& a, const RingComm& b);

struct PlacementTotals {
  int migrations = 0;
  double fragmented_gpu_seconds = 0.0;  // integral of ClusterState::fragmented_free()
  double node_span_seconds = 0.0;       // integral of the sum over jobs holding GPUs of the nodes each spans
  double holding_job_seconds = 0.0;     // integral of the number of jobs holding GPUs
};

class Placer {
 public:
  Placer(std::shared_ptr<const Topology> topo, std::unique_ptr<PlacementPolicy> policy, bool defragment);
  // Integrates the metrics up to `now` (call before any change at `now`).
  void clock(double now);
  void release(int job);
  // The job must hold no GPUs; places `count` of the free ones.
  void place(int job, int count);
  // The job must hold no GPUs; takes per_node[n] free GPUs of node n (lowest-numbered first).
  void place_on(int job, const std::vector<int>& per_node);
  // GPUs per node of the job's placement, in the order the nodes were taken (placement by policy) or by node index
  // (place_on); empty when it holds none.
  [[nodiscard]] const std::vector<int>& placement_of(int job) const;
  // A node fails (its GPUs stop being free; it must hold no job) or is back (cluster.failures).
  void set_node_down(int node, bool down) { state_.set_down(node, down); }
  // GPUs the job holds on each node (size: the cluster's nodes).
  [[nodiscard]] std::vector<int> node_counts(int job) const;
  // With defragmentation on: re-places a job (same count) if the policy finds a strictly better placement now;
  // returns true when it moved (a migration, counted).
  bool try_improve(int job);
  [[nodiscard]] const std::vector<int>& gpus_of(int job) const;
  [[nodiscard]] RingComm ring_of(int job) const;
  [[nodiscard]] const Topology& topology() const { return state_.topology(); }
  [[nodiscard]] const ClusterState& state() const { return state_; }
  [[nodiscard]] const PlacementTotals& totals() const { return totals_; }
  [[nodiscard]] bool defragment() const { return defragment_; }

 private:
  std::vector<int>& slot(int job);
  ClusterState state_;
  std::unique_ptr<PlacementPolicy> policy_;
  bool defragment_;
  void account(int job);
  std::vector<std::vector<int>> held_;
  std::vector<std::vector<int>> placement_;  // per job: GPUs per node in the order taken
  std::vector<int> span_;                    // nodes spanned per job (0 when none)
  PlacementTotals totals_;
  double last_t_ = 0.0;
  bool clock_started_ = false;
  int span_sum_ = 0;
  int holders_ = 0;
};

// Useful samples per second of a job of class `c` on a ring with communication parameters `ring` (from the
// topology). `ref` is the ring the eq5 coefficients stand for (Topology::reference_ring). allreduce kind: the
// model is evaluated with alpha = ring.alpha, beta = 1/ring.bandwidth (gamma, compute and overhead kept).
// eq5 kind: t1 scaled by ring.alpha / ref.alpha (kept when ref.alpha is 0), t2 by ref.bandwidth / ring.bandwidth.
// Other kinds: the model's own step time on ring.gpus workers over ring.nodes nodes. Multiplied by speed_factor,
// divided by the large-batch penalty as in class_throughput.
double ring_throughput(const JobClass& c, const RingComm& ring, const RingComm& ref, double speed_factor);
// The same with the class's speed on a GPU type (`speed`: speed_on(c, type)).
double ring_throughput(const JobClass& c, const models::StepTimeModel& speed, const RingComm& ring, const RingComm& ref,
                       double speed_factor);

}  // namespace ringsched
