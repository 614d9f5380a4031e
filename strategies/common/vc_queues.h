// strategies/common/vc_queues.h — the reusable per-virtual-cluster scheduler (cluster.virtual_clusters, as in the
// Helios artifact; docs/virtual_clusters.md): one queue per VC, a mirror of each VC node's free GPUs, the artifact's
// two placements ("consolidate", "random"), and two passes over a VC's queue. Non-preemptive (fifo, sjf, qssf): the
// waiting jobs in priority order each placed in turn, stopping at the first that cannot be placed (head-of-line
// blocking; with backfill later jobs may still start). Preemptive (srtf): all the VC's jobs, waiting and running, in
// priority order, taken greedily while their GPUs fit in the VC's total; running jobs not taken are preempted, taken
// waiting jobs placed (a placement may fail: the job waits). Incremental: a decision looks only at the VCs where a job
// arrived or finished, and emits Change entries that name each started job's nodes.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <set>
#include <utility>
#include <vector>

#include "strategies/strategy.h"

namespace ringsched {

class VcQueues {
 public:
  // `priority(job id)`: lower first, ties in arrival (id) order. A waiting job's priority is read when it joins its
  // queue (arrival, preemption) and kept while it waits; with `preemptive` the running jobs' priorities are read again
  // at every decision of their VC. `size(public facts)`: the job's rigid GPU count (at most its VC's GPUs).
  // `backfill`: non-preemptive passes go on past a job that cannot be placed.
  VcQueues(std::function<double(int)> priority, std::function<int(const JobPublic&)> size, bool preemptive,
           bool backfill);

  // An incremental decision (Strategy::decide_changes) on a snapshot with VCs (Snapshot::vcs non-empty).
  Decision decide(const Snapshot& s);
  // The snapshot being decided (for priority functions that read views); valid only during decide.
  [[nodiscard]] const Snapshot& snapshot() const { return *current_; }

  // The artifact's placements on one VC's nodes: `free` the free GPUs of its nodes (in node order), `gpus_per_node`
  // G. Each returns (node index within the VC, GPUs) pieces, empty when the job cannot be placed now.
  // consolidate: a job of <= G GPUs on the node with the fewest free GPUs that holds it (first such node on ties);
  // k x G GPUs on k wholly free nodes; other sizes on whole free nodes plus one piece for the remainder, exactly as the
  // artifact's consolidate.py (docs/virtual_clusters.md). random: first fit in node order, taking what each has.
  static std::vector<std::pair<int, int>> consolidate(const std::vector<int>& free, int gpus_per_node, int gpus);
  static std::vector<std::pair<int, int>> first_fit(const std::vector<int>& free, int gpus);

 private:
  enum class Where : std::uint8_t { kNone, kWaiting, kRunning };
  struct Job {
    int vc = -1;
    int size = 0;
    double key = 0.0;
    Where where = Where::kNone;
    std::vector<std::pair<int, int>> held;  // (cluster node, GPUs) while running
  };
  struct Vc {
    int first_node = 0;
    int nodes = 0;
    int gpus = 0;
    int free = 0;
    std::set<std::pair<double, int>> waiting;  // (priority, id)
    std::map<int, int> waiting_sizes;          // GPU count -> waiting jobs of that count (the smallest ends walks)
    [[nodiscard]] int smallest_waiting() const { return waiting_sizes.empty() ? 0 : waiting_sizes.begin()->first; }
    std::vector<int> running;  // ids holding GPUs
  };

  void init(const Snapshot& s);
  Job& job(int id);
  void enqueue(int id);
  void unqueue(int id);  // out of its VC's waiting set
  void release(int id);
  // Places a waiting job on its VC's nodes if the placement finds room; emits its start.
  bool try_start(Decision& d, int id);
  void preempt(Decision& d, int id);
  void fill(Decision& d, Vc& vc);
  void preemptive_pass(Decision& d, Vc& vc);

  std::function<double(int)> priority_;
  std::function<int(const JobPublic&)> size_;
  bool preemptive_;
  bool backfill_;
  bool ready_ = false;
  bool consolidate_ = true;
  int gpus_per_node_ = 1;
  int nodes_ = 0;
  std::vector<int> node_free_;  // by cluster node
  std::vector<Vc> vcs_;
  std::vector<Job> jobs_;  // by id
  std::vector<char> touched_;
  const Snapshot* current_ = nullptr;
};

}  // namespace ringsched
