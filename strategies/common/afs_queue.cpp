// strategies/common/afs_queue.cpp — chain keys per job, the length order kept across decisions, the end-point shortcut
// and the chain hand-out.
#include "strategies/common/afs_queue.h"

#include <algorithm>
#include <limits>
#include <stdexcept>

namespace ringsched {
namespace {

constexpr double kInfinity = std::numeric_limits<double>::infinity();

}  // namespace

// The job's chain keys, read from its belief as Afs::decide reads them: tput(0) = 0, tput(g) = throughput(g, packed
// nodes); at count w with step s the job is a candidate when w + s <= max and tput(w + s) > tput(w). No state beyond
// `total` GPUs is listed (the hand-out cannot reach it); a job still growing there counts as ending above `total`.
void AfsQueue::refresh(Job& j, int total) const {
  j.work = j.belief->total_work();
  j.f1 = j.belief->throughput(1, 1);
  const int gpn = gpus_per_node_;
  auto tput = [&](int g) { return g <= 0 ? 0.0 : j.belief->throughput(g, (g + gpn - 1) / gpn); };
  Keys& k = j.keys;
  k.kg.clear();
  k.n = 0;
  j.end = 0;
  if (j.first > j.max || j.first > total) return;
  int w = 0;
  int step = j.first;
  double now = 0.0;
  while (w + step <= j.max) {
    if (w >= total) {
      j.end = total + 1;
      return;
    }
    const double next = tput(w + step);
    if (!(next > now)) break;
    k.kg.push_back((next - now) / next);
    k.kg.push_back(now > 0.0 ? (next - now) / now : kInfinity);
    ++k.n;
    w += step;
    now = next;
    step = 1;
  }
  j.end = w;
}

// As Afs::decide's length: believed remaining work (at least 1) over the believed speed on one GPU.
double AfsQueue::length(double work, double f1, double work_done) {
  return f1 > 0.0 ? std::max(1.0, work - work_done) / f1 : kInfinity;
}

void AfsQueue::admit(const JobView& v, int total) {
  if (v.belief == nullptr) throw std::logic_error("strategy 'afs' needs beliefs (not \"none\")");
  const int id = v.pub->id;
  const auto i = static_cast<std::size_t>(id);
  if (jobs_.size() <= i) {
    jobs_.resize(i + 1);
    held_.resize(i + 1, 0);
    active_index_.resize(i + 1, 0);
  }
  Job& j = job(id);
  j = Job{};
  j.belief = v.belief;
  j.active = true;
  j.fixed = v.belief->fixed();
  j.first = std::max(1, v.pub->cls.min_gpus);
  j.max = v.pub->cls.max_gpus;
  refresh(j, total);
  j.len = length(j.work, j.f1, v.work_done);
  held_[i] = 0;
  if (j.fixed) {
    sum_ends_ += j.end;
  } else {
    ++not_fixed_;
  }
  if (j.keys.n > 0) {
    cold_[j.first].insert({j.len, id});
    j.cold = true;
  }
  active_index_[i] = active_.size();
  active_.push_back(id);
}

void AfsQueue::forget(int id) {
  if (static_cast<std::size_t>(id) >= jobs_.size()) return;
  Job& j = job(id);
  if (!j.active) return;
  if (j.cold) {
    const auto it = cold_.find(j.first);
    it->second.erase({j.len, id});
    if (it->second.empty()) cold_.erase(it);
  }
  if (j.hot) --hot_count_;  // its entry in hot_ goes at the next re-key
  if (j.fixed) {
    sum_ends_ -= j.end;
  } else {
    --not_fixed_;
  }
  const std::size_t i = active_index_[static_cast<std::size_t>(id)];
  active_[i] = active_.back();
  active_index_[static_cast<std::size_t>(active_[i])] = i;
  active_.pop_back();
  held_[static_cast<std::size_t>(id)] = -1;  // marks its hot_ entry stale
  j = Job{};
}

void AfsQueue::Hot::keep(const Job& j) {
  work = j.work;
  f1 = j.f1;
  kg = j.keys.kg.data();
  n = j.keys.n;
  std::copy_n(j.keys.kg.begin(), 2 * std::min(n, kInline), head);
}

void AfsQueue::set(Decision& d, int id, int gpus) {
  int& held = held_[static_cast<std::size_t>(id)];
  if (held == gpus) return;
  if (held == 0) {
    Job& j = job(id);
    if (j.cold) {
      const auto it = cold_.find(j.first);
      it->second.erase({j.len, id});
      if (it->second.empty()) cold_.erase(it);
      j.cold = false;
    }
    if (!j.hot) {
      j.hot = true;
      ++hot_count_;
      Hot h;
      h.len = j.len;
      h.id = id;
      h.first = j.first;
      h.fixed = j.fixed;
      h.keep(j);
      hot_.push_back(h);
      if (hot_.size() > 2 * static_cast<std::size_t>(hot_count_) + 64) {
        // Finished jobs' entries pile up while the end-point case skips re-keying: drop them.
        std::erase_if(hot_, [this](const Hot& e) { return held_[static_cast<std::size_t>(e.id)] < 0; });
      }
    }
  }
  held = gpus;
  d.changes.push_back({id, gpus});
}

Decision AfsQueue::decide(const Snapshot& s) {
  gpus_per_node_ = std::max(1, s.gpus_per_node);
  const int total = s.total_gpus;
  for (int id : s.finished)
    forget(id);
  for (int id : s.arrived)
    admit(s.views->view(id), total);
  Decision d;
  if (not_fixed_ == 0 && sum_ends_ <= total) {
    // Every job's end point fits: each job gets it, whatever the order.
    if (at_ends_) {
      for (int id : s.arrived)
        set(d, id, job(id).end);
    } else {
      for (int id : active_)
        set(d, id, job(id).end);
    }
    at_ends_ = true;
    return d;
  }
  at_ends_ = false;
  rekey_hot(s, total);
  hand_out(total);
  // Holders the hand-out did not reach release their GPUs (before visited cold jobs join hot_), then every visited
  // job takes its count.
  for (const Hot& h : hot_) {
    if (h.pos < 0 && held_[static_cast<std::size_t>(h.id)] > 0) set(d, h.id, 0);
  }
  for (const Pos& p : pos_)
    set(d, p.id, p.gpus());
  return d;
}

// Jobs that held GPUs since they were keyed: new keys (as decide computes them now), sorted; those that hold none any
// more keep that key in cold_ until they run again.
void AfsQueue::rekey_hot(const Snapshot& s, int total) {
  std::size_t k = 0;
  for (std::size_t i = 0; i < hot_.size(); ++i) {
    Hot& h = hot_[i];
    const int held = held_[static_cast<std::size_t>(h.id)];
    if (held < 0) continue;  // finished
    // Progress only: building the job's view costs more than the rest of its re-keying.
    const double done = s.views->work_done(h.id);
    if (!h.fixed) {
      Job& j = job(h.id);
      refresh(j, total);
      h.keep(j);
    }
    h.len = length(h.work, h.f1, done);
    h.pos = -1;
    if (held == 0) {
      Job& j = job(h.id);
      j.hot = false;
      --hot_count_;
      j.len = h.len;
      if (j.keys.n > 0) {
        cold_[j.first].insert({j.len, h.id});
        j.cold = true;
      }
      continue;
    }
    if (k != i) hot_[k] = h;
    ++k;
  }
  hot_.resize(k);
  // Mostly sorted already (holders' lengths fall at their own pace): insertion sort, unless it moves too much.
  auto before = [](const Hot& a, const Hot& b) { return a.len < b.len || (a.len == b.len && a.id < b.id); };
  std::size_t moves = 0;
  const std::size_t budget = 4 * hot_.size() + 64;
  for (std::size_t i = 1; i < hot_.size() && moves <= budget; ++i) {
    if (!before(hot_[i], hot_[i - 1])) continue;
    const Hot x = hot_[i];
    std::size_t p = i;
    while (p > 0 && before(x, hot_[p - 1])) {
      hot_[p] = hot_[p - 1];
      --p;
      ++moves;
    }
    hot_[p] = x;
  }
  if (moves > budget) std::sort(hot_.begin(), hot_.end(), before);
}

// ---- the hand-out ----

void AfsQueue::reset_hand_out(int total) {
  const int cap = 2 * total + 4;  // positions: at most one per GPU handed out, per frontier dropped, and the frontier
  if (tree_n_ < cap) {
    tree_n_ = 1;
    while (tree_n_ < cap)
      tree_n_ *= 2;
    tree_.assign(2 * static_cast<std::size_t>(tree_n_), -kInfinity);
    suffix_.assign(static_cast<std::size_t>(tree_n_) + 1, -kInfinity);
    pos_.reserve(static_cast<std::size_t>(tree_n_));
    pos_hot_.reserve(static_cast<std::size_t>(tree_n_));
  } else {
    // Back to -inf where the last hand-out wrote: its leaves and their ancestors.
    std::size_t lo = static_cast<std::size_t>(tree_n_);
    std::size_t hi = lo + static_cast<std::size_t>(tree_used_);
    while (lo >= 1 && lo < hi) {
      std::fill(tree_.begin() + static_cast<std::ptrdiff_t>(lo), tree_.begin() + static_cast<std::ptrdiff_t>(hi),
                -kInfinity);
      lo /= 2;
      hi = (hi - 1) / 2 + 1;
    }
  }
  tree_used_ = 0;
  tree_built_ = 0;
  pos_.clear();
  pos_hot_.clear();
  stack_.clear();
  free_ = total;
  frontier_ = -1;
  first_cand_ = 0;
  suffix_from_ = 0;
  suffix_[0] = -kInfinity;
  suffix_work_ = 0;
  hot_next_ = 0;
  cold_next_.clear();
  for (const auto& [first, keys] : cold_)
    cold_next_.push_back({first, keys.begin(), keys.end()});
}

void AfsQueue::hand_out(int total) {
  reset_hand_out(total);
  if (!next_frontier()) return;
  extend(0);
  while (free_ > 0 && !stack_.empty()) {
    // The top of the chain wins this GPU (or its first step).
    const int t = stack_.back().pos;
    stack_.pop_back();
    Pos& p = pos_[static_cast<std::size_t>(t)];
    const bool was_waiting = p.state == 0;
    free_ -= p.step();
    ++p.state;
    p.enter();
    set_leaf(t);
    if (was_waiting) {
      frontier_ = -1;
      next_frontier();
    } else if (frontier_ >= 0 && pos_[static_cast<std::size_t>(frontier_)].step() > free_) {
      // The frontier's first step no longer fits: decide skips it from now on.
      pos_[static_cast<std::size_t>(frontier_)].n = 0;
      pos_[static_cast<std::size_t>(frontier_)].enter();
      set_leaf(frontier_);
      frontier_ = -1;
      next_frontier();
    }
    const Pos& q = pos_[static_cast<std::size_t>(t)];  // (next_frontier may have moved pos_: reserved, but re-read)
    // (A NaN r never takes over from a winner; with no winner below, any candidate is the first.)
    if (q.cand() && (stack_.empty() || q.leaf > stack_.back().gain)) stack_.push_back({t, q.gain});
    extend(t + 1);
  }
}

// The next job in (length, id) order whose first step fits the free GPUs, as the new waiting frontier.
bool AfsQueue::next_frontier() {
  while (hot_next_ < hot_.size()) {
    const Hot& h = hot_[hot_next_];
    if (h.n > 0 && h.first <= free_) break;
    ++hot_next_;
  }
  const Hot* hot = hot_next_ < hot_.size() ? &hot_[hot_next_] : nullptr;
  ColdCursor* cold = nullptr;
  for (ColdCursor& c : cold_next_) {
    if (c.first > free_) c.at = c.end;  // never fits again: free GPUs only fall
    if (c.at == c.end) continue;
    if (cold == nullptr ? hot == nullptr || *c.at < Key{hot->len, hot->id} : *c.at < *cold->at) cold = &c;
  }
  if (cold != nullptr) {
    const int id = cold->at->second;
    ++cold->at;
    const Job& j = job(id);
    append(j.keys.kg.data(), j.keys.kg.data(), j.keys.n, j.first, id, -1);
  } else if (hot != nullptr) {
    append(hot->head, hot->kg, hot->n, hot->first, hot->id, static_cast<int>(hot_next_));
    ++hot_next_;
  } else {
    return false;
  }
  frontier_ = static_cast<int>(pos_.size()) - 1;
  return true;
}

void AfsQueue::append(const double* head, const double* kg, int n, int first, int id, int hot_index) {
  const int at = static_cast<int>(pos_.size());
  Pos& p = pos_.emplace_back();
  p.head = head;
  p.kg = kg;
  p.n = n;
  p.first = first;
  p.id = id;
  p.enter();
  pos_hot_.push_back(hot_index);
  if (hot_index >= 0) hot_[static_cast<std::size_t>(hot_index)].pos = at;
  suffix_[static_cast<std::size_t>(at) + 1] = -kInfinity;
  suffix_from_ = at + 1;  // suffix maxima before it no longer hold
}

// A position's leaf changed: ancestors are raised when it rose (they bound their leaves from above); when it fell
// they stay, still bounds, lowered by the searches that find nothing under them. Positions not yet in the tree
// enter it with their leaf when a search needs them (build_tree).
void AfsQueue::set_leaf(int at) {
  suffix_from_ = std::max(suffix_from_, at + 1);
  if (at >= tree_built_) return;
  const double v = pos_[static_cast<std::size_t>(at)].leaf;
  std::size_t n = static_cast<std::size_t>(tree_n_ + at);
  const double old = tree_[n];
  tree_[n] = v;
  if (v > old) {
    for (n /= 2; n >= 1 && tree_[n] < v; n /= 2)
      tree_[n] = v;
  }
}

void AfsQueue::build_tree() {
  const int m = static_cast<int>(pos_.size());
  if (tree_built_ >= m) return;
  for (int p = tree_built_; p < m; ++p)
    tree_[static_cast<std::size_t>(tree_n_ + p)] = pos_[static_cast<std::size_t>(p)].leaf;
  std::size_t lo = static_cast<std::size_t>(tree_n_ + tree_built_);
  std::size_t hi = static_cast<std::size_t>(tree_n_ + m - 1);
  while (lo > 1) {
    lo /= 2;
    hi /= 2;
    for (std::size_t n = lo; n <= hi; ++n)
      tree_[n] = std::max(tree_[2 * n], tree_[2 * n + 1]);
  }
  tree_built_ = m;
  tree_used_ = std::max(tree_used_, m);
}

// first_above past its next position (q = from + 1 < positions).
int AfsQueue::first_above_far(int q, double thr) {
  const int m = static_cast<int>(pos_.size());
  // Suffix maxima answer "none" at once; rebuilt from the end down to q while that stays linear in the positions.
  if (suffix_from_ > q && suffix_work_ + (suffix_from_ - q) <= 4 * m + 64) {
    suffix_work_ += suffix_from_ - q;
    for (int p = suffix_from_ - 1; p >= q; --p)
      suffix_[static_cast<std::size_t>(p)] =
          std::max(pos_[static_cast<std::size_t>(p)].leaf, suffix_[static_cast<std::size_t>(p) + 1]);
    suffix_from_ = q;
  }
  if (suffix_from_ <= q && !(suffix_[static_cast<std::size_t>(q)] > thr)) return -1;
  build_tree();
  return tree_first(1, 0, tree_n_, q, thr);
}

int AfsQueue::tree_first(int node, int lo, int hi, int from, double thr) {
  if (hi <= from || !(tree_[static_cast<std::size_t>(node)] > thr)) return -1;
  if (hi - lo == 1) return lo;
  const int mid = (lo + hi) / 2;
  int r = tree_first(2 * node, lo, mid, from, thr);
  if (r >= 0) return r;
  r = tree_first(2 * node + 1, mid, hi, from, thr);
  if (r >= 0) return r;
  // Nothing above thr in here: a tighter bound (the children's, each searched or already at most thr).
  if (lo >= from) {
    tree_[static_cast<std::size_t>(node)] =
        std::max(tree_[2 * static_cast<std::size_t>(node)], tree_[2 * static_cast<std::size_t>(node) + 1]);
  }
  return -1;
}

// Continues the fold from position `from`: pushes each later candidate that takes over from the top.
void AfsQueue::extend(int from) {
  const int m = static_cast<int>(pos_.size());
  while (true) {
    int q = -1;
    if (stack_.empty()) {
      // No winner yet: the first candidate (none before first_cand_; candidates only become non-candidates).
      int p = std::max(from, first_cand_);
      while (p < m && !pos_[static_cast<std::size_t>(p)].cand())
        ++p;
      first_cand_ = p;
      q = p < m ? p : -1;
    } else {
      q = first_above(from, stack_.back().gain);
    }
    if (q < 0) return;
    stack_.push_back({q, pos_[static_cast<std::size_t>(q)].gain});
    from = q + 1;
  }
}

}  // namespace ringsched
