// strategies/incremental_greedy.cpp — end points, the plentiful-GPU shortcut and the served-set greedy.
#include "strategies/incremental_greedy.h"

#include <algorithm>

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
  int cur = std::max(1, j.pub->min_gpus);
  double f_cur = speed(cur);
  chain.speeds.emplace_back(cur, f_cur);
  if (!normal(f_cur)) return e;
  while (true) {
    const int nxt = std::min(step_ == GrowStep::kDouble ? 2 * cur : cur + 1, j.pub->max_gpus);
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
  for (int id : s.finished) {
    queue_.remove(id);
    if (in_prefix_ && id <= prefix_last_) --prefix_count_;
    const EndPoint& e = ends_[static_cast<std::size_t>(id)];
    if (e.fragile) --fragile_;
    sum_ends_ -= e.gpus;
    if (e.need > 1) --needing_more_;
    chains_[static_cast<std::size_t>(id)] = SpeedChain{};
    holders_.erase(id);
  }
  for (int id : s.arrived) {
    const JobView& v = s.views->view(id);
    queue_.add(id, std::max(1, v.pub->min_gpus));
    if (ends_.size() <= static_cast<std::size_t>(id)) ends_.resize(static_cast<std::size_t>(id) + 1);
    if (held_.size() <= static_cast<std::size_t>(id)) held_.resize(static_cast<std::size_t>(id) + 1, 0);
    if (chains_.size() <= static_cast<std::size_t>(id)) chains_.resize(static_cast<std::size_t>(id) + 1);
    SpeedChain& chain = chains_[static_cast<std::size_t>(id)];
    EndPoint e = end_point(v, s.gpus_per_node, chain);
    if (e.fragile) chain = SpeedChain{};  // a belief that changes: ask it each time
    e.need = std::max(1, v.pub->min_gpus);
    ends_[static_cast<std::size_t>(id)] = e;
    if (e.fragile) ++fragile_;
    if (e.need > 1) ++needing_more_;
    sum_ends_ += e.gpus;
  }
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
    return d;
  }
  at_ends_ = false;
  if (needing_more_ == 0 && queue_.size() >= static_cast<std::size_t>(s.total_gpus)) {
    saturated(d, s);
    return d;
  }
  in_prefix_ = false;
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
  return d;
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

void IncrementalGreedy::set(Decision& d, int id, int gpus) {
  int& held = held_[static_cast<std::size_t>(id)];
  if (held == gpus) return;
  if (held == 0) holders_.insert(id);
  if (gpus == 0) holders_.erase(id);
  held = gpus;
  d.changes.emplace_back(id, gpus);
}

}  // namespace ringsched
