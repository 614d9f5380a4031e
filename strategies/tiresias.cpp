// strategies/tiresias.cpp — `tiresias`: discretised two-dimensional least-attained-service (2D-LAS), after
// Gu et al., "Tiresias: A GPU Cluster Manager for Distributed Deep Learning", NSDI'19. Rigid, preemptive,
// needs no beliefs. A job's attained service is GPUs x time received so far (GPU-seconds); with thresholds
// T_1 < ... < T_{K-1} a job is in queue k when T_k <= attained < T_{k+1} (T_0 = 0). Jobs are ranked by queue, then
// inside a queue FIFO by arrival or (queue_order "entry", as the Pollux artifact's tiresias.py keeps its queues) by
// when the job entered the queue, and placed in that order while they fit. Event-driven, the strategy asks to be
// woken when the first running job crosses its next threshold. The starvation knob (promotion after waiting too
// long) is not implemented (the artifact runs with it off). On GPU pools the queues are the same (attained service
// counts GPU-seconds of any type) and each job, in priority order, goes to the pool with room whose type its belief
// says runs it fastest (rigid_fill_typed; without beliefs, the pool it holds, else the first pool with room).
#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <numeric>
#include <set>
#include <tuple>

#include "models/input_error.h"
#include "strategies/common/rigid.h"
#include "strategies/registry.h"

namespace ringsched {
namespace {

std::size_t queue_index(const std::vector<double>& thresholds, double attained) {
  return static_cast<std::size_t>(std::upper_bound(thresholds.begin(), thresholds.end(), attained) -
                                  thresholds.begin());
}

// Tiresias kept incrementally (decide_changes): the same decisions as Tiresias::decide at O(changes) per decision.
// - Jobs wait in one ordered set per rigid size, keyed by (queue, arrival id or entry order); the jobs holding GPUs
//   are kept apart in one list in priority order (the last fill's, re-sorted when a holder changes queue). The greedy
//   fill in priority order merges the list with the sets' heads that still fit, so it visits only the jobs it serves.
// - When every active job fits at once the fill serves them all: only arrivals change.
// - A job's queue changes only while it holds GPUs, when its attained service crosses a threshold; holders are kept
//   in a set ordered by when they cross (computed when they got GPUs). Only holders within `window` of that time are
//   re-examined with the exact attained service the engine reports; the window bounds the rounding the engine's
//   piecewise accumulation can build up (< 1e-8 relative for fewer than 1e7 pieces), so no crossing is missed.
// - The wake-up is computed, as decide computes it, from the holders whose crossing is nearest.
class TiresiasQueues {
 public:
  TiresiasQueues(int gpus, const std::vector<double>& thresholds, bool by_entry)
      : gpus_(gpus), th_(thresholds), by_entry_(by_entry) {}

  Decision decide(const Snapshot& s) {
    Decision d;
    for (int id : s.finished)
      leave(id);
    std::vector<int> entering;  // arrivals and holders whose queue changed, to (re)key in id order
    for (int id : s.arrived) {
      grow_to(id);
      Job& j = jobs_[static_cast<std::size_t>(id)];
      j = Job{};
      j.size = rigid_size(*s.views->view(id).pub, gpus_);
      j.queue = queue_index(th_, s.views->view(id).attained_gpu_seconds);
      j.active = true;
      sum_sizes_ += j.size;
      entering.push_back(id);
    }
    // Holders near their crossing: has their queue changed?
    const double horizon = s.now + window(s.now);
    std::vector<int> crossed;
    for (auto it = crossing_.begin(); it != crossing_.end() && it->first <= horizon; ++it) {
      const int id = it->second;
      const std::size_t q = queue_index(th_, s.views->view(id).attained_gpu_seconds);
      if (q != jobs_[static_cast<std::size_t>(id)].queue) crossed.push_back(id);
    }
    for (int id : crossed) {
      Job& j = jobs_[static_cast<std::size_t>(id)];
      untime(id);
      j.queue = queue_index(th_, s.views->view(id).attained_gpu_seconds);
      entering.push_back(id);
      ++run_unsorted_;  // a holder moved down
    }
    std::sort(entering.begin(), entering.end());
    for (int id : entering) {
      Job& j = jobs_[static_cast<std::size_t>(id)];
      j.key = by_entry_ ? next_entry_++ : static_cast<std::uint64_t>(id);
      if (j.held == 0) key(id);
    }
    if (sum_sizes_ <= s.total_gpus) {
      // Every active job fits: each holds its size.
      std::vector<int> waiting;
      for (const auto& [size, set_of] : by_size_)
        for (const auto& k : set_of)
          waiting.push_back(std::get<2>(k));
      for (int id : waiting) {
        unkey(id);
        set(d, s, id, true);
        run_.push_back(id);
        ++run_unsorted_;
      }
      all_served_ = true;
    } else {
      all_served_ = false;
      fill(d, s);
    }
    // Crossing times of holders whose queue changed but kept their GPUs.
    for (int id : crossed) {
      if (jobs_[static_cast<std::size_t>(id)].held > 0) time(s, id);
    }
    d.wakeup_at = wakeup(s);
    return d;
  }

