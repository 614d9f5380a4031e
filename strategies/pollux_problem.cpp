// strategies/pollux_problem.cpp — Pollux's fitness and a best-improvement local search over single-GPU moves.
#include "strategies/pollux_problem.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <iterator>
#include <limits>
#include <stdexcept>
#include <utility>

namespace ringsched {
namespace {

constexpr double kEpsShare = 1e-3;  // the artifact's + 1e-3 inside the power mean

// The best move found so far in one step of the search. A candidate replaces it only when strictly better, so the
// first of equal candidates (in the order the search looks) wins.
struct Move {
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

}  // namespace

PolluxProblem::PolluxProblem(std::vector<PolluxJobInput> jobs, int nodes, int gpus_per_node)
    : jobs_(std::move(jobs)), nodes_(nodes), cap_(gpus_per_node) {
  if (nodes_ < 1 || cap_ < 1) throw std::invalid_argument("pollux problem: needs nodes with GPUs");
  for (const auto& j : jobs_) {
    if (static_cast<int>(j.base.size()) != nodes_) throw std::invalid_argument("pollux problem: base of wrong size");
    if (j.min_replicas < 1 || j.max_replicas < j.min_replicas) {
      throw std::invalid_argument("pollux problem: a job needs 1 <= min GPUs <= max GPUs");
    }
    if (j.node_classes < 1) throw std::invalid_argument("pollux problem: node_classes must be >= 1");
  }
  scale_ = 1.0 / static_cast<double>(nodes_ * cap_) * static_cast<double>(nodes_);
  memo_.resize(jobs_.size());
}

double PolluxProblem::speedup(std::size_t j, int nodes, int replicas) const {
  const PolluxJobInput& in = jobs_[j];
  const int classes = std::min(in.node_classes, kMaxNodesPerJob);
  const int k = std::min(nodes, classes);
  if (k < 1 || replicas < 1 || replicas > in.max_replicas) return in.speedup(nodes, replicas);
  std::vector<double>& m = memo_[j];
  if (m.empty())
    m.assign(static_cast<std::size_t>(classes * in.max_replicas), std::numeric_limits<double>::quiet_NaN());
  double& v = m[static_cast<std::size_t>((k - 1) * in.max_replicas + replicas - 1)];
  if (std::isnan(v)) v = in.speedup(k, replicas);  // the same value as at `nodes` (node_classes' promise)
  return v;
}

// For each R = 0..max GPUs, the lowest cost job j can have on any layout of 1..R GPUs a reallocation may give it:
// at most 16 nodes, at least r / cap of them (no node holds more than cap GPUs), restarted unless it keeps its base
// GPU and node counts (the only case in which a reallocation counts it unchanged). The bound that lets jumps and
// donations skip a job (with R the GPUs it could reach: the free ones and its own).
std::vector<double> PolluxProblem::lowest_costs(std::size_t j) const {
  const PolluxJobInput& in = jobs_[j];
  int base_r = 0;
  int base_k = 0;
  for (int g : in.base) {
    base_r += g;
    base_k += g > 0 ? 1 : 0;
  }
  std::vector<double> out(static_cast<std::size_t>(in.max_replicas) + 1, std::numeric_limits<double>::infinity());
  double lo = std::numeric_limits<double>::infinity();
  for (int r = 1; r <= in.max_replicas; ++r) {
    if (r >= in.min_replicas) {
      const int k_lo = (r + cap_ - 1) / cap_;
      const int k_hi = std::min(r, kMaxNodesPerJob);
      for (int k = k_lo; k <= k_hi; ++k) {
        lo = std::min(lo, job_cost(j, k, r, true));
        if (k >= in.node_classes) break;  // the same speedup on more nodes
      }
      if (r == base_r && base_k <= kMaxNodesPerJob) lo = std::min(lo, job_cost(j, base_k, base_r, false));
    }
    out[static_cast<std::size_t>(r)] = lo;
  }
  return out;
}

double PolluxProblem::job_cost(std::size_t j, int nodes, int replicas, bool changed) const {
  double s = 0.0;
  if (replicas > 0 && replicas < jobs_[j].min_replicas) return std::numeric_limits<double>::infinity();  // not allowed
  if (replicas > 0) {
    s = speedup(j, nodes, replicas) * scale_;
    if (changed) s *= jobs_[j].restart_factor;
  }
  return 1.0 / (s + kEpsShare);
}

double PolluxProblem::fitness(const State& state) const {
  if (jobs_.empty()) return 0.0;
  double sum = 0.0;
  for (std::size_t j = 0; j < jobs_.size(); ++j) {
    int k = 0;
    int r = 0;
    for (int g : state[j]) {
      k += g > 0 ? 1 : 0;
      r += g;
    }
    sum += job_cost(j, k, r, state[j] != jobs_[j].base);
  }
  return static_cast<double>(jobs_.size()) / sum;
}

bool PolluxProblem::feasible(const State& state) const {
  if (state.size() != jobs_.size()) return false;
  std::vector<int> used(static_cast<std::size_t>(nodes_), 0);
  std::vector<int> distributed(static_cast<std::size_t>(nodes_), 0);
  for (std::size_t j = 0; j < jobs_.size(); ++j) {
    int k = 0;
    int r = 0;
    for (int n = 0; n < nodes_; ++n) {
      const int g = state[j][static_cast<std::size_t>(n)];
      if (g < 0) return false;
      used[static_cast<std::size_t>(n)] += g;
      k += g > 0 ? 1 : 0;
      r += g;
    }
    if (r > jobs_[j].max_replicas || (r > 0 && r < jobs_[j].min_replicas) || k > kMaxNodesPerJob) return false;
    if (k >= 2) {
      for (int n = 0; n < nodes_; ++n)
        if (state[j][static_cast<std::size_t>(n)] > 0) ++distributed[static_cast<std::size_t>(n)];
    }
  }
  for (int n = 0; n < nodes_; ++n) {
    if (used[static_cast<std::size_t>(n)] > cap_ || distributed[static_cast<std::size_t>(n)] > 1) return false;
  }
  return true;
}

// The current allocation made feasible as the artifact's repair does: a job's GPUs beyond its maximum are dropped
// from its last nodes; on each node, distributed jobs after the first and GPUs beyond the node's capacity go (jobs
// in priority order keep theirs).
PolluxProblem::State PolluxProblem::repaired_base() const {
  State s(jobs_.size());
  for (std::size_t j = 0; j < jobs_.size(); ++j) {
    s[j] = jobs_[j].base;
    int left = jobs_[j].max_replicas;
    int nodes = 0;
    for (auto& g : s[j]) {
      g = std::min(g, left);
      if (g > 0 && ++nodes > kMaxNodesPerJob) g = 0;
      left -= g;
    }
  }
  std::vector<int> used(static_cast<std::size_t>(nodes_), 0);
  std::vector<char> has_distributed(static_cast<std::size_t>(nodes_), 0);
  for (auto& row : s) {
    const int k = static_cast<int>(std::count_if(row.begin(), row.end(), [](int g) { return g > 0; }));
    for (int n = 0; n < nodes_; ++n) {
      int& g = row[static_cast<std::size_t>(n)];
      if (g == 0) continue;
      if (k >= 2 && has_distributed[static_cast<std::size_t>(n)]) g = 0;
      g = std::min(g, cap_ - used[static_cast<std::size_t>(n)]);
      used[static_cast<std::size_t>(n)] += g;
    }
    // Below the job's minimum it cannot run: it loses its GPUs.
    int r2 = 0;
    for (int g : row)
      r2 += g;
    if (r2 > 0 && r2 < jobs_[static_cast<std::size_t>(&row - s.data())].min_replicas) {
      for (int n = 0; n < nodes_; ++n)
        used[static_cast<std::size_t>(n)] -= row[static_cast<std::size_t>(n)];
      std::fill(row.begin(), row.end(), 0);
    }
    const int k2 = static_cast<int>(std::count_if(row.begin(), row.end(), [](int g) { return g > 0; }));
    if (k2 >= 2) {
      for (int n = 0; n < nodes_; ++n)
        if (row[static_cast<std::size_t>(n)] > 0) has_distributed[static_cast<std::size_t>(n)] = 1;
    }
  }
  return s;
}

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
  void consider_single(Move& mv) const;
  void consider_swaps(Move& mv) const;
  void consider_shifts(Move& mv) const;
  void consider_jumps(Move& mv) const;
  void consider_donations(Move& mv) const;
  [[nodiscard]] std::vector<int> kept_row(std::size_t i, int keep, int& nodes_kept) const;
  void apply(const Move& mv);

