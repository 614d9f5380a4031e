// strategies/afs.cpp — `afs`: AFS-L, after Hwang et al., "Elastic Resource Sharing for Distributed Deep Learning"
// (Apathetic Future Share), NSDI'21. Elastic. GPUs are handed out one at a time (a waiting job's first step is its
// min_gpus). For each GPU, the jobs that can use it are visited from the shortest to the longest (length = believed
// remaining time on one GPU, Q_j / f_j(1)); the current winner a (shorter) loses to a longer job b when
//   (T_b(w_b + s_b) - T_b(w_b)) / T_b(w_b + s_b)  >  (T_a(w_a + s_a) - T_a(w_a)) / T_a(w_a),
// T = believed throughput. This is the two-job rule of the paper: give the GPU to the longer job only if its gain,
// relative to its new speed, beats the shorter job's gain relative to its current speed (lengths cancel under the
// apathetic assumption that the longer job gets the contested GPU back when the shorter one finishes). A job whose
// next step does not raise its throughput, or does not fit, is not a candidate; when none is left, GPUs stay idle.
// Incremental (decide_changes): AfsQueue (strategies/afs_queue.h) decides the same counts without the O(GPUs x jobs)
// scan.
#include <algorithm>
#include <limits>
#include <numeric>
#include <stdexcept>

#include "strategies/afs_queue.h"
#include "strategies/registry.h"

namespace ringsched {
namespace {

class Afs final : public Strategy {
 public:
  [[nodiscard]] std::string name() const override { return "afs"; }
  Decision decide(const Snapshot& s) override {
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
  AfsQueue inc_;
};

}  // namespace

StrategyInfo afs_strategy_info() {
  StrategyInfo info;
  info.name = "afs";
  info.description =
      "AFS-L (Apathetic Future Share, NSDI'21), elastic: each GPU goes to the shortest job unless a longer job's "
      "relative throughput gain beats it (beliefs: history by default). No params.";
  info.default_beliefs = "history";
  info.make = [](const JsonReader&) -> std::unique_ptr<Strategy> { return std::make_unique<Afs>(); };
  return info;
}

}  // namespace ringsched
