// strategies/common/incremental_greedy.cpp — end points, the plentiful-GPU shortcut and the served-set greedy.
#include "strategies/common/incremental_greedy.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>

#include "strategies/common/allocation.h"

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
  joined_inside_.clear();
  for (int id : s.arrived) {
    // A job that joins behind later ones (exploratory's jobs join when explored) may fall inside the served prefix.
    if (in_prefix_ && id < prefix_last_) joined_inside_.push_back(id);
    admit(s.views->view(id), s.gpus_per_node);
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
  // The lazy greedy pays for its bookkeeping only with more than a few jobs (from 256 down to 16 (issue 35): on the
  // Philly trace at load 0.95, where 16-255 jobs are often active, precompute took 4.2 s for 120k jobs with 256 and
  // 2.8 s with 16, optimus 15 s and 5.7 s).
  constexpr std::size_t kLazyFrom = 16;
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
  kept_[static_cast<std::size_t>(id)] = Kept{};  // its entry, if any, is no longer live
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
  Kept& k = kept_[static_cast<std::size_t>(id)];
  if (!e.fragile) {
    k.total = v.belief->total_work();
    k.max_gpus = v.pub->cls.max_gpus;
  }
  if (!e.fragile && e.gpus > e.need) {  // it can grow: listed, with no bound yet (computed when first needed)
    k.bound = std::numeric_limits<double>::infinity();
    k.listed = true;
    fresh_.push_back(id);
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
  // Jobs that joined inside the prefix are served; then the prefix is cut back to the budget (it may have fallen, or
  // late joiners pushed jobs out), or grown past its end (completions in it, or a larger budget).
  for (int id : joined_inside_) {
    set(d, id, 1);
    ++prefix_count_;
  }
  while (prefix_count_ > s.total_gpus) {
    if (queue_.contains(prefix_last_)) {  // (the prefix's end may have finished)
      set(d, prefix_last_, 0);
      --prefix_count_;
    }
    prefix_last_ = queue_.prev_before(prefix_last_);
  }
  while (prefix_count_ < s.total_gpus) {
    const int next = queue_.next_after(prefix_last_);
    if (next < 0) break;
    set(d, next, 1);
    prefix_last_ = next;
    ++prefix_count_;
  }
}

// Every active job is served at its minimum with GPUs left over, beliefs fixed: the greedy with kept first gains.
// Fixed beliefs let it read what it needs without building views: the belief's total work (kept at admission), the
// speeds of the job's chain and its progress (JobViews::work_done); the times are those believed_time computes.
//
// The tokens well above the cut are taken without ordering them. A job's tokens are its growth steps (from its
// count to the next, of size d, worth gain g); the greedy pops the best token offered (one per job: its next step,
// while g > 0), takes it when d fits the budget left, else drops the job. Let T hold, for every job, the longest run
// of its first tokens all worth more than a threshold v > 0, and S their total size. If S <= budget, the greedy takes
// exactly T first: while a T token is offered it beats every other offer (worth <= v: a job's next token after its
// run, a first token <= v, or a job not examined, whose bound < v bounds its gain), and it fits, since the budget
// left is at least the size of the T tokens not yet taken. What follows is the greedy from the counts T reaches with
// budget - S, whatever order T was taken in. v starts a little above the previous decision's last gain taken (gains
// fall slowly between decisions); when S is too large a higher v is tried, then none (the plain lazy greedy).
void IncrementalGreedy::lazy(Decision& d, const Snapshot& s) {
  int budget = s.total_gpus - static_cast<int>(sum_needs_);
  heap_.clear();
  run_.clear();
  run_head_ = 0;
  examined_.clear();
  std::vector<int>& grown = growing_;  // jobs grown this decision; their counts in count_ (0 = at the minimum)
  grown.clear();
  if (count_.size() < kept_.size()) count_.resize(kept_.size(), 0);
  last_taken_ = std::numeric_limits<double>::infinity();
  if (budget > 0 && cut_ > 0.0 && cut_ < std::numeric_limits<double>::infinity()) {
    budget = lazy_first_phase(s, budget, grown);
  }
  lazy_second_phase(s, budget, grown);
  cut_ = last_taken_;
  relist(examined_);
  lazy_changes(d, s, grown);
}

// A gain per GPU as the greedy computes it, diff / d, without the division when d is a power of two: 2^-k is exact,
// and diff / 2^k and diff * 2^-k are the same real number rounded once (IEEE 754): the same double, NaN and infinities
// included. Steps are 1 GPU (unit steps, most doubling steps' first) or doublings, so the division is mostly gone.
namespace {
[[gnu::always_inline]] inline double greedy_per_gpu(double diff, int d) {
  const auto u = static_cast<unsigned>(d);
  if (u == 1) return diff;
  if (d > 0 && (u & (u - 1)) == 0) {  // a power of two (std::has_single_bit calls libgcc's popcount here)
    return diff * std::bit_cast<double>(static_cast<std::uint64_t>(1023 - std::countr_zero(u)) << 52);
  }
  return diff / static_cast<double>(d);
}
}  // namespace

// The believed time of job `id` at `w` GPUs from its chain (which lists strictly increasing counts from its minimum
// on: a unit-step chain holds count c at index c - min).
[[gnu::always_inline]] inline double IncrementalGreedy::time_at(const Snapshot& s, int id, int w,
                                                                double remaining) const {
  const auto& speeds = chains_[static_cast<std::size_t>(id)].speeds;
  std::size_t i = 0;
  if (step_ == GrowStep::kUnit && !speeds.empty()) {
    const auto guess = static_cast<std::size_t>(std::max(0, w - speeds.front().first));
    if (guess < speeds.size() && speeds[guess].first == w) i = guess;
  }
  for (; i < speeds.size(); ++i) {
    if (speeds[i].first != w) continue;
    const double f = speeds[i].second;
    if (!(f > 0.0)) return std::numeric_limits<double>::infinity();
    return remaining / f;
  }
  return believed_time(s.views->view(id), w, s.gpus_per_node);  // not reached: the chain holds every count asked
}

[[gnu::always_inline]] inline double IncrementalGreedy::gain_at(const Snapshot& s, int id, int cur, double remaining,
                                                                double& t_cur, double* t_nxt) const {
  const int nxt = next_count(cur, kept_[static_cast<std::size_t>(id)].max_gpus);
  t_cur = time_at(s, id, cur, remaining);
  const double t = time_at(s, id, nxt, remaining);
  if (t_nxt != nullptr) *t_nxt = t;
  return greedy_per_gpu(t_cur - t, nxt - cur);
}

// The exact gains waiting to be taken: those examined in descending order (they mostly come so: examined by their old
// bounds, which the gains keep) in a queue (run_), every other (out of order, or a grown job's next gain) in a binary
// heap; the best of the two fronts is the heap the dense greedy would pop.
[[gnu::always_inline]] inline const IncrementalGreedy::Gain* IncrementalGreedy::best() const {
  const bool in_run = run_head_ < run_.size();
  if (heap_.empty()) return in_run ? &run_[run_head_] : nullptr;
  if (!in_run || run_[run_head_] < heap_.front()) return &heap_.front();
  return &run_[run_head_];
}

[[gnu::always_inline]] inline void IncrementalGreedy::push_gain(const Gain& g) {
  heap_.push_back(g);
  std::push_heap(heap_.begin(), heap_.end());
}

[[gnu::always_inline]] inline void IncrementalGreedy::offer_first(
    int id) {  // an examined job's first token, at its minimum
  const Gain g{kept_[static_cast<std::size_t>(id)].gain, id};
  if (!(g.gain > 0.0)) return;
  if (run_head_ == run_.size()) {
    run_.clear();
    run_head_ = 0;
  }
  if (run_.empty() || g < run_.back()) {
    run_.push_back(g);
  } else {
    push_gain(g);
  }
}

// Takes the job off the list and computes its first gain when its progress changed since.
[[gnu::always_inline]] inline void IncrementalGreedy::examine(const Snapshot& s, int id) {
  take_examined();
  Kept& k = kept_[static_cast<std::size_t>(id)];
  k.listed = false;
  const double done = s.views->work_done(id);
  examined_t_next_ = -1.0;
  if (k.work_done != done) {
    double t_cur = 0.0;
    k.gain = gain_at(s, id, ends_[static_cast<std::size_t>(id)].need, std::max(1.0, k.total - done), t_cur,
                     &examined_t_next_);
    k.work_done = done;
    // Remaining work only falls, so later gains are at most this one plus the rounding of the two times (relative
    // 2^-53 each, on numbers at most t_cur).
    k.bound = k.gain + 1e-15 * std::abs(t_cur) + 1e-300;
  }
  examined_.push_back(id);
}

// An examined job's tokens while worth more than v: the first, then the next ones from the counts reached (the chain
// lists the counts from the minimum on, so the speed at the i-th count is its i-th entry), kept as the runs above
// each candidate threshold (the thresholds increase, so a token that ends the run above one ends those above it).
void IncrementalGreedy::collect_tokens(const Snapshot& s, int id, double v) {
  static constexpr double kMult[kThresholds] = {1.0, 1.25, 2.0, 4.0};
  const Kept& k = kept_[static_cast<std::size_t>(id)];
  const double inf = std::numeric_limits<double>::infinity();
  Run& r = runs_.emplace_back();
  r.id = id;
  int open = kThresholds;  // thresholds whose run is still open: 0 .. open - 1
  const double remaining = std::max(1.0, k.total - k.work_done);
  const auto& chain = chains_[static_cast<std::size_t>(id)].speeds;
  int cur = ends_[static_cast<std::size_t>(id)].need;
  double g = k.gain;
  auto time_of = [&](std::size_t i) { return chain[i].second > 0.0 ? remaining / chain[i].second : inf; };
  // The time at chain[i] when computed by the previous step or, at i = 1, by examine (time_at: the same expression on
  // the same speed, chain[1] being its second count), else < 0.
  double t_next = examined_t_next_;
  double vt[kThresholds];
  for (int t = 0; t < kThresholds; ++t)
    vt[t] = v * kMult[t];
  int size = 0;  // the tokens so far: GPUs added, count reached, lowest gain
  int to = cur;
  double low = inf;
  auto close = [&](int t, double after_run) {
    r.size[t] = size;
    r.to[t] = to;
    r.low[t] = low;
    r.next[t] = after_run;
  };
  // While the chain holds the count after the next one, the counts are its entries (end_point lists the counts
  // next_count reaches from the minimum, which is chain[0]): the loop below without the lookups, the same arithmetic.
  const std::size_t n = chain.size();
  std::size_t i = 1;
  bool ended = false;  // a token worth at most v was reached
  // g > v here (v > 0: g is a number), so the lowest threshold never closes early: -inf stands for "none open above".
  double close_at = vt[open - 1];
  for (; i + 1 < n; ++i) {
    if (!(g > close_at)) {
      for (; open > 1 && !(g > vt[open - 1]); --open)
        close(open - 1, g);
      close_at = open > 1 ? vt[open - 1] : -inf;
    }
    const int nxt = chain[i].first;
    size += nxt - cur;
    to = nxt;
    low = std::min(low, g);
    cur = nxt;
    const double t_cur = t_next >= 0.0 ? t_next : time_of(i);
    t_next = time_of(i + 1);
    g = greedy_per_gpu(t_cur - t_next, chain[i + 1].first - cur);
    if (!(g > v)) {
      ended = true;
      break;
    }
  }
  for (; !ended; ++i) {
    const int nxt = next_count(cur, k.max_gpus);
    for (; open > 1 && !(g > vt[open - 1]); --open)
      close(open - 1, g);
    size += nxt - cur;
    to = nxt;
    low = std::min(low, g);
    cur = nxt;
    const int after = next_count(cur, k.max_gpus);
    if (after <= cur) {
      g = std::numeric_limits<double>::quiet_NaN();
      break;
    }
    if (i + 1 < chain.size() && chain[i].first == cur && chain[i + 1].first == after) {
      const double t_cur = t_next >= 0.0 ? t_next : time_of(i);
      t_next = time_of(i + 1);
      g = greedy_per_gpu(t_cur - t_next, after - cur);
    } else {
      t_next = -1.0;
      double t_cur = 0.0;
      g = gain_at(s, id, cur, remaining, t_cur);
    }
    if (!(g > v)) break;
  }
  for (int t = 0; t < open; ++t)
    close(t, g);
}

// The lowest threshold (index into kThresholds) whose runs fit the budget together, or -1.
int IncrementalGreedy::choose_threshold(int budget) const {
  for (int t = 0; t < kThresholds; ++t) {
    long size = 0;
    for (const Run& r : runs_)
      size += r.size[t];
    if (size <= budget) return t;
  }
  return -1;
}

// Phase 1: the tokens worth more than v, taken together when they fit. Returns the budget left.
int IncrementalGreedy::lazy_first_phase(const Snapshot& s, int budget, std::vector<int>& grown) {
  const double v = cut_ * 1.0625;
  runs_.clear();
  Entry e;
  while (next_examined(e) && e.first > v) {
    examine(s, e.second);
    if (kept_[static_cast<std::size_t>(e.second)].gain > v) collect_tokens(s, e.second, v);
  }
  const int chosen = choose_threshold(budget);
  for (const Run& r : runs_) {
    if (chosen < 0 || r.size[chosen] == 0) continue;  // no token taken: its first token is offered below
    budget -= r.size[chosen];
    last_taken_ = std::min(last_taken_, r.low[chosen]);
    count_[static_cast<std::size_t>(r.id)] = r.to[chosen];
    grown.push_back(r.id);
    // Its next token: the one after its run (the next of the tokens above v, or the one after them), or none.
    if (r.next[chosen] > 0.0) push_gain({r.next[chosen], r.id});
  }
  // The first tokens of the jobs not grown, in examination order.
  for (int id : examined_) {
    if (count_[static_cast<std::size_t>(id)] == 0) offer_first(id);
  }
  return budget;
}

// Phase 2: the greedy, exactly, from there.
void IncrementalGreedy::lazy_second_phase(const Snapshot& s, int budget, std::vector<int>& grown) {
  Entry e;
  while (budget > 0) {
    // Take the exact gain on top only when it beats every bound: any job whose bound reaches it is computed first.
    for (const Gain* b = best(); next_examined(e) && (b == nullptr || e.first >= b->gain); b = best()) {
      examine(s, e.second);
      offer_first(e.second);
    }
    const Gain* b = best();
    if (b == nullptr) break;
    const Gain top = *b;
    if (!heap_.empty() && b == &heap_.front()) {
      std::pop_heap(heap_.begin(), heap_.end());
      heap_.pop_back();
    } else {
      ++run_head_;
    }
    const Kept& k = kept_[static_cast<std::size_t>(top.id)];
    int& w = count_[static_cast<std::size_t>(top.id)];
    const int cur = w > 0 ? w : ends_[static_cast<std::size_t>(top.id)].need;
    const int nxt = next_count(cur, k.max_gpus);
    if (nxt - cur > budget) continue;  // the budget only shrinks: this job cannot grow any more
    if (w == 0) grown.push_back(top.id);
    w = nxt;
    budget -= nxt - cur;
    last_taken_ = top.gain;
    if (next_count(nxt, k.max_gpus) > nxt) {
      double t_cur = 0.0;
      const double g = gain_at(s, top.id, nxt, std::max(1.0, k.total - k.work_done), t_cur);
      if (g > 0.0) push_gain({g, top.id});
    }
  }
}

bool IncrementalGreedy::next_examined(Entry& e) {
  while (fresh_head_ < fresh_.size()) {
    const int id = fresh_[fresh_head_];
    if (kept_[static_cast<std::size_t>(id)].listed) {
      e = {std::numeric_limits<double>::infinity(), id};
      return true;
    }
    take_examined();  // a job that finished before its first bound
  }
  while (order_head_ < order_.size()) {
    const Entry& x = order_[order_head_];
    const Kept& k = kept_[static_cast<std::size_t>(x.second)];
    if (k.listed && k.bound == x.first) {
      e = x;
      return true;
    }
    ++order_head_;  // a finished job's entry
  }
  return false;
}

void IncrementalGreedy::take_examined() {
  if (fresh_head_ < fresh_.size()) {
    if (++fresh_head_ == fresh_.size()) {
      fresh_.clear();
      fresh_head_ = 0;
    }
  } else {
    ++order_head_;
  }
}

void IncrementalGreedy::relist(std::vector<int>& examined) {
  relisted_.clear();
  for (int id : examined) {
    Kept& k = kept_[static_cast<std::size_t>(id)];
    k.listed = true;
    relisted_.emplace_back(k.bound, id);
  }
  // Examined in order of their old bounds, which the new ones mostly keep: insertion sort is near linear here.
  for (std::size_t i = 1; i < relisted_.size(); ++i) {
    const Entry x = relisted_[i];
    std::size_t j = i;
    for (; j > 0 && examined_before(x, relisted_[j - 1]); --j)
      relisted_[j] = relisted_[j - 1];
    relisted_[j] = x;
  }
  const std::size_t m = relisted_.size();
  if (m <= order_head_) {
    // Merge in place into the spare room before the head: the write position stays behind the read position until
    // every relisted entry is placed, and the rest of the tail is then already in place.
    std::size_t out = order_head_ - m;
    std::size_t t = order_head_;
    std::size_t b = 0;
    order_head_ = out;
    while (b < m) {
      if (t < order_.size() && examined_before(order_[t], relisted_[b])) {
        order_[out++] = order_[t++];
      } else {
        order_[out++] = relisted_[b++];
      }
    }
    return;
  }
  // Not enough room: rebuild with spare room in front for later relisting, dropping finished jobs' entries.
  std::vector<Entry> merged;
  const std::size_t spare = 256 + m;
  merged.reserve(spare + m + order_.size() - order_head_);
  merged.resize(spare);
  std::size_t t = order_head_;
  std::size_t b = 0;
  auto live = [&](const Entry& x) {
    const Kept& k = kept_[static_cast<std::size_t>(x.second)];
    return k.listed && k.bound == x.first;
  };
  while (b < m || t < order_.size()) {
    if (t < order_.size() && !live(order_[t])) {
      ++t;
    } else if (b == m || (t < order_.size() && examined_before(order_[t], relisted_[b]))) {
      merged.push_back(order_[t++]);
    } else {
      merged.push_back(relisted_[b++]);
    }
  }
  order_ = std::move(merged);
  order_head_ = spare;
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
  grown_.swap(grown);
  lazy_last_ = true;
}

void IncrementalGreedy::set(Decision& d, int id, int gpus) {
  int& held = held_[static_cast<std::size_t>(id)];
  if (held == gpus) return;
  if (held == 0) holders_.insert(id);
  if (gpus == 0) holders_.erase(id);
  held = gpus;
  d.changes.push_back({id, gpus});
}

}  // namespace ringsched
