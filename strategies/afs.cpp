// strategies/afs.cpp — `afs`: AFS-L, after Hwang et al., "Elastic Resource Sharing for Distributed Deep Learning"
// (Apathetic Future Share), NSDI'21. Elastic. GPUs are handed out one at a time (a waiting job's first step is its
// min_gpus). For each GPU, the jobs that can use it are visited from the shortest to the longest (length = believed
// remaining time on one GPU, Q_j / f_j(1)); the current winner a (shorter) loses to a longer job b when
//   (T_b(w_b + s_b) - T_b(w_b)) / T_b(w_b + s_b)  >  (T_a(w_a + s_a) - T_a(w_a)) / T_a(w_a),
// T = believed throughput. This is the two-job rule of the paper: give the GPU to the longer job only if its gain,
// relative to its new speed, beats the shorter job's gain relative to its current speed (lengths cancel under the
// apathetic assumption that the longer job gets the contested GPU back when the shorter one finishes). A job whose
// next step does not raise its throughput, or does not fit, is not a candidate; when none is left, GPUs stay idle.
// Incremental (decide_changes): AfsQueue (strategies/common/afs_queue.h) decides the same counts without the O(GPUs x
// jobs) scan. On GPU pools: decide_typed (the same rule over (job, pool) steps).
#include <algorithm>
#include <limits>
#include <numeric>
#include <stdexcept>

#include "strategies/common/afs_queue.h"
#include "strategies/registry.h"

namespace ringsched {
namespace {

class Afs final : public Strategy {
 public:
  [[nodiscard]] std::string name() const override { return "afs"; }
  Decision decide(const Snapshot& s) override {
    if (!s.pools.empty()) return decide_typed(s);
    const std::size_t n = s.jobs.size();
    std::vector<double> length(n);
    for (std::size_t i = 0; i < n; ++i) {
      const JobView& j = s.jobs[i];
      if (j.belief == nullptr) throw std::logic_error("strategy 'afs' needs beliefs (not \"none\")");
      const double f1 = j.belief->throughput(1, 1);
      length[i] = f1 > 0.0 ? believed_remaining(j) / f1 : std::numeric_limits<double>::infinity();
    }
    std::vector<std::size_t> order(n);
    std::iota(order.begin(), order.end(), std::size_t{0});
    std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return length[a] < length[b]; });
    std::vector<int> w(n, 0);
    auto tput = [&](std::size_t i, int g) {
      return g <= 0 ? 0.0 : s.jobs[i].belief->throughput(g, (g + s.gpus_per_node - 1) / s.gpus_per_node);
    };
    auto step = [&](std::size_t i) { return w[i] == 0 ? std::max(1, s.jobs[i].pub->cls.min_gpus) : 1; };
    int free = s.total_gpus;
    while (free > 0) {
      std::size_t win = n;
      double win_gain = 0.0;  // the winner's gain relative to its current throughput (inf when waiting)
      for (std::size_t i : order) {
        const int st = step(i);
        if (st > free || w[i] + st > s.jobs[i].pub->cls.max_gpus) continue;
        const double now_t = tput(i, w[i]);
        const double next_t = tput(i, w[i] + st);
        if (!(next_t > now_t)) continue;
        if (win == n) {
          win = i;
          win_gain = now_t > 0.0 ? (next_t - now_t) / now_t : std::numeric_limits<double>::infinity();
          continue;
        }
        if ((next_t - now_t) / next_t > win_gain) {
          win = i;
          win_gain = now_t > 0.0 ? (next_t - now_t) / now_t : std::numeric_limits<double>::infinity();
        }
      }
      if (win == n) break;
      const int st = step(win);
      w[win] += st;
      free -= st;
    }
    Decision d;
    d.set_gpus(w);
    return d;
  }
  [[nodiscard]] bool incremental() const override { return true; }
  Decision decide_changes(const Snapshot& s) override { return inc_.decide(s); }

