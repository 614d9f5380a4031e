// strategies/strategy.h — the Strategy interface: a read-only snapshot in (time, GPUs, each active job's public
// facts, progress and the scheduler's beliefs), decisions out (GPU counts, and when to be called again).
// A strategy never sees a job's ground truth: JobView carries no JobTruth and Belief is a separate type.
#pragma once

#include <limits>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "models/goodput.h"
#include "workloads/job_class.h"

namespace ringsched {

// One step time a job measured of its own run (what its agent sees): the GPUs and nodes it ran on, its global batch
// and the measured useful samples per second (noisy, as any measurement).
struct StepObservation {
  int gpus = 0;
  int nodes = 1;
  double global_batch = 0.0;
  double throughput = 0.0;
  std::string gpu_type;  // the GPU type it ran on (cluster.pools); empty on an untyped cluster
};

// What the scheduler believes about one job. Built by a belief source (oracle, history, ...), never the truth
// object itself.
class Belief {
 public:
  virtual ~Belief() = default;
  // Believed useful samples per second on w GPUs spanning `nodes` nodes.
  [[nodiscard]] virtual double throughput(int w, int nodes) const = 0;
  // Believed useful samples per second on w GPUs of type `gpu_type` (cluster.pools) spanning `nodes` nodes. The
  // default believes every type runs as throughput(); beliefs built from a class model with speeds per type
  // (speed_by_type) answer per type.
  [[nodiscard]] virtual double throughput_on(const std::string& /*gpu_type*/, int w, int nodes) const {
    return throughput(w, nodes);
  }
  // Believed total work (samples) to convergence.
  [[nodiscard]] virtual double total_work() const = 0;
  [[nodiscard]] virtual std::string source() const = 0;
  // True when throughput() and total_work() never change after the job arrives (class-model beliefs): incremental
  // strategies may then keep what they derive from them. Beliefs that learn (online, agent) say false.
  [[nodiscard]] virtual bool fixed() const { return false; }
  // False when observe_progress and observe_goodput do nothing: the engine then skips calling them (incremental
  // strategies read views only of the jobs they look at).
  [[nodiscard]] virtual bool observes() const { return true; }
  // The engine reports the job's observable progress (samples done) before each snapshot that shows the job. Beliefs
  // that learn from progress (`online`: the loss the job has produced so far) update here; others ignore it.
  virtual void observe_progress(double /*work_done*/) {}
  // Jobs under the goodput model report what their AdaptDL agent measured and fitted (before each snapshot that
  // shows them); beliefs that plan with it (`agent`) keep it, others ignore it. The engine reports only to beliefs
  // that want it (a report may need a model fit first).
  [[nodiscard]] virtual bool wants_goodput_report() const { return false; }
  virtual void observe_goodput(const models::GoodputReport& /*report*/) {}
  // The last report kept, or null.
  [[nodiscard]] virtual const models::GoodputReport* goodput_report() const { return nullptr; }
  // Jobs of other truth kinds report one measured step for each stretch they run on an allocation (at the first
  // snapshot after it started running); beliefs that learn from their own job's runs (`agent`) keep it.
  [[nodiscard]] virtual bool wants_step_observations() const { return false; }
  virtual void observe_step(const StepObservation& /*observation*/) {}
};

// What the user submitted with the job: public.
struct JobPublic {
  int id = 0;
  std::string name;
  double arrival = 0.0;
  int requested_gpus = 0;        // from a trace; 0 = none
  double priority_weight = 1.0;  // from a Gavel trace (> 0); Gavel's max-min policies weigh jobs by it
  std::string user;  // from a trace that names users (philly_log, acme, helios, pai, generic `user`); empty otherwise
  int vc = -1;       // with cluster.virtual_clusters: its VC's index in Snapshot::vcs; -1 otherwise
  // The class's public facts as they hold for this job: max_gpus at most the cluster's GPUs; a goodput job's batch
  // the one it was submitted with and its GPUs capped by it; no convergence facts when the class reports no loss.
  ClassFacts cls;
};

enum class JobState { kWaiting, kRunning, kRestarting };

struct JobView {
  const JobPublic* pub = nullptr;
  const Belief* belief = nullptr;  // null when the strategy asked for no beliefs
  int gpus = 0;
  JobState state = JobState::kWaiting;
  bool started = false;               // has run before (a restart costs time)
  double work_done = 0.0;             // samples processed so far (observable progress)
  double ready_at = 0.0;              // when a restart ends (state == kRestarting)
  double attained_gpu_seconds = 0.0;  // GPU-seconds received so far (for least-attained-service policies)
  double first_start = -1.0;          // time of first start, -1 if never started
  int restarts = 0;                   // resizes, resumes and migrations so far
  int pool = 0;                       // the GPU pool it holds GPUs in (Snapshot::pools; 0 when it holds none)
};

// One pool of identical GPUs of a typed cluster (cluster.pools), as strategies see it.
struct PoolInfo {
  std::string gpu_type;
  int gpus = 0;
  int gpus_per_node = 1;
  int in_use = 0;  // GPUs held in it when the strategy is asked (before its decision)
};

// One virtual cluster (cluster.virtual_clusters) as strategies see it: it owns nodes first_node ..
// first_node + nodes - 1 (ClusterView's numbering), `gpus` GPUs in all. Its jobs (JobPublic::vc) run only there.
struct VirtualClusterInfo {
  std::string name;
  int first_node = 0;
  int nodes = 0;
  int gpus = 0;
};

// Incremental strategies' access to jobs' views by id (Snapshot::views): the same values Snapshot::jobs would hold
// for an active job, built when first asked for in a decision.
class JobViews {
 public:
  virtual ~JobViews() = default;
  [[nodiscard]] virtual const JobView& view(int job_id) const = 0;
  // The job's samples done so far (view(job_id).work_done) without building its view: for strategies that re-read
  // the progress of many jobs at every decision.
  [[nodiscard]] virtual double work_done(int job_id) const { return view(job_id).work_done; }
};

// Measures a running job's throughput at its current allocation, with multiplicative lognormal noise of the given
// sigma (the engine draws it from the replicate's measurement stream). Returns 0 for a job with no GPUs.
class Probe {
 public:
  virtual ~Probe() = default;
  virtual double measure_throughput(int job_id, double sigma) = 0;
};

// Where jobs' GPUs are, when the engine places jobs on concrete GPUs (a placement policy or topology is set).
class ClusterView {
 public:
  virtual ~ClusterView() = default;
  [[nodiscard]] virtual int nodes() const = 0;
  // GPUs job `job_id` holds on each node (size nodes()).
  [[nodiscard]] virtual std::vector<int> node_gpus(int job_id) const = 0;
};

struct Snapshot {
  double now = 0.0;
  int total_gpus = 0;
  int gpus_per_node = 1;
  std::span<const JobView> jobs;  // active (arrived, unfinished) jobs in arrival order; empty for decide_changes
  Probe* probe = nullptr;
  const ClusterView* cluster = nullptr;  // null unless the engine places jobs on concrete GPUs
  // Only for Strategy::decide_changes (incremental strategies; docs/performance.md): active jobs' views by job id,
  // and what changed since the previous call: the jobs that arrived (in arrival order) and finished.
  const JobViews* views = nullptr;
  std::span<const int> arrived;
  std::span<const int> finished;
  std::size_t active_jobs = 0;
  int gpus_in_use = 0;  // GPUs held by active jobs before this decision
  // A typed cluster's pools (cluster.pools), in config order; empty on the untyped cluster. On a typed cluster the
  // strategy says in Assignment::pool where each job runs.
  std::span<const PoolInfo> pools;
  // cluster.virtual_clusters, in table order; empty without. With VCs the engine tracks concrete GPUs (cluster is
  // set), calls decide_changes of strategies that support them, and every change that gives a job GPUs must name its
  // nodes (Change::nodes), all within the job's VC. vc_placement: the VCs' placement ("consolidate" or "random").
  std::span<const VirtualClusterInfo> vcs;
  std::string_view vc_placement;
};

// One job's allocation in a decision: its GPU count, on a typed cluster the pool it runs in, and optionally the GPUs
// it gets on each node. The one decision contract of the C++ engine and the Python binding (sim/engine/decision_check.h
// checks it, with the same messages for both).
struct Assignment {
  int gpus = 0;
  // On a typed cluster (Snapshot::pools non-empty): the pool it runs in (ignored for a job given 0 GPUs). A job moved
  // to another pool restarts, even at the same count. 0 on the untyped cluster.
  int pool = 0;
  // Optional, with a placement policy (Snapshot::cluster set): the GPUs it gets on each node
  // (Snapshot::cluster->nodes() counts, summing to gpus); a job whose counts change restarts even when its total does
  // not. Empty = the engine's placement policy places it. Every job of a decision gives nodes, or none does.
  std::vector<int> nodes;
  bool operator==(const Assignment&) const = default;
};

// An incremental decision's change of one job (Strategy::decide_changes): its new GPU count and pool, and optionally
// its nodes.
struct Change {
  int job = 0;
  int gpus = 0;
  int pool = 0;  // typed clusters: the pool it runs in (as Assignment::pool)
  // Optional, when the engine places jobs on concrete GPUs (Snapshot::cluster set): the GPUs it gets on each node
  // (Snapshot::cluster->nodes() counts summing to gpus), as Assignment::nodes; empty = the engine's placement policy
  // places it. Required with virtual clusters (Snapshot::vcs) for every change to gpus > 0.
  std::vector<int> nodes = {};
  bool operator==(const Change&) const = default;
};

struct Decision {
  std::vector<Assignment> jobs;                                // one per snapshot job, same order
  double wakeup_at = std::numeric_limits<double>::infinity();  // call again at this time (if no event comes first)
  // Optional: the order (snapshot indices) in which jobs whose GPU count changed are placed by the engine's
  // placement policy; empty = largest first, ties in snapshot order.
  std::vector<int> place_order;
  // From decide_changes only: the jobs whose allocation changes; every other job keeps its GPUs. Applied in job-id
  // order, exactly as the same assignments in `jobs` would be.
  std::vector<Change> changes;