  // The same candidates, looked at incrementally: each finds the move the plain scan above would (the first of the
  // best) while evaluating only the moves that can differ (solve_reference() is the plain scan).
  void fast_single(Move& mv) const;
  void fast_swaps(Move& mv) const;
  void fast_shifts(Move& mv) const;
  void fast_jumps(Move& mv);
  void fast_donations(Move& mv);
  void complete(Move& mv) const;
  [[nodiscard]] double realloc_delta(std::size_t j) const;
  [[nodiscard]] double generic_add(std::size_t j) const;
  [[nodiscard]] bool owners_allow(std::size_t j, int ignore) const;

  void assign_row(std::size_t j, const std::vector<int>& row) {
    for (int n = 0; n < p.nodes_; ++n)
      set(j, n, row[static_cast<std::size_t>(n)]);
    settle(j);
  }
};

PolluxProblem::State PolluxProblem::solve() const {
  if (jobs_.empty()) return {};
  // From the current allocation (made feasible). A second start from the empty allocation finds the optimum of small
  // random instances more often (153 instead of 132 of 200, test_pollux_problem.cpp) but doubles a `pollux` run's
  // time without moving the artifact comparison beyond noise (docs/fidelity.md), so it is not done.
  return search(repaired_base(), false);
}

// Single GPUs added to or removed from a job on a node.
void PolluxProblem::Work::consider_single(Move& mv) const {
  for (std::size_t j = 0; j < p.jobs_.size(); ++j) {
    for (int n = 0; n < p.nodes_; ++n) {
      if (used[static_cast<std::size_t>(n)] < p.cap_) mv.offer(add_delta(j, n), Move::Kind::kAdd, j, n);
      mv.offer(remove_delta(j, n), Move::Kind::kRemove, j, n);
    }
  }
}

// A GPU handed from job i to job j on a full node.
void PolluxProblem::Work::consider_swaps(Move& mv) const {
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
        if (mv.offer(di + dj, Move::Kind::kSwap, j, n)) mv.i = i;
      }
    }
  }
}

