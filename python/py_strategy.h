// python/py_strategy.h — strategies written in Python: the read-only snapshot a Python `decide(snapshot)` sees
// (PySnapshot, PyJob, PyPool on clusters with GPU types), and the adapter that registers a Python class as a strategy
// by name (register_python_strategy) so that configs run it like a built-in, its decisions checked with errors that
// name the strategy, the time and the job (py_decision.cpp; docs/python.md).
#pragma once

#include <memory>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

#include <pybind11/pybind11.h>

#include "strategies/strategy.h"

namespace ringsched::python {

namespace py = pybind11;

// One active job as Python sees it during one decide(): public facts and progress copied, beliefs read through the
// job's Belief while the decision lasts (a view kept past it refuses belief queries instead of reading freed memory).
struct PyJob {
  int id = 0;
  std::string name;
  std::string class_name;
  int gpus = 0;
  int min_gpus = 1;
  int max_gpus = 1;
  int requested_gpus = 0;
  double arrival_s = 0.0;
  std::string state;  // "waiting", "running" or "restarting"
  bool started = false;
  double work_done = 0.0;
  double attained_gpu_seconds = 0.0;
  double first_start_s = -1.0;
  int restarts = 0;
  int gpus_per_node = 1;
  int pool = -1;         // typed clusters: the pool it holds GPUs in (index into snapshot.pools); -1: none
  std::string gpu_type;  // that pool's GPU type; empty: none
  const ClusterView* cluster = nullptr;  // with a placement policy (valid while `active`): node_gpus()
  const Belief* belief = nullptr;
  std::span<const PoolInfo> pools;     // the cluster's pools (valid while `active`)
  std::string strategy;                // for messages
  std::shared_ptr<const bool> active;  // true while the decide() that made this view runs

  [[nodiscard]] const Belief& need_belief(const char* query) const;
  // GPUs it holds on each node with a placement policy (asked while the decide() runs), else ().
  [[nodiscard]] py::tuple node_gpus() const;
  // The pool a belief query is about: gpu_type's (None: the job's own pool, or the only pool); -1 on an untyped
  // cluster. ValueError naming an unknown type and the cluster's types.
  [[nodiscard]] int query_pool(const py::object& type_arg, const char* query) const;
  // Packed nodes for w GPUs in `pool` (-1: the untyped cluster's gpus_per_node).
  [[nodiscard]] int default_nodes(int w, int pool) const;
  [[nodiscard]] double believed_throughput(int w, const py::object& nodes, const py::object& type_arg) const;
  [[nodiscard]] double believed_total_work() const;
  [[nodiscard]] double believed_remaining_work() const;
  [[nodiscard]] double believed_time(int w, const py::object& nodes, const py::object& type_arg) const;
};

// One pool of a typed cluster as Python sees it (snapshot.pools).
struct PyPool {
  int index = 0;
  std::string gpu_type;
  int gpus = 0;
  int free = 0;  // GPUs of the pool no job holds before this decision
  int gpus_per_node = 1;
};

// What decide(snapshot) receives.
struct PySnapshot {
  double now_s = 0.0;
  int total_gpus = 0;
  int free_gpus = 0;
  int gpus_per_node = 1;
  int nodes = 0;    // with a placement policy: the cluster's nodes (the length of a decision's "nodes"); else 0
  py::list jobs;    // PyJob, in arrival order
  py::tuple pools;  // PyPool, in config order; empty on the untyped cluster
};

// "slow, fast": the cluster's GPU types, for messages.
std::string pool_type_names(std::span<const PoolInfo> pools);

// decide()'s return value (the dict part) read into a Decision for snapshot `s`, every job checked: errors are
// std::runtime_error starting with `where` (strategy and time) and naming the job (py_decision.cpp). Jobs not in
// the dict keep their GPUs; `index` maps job ids to snapshot positions; d's wakeup_at is left as it is.
void read_python_decision(const py::handle& counts, const Snapshot& s, const std::string& where,
                          const std::unordered_map<long long, std::size_t>& index, Decision& d);

// The Python classes Snapshot and Job (read-only).
void bind_snapshot_types(py::module_& m);

// Registers `cls` (a subclass of ringsched.Strategy) as strategy `name`: each replicate builds `cls(**params)` from
// the config's params (only keys in `params`), and the engine calls its decide(snapshot), and on_arrival(snapshot,
// job) first for each job it has not shown before when `on_arrival`. `gpu_types`: the class chooses GPU types, so
// configs with cluster.pools may run it. Throws InputError for a bad name (empty, not [A-Za-z0-9_.-], or a
// built-in's) or an unknown default belief source.
void register_python_strategy(const std::string& name, const py::object& cls, const std::vector<std::string>& params,
                              const std::string& description, const std::string& default_beliefs, bool gpu_types,
                              bool on_arrival);

}  // namespace ringsched::python
