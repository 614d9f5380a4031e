// strategies/srtf.cpp — `srtf`: shortest remaining time first, rigid and preemptive (the classic baseline that
// Tiresias and AFS compare with). Each job asks for a fixed count (trace request, else `gpus`); at every arrival
// and completion jobs are ranked by believed remaining time on that count, Q_j / f_j(size_j), and placed in that
// order while they fit (a job that does not fit is skipped). Running jobs only get shorter between events, so the
// ranking needs no timer. On GPU pools (heterogeneity-aware SRTF, as Gavel's and Sia's baselines): jobs are ranked by
// believed remaining time on the type where they run fastest, and each in that order goes to the pool with room
// where its believed finish is earliest (rigid_fill_typed); a job moved between pools restarts. With virtual clusters
// (cluster.virtual_clusters) each VC runs the Helios artifact's SRTF on its own jobs and nodes
// (strategies/common/vc_queues.h: ranked by the same believed remaining time, taken while they fit in the VC's GPUs,
// the rest preempted; a taken job its placement cannot fit waits).
#include <algorithm>
#include <cstdint>
#include <limits>
#include <map>
#include <numeric>
#include <set>
#include <stdexcept>
#include <tuple>
#include <utility>
#include <vector>

#include "strategies/common/allocation.h"
#include "strategies/common/rigid.h"
#include "strategies/common/vc_queues.h"
#include "strategies/registry.h"

namespace ringsched {
namespace {

// SRTF kept incrementally (decide_changes): the same decisions at O(holders + changes) per decision, not O(jobs).
// A waiting job's believed remaining time cannot change until it runs again (its progress and beliefs change only
// while it holds GPUs), so waiting jobs sit in one set per rigid size ordered by (remaining time, id). The jobs that
// hold GPUs are kept apart, in one list in the order of the last fill: their keys are recomputed at each decision (the
// belief's speed at the job's size is read once when the belief is fixed), and the list, which their falling keys
// mostly keep in order, is re-sorted by insertion. The fill merges the list with the sets (rigid_fill in (remaining,
// id) order: the first job that fits among the heads, repeatedly; a head too large for the GPUs left is skipped for
// good, as free GPUs only shrink), and what it serves, in its order, is the next list. When every job fits at once all
// are served and only arrivals change.
class SrtfQueues {
 public:
  explicit SrtfQueues(int gpus) : gpus_(gpus) {}

  Decision decide(const Snapshot& s) {
    Decision d;
    for (int id : s.finished) {
      Job& j = job(id);
      if (!j.active) continue;
      if (j.keyed) unkey(id);
      sum_sizes_ -= j.size;
      j = Job{};  // its entry in run_, if any, is skipped from now on (inactive)
    }
    for (int id : s.arrived) {
      const JobView& v = s.views->view(id);
      if (v.belief == nullptr) throw std::logic_error("strategy 'srtf' needs beliefs (not \"none\")");
      Job& j = job(id);
      j = Job{};
      j.active = true;
      j.size = rigid_size(*v.pub, gpus_);
      if (v.belief->fixed() && j.size > 0) {
        j.fixed = true;
        j.total = v.belief->total_work();
        j.speed = v.belief->throughput(j.size, packed_nodes(j.size, s.gpus_per_node));
      }
      sum_sizes_ += j.size;
      j.key = key_of(s, id);
      key(id);
    }
    if (sum_sizes_ <= s.total_gpus) {
      // Everyone fits: all hold their size.
      if (all_served_) {
        for (int id : s.arrived)
          serve(d, id);
      } else {
        std::vector<int> waiting;
        for (const auto& [size, keys] : by_size_)
          for (const auto& k : keys)
            waiting.push_back(std::get<1>(k));
        for (int id : waiting)
          serve(d, id);
        run_sorted_ = false;
      }
      all_served_ = true;
      return d;
    }
    all_served_ = false;
    // Holders have run since the last decision, and jobs the last fill preempted ran until then: new keys.
    std::size_t live = 0;
    for (const Held& h : run_) {
      Job& j = jobs_[static_cast<std::size_t>(h.id)];
      if (!j.active || j.held == 0) continue;
      j.key = key_of(s, h.id);
      run_[live++] = {j.key, h.id, j.size};
    }
    run_.resize(live);
    for (int id : last_released_) {
      Job& j = job(id);
      if (!j.active || !j.keyed) continue;
      const double k = key_of(s, id);
      if (k == j.key) continue;
      unkey(id);
      j.key = k;
      key(id);
    }
    last_released_.clear();
    sort_run();
    fill(d, s);
    return d;
  }

