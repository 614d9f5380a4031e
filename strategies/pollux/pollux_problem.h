// strategies/pollux/pollux_problem.h — the allocation problem Pollux (OSDI'21) solves every round, as its artifact
// defines it (pollux.py Problem), and ringsched's optimiser for it. A state gives each job a number of GPUs on each
// node. Fitness (maximised): the power mean with p = -1 of each job's scaled speedup + 1e-3, where the speedup is the
// job's goodput on (its nodes, its GPUs) relative to its goodput at a fair share, scaled by (1 / cluster GPUs) x
// nodes, and multiplied by max(age - 30 restarts, 0) / (age + 30) when the job's GPUs change (a restart). Limits: a
// node's GPUs, each job's min and max GPUs and at most 16 nodes, at most one job spanning several nodes on any node.
// The artifact searches with a genetic algorithm (NSGA-II, 100 x 100); ringsched uses a deterministic local search
// on the same fitness (docs/fidelity.md compares both). solve() runs it incrementally (each step looks only at the
// nodes and jobs a move can differ on, and skips donations a proved bound rules out); solve_reference() runs the
// plain search over every job and node, which solve() must match move for move (test_pollux_problem.cpp).
#pragma once

#include <cstddef>
#include <functional>
#include <vector>

namespace ringsched {

struct PolluxJobInput {
  // Speedup of the job on `nodes` nodes with `replicas` GPUs (replicas > 0), relative to its fair share.
  std::function<double(int nodes, int replicas)> speedup;
  int max_replicas = 1;
  int min_replicas = 1;         // a job runs on none or on min..max GPUs (the class's minimum)
  double restart_factor = 1.0;  // multiplies the speedup when the job's GPUs change
  std::vector<int> base;        // GPUs per node now (size: nodes)
  // A promise: speedup(k, r) == speedup(min(k, node_classes), r) for every k >= 1 (2: the model tells one node from
  // several and nothing more; 1: the node count does not matter). The optimiser then evaluates and bounds fewer
  // speedups; the default (16, the most nodes a job may span) promises nothing.
  int node_classes = 16;
};

class PolluxProblem {
 public:
  // Jobs in priority order (the artifact sorts by attained service, then arrival): earlier jobs win ties.
  PolluxProblem(std::vector<PolluxJobInput> jobs, int nodes, int gpus_per_node);

  using State = std::vector<std::vector<int>>;  // [job][node]

  // The fitness of a state (no feasibility check).
  [[nodiscard]] double fitness(const State& state) const;
  // Whether a state respects every limit.
  [[nodiscard]] bool feasible(const State& state) const;
  // A local optimum of the fitness reached from the current allocation (made feasible) by single-GPU moves: add,
  // remove, hand a GPU on a node from one job to another, move a GPU of a job to another node it uses, and reset a
  // job to its current allocation or to none; best improving move first.
  [[nodiscard]] State solve() const;
  // The same search without its incremental bookkeeping and bounds (every job x node x move each step): the
  // reference solve() is tested against; the same state, bit for bit.
  [[nodiscard]] State solve_reference() const;

  static constexpr int kMaxNodesPerJob = 16;

 private:
  struct Work;
  [[nodiscard]] double speedup(std::size_t j, int nodes, int replicas) const;
  [[nodiscard]] double job_cost(std::size_t j, int nodes, int replicas, bool changed) const;
  [[nodiscard]] std::vector<double> lowest_costs(std::size_t j) const;
  [[nodiscard]] State repaired_base() const;
  [[nodiscard]] State search(State start, bool dense) const;

  std::vector<PolluxJobInput> jobs_;
  int nodes_;
  int cap_;
  double scale_;  // (1 / cluster GPUs) x nodes
  // Each job's speedups by (min(nodes, node_classes), replicas), filled as they are asked for (NaN: not yet).
  mutable std::vector<std::vector<double>> memo_;
};

}  // namespace ringsched
