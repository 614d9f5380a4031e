// strategies/incremental_greedy.cpp — end points, the plentiful-GPU shortcut and the served-set greedy.
#include "strategies/incremental_greedy.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <queue>

#include "strategies/allocation.h"

namespace ringsched {

// The gain test the greedy evaluates, Q/f(cur) - Q/f(next) > 0 in floating point, agrees with f(next) > f(cur) for
// every remaining work Q in [1, 1e100] when the speeds are normal numbers in [1e-100, 1e100] and differ by more than
// 1e-14 relatively (the quotients keep their order; equal or falling speeds give a gain <= 0 since rounding is
// monotone). A job outside those bounds is fragile.
IncrementalGreedy::EndPoint IncrementalGreedy::end_point(const JobView& j, int gpus_per_node, SpeedChain& chain) const {
  EndPoint e;
  chain.speeds.clear();
  if (j.belief == nullptr || !j.belief->fixed()) return e;
  const double work = j.belief->total_work();
  if (!(work <= 1e100)) return e;
  auto speed = [&](int w) { return j.belief->throughput(w, packed_nodes(w, gpus_per_node)); };
  auto normal = [](double f) { return f >= 1e-100 && f <= 1e100; };
  int cur = std::max(1, j.pub->cls.min_gpus);
  double f_cur = speed(cur);
  chain.speeds.emplace_back(cur, f_cur);
  if (!normal(f_cur)) return e;
  while (true) {
    const int nxt = std::min(step_ == GrowStep::kDouble ? 2 * cur : cur + 1, j.pub->cls.max_gpus);
    if (nxt <= cur) break;
    const double f_nxt = speed(nxt);
    chain.speeds.emplace_back(nxt, f_nxt);
    if (!normal(f_nxt)) return e;
    if (f_nxt <= f_cur) break;
    if (f_nxt <= f_cur * (1.0 + 1e-14)) return e;
    cur = nxt;
    f_cur = f_nxt;
  }
  e.gpus = cur;
  e.fragile = false;
  return e;
}

Decision IncrementalGreedy::decide(const Snapshot& s) {
  for (int id : s.finished)
    forget(id);
  for (int id : s.arrived)
    admit(s.views->view(id), s.gpus_per_node);
  Decision d;
  if (fragile_ == 0 && sum_ends_ <= s.total_gpus) {
    // Every job is served and grows to its end point (the budget never binds).
    if (at_ends_) {
      for (int id : s.arrived)
        set(d, id, ends_[static_cast<std::size_t>(id)].gpus);
    } else {
      for (int id : queue_.ids())
        set(d, id, ends_[static_cast<std::size_t>(id)].gpus);
    }
    at_ends_ = true;
    in_prefix_ = false;
    lazy_last_ = false;
    return d;
  }
  at_ends_ = false;
  if (needing_more_ == 0 && queue_.size() >= static_cast<std::size_t>(s.total_gpus)) {
    lazy_last_ = false;
    saturated(d, s);
    return d;
  }
  in_prefix_ = false;
  // The lazy greedy pays for its bookkeeping only with many jobs; below that the plain greedy is cheaper.
  constexpr std::size_t kLazyFrom = 256;
  if (fragile_ == 0 && sum_needs_ < s.total_gpus && queue_.size() >= kLazyFrom) {
    lazy(d, s);
    return d;
  }
  lazy_last_ = false;
  served_greedy(d, s);
  return d;
}

void IncrementalGreedy::forget(int id) {
  queue_.remove(id);
  if (in_prefix_ && id <= prefix_last_) --prefix_count_;
  const EndPoint& e = ends_[static_cast<std::size_t>(id)];
  if (e.fragile) --fragile_;
  sum_ends_ -= e.gpus;
  if (e.need > 1) --needing_more_;
  sum_needs_ -= e.need;
  Kept& k = kept_[static_cast<std::size_t>(id)];
  if (k.listed) bounds_.erase({k.bound, id});
  k = Kept{};
  chains_[static_cast<std::size_t>(id)] = SpeedChain{};
  holders_.erase(id);
}

void IncrementalGreedy::admit(const JobView& v, int gpus_per_node) {
  const int id = v.pub->id;
  queue_.add(id, std::max(1, v.pub->cls.min_gpus));
  if (ends_.size() <= static_cast<std::size_t>(id)) ends_.resize(static_cast<std::size_t>(id) + 1);
  if (held_.size() <= static_cast<std::size_t>(id)) held_.resize(static_cast<std::size_t>(id) + 1, 0);
  if (chains_.size() <= static_cast<std::size_t>(id)) chains_.resize(static_cast<std::size_t>(id) + 1);
  SpeedChain& chain = chains_[static_cast<std::size_t>(id)];
  EndPoint e = end_point(v, gpus_per_node, chain);
  if (e.fragile) chain = SpeedChain{};  // a belief that changes: ask it each time
  e.need = std::max(1, v.pub->cls.min_gpus);
  ends_[static_cast<std::size_t>(id)] = e;
  if (e.fragile) ++fragile_;
  if (e.need > 1) ++needing_more_;
  sum_needs_ += e.need;
  sum_ends_ += e.gpus;
  if (kept_.size() <= static_cast<std::size_t>(id)) kept_.resize(static_cast<std::size_t>(id) + 1);
  if (!e.fragile && e.gpus > e.need) {  // it can grow: listed, with no bound yet (computed when first needed)
    Kept& k = kept_[static_cast<std::size_t>(id)];
    k.bound = std::numeric_limits<double>::infinity();
    k.listed = true;
    bounds_.insert({k.bound, id});
  }
}

void IncrementalGreedy::served_greedy(Decision& d, const Snapshot& s) {
  const std::vector<int> served = queue_.first_fit(s.total_gpus);
  std::vector<const JobView*> jobs(served.size());
  std::vector<const SpeedChain*> chains(served.size());
  for (std::size_t i = 0; i < served.size(); ++i) {
    jobs[i] = &s.views->view(served[i]);
    const SpeedChain& c = chains_[static_cast<std::size_t>(served[i])];
    chains[i] = c.speeds.empty() ? nullptr : &c;
  }
  const std::vector<int> w = step_ == GrowStep::kDouble
                                 ? doubling_allocation(jobs, s.total_gpus, s.gpus_per_node, chains)
                                 : unit_greedy_allocation(jobs, s.total_gpus, s.gpus_per_node, chains);
  // Holders no longer served (or served at 0) release their GPUs; then the served jobs take their counts.
  std::vector<int> released;
  std::size_t k = 0;
  for (int id : holders_) {
    while (k < served.size() && served[k] < id)
      ++k;
    if (k == served.size() || served[k] != id || w[k] == 0) released.push_back(id);
  }
  for (int id : released)
    set(d, id, 0);
  for (std::size_t i = 0; i < served.size(); ++i)
    set(d, served[i], w[i]);
}

// Every active job needs one GPU and they are at least G: first fit serves the first G at one GPU each, leaving no
// budget to grow with (doubling_allocation and unit_greedy_allocation return the mins then).
void IncrementalGreedy::saturated(Decision& d, const Snapshot& s) {
  if (!in_prefix_) {
    // Entering: the first G jobs at one GPU, every other holder released.
    const std::vector<int> served = queue_.first_fit(s.total_gpus);
    std::vector<int> released;
    for (int id : holders_) {
      if (!std::binary_search(served.begin(), served.end(), id)) released.push_back(id);
    }
    for (int id : released)
      set(d, id, 0);
    for (int id : served)
      set(d, id, 1);
    in_prefix_ = true;
    prefix_last_ = served.empty() ? -1 : served.back();
    prefix_count_ = static_cast<int>(served.size());
    return;
  }
  // Completions in the prefix let the next jobs in (arrivals come after the prefix).
  while (prefix_count_ < s.total_gpus) {
    const int next = queue_.next_after(prefix_last_);
    if (next < 0) break;
    set(d, next, 1);
    prefix_last_ = next;
    ++prefix_count_;
  }
}

// Every active job is served at its minimum with GPUs left over, beliefs fixed: the greedy with kept first gains.
void IncrementalGreedy::lazy(Decision& d, const Snapshot& s) {
  struct Gain {
    double gain;
    int id;
    bool operator<(const Gain& o) const {
      if (gain != o.gain) return gain < o.gain;
      return id > o.id;  // the earlier job wins ties, as in allocation.cpp
    }
  };
  auto time_at = [&](const JobView& v, int w) {
    const SpeedChain& c = chains_[static_cast<std::size_t>(v.pub->id)];
    for (const auto& [cw, f] : c.speeds) {
      if (cw != w) continue;
      if (!(f > 0.0)) return std::numeric_limits<double>::infinity();
      return believed_remaining(v) / f;
    }
    return believed_time(v, w, s.gpus_per_node);
  };
  auto gain_at = [&](const JobView& v, int cur, double& t_cur) {
    const int nxt = next_count(cur, v.pub->cls.max_gpus);
    t_cur = time_at(v, cur);
    return (t_cur - time_at(v, nxt)) / static_cast<double>(nxt - cur);
  };
  int budget = s.total_gpus - static_cast<int>(sum_needs_);
  std::priority_queue<Gain> exact;
  std::vector<int> evaluated;  // taken out of bounds_ this decision (put back at the end)
  std::vector<int> grown;      // jobs grown this decision; their counts in count_ (0 = at the minimum)
  if (count_.size() < kept_.size()) count_.resize(kept_.size(), 0);
  while (budget > 0) {
    // Take the exact gain on top only when it beats every bound: any job whose bound reaches it is computed first.
    while (!bounds_.empty() && (exact.empty() || bounds_.begin()->first >= exact.top().gain)) {
      const int id = bounds_.begin()->second;
      bounds_.erase(bounds_.begin());
      Kept& k = kept_[static_cast<std::size_t>(id)];
      k.listed = false;
      const JobView& v = s.views->view(id);
      if (k.work_done != v.work_done) {
        double t_cur = 0.0;
        k.gain = gain_at(v, ends_[static_cast<std::size_t>(id)].need, t_cur);
        k.work_done = v.work_done;
        // Remaining work only falls, so later gains are at most this one plus the rounding of the two times
        // (relative 2^-53 each, on numbers at most t_cur).
        k.bound = k.gain + 1e-15 * std::abs(t_cur) + 1e-300;
      }
      evaluated.push_back(id);
      if (k.gain > 0.0) exact.push({k.gain, id});
    }
    if (exact.empty()) break;
    const Gain top = exact.top();
    exact.pop();
    const JobView& v = s.views->view(top.id);
    int& w = count_[static_cast<std::size_t>(top.id)];
    const int cur = w > 0 ? w : ends_[static_cast<std::size_t>(top.id)].need;
    const int nxt = next_count(cur, v.pub->cls.max_gpus);
    if (nxt - cur > budget) continue;  // the budget only shrinks: this job cannot grow any more
    if (w == 0) grown.push_back(top.id);
    w = nxt;
    budget -= nxt - cur;
    if (next_count(nxt, v.pub->cls.max_gpus) > nxt) {
      double t_cur = 0.0;
      const double g = gain_at(v, nxt, t_cur);
      if (g > 0.0) exact.push({g, top.id});
    }
  }
  for (int id : evaluated) {
    Kept& k = kept_[static_cast<std::size_t>(id)];
    k.listed = true;
    bounds_.insert({k.bound, id});
  }
  lazy_changes(d, s, grown);
}

// Changes: every job at its minimum except those grown now (jobs grown last time return to their minimum).
void IncrementalGreedy::lazy_changes(Decision& d, const Snapshot& s, std::vector<int>& grown) {
  auto count_now = [&](int id) {
    const int w = count_[static_cast<std::size_t>(id)];
    return w > 0 ? w : ends_[static_cast<std::size_t>(id)].need;
  };
  if (!lazy_last_) {
    for (int id : queue_.ids())
      set(d, id, count_now(id));
  } else {
    for (int id : s.arrived)
      set(d, id, count_now(id));
    for (int id : grown_)
      if (queue_.contains(id)) set(d, id, count_now(id));
    for (int id : grown)
      set(d, id, count_now(id));
  }
  for (int id : grown)
    count_[static_cast<std::size_t>(id)] = 0;
  grown_ = std::move(grown);
  lazy_last_ = true;
}

void IncrementalGreedy::set(Decision& d, int id, int gpus) {
  int& held = held_[static_cast<std::size_t>(id)];
  if (held == gpus) return;
  if (held == 0) holders_.insert(id);
  if (gpus == 0) holders_.erase(id);
  held = gpus;
  d.changes.emplace_back(id, gpus);
}

}  // namespace ringsched