// A GPU of job j moved from node n to node m it already uses (consolidation).
void PolluxProblem::Work::consider_shifts(Move& mv) const {
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
        if (mv.offer(p.job_cost(j, k2, r[j], nd > 0) - cost[j], Move::Kind::kShift, j, n)) mv.m = m;
      }
    }
  }
}

// A job's GPUs all released at once (leaving a poor allocation may need more than one step), then a job moved to its
// best allocation on the free GPUs (its own included): the restart penalty is paid once per changed job, so the
// improving change is often a jump that single-GPU moves cannot reach.
void PolluxProblem::Work::consider_jumps(Move& mv) const {
  const std::size_t J = p.jobs_.size();
  for (std::size_t j = 0; j < J; ++j) {
    if (r[j] == 0) continue;
    mv.offer(p.job_cost(j, 0, 0, false) - cost[j], Move::Kind::kReset, j);
  }
  for (std::size_t j = 0; j < J; ++j) {
    std::vector<int> row;
    const double d = best_reallocation(j, avail_for(j), row);
    if (mv.offer(d, Move::Kind::kRealloc, j)) mv.row = std::move(row);
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
void PolluxProblem::Work::consider_donations(Move& mv) const {
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
        if (mv.offer(di + dj, Move::Kind::kDonate, j)) {
          mv.i = i;
          mv.donor_row = irow;
          mv.row = std::move(row);
        }
      }
    }
  }
}

void PolluxProblem::Work::apply(const Move& mv) {
  const auto gpus = [&](std::size_t j, int n) { return a[j][static_cast<std::size_t>(n)]; };
  switch (mv.kind) {
    case Move::Kind::kRealloc:
      assign_row(mv.j, mv.row);
      break;
    case Move::Kind::kDonate:
      assign_row(mv.i, mv.donor_row);
      assign_row(mv.j, mv.row);
      break;
    case Move::Kind::kAdd:
      set(mv.j, mv.n, gpus(mv.j, mv.n) + 1);
      settle(mv.j);
      break;
    case Move::Kind::kRemove:
      set(mv.j, mv.n, gpus(mv.j, mv.n) - 1);
      settle(mv.j);
      break;
    case Move::Kind::kSwap:
      set(mv.i, mv.n, gpus(mv.i, mv.n) - 1);
      settle(mv.i);
      set(mv.j, mv.n, gpus(mv.j, mv.n) + 1);
      settle(mv.j);
      break;
    case Move::Kind::kShift:
      set(mv.j, mv.n, gpus(mv.j, mv.n) - 1);
      set(mv.j, mv.m, gpus(mv.j, mv.m) + 1);
      settle(mv.j);
      break;
    case Move::Kind::kReset:
      for (int n = 0; n < p.nodes_; ++n)
        set(mv.j, n, 0);
      settle(mv.j);
      break;
    case Move::Kind::kNone:
      break;
  }
}

