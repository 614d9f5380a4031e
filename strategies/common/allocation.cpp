// strategies/common/allocation.cpp — doubling and unit-step greedy allocation with a binary heap of gains, over
// snapshot indices or an explicit list of job views.
#include "strategies/common/allocation.h"

#include <algorithm>
#include <functional>
#include <limits>
#include <queue>

namespace ringsched {

double believed_time(const JobView& job, int w, int gpus_per_node) {
  if (w <= 0) return std::numeric_limits<double>::infinity();
  const double f = job.belief->throughput(w, packed_nodes(w, gpus_per_node));
  if (!(f > 0.0)) return std::numeric_limits<double>::infinity();
  return believed_remaining(job) / f;
}

namespace {

struct Gain {
  double gain;
  std::size_t idx;
  bool operator<(const Gain& o) const {
    if (gain != o.gain) return gain < o.gain;
    return idx > o.idx;  // earlier candidate wins ties
  }
};

// believed_time with the chain's speed when it has one for w (the same value the belief would return).
double chained_time(const JobView& job, int w, int gpus_per_node, const SpeedChain* chain) {
  if (chain == nullptr || w <= 0) return believed_time(job, w, gpus_per_node);
  for (const auto& [cw, f] : chain->speeds) {
    if (cw != w) continue;
    if (!(f > 0.0)) return std::numeric_limits<double>::infinity();
    return believed_remaining(job) / f;
  }
  return believed_time(job, w, gpus_per_node);
}

template <typename NextFn>
std::vector<int> grow(std::span<const JobView* const> jobs, int budget, int gpus_per_node, NextFn next_w,
                      std::span<const SpeedChain* const> chains) {
  std::vector<int> w(jobs.size(), 0);
  for (std::size_t i = 0; i < jobs.size(); ++i) {
    const int need = std::max(1, jobs[i]->pub->cls.min_gpus);
    if (need <= budget) {
      w[i] = need;
      budget -= need;
    }
  }
  if (budget <= 0) return w;  // nothing left to grow with (skips computing gains that cannot be used)
  auto gain_of = [&](std::size_t i, double& gain) -> bool {
    const JobView& j = *jobs[i];
    const int cur = w[i];
    const int nxt = std::min(next_w(cur), j.pub->cls.max_gpus);
    if (cur <= 0 || nxt <= cur) return false;
    const SpeedChain* chain = chains.empty() ? nullptr : chains[i];
    gain = (chained_time(j, cur, gpus_per_node, chain) - chained_time(j, nxt, gpus_per_node, chain)) /
           static_cast<double>(nxt - cur);
    return true;
  };
  // Built in one pass (make_heap): Gain's order is total (ties by index), so the pops are the same as pushing each.
  std::vector<Gain> initial;
  initial.reserve(jobs.size());
  for (std::size_t i = 0; i < jobs.size(); ++i) {
    double g = 0.0;
    if (gain_of(i, g) && g > 0.0) initial.push_back({g, i});
  }
  std::priority_queue<Gain> heap(std::less<Gain>(), std::move(initial));
  while (!heap.empty() && budget > 0) {
    const Gain top = heap.top();
    heap.pop();
    const JobView& j = *jobs[top.idx];
    const int cur = w[top.idx];
    const int nxt = std::min(next_w(cur), j.pub->cls.max_gpus);
    if (nxt - cur > budget) continue;  // the budget only shrinks: this job cannot grow any more
    w[top.idx] = nxt;
    budget -= nxt - cur;
    double g = 0.0;
    if (gain_of(top.idx, g) && g > 0.0) heap.push({g, top.idx});
  }
  return w;
}

std::vector<const JobView*> views_of(const Snapshot& s, const std::vector<int>& candidates) {
  std::vector<const JobView*> v(candidates.size());
  for (std::size_t i = 0; i < candidates.size(); ++i)
    v[i] = &s.jobs[static_cast<std::size_t>(candidates[i])];
  return v;
}

}  // namespace

std::vector<int> doubling_allocation(std::span<const JobView* const> jobs, int budget, int gpus_per_node,
                                     std::span<const SpeedChain* const> chains) {
  return grow(
      jobs, budget, gpus_per_node, [](int w) { return 2 * w; }, chains);
}

std::vector<int> unit_greedy_allocation(std::span<const JobView* const> jobs, int budget, int gpus_per_node,
                                        std::span<const SpeedChain* const> chains) {
  return grow(
      jobs, budget, gpus_per_node, [](int w) { return w + 1; }, chains);
}

std::vector<int> doubling_allocation(const Snapshot& s, const std::vector<int>& candidates, int budget) {
  return doubling_allocation(views_of(s, candidates), budget, s.gpus_per_node);
}

std::vector<int> unit_greedy_allocation(const Snapshot& s, const std::vector<int>& candidates, int budget) {
  return unit_greedy_allocation(views_of(s, candidates), budget, s.gpus_per_node);
}

namespace {

// Believed remaining time of `j` on w GPUs of pool k (packed on its nodes); +inf for w <= 0 or no speed.
double typed_time(const Snapshot& s, const JobView& j, std::size_t k, int w) {
  constexpr double kInf = std::numeric_limits<double>::infinity();
  if (w <= 0) return kInf;
  const PoolInfo& p = s.pools[k];
  const double f = j.belief->throughput_on(p.gpu_type, w, packed_nodes(w, p.gpus_per_node));
  return f > 0.0 ? believed_remaining(j) / f : kInf;
}

// typed_greedy_allocation's entry: each candidate in order at its min GPUs on the pool with room where it is believed
// to finish soonest (ties: the pool it holds, then the earlier pool).
void typed_entry(const Snapshot& s, const std::vector<int>& candidates, Decision& d, std::vector<int>& budget) {
  constexpr double kInf = std::numeric_limits<double>::infinity();
  for (int c : candidates) {
    const auto i = static_cast<std::size_t>(c);
    const JobView& j = s.jobs[i];
    const int need = std::max(1, j.pub->cls.min_gpus);
    int best = -1;
    double best_t = kInf;
    for (std::size_t k = 0; k < budget.size(); ++k) {
      if (budget[k] < need) continue;
      const double t = typed_time(s, j, k, need);
      if (!(t < kInf)) continue;
      const bool held = j.gpus > 0 && static_cast<std::size_t>(j.pool) == k;
      if (best < 0 || t < best_t || (t == best_t && held)) {
        best = static_cast<int>(k);
        best_t = t;
      }
    }
    if (best < 0) continue;
    d.jobs[i].gpus = need;
    d.jobs[i].pool = best;
    budget[static_cast<std::size_t>(best)] -= need;
  }
}

}  // namespace

Decision typed_greedy_allocation(const Snapshot& s, const std::vector<int>& candidates, bool unit) {
  Decision d = empty_decision(s);
  std::vector<int> budget = pool_gpus(s);
  const auto time_on = [&](const JobView& j, std::size_t k, int w) { return typed_time(s, j, k, w); };
  typed_entry(s, candidates, d, budget);
  // Growth: a job's step is to its next count w' on its own pool (w' - w more GPUs there) or, on another pool, to w'
  // or a later count of its sequence (2w', ... or w' + 1, ...) that is free there (its w GPUs freed), whichever gains
  // more per added GPU: (t(w) - t'(w')) / (w' - w).
  struct Step {
    double gain = 0.0;
    std::size_t pool = 0;
    int gpus = 0;
  };
  const auto best_step = [&](std::size_t i) {
    Step out;
    const JobView& j = s.jobs[i];
    const int cur = d.jobs[i].gpus;
    const int most = j.pub->cls.max_gpus;
    const auto next_w = [&](int w) { return std::min(unit ? w + 1 : 2 * w, most); };
    const int nxt = next_w(cur);
    if (cur <= 0 || nxt <= cur) return out;
    const auto here = static_cast<std::size_t>(d.jobs[i].pool);
    const double now_t = time_on(j, here, cur);
    for (std::size_t k = 0; k < budget.size(); ++k) {
      // Its own pool: the next count. Another pool: the next count or any later one of the sequence that fits there
      // (a move is worth it only at a count where the other type beats this one).
      for (int w = nxt; budget[k] >= (k == here ? w - cur : w); w = next_w(w)) {
        const double g = (now_t - time_on(j, k, w)) / static_cast<double>(w - cur);
        if (g > out.gain || (g == out.gain && g > 0.0 && k == here)) out = {g, k, w};
        if (k == here || w >= most) break;
      }
    }
    return out;
  };
  const auto fill = [&](std::priority_queue<Gain>& heap) {
    std::vector<Gain> all;
    for (std::size_t pos = 0; pos < candidates.size(); ++pos) {
      const Step st = best_step(static_cast<std::size_t>(candidates[pos]));
      if (st.gain > 0.0) all.push_back({st.gain, pos});
    }
    heap = std::priority_queue<Gain>(std::less<Gain>(), std::move(all));
  };
  std::priority_queue<Gain> heap;
  fill(heap);
  while (!heap.empty()) {
    const Gain top = heap.top();
    heap.pop();
    const auto i = static_cast<std::size_t>(candidates[top.idx]);
    const Step st = best_step(i);  // budgets only shrink between moves: a stored gain is an upper bound
    if (!(st.gain > 0.0)) continue;
    if (st.gain != top.gain) {
      heap.push({st.gain, top.idx});
      continue;
    }
    const int cur = d.jobs[i].gpus;
    const int nxt = st.gpus;
    const auto here = static_cast<std::size_t>(d.jobs[i].pool);
    budget[here] += cur;
    budget[st.pool] -= nxt;
    d.jobs[i].gpus = nxt;
    d.jobs[i].pool = static_cast<int>(st.pool);
    if (st.pool != here) {
      fill(heap);  // a pool got GPUs back: every job's best step may have grown
    } else {
      const Step again = best_step(i);
      if (again.gain > 0.0) heap.push({again.gain, top.idx});
    }
  }
  return d;
}

}  // namespace ringsched
