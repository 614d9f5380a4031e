// strategies/pollux/pollux_problem.cpp — Pollux's problem: speedups, costs, the fitness, feasibility and the repair of
// the current allocation (the local search that solves it: pollux_search.cpp).
#include "strategies/pollux/pollux_problem.h"

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

}  // namespace ringsched