  // Sets every job's count (pool 0, no nodes): one entry per snapshot job.
  void set_gpus(const std::vector<int>& counts);
  // The jobs' GPU counts, in order.
  [[nodiscard]] std::vector<int> gpus() const;
};

class Strategy {
 public:
  virtual ~Strategy() = default;
  [[nodiscard]] virtual std::string name() const = 0;
  virtual Decision decide(const Snapshot& snapshot) = 0;
  // Incremental strategies keep their own queues between calls and return only what changes, so a decision costs
  // O(changes), not O(jobs present). The engine calls decide_changes instead of decide when incremental() is true
  // and it does not place jobs on concrete GPUs (no placement policy or topology), and always on a cluster with
  // virtual clusters (Snapshot::vcs; only strategies that support them run there); both must decide the same counts
  // (tests run every incremental strategy both ways and compare the runs byte for byte).
  [[nodiscard]] virtual bool incremental() const { return false; }
  virtual Decision decide_changes(const Snapshot& snapshot);
  // Called when a job finishes, so per-job state can be dropped.
  virtual void on_finish(int /*job_id*/) {}
  // The engine calls this when a job finishes at `time` (the simulated clock, which no snapshot may show when no job
  // is left to decide for); the default calls on_finish. Strategies that learn from finished jobs' run times (qssf)
  // override it.
  virtual void on_finish_at(int job_id, double /*time*/) { on_finish(job_id); }
  // Whether jobs that can adapt their batch size (goodput-model classes with adaptive_batch) do so under this
  // strategy, as under Pollux; otherwise every job keeps the batch it was submitted with.
  [[nodiscard]] virtual bool adapts_batch() const { return false; }
};

// Remaining work the strategy believes is left (>= 1 sample so times stay finite).
double believed_remaining(const JobView& job);

// A typed cluster's GPUs per pool (Snapshot::pools, in order): what a strategy starts from when it fills the pools.
std::vector<int> pool_gpus(const Snapshot& s);

// A decision for every snapshot job with 0 GPUs (pool 0), to fill in.
Decision empty_decision(const Snapshot& s);

}  // namespace ringsched