 private:
  struct Job {
    int size = 0;
    std::size_t queue = 0;
    std::uint64_t key = 0;
    int held = 0;
    double crossing = 0.0;  // key in crossing_ while timed
    bool timed = false;
    bool active = false;
    bool keyed = false;        // in by_size_ (waiting)
    std::uint64_t served = 0;  // the fill that last served it
  };
  using Key = std::tuple<std::size_t, std::uint64_t, int>;  // queue, order inside it, id

  static double window(double now) { return 1e-8 * std::max(1.0, std::abs(now)); }

  void grow_to(int id) {
    if (jobs_.size() <= static_cast<std::size_t>(id)) jobs_.resize(static_cast<std::size_t>(id) + 1);
  }

  void leave(int id) {
    Job& j = jobs_[static_cast<std::size_t>(id)];
    if (!j.active) return;
    unkey(id);
    untime(id);
    sum_sizes_ -= j.size;
    j.active = false;  // its entry in run_, if any, is skipped from now on
    j.held = 0;
  }

  void key(int id) {
    Job& j = jobs_[static_cast<std::size_t>(id)];
    by_size_[j.size].insert({j.queue, j.key, id});
    j.keyed = true;
  }

  void unkey(int id) {
    Job& j = jobs_[static_cast<std::size_t>(id)];
    if (!j.keyed) return;
    const auto it = by_size_.find(j.size);
    it->second.erase({j.queue, j.key, id});
    if (it->second.empty()) by_size_.erase(it);
    j.keyed = false;
  }

  [[nodiscard]] bool before(int a, int b) const {
    const Job& x = jobs_[static_cast<std::size_t>(a)];
    const Job& y = jobs_[static_cast<std::size_t>(b)];
    return Key{x.queue, x.key, a} < Key{y.queue, y.key, b};
  }

  void untime(int id) {
    Job& j = jobs_[static_cast<std::size_t>(id)];
    if (!j.timed) return;
    crossing_.erase({j.crossing, id});
    j.timed = false;
  }

  // A holder's next threshold crossing, as decide's wake-up computes it now.
  [[nodiscard]] double crossing_time(const Snapshot& s, int id) const {
    const Job& j = jobs_[static_cast<std::size_t>(id)];
    const double need = th_[j.queue] - s.views->view(id).attained_gpu_seconds;
    double t = s.now + need / static_cast<double>(j.held);
    if (!(t > s.now)) t = std::nextafter(s.now, std::numeric_limits<double>::infinity());
    return t;
  }

  void time(const Snapshot& s, int id) {
    Job& j = jobs_[static_cast<std::size_t>(id)];
    if (j.queue >= th_.size()) return;  // the last queue: no threshold ahead
    j.crossing = crossing_time(s, id);
    j.timed = true;
    crossing_.insert({j.crossing, id});
  }

  void set(Decision& d, const Snapshot& s, int id, bool serve) {
    Job& j = jobs_[static_cast<std::size_t>(id)];
    const int to = serve ? j.size : 0;
    if (j.held == to) return;
    untime(id);
    j.held = to;
    d.changes.push_back({id, to});
    if (to > 0) time(s, id);
  }

