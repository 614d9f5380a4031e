// python/py_strategy.h — strategies written in Python: the read-only snapshot a Python `decide(snapshot)` sees
// (PySnapshot, PyJob), and the adapter that registers a Python class as a strategy by name (register_python_strategy)
// so that configs run it like a built-in, its decisions checked with errors that name the strategy, the time and
// the job (docs/python.md).
#pragma once

#include <memory>
#include <string>
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
  const Belief* belief = nullptr;
  std::string strategy;                // for messages
  std::shared_ptr<const bool> active;  // true while the decide() that made this view runs

  [[nodiscard]] const Belief& need_belief(const char* query) const;
  [[nodiscard]] int default_nodes(int w) const { return (w + gpus_per_node - 1) / gpus_per_node; }
  [[nodiscard]] double believed_throughput(int w, int nodes) const;
  [[nodiscard]] double believed_total_work() const;
  [[nodiscard]] double believed_remaining_work() const;
  [[nodiscard]] double believed_time(int w, int nodes) const;
};

// What decide(snapshot) receives.
struct PySnapshot {
  double now_s = 0.0;
  int total_gpus = 0;
  int free_gpus = 0;
  int gpus_per_node = 1;
  py::list jobs;  // PyJob, in arrival order
};

// The Python classes Snapshot and Job (read-only).
void bind_snapshot_types(py::module_& m);

// Registers `cls` (a subclass of ringsched.Strategy) as strategy `name`: each replicate builds `cls(**params)` from
// the config's params (only keys in `params`), and the engine calls its decide(snapshot). Throws InputError for a bad
// name (empty, not [A-Za-z0-9_.-], or a built-in's) or an unknown default belief source.
void register_python_strategy(const std::string& name, const py::object& cls, const std::vector<std::string>& params,
                              const std::string& description, const std::string& default_beliefs);

}  // namespace ringsched::python
