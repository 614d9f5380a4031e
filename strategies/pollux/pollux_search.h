// strategies/pollux/pollux_search.h — the local search of Pollux's problem (strategies/pollux/pollux_problem.h) from
// the inside: a candidate move and the search state with its incremental bookkeeping. Private to the pollux room:
// pollux_search.cpp implements it.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <iterator>
#include <limits>
#include <stdexcept>
#include <utility>
#include <vector>

#include "strategies/pollux/pollux_problem.h"

namespace ringsched {

// The best move found so far in one step of the search. A candidate replaces it only when strictly better, so the
// first of equal candidates (in the order the search looks) wins.
struct PolluxMove {
  enum class Kind { kNone, kAdd, kRemove, kSwap, kShift, kReset, kRealloc, kDonate };
  Kind kind = Kind::kNone;
  double delta = 0.0;          // change of the fitness' denominator; improving moves are negative
  std::size_t j = 0;           // the job that moves (for a swap: the one that gains)
  std::size_t i = 0;           // a swap's loser, a donation's donor
  int n = 0;                   // the node (a shift's source)
  int m = 0;                   // a shift's destination
  int keep = 0;                // a donation's GPUs left to i
  std::vector<int> row;        // a reallocation's or donation's new layout for j
  std::vector<int> donor_row;  // a donation's new layout for i

  bool offer(double d, Kind k, std::size_t job, int node = 0) {
    if (!(d < delta)) return false;
    delta = d;
    kind = k;
    j = job;
    n = node;
    return true;
  }
};

// The search state with its incremental bookkeeping.
struct PolluxProblem::Work {
  const PolluxProblem& p;
  State a;
  std::vector<int> k, r, ndiff;
  std::vector<double> cost;
  std::vector<int> used, owner;  // owner: the distributed job on a node, -1 none
  // Kept for the incremental search: each job's nodes and each node's jobs (now and in the base, ascending), the
  // nodes by free GPUs (all; those no distributed job owns) and the nodes with a free GPU (all; unowned) as bitsets.
  std::vector<std::vector<int>> nodes_of, holders, base_nodes, base_holders;
  std::vector<int> base_sum, base_count;  // each job's base GPUs and base nodes
  std::vector<int> by_free, by_free_unowned;
  std::vector<std::uint64_t> open, open_unowned;
  std::vector<std::vector<double>> low;  // each job's lowest_costs, filled when first needed (empty: not yet)

  [[nodiscard]] int free_gpus() const {
    int f = 0;
    for (std::size_t v = 1; v < by_free.size(); ++v)
      f += static_cast<int>(v) * by_free[v];
    return f;
  }

  // A lower bound on job j's reallocation cost change while at most `spare` GPUs are free besides its own.
  double realloc_bound(std::size_t j, int spare) {
    if (low[j].empty()) low[j] = p.lowest_costs(j);
    const int reach = std::min(spare + r[j], p.jobs_[j].max_replicas);
    return low[j][static_cast<std::size_t>(reach)] - cost[j];
  }