  // rigid_fill in priority order (queue, then order inside it).
  void fill(Decision& d, const Snapshot& s) {
    // The holders' list, without finished jobs, in priority order (the last fill's order but for holders that
    // changed queue or started when every job fitted: by insertion when they are few).
    std::size_t live = 0;
    for (int id : run_)
      if (jobs_[static_cast<std::size_t>(id)].active && jobs_[static_cast<std::size_t>(id)].held > 0) run_[live++] = id;
    run_.resize(live);
    if (run_unsorted_ > 8) {
      std::sort(run_.begin(), run_.end(), [&](int a, int b) { return before(a, b); });
    } else if (run_unsorted_ > 0) {
      for (std::size_t i = 1; i < run_.size(); ++i) {
        const int x = run_[i];
        std::size_t k = i;
        for (; k > 0 && before(x, run_[k - 1]); --k)
          run_[k] = run_[k - 1];
        run_[k] = x;
      }
    }
    run_unsorted_ = 0;
    ++fills_;
    std::vector<int> served = merge_fill(
        run_, by_size_, s.total_gpus, [&](int id) { return jobs_[static_cast<std::size_t>(id)].size; },
        [&](int a, int b) { return before(a, b); });
    for (int id : served)
      jobs_[static_cast<std::size_t>(id)].served = fills_;
    // Holders not served release their GPUs (back to the waiting sets), then the waiting jobs served start, in id
    // order (as decide's changes are applied).
    std::vector<int> released;
    for (int id : run_)
      if (jobs_[static_cast<std::size_t>(id)].served != fills_) released.push_back(id);
    std::vector<int> started;
    for (int id : served)
      if (jobs_[static_cast<std::size_t>(id)].held == 0) started.push_back(id);
    std::sort(released.begin(), released.end());
    std::sort(started.begin(), started.end());
    for (int id : released) {
      set(d, s, id, false);
      key(id);
    }
    for (int id : started) {
      unkey(id);
      set(d, s, id, true);
    }
    run_ = std::move(served);
  }

  // decide's wake-up: the earliest crossing among holders, recomputed exactly for those near the earliest.
  double wakeup(const Snapshot& s) const {
    double best = std::numeric_limits<double>::infinity();
    if (crossing_.empty()) return best;
    const double limit = crossing_.begin()->first + 2.0 * window(crossing_.begin()->first);
    for (auto it = crossing_.begin(); it != crossing_.end() && it->first <= limit; ++it)
      best = std::min(best, crossing_time(s, it->second));
    return best;
  }

  int gpus_;
  std::vector<double> th_;
  bool by_entry_;
  std::vector<Job> jobs_;                      // by id
  std::map<int, std::set<Key>> by_size_;       // rigid size -> active jobs in priority order
  std::set<std::pair<double, int>> crossing_;  // holders below the last queue, by crossing time
  std::vector<int> run_;                       // the jobs holding GPUs, in priority order (finished ones skipped)
  std::size_t run_unsorted_ = 0;               // holders out of their place in run_ (sorted at the next fill)
  std::uint64_t fills_ = 0;
  long sum_sizes_ = 0;
  bool all_served_ = false;
  std::uint64_t next_entry_ = 0;
};

class Tiresias final : public Strategy {
 public:
  Tiresias(int gpus, std::vector<double> thresholds, bool by_entry)
      : gpus_(gpus), thresholds_(std::move(thresholds)), by_entry_(by_entry) {}
  [[nodiscard]] std::string name() const override { return "tiresias"; }

  [[nodiscard]] std::size_t queue_of(double attained) const {
    return static_cast<std::size_t>(std::upper_bound(thresholds_.begin(), thresholds_.end(), attained) -
                                    thresholds_.begin());
  }