 private:
  struct Job {
    int size = 0;
    double key = 0.0;  // believed remaining time at its size
    int held = 0;
    bool keyed = false;  // in by_size_ (waiting)
    bool active = false;
    bool fixed = false;  // Belief::fixed: `total` and `speed` hold its total work and its speed at `size`
    double total = 0.0;
    double speed = 0.0;
    std::uint64_t served = 0;  // the fill that last served it
  };
  using Key = std::tuple<double, int>;  // believed remaining time, id (decide's stable sort keeps id order on ties)
  // A holder in run_, with the key and size the sort and the fill compare (no trip to its Job).
  struct Held {
    double key;
    int id;
    int size;
    [[nodiscard]] bool operator<(const Held& o) const { return key < o.key || (key == o.key && id < o.id); }
  };

  Job& job(int id) {
    if (jobs_.size() <= static_cast<std::size_t>(id)) jobs_.resize(static_cast<std::size_t>(id) + 1);
    return jobs_[static_cast<std::size_t>(id)];
  }
  // believed_time at the job's size: the belief's values, read once when they cannot change.
  double key_of(const Snapshot& s, int id) {
    const Job& j = job(id);
    if (!j.fixed) return believed_time(s.views->view(id), j.size, s.gpus_per_node);
    if (!(j.speed > 0.0)) return std::numeric_limits<double>::infinity();
    return std::max(1.0, j.total - s.views->work_done(id)) / j.speed;  // believed_remaining / speed
  }
  void key(int id) {
    Job& j = job(id);
    by_size_[j.size].insert({j.key, id});
    j.keyed = true;
  }
  void unkey(int id) {
    Job& j = job(id);
    const auto it = by_size_.find(j.size);
    it->second.erase({j.key, id});
    if (it->second.empty()) by_size_.erase(it);
    j.keyed = false;
  }
  void sort_run() {
    if (!run_sorted_) {
      std::sort(run_.begin(), run_.end());
      run_sorted_ = true;
      return;
    }
    for (std::size_t i = 1; i < run_.size(); ++i) {
      const Held x = run_[i];
      std::size_t k = i;
      for (; k > 0 && x < run_[k - 1]; --k)
        run_[k] = run_[k - 1];
      run_[k] = x;
    }
  }
  void change(Decision& d, int id, int to) {
    Job& j = job(id);
    if (j.held == to) return;
    j.held = to;
    d.changes.push_back({id, to});
  }
  void serve(Decision& d, int id) {  // a waiting job starts (appended to run_)
    if (job(id).keyed) unkey(id);
    change(d, id, job(id).size);
    run_.push_back({job(id).key, id, job(id).size});
  }
  // rigid_fill in (remaining, id) order over the holders' list and the waiting sets.
  void fill(Decision& d, const Snapshot& s) {
    ++fills_;
    struct SizeOf {
      const std::vector<Job>& jobs;
      int operator()(const Held& h) const { return h.size; }
      int operator()(int id) const { return jobs[static_cast<std::size_t>(id)].size; }
    };
    const std::vector<int> served =
        merge_fill(run_, by_size_, s.total_gpus, SizeOf{jobs_}, [&](const Held& h, int waiting) {
          const double k = jobs_[static_cast<std::size_t>(waiting)].key;
          return h.key < k || (h.key == k && h.id < waiting);  // (remaining, id) order
        });
    next_.clear();
    for (int id : served) {
      Job& j = jobs_[static_cast<std::size_t>(id)];
      j.served = fills_;
      next_.push_back({j.key, id, j.size});
    }
    // Holders not served release their GPUs (back to the waiting sets), then the waiting jobs served start.
    for (const Held& h : run_) {
      if (jobs_[static_cast<std::size_t>(h.id)].served == fills_) continue;
      change(d, h.id, 0);
      key(h.id);
      last_released_.push_back(h.id);
    }
    for (const Held& h : next_) {
      Job& j = jobs_[static_cast<std::size_t>(h.id)];
      if (j.held > 0) continue;
      unkey(h.id);
      change(d, h.id, j.size);
    }
    run_.swap(next_);
  }