  Work(const PolluxProblem& problem, State start) : p(problem), a(std::move(start)) {
    const std::size_t J = p.jobs_.size();
    k.assign(J, 0);
    r.assign(J, 0);
    ndiff.assign(J, 0);
    cost.assign(J, 0.0);
    used.assign(static_cast<std::size_t>(p.nodes_), 0);
    owner.assign(static_cast<std::size_t>(p.nodes_), -1);
    for (std::size_t j = 0; j < J; ++j) {
      for (int n = 0; n < p.nodes_; ++n) {
        const int g = a[j][static_cast<std::size_t>(n)];
        k[j] += g > 0 ? 1 : 0;
        r[j] += g;
        used[static_cast<std::size_t>(n)] += g;
        ndiff[j] += g != p.jobs_[j].base[static_cast<std::size_t>(n)] ? 1 : 0;
      }
      if (k[j] >= 2) {
        for (int n = 0; n < p.nodes_; ++n)
          if (a[j][static_cast<std::size_t>(n)] > 0) owner[static_cast<std::size_t>(n)] = static_cast<int>(j);
      }
      cost[j] = p.job_cost(j, k[j], r[j], ndiff[j] > 0);
    }
    const auto N = static_cast<std::size_t>(p.nodes_);
    nodes_of.assign(J, {});
    holders.assign(N, {});
    base_nodes.assign(J, {});
    base_holders.assign(N, {});
    base_sum.assign(J, 0);
    base_count.assign(J, 0);
    for (std::size_t j = 0; j < J; ++j) {
      for (std::size_t n = 0; n < N; ++n) {
        if (a[j][n] > 0) {
          nodes_of[j].push_back(static_cast<int>(n));
          holders[n].push_back(static_cast<int>(j));
        }
        const int b = p.jobs_[j].base[n];
        if (b > 0) {
          base_nodes[j].push_back(static_cast<int>(n));
          base_holders[n].push_back(static_cast<int>(j));
        }
        base_sum[j] += b;
        base_count[j] += b > 0 ? 1 : 0;
      }
    }
    by_free.assign(static_cast<std::size_t>(p.cap_) + 1, 0);
    by_free_unowned.assign(static_cast<std::size_t>(p.cap_) + 1, 0);
    open.assign((N + 63) / 64, 0);
    open_unowned.assign((N + 63) / 64, 0);
    for (std::size_t n = 0; n < N; ++n)
      track(n, 1);
    low.assign(J, {});
  }

  // Adds (sign 1) or removes (-1) node n's entries in by_free, by_free_unowned and the bitsets.
  void track(std::size_t n, int sign) {
    const auto f = static_cast<std::size_t>(p.cap_ - used[n]);
    const bool unowned = owner[n] == -1;
    by_free[f] += sign;
    if (unowned) by_free_unowned[f] += sign;
    const std::uint64_t bit = std::uint64_t{1} << (n % 64);
    if (sign > 0 && f > 0) {
      open[n / 64] |= bit;
      if (unowned) open_unowned[n / 64] |= bit;
    } else {
      open[n / 64] &= ~bit;
      open_unowned[n / 64] &= ~bit;
    }
  }

  void set_owner(std::size_t n, int o) {
    if (owner[n] == o) return;
    track(n, -1);
    owner[n] = o;
    track(n, 1);
  }

  // The first node at or after `from` whose bit is set.
  static int next_bit(const std::vector<std::uint64_t>& bits, int from) {
    auto w = static_cast<std::size_t>(from) / 64;
    if (w >= bits.size()) return -1;
    std::uint64_t word = bits[w] & (~std::uint64_t{0} << (static_cast<std::size_t>(from) % 64));
    while (word == 0) {
      if (++w == bits.size()) return -1;
      word = bits[w];
    }
    return static_cast<int>(w * 64 + static_cast<std::size_t>(__builtin_ctzll(word)));
  }

  static void insert_sorted(std::vector<int>& v, int x) { v.insert(std::lower_bound(v.begin(), v.end(), x), x); }
  static void erase_sorted(std::vector<int>& v, int x) { v.erase(std::lower_bound(v.begin(), v.end(), x)); }

  [[nodiscard]] int diff_after(std::size_t j, int n, int g) const {
    const int base = p.jobs_[j].base[static_cast<std::size_t>(n)];
    const int before = a[j][static_cast<std::size_t>(n)];
    return ndiff[j] - (before != base ? 1 : 0) + (g != base ? 1 : 0);
  }

  // Whether job j may hold GPUs on all its nodes plus node n as a distributed job (ignoring job `ignore`).
  [[nodiscard]] bool owner_free(std::size_t j, int n, int ignore) const {
    const auto own = [&](int m) {
      const int o = owner[static_cast<std::size_t>(m)];
      return o == -1 || o == static_cast<int>(j) || o == ignore;
    };
    if (!own(n)) return false;
    for (int m : nodes_of[j])
      if (!own(m)) return false;
    return true;
  }

