// strategies/srtf.cpp — `srtf`: shortest remaining time first, rigid and preemptive (the classic baseline that
// Tiresias and AFS compare with). Each job asks for a fixed count (trace request, else `gpus`); at every arrival
// and completion jobs are ranked by believed remaining time on that count, Q_j / f_j(size_j), and placed in that
// order while they fit (a job that does not fit is skipped). Running jobs only get shorter between events, so the
// ranking needs no timer.
#include <algorithm>
#include <map>
#include <numeric>
#include <set>
#include <stdexcept>
#include <tuple>

#include "strategies/allocation.h"
#include "strategies/registry.h"
#include "strategies/rigid.h"

namespace ringsched {
namespace {

// SRTF kept incrementally (decide_changes): the same decisions at O(holders + changes) per decision, not O(jobs).
// A waiting job's believed remaining time cannot change until it runs again (its progress and beliefs change only
// while it holds GPUs), so jobs wait in one set per rigid size ordered by (remaining time, id); the keys of jobs
// that held GPUs are recomputed at each decision, and the fill visits only the jobs it serves. When every job fits at
// once all are served and only arrivals change.
class SrtfQueues {
 public:
  explicit SrtfQueues(int gpus) : gpus_(gpus) {}

  Decision decide(const Snapshot& s) {
    Decision d;
    for (int id : s.finished) {
      Job& j = job(id);
      if (!j.active) continue;
      unkey(id);
      if (j.held > 0) holders_.erase(id);
      sum_sizes_ -= j.size;
      j = Job{};
    }
    for (int id : s.arrived) {
      Job& j = job(id);
      j = Job{};
      j.active = true;
      j.size = rigid_size(*s.views->view(id).pub, gpus_);
      sum_sizes_ += j.size;
      rekey(s, id);
    }
    if (sum_sizes_ <= s.total_gpus) {
      // Everyone fits: all hold their size.
      if (all_served_) {
        for (int id : s.arrived)
          set(d, id, true);
      } else {
        for (const auto& [size, keys] : by_size_)
          for (const auto& k : keys)
            set(d, std::get<1>(k), true);
      }
      all_served_ = true;
      return d;
    }
    // Jobs that held GPUs since the last decision have run: new keys (as decide computes them now).
    all_served_ = false;
    for (int id : holders_)
      rekey(s, id);
    for (int id : last_changed_)
      if (job(id).active) rekey(s, id);
    fill(d, s);
    last_changed_.clear();
    for (const auto& [id, w] : d.changes)
      last_changed_.push_back(id);
    return d;
  }

 private:
  struct Job {
    int size = 0;
    double key = 0.0;
    int held = 0;
    bool keyed = false;
    bool active = false;
  };
  using Key = std::tuple<double, int>;  // believed remaining time, id (decide's stable sort keeps id order on ties)

  Job& job(int id) {
    if (jobs_.size() <= static_cast<std::size_t>(id)) jobs_.resize(static_cast<std::size_t>(id) + 1);
    return jobs_[static_cast<std::size_t>(id)];
  }
  void unkey(int id) {
    Job& j = job(id);
    if (!j.keyed) return;
    const auto it = by_size_.find(j.size);
    it->second.erase({j.key, id});
    if (it->second.empty()) by_size_.erase(it);
    j.keyed = false;
  }
  void rekey(const Snapshot& s, int id) {
    const JobView& v = s.views->view(id);
    if (v.belief == nullptr) throw std::logic_error("strategy 'srtf' needs beliefs (not \"none\")");
    Job& j = job(id);
    const double key = believed_time(v, j.size, s.gpus_per_node);
    if (j.keyed && key == j.key) return;
    unkey(id);
    j.key = key;
    j.keyed = true;
    by_size_[j.size].insert({key, id});
  }
  void set(Decision& d, int id, bool serve) {
    Job& j = job(id);
    const int to = serve ? j.size : 0;
    if (j.held == to) return;
    if (j.held == 0) holders_.insert(id);
    if (to == 0) holders_.erase(id);
    j.held = to;
    d.changes.emplace_back(id, to);
  }
  // rigid_fill in (remaining, id) order.
  void fill(Decision& d, const Snapshot& s) {
    const std::vector<int> served = rigid_fill_by_size(by_size_, s.total_gpus);
    for (int id : released_holders(holders_, served))
      set(d, id, false);
    for (int id : served)
      set(d, id, true);
  }

  int gpus_;
  std::vector<Job> jobs_;                 // by id
  std::map<int, std::set<Key>> by_size_;  // rigid size -> active jobs by (remaining, id)
  std::set<int> holders_;
  std::vector<int> last_changed_;  // jobs the last fill changed (preempted ones were refreshed since)
  long sum_sizes_ = 0;
  bool all_served_ = false;
};

class Srtf final : public Strategy {
 public:
  explicit Srtf(int gpus) : gpus_(gpus), inc_(gpus) {}
  [[nodiscard]] std::string name() const override { return "srtf"; }
  Decision decide(const Snapshot& s) override {
    const std::size_t n = s.jobs.size();
    std::vector<double> remaining(n);
    for (std::size_t i = 0; i < n; ++i) {
      const JobView& j = s.jobs[i];
      if (j.belief == nullptr) throw std::logic_error("strategy 'srtf' needs beliefs (not \"none\")");
      remaining[i] = believed_time(j, rigid_size(*j.pub, gpus_), s.gpus_per_node);
    }
    std::vector<int> order(n);
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&](int a, int b) {
      return remaining[static_cast<std::size_t>(a)] < remaining[static_cast<std::size_t>(b)];
    });
    Decision d;
    d.gpus = rigid_fill(s, order, gpus_);
    return d;
  }
  [[nodiscard]] bool incremental() const override { return true; }
  Decision decide_changes(const Snapshot& s) override { return inc_.decide(s); }

 private:
  int gpus_;
  SrtfQueues inc_;
};

}  // namespace

StrategyInfo srtf_strategy_info() {
  StrategyInfo info;
  info.name = "srtf";
  info.description =
      "Shortest remaining (believed) time first, rigid, preemptive; a job that does not fit is skipped. "
      "Params: gpus (int, default 8: the size of jobs without a trace request).";
  info.default_beliefs = "history";
  info.params = {"gpus"};
  info.make = [](const JsonReader& p) -> std::unique_ptr<Strategy> {
    return std::make_unique<Srtf>(static_cast<int>(p.integer_in_or("gpus", 1, 1 << 20, 8)));
  };
  return info;
}

}  // namespace ringsched