 private:
  // One job's next step on a typed cluster: to `gpus` GPUs on `pool`, believed throughput `next_t` (from `now_t`).
  struct TypedStep {
    int pool = -1;
    int gpus = 0;
    double now_t = 0.0;
    double next_t = 0.0;
  };
  // AFS-L on GPU pools (Decision::jobs[i].pool): lengths are believed remaining times on one GPU of the job's
  // fastest type; a waiting job's step is min_gpus on the pool with room where it is believed fastest; a running
  // job's step is one more GPU, on its own pool if one is free there or on another pool with room for all its GPUs
  // (it moves), whichever is believed faster (ties: its own pool, then the earlier pool). The AFS rule between two
  // jobs is unchanged: throughputs of different types are compared as samples per second.
  static Decision decide_typed(const Snapshot& s) {
    const std::size_t n = s.jobs.size();
    Decision d = empty_decision(s);
    std::vector<int> free = pool_gpus(s);
    auto tput = [&](std::size_t i, std::size_t k, int g) {
      const PoolInfo& p = s.pools[k];
      return g <= 0 ? 0.0 : s.jobs[i].belief->throughput_on(p.gpu_type, g, packed_nodes(g, p.gpus_per_node));
    };
    std::vector<double> length(n);
    for (std::size_t i = 0; i < n; ++i) {
      if (s.jobs[i].belief == nullptr) throw std::logic_error("strategy 'afs' needs beliefs (not \"none\")");
      double f1 = 0.0;
      for (std::size_t k = 0; k < s.pools.size(); ++k)
        f1 = std::max(f1, tput(i, k, 1));
      length[i] = f1 > 0.0 ? believed_remaining(s.jobs[i]) / f1 : std::numeric_limits<double>::infinity();
    }
    std::vector<std::size_t> order(n);
    std::iota(order.begin(), order.end(), std::size_t{0});
    std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return length[a] < length[b]; });
    auto step_of = [&](std::size_t i) {
      TypedStep best;
      const int cur = d.jobs[i].gpus;
      const int nxt = cur == 0 ? std::max(1, s.jobs[i].pub->cls.min_gpus) : cur + 1;
      if (nxt > s.jobs[i].pub->cls.max_gpus) return best;
      const auto here = static_cast<std::size_t>(d.jobs[i].pool);
      best.now_t = tput(i, here, cur);
      for (std::size_t k = 0; k < free.size(); ++k) {
        const bool own = cur > 0 && k == here;
        if (free[k] < (own ? nxt - cur : nxt)) continue;
        const double t = tput(i, k, nxt);
        if (best.pool < 0 || t > best.next_t || (t == best.next_t && own))
          best = {static_cast<int>(k), nxt, best.now_t, t};
      }
      return best;
    };
    while (true) {
      std::size_t win = n;
      TypedStep win_step;
      double win_gain = 0.0;  // the winner's gain relative to its current throughput (inf when waiting)
      for (std::size_t i : order) {
        const TypedStep st = step_of(i);
        if (st.pool < 0 || !(st.next_t > st.now_t)) continue;
        if (win != n && !((st.next_t - st.now_t) / st.next_t > win_gain)) continue;
        win = i;
        win_step = st;
        win_gain = st.now_t > 0.0 ? (st.next_t - st.now_t) / st.now_t : std::numeric_limits<double>::infinity();
      }
      if (win == n) break;
      Assignment& a = d.jobs[win];
      if (a.gpus > 0) free[static_cast<std::size_t>(a.pool)] += a.gpus;
      free[static_cast<std::size_t>(win_step.pool)] -= win_step.gpus;
      a.gpus = win_step.gpus;
      a.pool = win_step.pool;
    }
    return d;
  }

  AfsQueue inc_;
};

}  // namespace

StrategyInfo afs_strategy_info() {
  StrategyInfo info;
  info.name = "afs";
  info.description =
      "AFS-L (Apathetic Future Share, NSDI'21), elastic: each GPU goes to the shortest job unless a longer job's "
      "relative throughput gain beats it (beliefs: history by default). No params. On GPU pools a job starts on "
      "the type where it is believed fastest with room and grows by one GPU there, or moves to another pool with "
      "room for all its GPUs when that is believed faster.";
  info.default_beliefs = "history";
  info.gpu_types = true;
  info.make = [](const JsonReader&) -> std::unique_ptr<Strategy> { return std::make_unique<Afs>(); };
  return info;
}
const StrategyRegistrar afs_registrar{afs_strategy_info};

}  // namespace ringsched