  // Cost change of giving job j one more GPU on node n (capacity not checked); +inf when not allowed.
  [[nodiscard]] double add_delta(std::size_t j, int n, int ignore_owner = -2) const {
    const int g = a[j][static_cast<std::size_t>(n)];
    if (r[j] + 1 > p.jobs_[j].max_replicas) return std::numeric_limits<double>::infinity();
    const int k2 = k[j] + (g == 0 ? 1 : 0);
    if (k2 > kMaxNodesPerJob) return std::numeric_limits<double>::infinity();
    if (k2 >= 2 && !owner_free(j, n, ignore_owner)) return std::numeric_limits<double>::infinity();
    return p.job_cost(j, k2, r[j] + 1, diff_after(j, n, g + 1) > 0) - cost[j];
  }

  [[nodiscard]] double remove_delta(std::size_t j, int n) const {
    const int g = a[j][static_cast<std::size_t>(n)];
    if (g <= 0) return std::numeric_limits<double>::infinity();
    const int k2 = k[j] - (g == 1 ? 1 : 0);
    return p.job_cost(j, k2, r[j] - 1, diff_after(j, n, g - 1) > 0) - cost[j];
  }

  void set(std::size_t j, int n, int g) {
    const auto un = static_cast<std::size_t>(n);
    int& cur = a[j][un];
    if (cur == g) return;
    ndiff[j] = diff_after(j, n, g);
    track(un, -1);
    used[un] += g - cur;
    track(un, 1);
    r[j] += g - cur;
    k[j] += (g > 0 ? 1 : 0) - (cur > 0 ? 1 : 0);
    if (cur == 0) {
      insert_sorted(nodes_of[j], n);
      insert_sorted(holders[un], static_cast<int>(j));
    } else if (g == 0) {
      erase_sorted(nodes_of[j], n);
      erase_sorted(holders[un], static_cast<int>(j));
    }
    cur = g;
  }

  // Recomputes job j's cost and the distributed owners of the nodes it touches.
  void settle(std::size_t j) {
    for (int m = 0; m < p.nodes_; ++m)
      settle_node(j, static_cast<std::size_t>(m));
    cost[j] = p.job_cost(j, k[j], r[j], ndiff[j] > 0);
  }

  void settle_node(std::size_t j, std::size_t m) {
    const bool holds = a[j][m] > 0;
    if (k[j] >= 2 && holds) {
      set_owner(m, static_cast<int>(j));
    } else if (owner[m] == static_cast<int>(j)) {
      set_owner(m, -1);
    }
  }

  [[nodiscard]] double total() const {
    double s = 0.0;
    for (double c : cost)
      s += c;
    return s;
  }

  // Job j's best new allocation on `avail` free GPUs per node (its own included): for each GPU count, the fewest
  // nodes that hold it (one node: the best fit, preferring the job's current layout; several: the nodes with the
  // most free GPUs among those no other distributed job uses). Sets row and returns the cost change (+inf if none).
  double best_reallocation(std::size_t j, const std::vector<int>& avail, std::vector<int>& row) const {
    const auto N = static_cast<std::size_t>(p.nodes_);
    const PolluxJobInput& in = p.jobs_[j];
    std::vector<int> multi;  // nodes eligible for a multi-node layout, most free first
    int single_best = 0;
    for (std::size_t n = 0; n < N; ++n) {
      single_best = std::max(single_best, avail[n]);
      const int o = owner[n];
      if (avail[n] > 0 && (o == -1 || o == static_cast<int>(j))) multi.push_back(static_cast<int>(n));
    }
    std::stable_sort(multi.begin(), multi.end(), [&](int x, int y) {
      if (avail[static_cast<std::size_t>(x)] != avail[static_cast<std::size_t>(y)]) {
        return avail[static_cast<std::size_t>(x)] > avail[static_cast<std::size_t>(y)];
      }
      return in.base[static_cast<std::size_t>(x)] > in.base[static_cast<std::size_t>(y)];
    });
    int base_r = 0;
    int base_k = 0;
    for (int g : in.base) {
      base_r += g;
      base_k += g > 0 ? 1 : 0;
    }
    double best = std::numeric_limits<double>::infinity();
    int best_r = 0;
    int best_k = 0;
    int prefix = 0;
    std::size_t taken = 0;
    for (int r2 = 1; r2 <= in.max_replicas; ++r2) {
      int k2 = 0;
      if (r2 <= single_best) {
        k2 = 1;
      } else {
        while (taken < multi.size() && prefix < r2 && static_cast<int>(taken) < kMaxNodesPerJob)
          prefix += avail[static_cast<std::size_t>(multi[taken++])];
        if (prefix < r2) break;
        k2 = static_cast<int>(taken);
        // The fewest of the sorted nodes that hold r2.
        int sum = 0;
        k2 = 0;
        while (sum < r2)
          sum += avail[static_cast<std::size_t>(multi[static_cast<std::size_t>(k2++)])];
      }
      // Unchanged when the job can keep exactly its current layout.
      const bool same = r2 == base_r && k2 == base_k && keeps_base(j, avail);
      const double c = p.job_cost(j, k2, r2, !same) - cost[j];
      if (c < best) {
        best = c;
        best_r = r2;
        best_k = k2;
      }
    }
    if (!(best < std::numeric_limits<double>::infinity())) return best;
    // Build the chosen layout.
    row.assign(N, 0);
    if (best_r == base_r && best_k == base_k && keeps_base(j, avail)) {
      row = in.base;
    } else if (best_k == 1 && best_r <= single_best) {
      int pick = -1;
      for (std::size_t n = 0; n < N; ++n) {
        if (avail[n] < best_r) continue;
        if (pick < 0 || avail[n] < avail[static_cast<std::size_t>(pick)]) pick = static_cast<int>(n);
      }
      row[static_cast<std::size_t>(pick)] = best_r;
    } else {
      int left = best_r;
      for (std::size_t t = 0; t < multi.size() && left > 0; ++t) {
        const auto n = static_cast<std::size_t>(multi[t]);
        row[n] = std::min(left, avail[n]);
        left -= row[n];
      }
    }
    return best;
  }