// Single moves of job j: adding a GPU on a node j neither holds nor held in its base costs the same on every such node
// with a free GPU (unowned if j would span nodes), so only the first of those is looked at, with j's own and base
// nodes; removals are possible only on j's nodes.
void PolluxProblem::Work::fast_single(Move& mv) const {
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
      if (used[static_cast<std::size_t>(n)] < p.cap_) mv.offer(add_delta(j, n), Move::Kind::kAdd, j, n);
      mv.offer(remove_delta(j, n), Move::Kind::kRemove, j, n);
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
void PolluxProblem::Work::fast_swaps(Move& mv) const {
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
      if (best_j < J && mv.offer(best, Move::Kind::kSwap, best_j, n)) mv.i = i;
    }
  }
}

void PolluxProblem::Work::fast_shifts(Move& mv) const {
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
        if (mv.offer(p.job_cost(j, k2, r[j], nd > 0) - cost[j], Move::Kind::kShift, j, n)) mv.m = m;
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

void PolluxProblem::Work::fast_jumps(Move& mv) {
  const std::size_t J = p.jobs_.size();
  for (std::size_t j = 0; j < J; ++j) {
    if (r[j] == 0) continue;
    mv.offer(p.job_cost(j, 0, 0, false) - cost[j], Move::Kind::kReset, j);
  }
  // A job whose lowest possible cost on the GPUs it could reach cannot beat the best move so far is not looked at.
  const int spare = free_gpus();
  for (std::size_t j = 0; j < J; ++j)
    if (realloc_bound(j, spare) < mv.delta) mv.offer(realloc_delta(j), Move::Kind::kRealloc, j);
}

// Donations: each donor's GPUs released for the trial in place (and put back), and a taker j looked at only when
// its lowest possible cost on the GPUs it could reach then (lowest_costs: the free ones, its own and the donor's
// released ones; any layout) could beat the best move so far.
void PolluxProblem::Work::fast_donations(Move& mv) {
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
        if (mv.offer(di + realloc_delta(j), Move::Kind::kDonate, j)) {
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
void PolluxProblem::Work::complete(Move& mv) const {
  if (mv.kind == Move::Kind::kRealloc) {
    best_reallocation(mv.j, avail_for(mv.j), mv.row);
  } else if (mv.kind == Move::Kind::kDonate) {
    int ki = 0;
    mv.donor_row = kept_row(mv.i, mv.keep, ki);
    Work trial = *this;
    trial.assign_row(mv.i, mv.donor_row);
    trial.best_reallocation(mv.j, trial.avail_for(mv.j), mv.row);
  }
}

PolluxProblem::State PolluxProblem::solve_reference() const {
  if (jobs_.empty()) return {};
  return search(repaired_base(), true);
}

PolluxProblem::State PolluxProblem::search(State start, bool dense) const {
  Work w(*this, std::move(start));
  for (int iter = 0; iter < 100000; ++iter) {
    Move mv;
    mv.delta = -1e-12 * w.total();
    if (dense) {
      w.consider_single(mv);
      w.consider_swaps(mv);
      w.consider_shifts(mv);
      w.consider_jumps(mv);
      if (mv.kind == Move::Kind::kNone) w.consider_donations(mv);
    } else {
      w.fast_single(mv);
      w.fast_swaps(mv);
      w.fast_shifts(mv);
      w.fast_jumps(mv);
      if (mv.kind == Move::Kind::kNone) w.fast_donations(mv);
      w.complete(mv);
    }
    if (mv.kind == Move::Kind::kNone) break;
    w.apply(mv);
  }
  return w.a;
}

}  // namespace ringsched
