// strategies/pollux/pollux_search.cpp — Pollux's best-improvement local search over single-GPU moves: the search
// loop, the plain neighbourhoods (the reference scans) and the fast ones (the same moves found from the search
// state's incremental bookkeeping).
#include "strategies/pollux/pollux_search.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <iterator>
#include <limits>
#include <stdexcept>
#include <utility>

namespace ringsched {

PolluxProblem::State PolluxProblem::solve() const {
  if (jobs_.empty()) return {};
  // From the current allocation (made feasible). A second start from the empty allocation finds the optimum of small
  // random instances more often (153 instead of 132 of 200, test_pollux_problem.cpp) but doubles a `pollux` run's
  // time without moving the artifact comparison beyond noise (docs/fidelity.md), so it is not done.
  return search(repaired_base(), false);
}

// Single GPUs added to or removed from a job on a node.
void PolluxProblem::Work::consider_single(PolluxMove& mv) const {
  for (std::size_t j = 0; j < p.jobs_.size(); ++j) {
    for (int n = 0; n < p.nodes_; ++n) {
      if (used[static_cast<std::size_t>(n)] < p.cap_) mv.offer(add_delta(j, n), PolluxMove::Kind::kAdd, j, n);
      mv.offer(remove_delta(j, n), PolluxMove::Kind::kRemove, j, n);
    }
  }
}

// A GPU handed from job i to job j on a full node.
void PolluxProblem::Work::consider_swaps(PolluxMove& mv) const {
  const std::size_t J = p.jobs_.size();
  for (int n = 0; n < p.nodes_; ++n) {
    if (used[static_cast<std::size_t>(n)] < p.cap_) continue;
    for (std::size_t i = 0; i < J; ++i) {
      if (a[i][static_cast<std::size_t>(n)] == 0) continue;
      const double di = remove_delta(i, n);
      if (!(di < std::numeric_limits<double>::infinity())) continue;
      for (std::size_t j = 0; j < J; ++j) {
        if (j == i) continue;
        // i's GPU leaves node n first; if that ends i's claim to n as its distributed job, j may take it.
        const bool frees = a[i][static_cast<std::size_t>(n)] == 1 && k[i] >= 2;
        const double dj = add_delta(j, n, frees ? static_cast<int>(i) : -2);
        if (mv.offer(di + dj, PolluxMove::Kind::kSwap, j, n)) mv.i = i;
      }
    }
  }
}

// A GPU of job j moved from node n to node m it already uses (consolidation).
void PolluxProblem::Work::consider_shifts(PolluxMove& mv) const {
  for (std::size_t j = 0; j < p.jobs_.size(); ++j) {
    if (k[j] < 2) continue;
    for (int n = 0; n < p.nodes_; ++n) {
      if (a[j][static_cast<std::size_t>(n)] == 0) continue;
      for (int m = 0; m < p.nodes_; ++m) {
        if (m == n || a[j][static_cast<std::size_t>(m)] == 0 || used[static_cast<std::size_t>(m)] >= p.cap_) continue;
        const int gn = a[j][static_cast<std::size_t>(n)];
        const int k2 = k[j] - (gn == 1 ? 1 : 0);
        int nd = diff_after(j, n, gn - 1);
        const int base_m = p.jobs_[j].base[static_cast<std::size_t>(m)];
        const int gm = a[j][static_cast<std::size_t>(m)];
        nd += ((gm + 1) != base_m ? 1 : 0) - (gm != base_m ? 1 : 0);
        if (mv.offer(p.job_cost(j, k2, r[j], nd > 0) - cost[j], PolluxMove::Kind::kShift, j, n)) mv.m = m;
      }
    }
  }
}

// A job's GPUs all released at once (leaving a poor allocation may need more than one step), then a job moved to its
// best allocation on the free GPUs (its own included): the restart penalty is paid once per changed job, so the
// improving change is often a jump that single-GPU moves cannot reach.
void PolluxProblem::Work::consider_jumps(PolluxMove& mv) const {
  const std::size_t J = p.jobs_.size();
  for (std::size_t j = 0; j < J; ++j) {
    if (r[j] == 0) continue;
    mv.offer(p.job_cost(j, 0, 0, false) - cost[j], PolluxMove::Kind::kReset, j);
  }
  for (std::size_t j = 0; j < J; ++j) {
    std::vector<int> row;
    const double d = best_reallocation(j, avail_for(j), row);
    if (mv.offer(d, PolluxMove::Kind::kRealloc, j)) mv.row = std::move(row);
  }
}

// Job i cut to `keep` GPUs on its nodes holding the most of its GPUs; `nodes_kept` receives how many nodes it keeps.
std::vector<int> PolluxProblem::Work::kept_row(std::size_t i, int keep, int& nodes_kept) const {
  std::vector<int> irow(static_cast<std::size_t>(p.nodes_), 0);
  std::vector<int> nodes_i = nodes_of[i];  // ascending, as a scan of the nodes finds them
  std::stable_sort(nodes_i.begin(), nodes_i.end(),
                   [&](int x, int y) { return a[i][static_cast<std::size_t>(x)] > a[i][static_cast<std::size_t>(y)]; });
  int left = keep;
  nodes_kept = 0;
  for (int n : nodes_i) {
    if (left == 0) break;
    irow[static_cast<std::size_t>(n)] = std::min(left, a[i][static_cast<std::size_t>(n)]);
    left -= irow[static_cast<std::size_t>(n)];
    ++nodes_kept;
  }
  return irow;
}

// A job given up (to nothing, half or all but one of its GPUs) so that another gets its best allocation. Looked at
// only when no other move improves: it is the costliest neighbourhood.
void PolluxProblem::Work::consider_donations(PolluxMove& mv) const {
  const std::size_t J = p.jobs_.size();
  for (std::size_t i = 0; i < J; ++i) {
    if (r[i] == 0) continue;
    const int r_i = r[i];
    const int keeps[3] = {0, r_i / 2, r_i - 1};
    for (int t = 0; t < 3; ++t) {
      const int keep = keeps[t];
      if (keep >= r_i || (keep > 0 && keep < p.jobs_[i].min_replicas)) continue;
      if (std::find(keeps, keeps + t, keep) != keeps + t) continue;  // tried already
      int ki = 0;
      std::vector<int> irow = kept_row(i, keep, ki);
      int nd = 0;
      for (int n = 0; n < p.nodes_; ++n)
        nd += irow[static_cast<std::size_t>(n)] != p.jobs_[i].base[static_cast<std::size_t>(n)] ? 1 : 0;
      const double di = p.job_cost(i, ki, keep, nd > 0) - cost[i];
      // What the others could do with i's GPUs.
      Work trial = *this;
      trial.assign_row(i, irow);
      for (std::size_t j = 0; j < J; ++j) {
        if (j == i) continue;
        std::vector<int> row;
        const double dj = trial.best_reallocation(j, trial.avail_for(j), row);
        if (mv.offer(di + dj, PolluxMove::Kind::kDonate, j)) {
          mv.i = i;
          mv.donor_row = irow;
          mv.row = std::move(row);
        }
      }
    }
  }
}

void PolluxProblem::Work::apply(const PolluxMove& mv) {
  const auto gpus = [&](std::size_t j, int n) { return a[j][static_cast<std::size_t>(n)]; };
  switch (mv.kind) {
    case PolluxMove::Kind::kRealloc:
      assign_row(mv.j, mv.row);
      break;
    case PolluxMove::Kind::kDonate:
      assign_row(mv.i, mv.donor_row);
      assign_row(mv.j, mv.row);
      break;
    case PolluxMove::Kind::kAdd:
      set(mv.j, mv.n, gpus(mv.j, mv.n) + 1);
      settle(mv.j);
      break;
    case PolluxMove::Kind::kRemove:
      set(mv.j, mv.n, gpus(mv.j, mv.n) - 1);
      settle(mv.j);
      break;
    case PolluxMove::Kind::kSwap:
      set(mv.i, mv.n, gpus(mv.i, mv.n) - 1);
      settle(mv.i);
      set(mv.j, mv.n, gpus(mv.j, mv.n) + 1);
      settle(mv.j);
      break;
    case PolluxMove::Kind::kShift:
      set(mv.j, mv.n, gpus(mv.j, mv.n) - 1);
      set(mv.j, mv.m, gpus(mv.j, mv.m) + 1);
      settle(mv.j);
      break;
    case PolluxMove::Kind::kReset:
      for (int n = 0; n < p.nodes_; ++n)
        set(mv.j, n, 0);
      settle(mv.j);
      break;
    case PolluxMove::Kind::kNone:
      break;
  }
}

PolluxProblem::State PolluxProblem::solve_reference() const {
  if (jobs_.empty()) return {};
  return search(repaired_base(), true);
}

PolluxProblem::State PolluxProblem::search(State start, bool dense) const {
  Work w(*this, std::move(start));
  for (int iter = 0; iter < 100000; ++iter) {
    PolluxMove mv;
    mv.delta = -1e-12 * w.total();
    if (dense) {
      w.consider_single(mv);
      w.consider_swaps(mv);
      w.consider_shifts(mv);
      w.consider_jumps(mv);
      if (mv.kind == PolluxMove::Kind::kNone) w.consider_donations(mv);
    } else {
      w.fast_single(mv);
      w.fast_swaps(mv);
      w.fast_shifts(mv);
      w.fast_jumps(mv);
      if (mv.kind == PolluxMove::Kind::kNone) w.fast_donations(mv);
      w.complete(mv);
    }
    if (mv.kind == PolluxMove::Kind::kNone) break;
    w.apply(mv);
  }
  return w.a;
}

// Single moves of job j: adding a GPU on a node j neither holds nor held in its base costs the same on every such node
// with a free GPU (unowned if j would span nodes), so only the first of those is looked at, with j's own and base
// nodes; removals are possible only on j's nodes.
void PolluxProblem::Work::fast_single(PolluxMove& mv) const {
  std::vector<int> cand;
  for (std::size_t j = 0; j < p.jobs_.size(); ++j) {
    cand.clear();
    std::set_union(nodes_of[j].begin(), nodes_of[j].end(), base_nodes[j].begin(), base_nodes[j].end(),
                   std::back_inserter(cand));
    const std::vector<std::uint64_t>& bits = k[j] == 0 ? open : open_unowned;
    for (int n = next_bit(bits, 0); n >= 0; n = next_bit(bits, n + 1)) {
      const auto un = static_cast<std::size_t>(n);
      if (a[j][un] == 0 && p.jobs_[j].base[un] == 0) {
        cand.insert(std::lower_bound(cand.begin(), cand.end(), n), n);
        break;
      }
    }
    for (int n : cand) {
      if (used[static_cast<std::size_t>(n)] < p.cap_) mv.offer(add_delta(j, n), PolluxMove::Kind::kAdd, j, n);
      mv.offer(remove_delta(j, n), PolluxMove::Kind::kRemove, j, n);
    }
  }
}

// The cost change of one more GPU for job j on a node it neither holds nor held (the same on every such node).
double PolluxProblem::Work::generic_add(std::size_t j) const {
  if (r[j] + 1 > p.jobs_[j].max_replicas || k[j] + 1 > kMaxNodesPerJob) return std::numeric_limits<double>::infinity();
  return p.job_cost(j, k[j] + 1, r[j] + 1, true) - cost[j];
}

// Whether no job but j (or `ignore`) owns a node j holds.
bool PolluxProblem::Work::owners_allow(std::size_t j, int ignore) const {
  for (int m : nodes_of[j]) {
    const int o = owner[static_cast<std::size_t>(m)];
    if (o != -1 && o != static_cast<int>(j) && o != ignore) return false;
  }
  return true;
}

// Swaps on a full node n from job i: the taker j either holds or held GPUs on n (at most a few jobs: looked at one
// by one), or j's cost change is generic_add(j) whenever its owners allow it; those jobs are sorted by that change
// once per step, and only the head of the list (past the few on n) can be the best.
void PolluxProblem::Work::fast_swaps(PolluxMove& mv) const {
  const std::size_t J = p.jobs_.size();
  const double inf = std::numeric_limits<double>::infinity();
  // Jobs on no node (any free node takes them) and jobs on nodes no other job owns, by generic_add then index.
  std::vector<std::pair<double, std::size_t>> lone;
  std::vector<std::pair<double, std::size_t>> spread;
  for (std::size_t j = 0; j < J; ++j) {
    const double g = generic_add(j);
    if (!(g < inf)) continue;
    if (k[j] == 0) {
      lone.emplace_back(g, j);
    } else if (owners_allow(j, -2)) {
      spread.emplace_back(g, j);
    }
  }
  std::sort(lone.begin(), lone.end());
  std::sort(spread.begin(), spread.end());
  for (int n = 0; n < p.nodes_; ++n) {
    const auto un = static_cast<std::size_t>(n);
    if (used[un] < p.cap_) continue;
    for (int ii : holders[un]) {
      const auto i = static_cast<std::size_t>(ii);
      const double di = remove_delta(i, n);
      if (!(di < inf)) continue;
      const bool frees = a[i][un] == 1 && k[i] >= 2;
      const int ignore = frees ? ii : -2;
      double best = inf;
      std::size_t best_j = J;
      const auto take = [&](std::size_t j, double dj) {
        const double d = di + dj;
        if (d < best || (d == best && j < best_j)) {
          best = d;
          best_j = j;
        }
      };
      // Jobs on n or with base GPUs on n, and (when i's claim to its nodes lapses) the jobs sharing i's nodes.
      for (int j : holders[un])
        if (j != ii) take(static_cast<std::size_t>(j), add_delta(static_cast<std::size_t>(j), n, ignore));
      for (int j : base_holders[un])
        if (j != ii) take(static_cast<std::size_t>(j), add_delta(static_cast<std::size_t>(j), n, ignore));
      if (frees) {
        for (int m : nodes_of[i]) {
          for (int j : holders[static_cast<std::size_t>(m)])
            if (j != ii) take(static_cast<std::size_t>(j), add_delta(static_cast<std::size_t>(j), n, ignore));
        }
      }
      // The sorted lists: the first job off n at each value is the only one of that value that can win.
      const auto walk = [&](const std::vector<std::pair<double, std::size_t>>& list) {
        std::size_t t = 0;
        while (t < list.size()) {
          const auto [g, j] = list[t];
          if (di + g > best) break;
          if (j == i || a[j][un] > 0 || p.jobs_[j].base[un] > 0) {
            ++t;
            continue;
          }
          take(j, g);
          t = static_cast<std::size_t>(
              std::upper_bound(list.begin() + static_cast<std::ptrdiff_t>(t), list.end(), g,
                               [](double v, const std::pair<double, std::size_t>& e) { return v < e.first; }) -
              list.begin());
        }
      };
      walk(lone);
      const int o = owner[un];
      if (o == -1 || o == ignore) walk(spread);
      if (best_j < J && mv.offer(best, PolluxMove::Kind::kSwap, best_j, n)) mv.i = i;
    }
  }
}

void PolluxProblem::Work::fast_shifts(PolluxMove& mv) const {
  for (std::size_t j = 0; j < p.jobs_.size(); ++j) {
    if (k[j] < 2) continue;
    for (int n : nodes_of[j]) {
      for (int m : nodes_of[j]) {
        if (m == n || used[static_cast<std::size_t>(m)] >= p.cap_) continue;
        const int gn = a[j][static_cast<std::size_t>(n)];
        const int k2 = k[j] - (gn == 1 ? 1 : 0);
        int nd = diff_after(j, n, gn - 1);
        const int base_m = p.jobs_[j].base[static_cast<std::size_t>(m)];
        const int gm = a[j][static_cast<std::size_t>(m)];
        nd += ((gm + 1) != base_m ? 1 : 0) - (gm != base_m ? 1 : 0);
        if (mv.offer(p.job_cost(j, k2, r[j], nd > 0) - cost[j], PolluxMove::Kind::kShift, j, n)) mv.m = m;
      }
    }
  }
}

// best_reallocation's cost change without building the layout: it depends only on the largest free count and the
// free counts of the eligible nodes in decreasing order (16 at most), read from by_free and j's own nodes.
double PolluxProblem::Work::realloc_delta(std::size_t j) const {
  const PolluxJobInput& in = p.jobs_[j];
  const int cap = p.cap_;
  const double inf = std::numeric_limits<double>::infinity();
  thread_local std::vector<int> own_all;
  thread_local std::vector<int> own_unowned;
  own_all.assign(static_cast<std::size_t>(cap) + 1, 0);
  own_unowned.assign(static_cast<std::size_t>(cap) + 1, 0);
  int vals[kMaxNodesPerJob + 1];
  int nv = 0;
  int single_best = 0;
  for (int m : nodes_of[j]) {
    const auto um = static_cast<std::size_t>(m);
    const int f = cap - used[um];
    const int av = f + a[j][um];
    single_best = std::max(single_best, av);
    ++own_all[static_cast<std::size_t>(f)];
    const int o = owner[um];
    if (o == -1) ++own_unowned[static_cast<std::size_t>(f)];
    if ((o == -1 || o == static_cast<int>(j)) && nv < kMaxNodesPerJob) vals[nv++] = av;
  }
  for (int v = cap; v > single_best; --v) {
    if (by_free[static_cast<std::size_t>(v)] > own_all[static_cast<std::size_t>(v)]) {
      single_best = v;
      break;
    }
  }
  std::sort(vals, vals + nv, std::greater<>());
  // Prefix sums of the largest eligible free counts (j's own nodes merged with the unowned others).
  int prefix[kMaxNodesPerJob + 1];
  prefix[0] = 0;
  int len = 0;
  int oi = 0;
  int v = cap;
  int left_v = by_free_unowned[static_cast<std::size_t>(v)] - own_unowned[static_cast<std::size_t>(v)];
  while (len < kMaxNodesPerJob) {
    while (v > 0 && left_v == 0) {
      --v;
      if (v > 0) left_v = by_free_unowned[static_cast<std::size_t>(v)] - own_unowned[static_cast<std::size_t>(v)];
    }
    int x = 0;
    if (oi < nv && (v <= 0 || vals[oi] >= v)) {
      x = vals[oi++];
    } else if (v > 0) {
      x = v;
      --left_v;
    } else {
      break;
    }
    prefix[len + 1] = prefix[len] + x;
    ++len;
  }
  // keeps_base.
  bool keeps = true;
  for (int n : base_nodes[j]) {
    const auto un = static_cast<std::size_t>(n);
    if (in.base[un] > p.cap_ - used[un] + a[j][un]) keeps = false;
    const int o = owner[un];
    if (base_count[j] >= 2 && o != -1 && o != static_cast<int>(j)) keeps = false;
  }
  double best = inf;
  int t = 1;
  for (int r2 = 1; r2 <= in.max_replicas; ++r2) {
    int k2 = 0;
    if (r2 <= single_best) {
      k2 = 1;
    } else {
      if (prefix[len] < r2) break;
      while (prefix[t] < r2)
        ++t;
      k2 = t;
    }
    const bool same = r2 == base_sum[j] && k2 == base_count[j] && keeps;
    const double c = p.job_cost(j, k2, r2, !same) - cost[j];
    if (c < best) best = c;
  }
  return best;
}

void PolluxProblem::Work::fast_jumps(PolluxMove& mv) {
  const std::size_t J = p.jobs_.size();
  for (std::size_t j = 0; j < J; ++j) {
    if (r[j] == 0) continue;
    mv.offer(p.job_cost(j, 0, 0, false) - cost[j], PolluxMove::Kind::kReset, j);
  }
  // A job whose lowest possible cost on the GPUs it could reach cannot beat the best move so far is not looked at.
  const int spare = free_gpus();
  for (std::size_t j = 0; j < J; ++j)
    if (realloc_bound(j, spare) < mv.delta) mv.offer(realloc_delta(j), PolluxMove::Kind::kRealloc, j);
}

// Donations: each donor's GPUs released for the trial in place (and put back), and a taker j looked at only when
// its lowest possible cost on the GPUs it could reach then (lowest_costs: the free ones, its own and the donor's
// released ones; any layout) could beat the best move so far.
void PolluxProblem::Work::fast_donations(PolluxMove& mv) {
  const std::size_t J = p.jobs_.size();
  const double inf = std::numeric_limits<double>::infinity();
  const int spare = free_gpus();
  double low_gain = inf;  // the lowest cost change any job could reach (on every GPU)
  for (std::size_t j = 0; j < J; ++j)
    low_gain = std::min(low_gain, realloc_bound(j, p.nodes_ * p.cap_));
  for (std::size_t i = 0; i < J; ++i) {
    if (r[i] == 0) continue;
    const int r_i = r[i];
    const int keeps[3] = {0, r_i / 2, r_i - 1};
    for (int t = 0; t < 3; ++t) {
      const int keep = keeps[t];
      if (keep >= r_i || (keep > 0 && keep < p.jobs_[i].min_replicas)) continue;
      if (std::find(keeps, keeps + t, keep) != keeps + t) continue;  // tried already
      int ki = 0;
      const std::vector<int> irow = kept_row(i, keep, ki);
      int nd = 0;  // nodes where irow differs from the base: only i's nodes and base nodes can
      for (int n : nodes_of[i])
        nd += irow[static_cast<std::size_t>(n)] != p.jobs_[i].base[static_cast<std::size_t>(n)] ? 1 : 0;
      for (int n : base_nodes[i])
        nd += a[i][static_cast<std::size_t>(n)] == 0 ? 1 : 0;  // base > 0, irow 0 there
      const double di = p.job_cost(i, ki, keep, nd > 0) - cost[i];
      if (!(di + low_gain < mv.delta)) continue;  // no taker can make up for i's loss
      // i's layout for the trial; put back below exactly as it was.
      const std::vector<int> nodes = nodes_of[i];
      std::vector<int> old_gpus;
      std::vector<int> old_owner;
      for (int n : nodes) {
        old_gpus.push_back(a[i][static_cast<std::size_t>(n)]);
        old_owner.push_back(owner[static_cast<std::size_t>(n)]);
      }
      const double old_cost = cost[i];
      bool tried = false;
      for (std::size_t j = 0; j < J; ++j) {
        if (j == i || !(di + realloc_bound(j, spare + r_i - keep) < mv.delta)) continue;
        if (!tried) {
          tried = true;
          for (int n : nodes)
            set(i, n, irow[static_cast<std::size_t>(n)]);
          for (int n : nodes)
            settle_node(i, static_cast<std::size_t>(n));
          cost[i] = p.job_cost(i, k[i], r[i], ndiff[i] > 0);
        }
        if (mv.offer(di + realloc_delta(j), PolluxMove::Kind::kDonate, j)) {
          mv.i = i;
          mv.keep = keep;
        }
      }
      if (tried) {
        for (std::size_t x = 0; x < nodes.size(); ++x)
          set(i, nodes[x], old_gpus[x]);
        for (std::size_t x = 0; x < nodes.size(); ++x)
          set_owner(static_cast<std::size_t>(nodes[x]), old_owner[x]);
        cost[i] = old_cost;
      }
    }
  }
}

// The layouts of the chosen reallocation or donation, built as the plain scan builds them.
void PolluxProblem::Work::complete(PolluxMove& mv) const {
  if (mv.kind == PolluxMove::Kind::kRealloc) {
    best_reallocation(mv.j, avail_for(mv.j), mv.row);
  } else if (mv.kind == PolluxMove::Kind::kDonate) {
    int ki = 0;
    mv.donor_row = kept_row(mv.i, mv.keep, ki);
    Work trial = *this;
    trial.assign_row(mv.i, mv.donor_row);
    trial.best_reallocation(mv.j, trial.avail_for(mv.j), mv.row);
  }
}

}  // namespace ringsched