  Decision decide(const Snapshot& s) override {
    const std::size_t n = s.jobs.size();
    std::vector<std::size_t> queue(n);
    std::vector<std::uint64_t> entry(n, 0);
    for (std::size_t i = 0; i < n; ++i) {
      queue[i] = queue_of(s.jobs[i].attained_gpu_seconds);
      if (!by_entry_) continue;
      // Jobs seen entering a queue in this decision are appended in snapshot order.
      auto [it, fresh] = entered_.try_emplace(s.jobs[i].pub->id, Entry{queue[i], next_entry_});
      if (fresh || it->second.queue != queue[i]) it->second = Entry{queue[i], next_entry_++};
      entry[i] = it->second.seq;
    }
    std::vector<int> order(n);
    std::iota(order.begin(), order.end(), 0);  // snapshot order is arrival order: FIFO inside a queue
    std::stable_sort(order.begin(), order.end(), [&](int a, int b) {
      const auto ua = static_cast<std::size_t>(a);
      const auto ub = static_cast<std::size_t>(b);
      if (queue[ua] != queue[ub]) return queue[ua] < queue[ub];
      return entry[ua] < entry[ub];
    });
    Decision d;
    if (s.pools.empty()) {
      d.set_gpus(rigid_fill(s, order, gpus_));
    } else {
      d = rigid_fill_typed(s, order, [this](const JobPublic& p) { return rigid_size(p, gpus_); });
    }
    if (by_entry_) d.place_order = order;  // the artifact places new jobs in queue order
    // Wake up when the first job that keeps GPUs reaches its next threshold (its queue changes).
    for (std::size_t i = 0; i < n; ++i) {
      if (d.jobs[i].gpus <= 0 || queue[i] >= thresholds_.size()) continue;
      const double need = thresholds_[queue[i]] - s.jobs[i].attained_gpu_seconds;
      double t = s.now + need / static_cast<double>(d.jobs[i].gpus);
      if (!(t > s.now)) t = std::nextafter(s.now, std::numeric_limits<double>::infinity());
      d.wakeup_at = std::min(d.wakeup_at, t);
    }
    return d;
  }

  void on_finish(int job_id) override { entered_.erase(job_id); }

  [[nodiscard]] bool incremental() const override { return true; }
  Decision decide_changes(const Snapshot& s) override { return inc_.decide(s); }

 private:
  struct Entry {
    std::size_t queue;
    std::uint64_t seq;
  };
  int gpus_;
  std::vector<double> thresholds_;
  bool by_entry_;
  std::map<int, Entry> entered_;  // job id -> its queue and when it entered it
  std::uint64_t next_entry_ = 0;
  TiresiasQueues inc_{gpus_, thresholds_, by_entry_};
};

}  // namespace

StrategyInfo tiresias_strategy_info() {
  StrategyInfo info;
  info.name = "tiresias";
  info.description =
      "Tiresias (NSDI'19) discretised 2D-LAS: queues by attained GPU-seconds, FIFO inside a queue, rigid, "
      "preemptive, no beliefs needed. Params: gpus (int, default 8: a job's size when its trace gives none), "
      "thresholds (increasing GPU-seconds, default [3600]: two queues), queue_order (\"arrival\", the default, or "
      "\"entry\": by when a job entered its queue; changed jobs are then placed in queue order). The Pollux artifact's "
      "Tiresias: thresholds [57600], "
      "queue_order entry, with cluster.placement most_free (docs/fidelity.md). On GPU pools each job, in "
      "priority order, goes to the pool with room whose type its belief says is fastest (beliefs none: the pool it "
      "holds, else the first with room).";
  info.default_beliefs = "none";
  info.params = {"gpus", "thresholds", "queue_order"};
  info.gpu_types = true;
  info.make = [](const JsonReader& p) -> std::unique_ptr<Strategy> {
    std::vector<double> th = {3600.0};
    if (auto t = p.maybe("thresholds")) {
      th.clear();
      for (const auto& e : t->elements()) {
        const double v = e.as_positive();
        if (!th.empty() && !(v > th.back())) e.fail("thresholds must be strictly increasing");
        th.push_back(v);
      }
    }
    const std::string order = p.string_or("queue_order", "arrival");
    if (order != "arrival" && order != "entry") {
      p.at("queue_order").fail("unknown value '" + order + "' (valid: arrival, entry)");
    }
    return std::make_unique<Tiresias>(static_cast<int>(p.integer_in_or("gpus", 1, 1 << 20, 8)), std::move(th),
                                      order == "entry");
  };
  return info;
}
const StrategyRegistrar tiresias_registrar{tiresias_strategy_info};

}  // namespace ringsched