  int gpus_;
  std::vector<Job> jobs_;                 // by id
  std::map<int, std::set<Key>> by_size_;  // rigid size -> waiting active jobs by (remaining, id)
  std::vector<Held> run_;                 // the jobs holding GPUs, in the last fill's order (finished ones skipped)
  std::vector<Held> next_;                // the next run_, built by fill
  bool run_sorted_ = true;                // run_ is in some fill's order (else sorted from scratch)
  std::vector<int> last_released_;        // jobs the last fill preempted
  std::uint64_t fills_ = 0;
  long sum_sizes_ = 0;
  bool all_served_ = false;
};

class Srtf final : public Strategy {
 public:
  explicit Srtf(int gpus)
      : gpus_(gpus),
        inc_(gpus),
        vcs_([this](int id) { return vc_key(id); }, [gpus](const JobPublic& p) { return rigid_size(p, gpus); }, true,
             false) {}
  [[nodiscard]] std::string name() const override { return "srtf"; }
  Decision decide(const Snapshot& s) override {
    const std::size_t n = s.jobs.size();
    std::vector<double> remaining(n);
    for (std::size_t i = 0; i < n; ++i) {
      const JobView& j = s.jobs[i];
      if (j.belief == nullptr) throw std::logic_error("strategy 'srtf' needs beliefs (not \"none\")");
      const int size = rigid_size(*j.pub, gpus_);
      remaining[i] = s.pools.empty() ? believed_time(j, size, s.gpus_per_node) : fastest_time(s, j, size);
    }
    std::vector<int> order(n);
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&](int a, int b) {
      return remaining[static_cast<std::size_t>(a)] < remaining[static_cast<std::size_t>(b)];
    });
    if (!s.pools.empty())
      return rigid_fill_typed(s, order, [this](const JobPublic& p) { return rigid_size(p, gpus_); });
    Decision d;
    d.set_gpus(rigid_fill(s, order, gpus_));
    return d;
  }
  [[nodiscard]] bool incremental() const override { return true; }
  Decision decide_changes(const Snapshot& s) override { return s.vcs.empty() ? inc_.decide(s) : vcs_.decide(s); }

 private:
  // A typed cluster: the job's believed remaining time at `size` GPUs on the GPU type where it runs fastest (room
  // or not), Q_j / max_type f_j(type, size); +inf when no type runs it.
  static double fastest_time(const Snapshot& s, const JobView& j, int size) {
    double best = 0.0;
    for (const PoolInfo& p : s.pools)
      best = std::max(best, j.belief->throughput_on(p.gpu_type, size, packed_nodes(size, p.gpus_per_node)));
    return best > 0.0 ? believed_remaining(j) / best : std::numeric_limits<double>::infinity();
  }

  // With VCs: the job's believed remaining time at its rigid size (as decide ranks jobs); a fixed belief's total work
  // and speed are read once (the running jobs are re-ranked at every decision of their VC).
  double vc_key(int id) {
    const Snapshot& s = vcs_.snapshot();
    const auto i = static_cast<std::size_t>(id);
    if (i < vc_fixed_.size() && vc_fixed_[i].first >= 0.0) {
      const auto [total, speed] = vc_fixed_[i];
      if (!(speed > 0.0)) return std::numeric_limits<double>::infinity();
      return std::max(1.0, total - s.views->work_done(id)) / speed;  // believed_remaining / speed
    }
    const JobView& v = s.views->view(id);
    if (v.belief == nullptr) throw std::logic_error("strategy 'srtf' needs beliefs (not \"none\")");
    const int size = rigid_size(*v.pub, gpus_);
    if (v.belief->fixed()) {
      if (vc_fixed_.size() <= i) vc_fixed_.resize(i + 1, {-1.0, 0.0});
      vc_fixed_[i] = {v.belief->total_work(), v.belief->throughput(size, packed_nodes(size, s.gpus_per_node))};
    }
    return believed_time(v, size, s.gpus_per_node);
  }

  int gpus_;
  SrtfQueues inc_;
  VcQueues vcs_;                                     // cluster.virtual_clusters: the artifact's SRTF per VC
  std::vector<std::pair<double, double>> vc_fixed_;  // by id: a fixed belief's (total work, speed); total -1 = none
};

}  // namespace

StrategyInfo srtf_strategy_info() {
  StrategyInfo info;
  info.name = "srtf";
  info.description =
      "Shortest remaining (believed) time first, rigid, preemptive; a job that does not fit is skipped. "
      "Params: gpus (int, default 8: the size of jobs without a trace request). On GPU pools jobs are ranked by "
      "believed remaining time on their fastest type and each goes to the pool with room where it is believed to "
      "finish soonest. With virtual clusters (cluster.virtual_clusters) each VC ranks and preempts its own jobs on its "
      "own "
      "nodes (docs/virtual_clusters.md).";
  info.default_beliefs = "history";
  info.params = {"gpus"};
  info.gpu_types = true;
  info.virtual_clusters = true;
  info.make = [](const JsonReader& p) -> std::unique_ptr<Strategy> {
    return std::make_unique<Srtf>(static_cast<int>(p.integer_in_or("gpus", 1, 1 << 20, 8)));
  };
  return info;
}
const StrategyRegistrar srtf_registrar{srtf_strategy_info};

}  // namespace ringsched