  // Whether job j's current layout fits in `avail` (it only needs its own GPUs back).
  [[nodiscard]] bool keeps_base(std::size_t j, const std::vector<int>& avail) const {
    const auto& b = p.jobs_[j].base;
    int k2 = 0;
    for (std::size_t n = 0; n < b.size(); ++n) {
      if (b[n] > avail[n]) return false;
      k2 += b[n] > 0 ? 1 : 0;
    }
    if (k2 >= 2) {
      for (std::size_t n = 0; n < b.size(); ++n) {
        const int o = owner[n];
        if (b[n] > 0 && o != -1 && o != static_cast<int>(j)) return false;
      }
    }
    return true;
  }

  // Free GPUs per node with job j's own released.
  [[nodiscard]] std::vector<int> avail_for(std::size_t j) const {
    std::vector<int> out(static_cast<std::size_t>(p.nodes_));
    for (std::size_t n = 0; n < out.size(); ++n)
      out[n] = p.cap_ - used[n] + a[j][n];
    return out;
  }

  // The candidate moves of one search step, in the order they are looked at.
  void consider_single(PolluxMove& mv) const;
  void consider_swaps(PolluxMove& mv) const;
  void consider_shifts(PolluxMove& mv) const;
  void consider_jumps(PolluxMove& mv) const;
  void consider_donations(PolluxMove& mv) const;
  [[nodiscard]] std::vector<int> kept_row(std::size_t i, int keep, int& nodes_kept) const;
  void apply(const PolluxMove& mv);

  // The same candidates, looked at incrementally: each finds the move the plain scan above would (the first of the
  // best) while evaluating only the moves that can differ (solve_reference() is the plain scan).
  void fast_single(PolluxMove& mv) const;
  void fast_swaps(PolluxMove& mv) const;
  void fast_shifts(PolluxMove& mv) const;
  void fast_jumps(PolluxMove& mv);
  void fast_donations(PolluxMove& mv);
  void complete(PolluxMove& mv) const;
  [[nodiscard]] double realloc_delta(std::size_t j) const;
  [[nodiscard]] double generic_add(std::size_t j) const;
  [[nodiscard]] bool owners_allow(std::size_t j, int ignore) const;

  void assign_row(std::size_t j, const std::vector<int>& row) {
    for (int n = 0; n < p.nodes_; ++n)
      set(j, n, row[static_cast<std::size_t>(n)]);
    settle(j);
  }
};

}  // namespace ringsched
