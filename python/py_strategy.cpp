// python/py_strategy.cpp — the Python strategy adapter: snapshot views for Python, the decision read back from the
// returned {job_id: gpus} and checked job by job, and registration by name.
#include "py_strategy.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <set>
#include <stdexcept>
#include <unordered_map>
#include <unordered_set>
#include <utility>

#include "models/input_error.h"
#include "py_control.h"
#include "py_values.h"
#include "sim/beliefs/belief_sources.h"
#include "strategies/registry.h"
#include "workloads/io/json_reader.h"

namespace ringsched::python {
namespace {

// A Python object owned from C++ code that may run without the GIL (worker threads) or after the interpreter is gone
// (the strategy registry is a static that outlives it at exit): released under the GIL, and not at all once Python has
// finalised.
class PyRef {
 public:
  explicit PyRef(const py::object& o) : p_(o.inc_ref().ptr()) {}
  PyRef(const PyRef&) = delete;
  PyRef& operator=(const PyRef&) = delete;
  ~PyRef() {
    // At exit the object is left to the interpreter (this thread may not take the GIL any more).
    if (p_ == nullptr || Py_IsInitialized() == 0 || interpreter_exiting()) return;
    const PyGILState_STATE g = PyGILState_Ensure();
    Py_DECREF(p_);
    PyGILState_Release(g);
  }
  [[nodiscard]] py::handle get() const { return p_; }

 private:
  PyObject* p_;
};

std::string time_text(double t) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.6g", t);
  return buf;
}

const char* state_name(JobState s) {
  switch (s) {
    case JobState::kWaiting:
      return "waiting";
    case JobState::kRunning:
      return "running";
    case JobState::kRestarting:
      return "restarting";
  }
  return "waiting";
}

// A Python exception as one message: its type, text and traceback (pybind11's what()).
std::string python_error(const py::error_already_set& e) {
  return e.what();
}

// The Python exception's type name (KeyboardInterrupt, SystemExit, ...).
std::string error_type(const py::error_already_set& e) {
  const py::handle t = e.type();
  return py::hasattr(t, "__name__") ? py::str(t.attr("__name__")).cast<std::string>() : "an exception";
}

class PyStrategy final : public Strategy {
 public:
  PyStrategy(std::string name, const py::object& instance, bool on_arrival)
      : name_(std::move(name)),
        instance_(std::make_unique<PyRef>(instance)),
        epoch_(stop_epoch()),
        on_arrival_(on_arrival) {}
  ~PyStrategy() override = default;
  PyStrategy(const PyStrategy&) = delete;
  PyStrategy& operator=(const PyStrategy&) = delete;

  [[nodiscard]] std::string name() const override { return name_; }

  Decision decide(const Snapshot& s) override {
    check_not_stopped(epoch_);  // stopped (Ctrl-C, exit): the run fails without touching Python
    py::gil_scoped_acquire gil;
    check_not_stopped(epoch_);
    const std::string where = "strategy '" + name_ + "' at t = " + time_text(s.now) + " s";
    auto active = std::make_shared<bool>(true);
    struct Expire {  // views refuse belief queries once decide() returned, whichever way it returned
      std::shared_ptr<bool> flag;
      ~Expire() { *flag = false; }
    } expire{active};
    std::unordered_map<long long, std::size_t> index;
    PySnapshot snap = make_snapshot(s, active, index);
    const py::list jobs = snap.jobs;
    const py::object snap_obj = py::cast(std::move(snap));
    if (on_arrival_) call_on_arrival(s, where, snap_obj, jobs);
    py::object out;
    try {
      out = instance_->get().attr("decide")(snap_obj);
    } catch (const py::error_already_set& e) {
      if (stops_experiment(e)) throw std::runtime_error(where + ": stopped by " + error_type(e) + " in decide()");
      throw std::runtime_error(where + ": decide() raised " + python_error(e));
    }
    Decision d;
    py::object counts = out;
    if (py::isinstance<py::tuple>(out)) {
      const auto t = out.cast<py::tuple>();
      if (t.size() != 2) {
        throw std::runtime_error(where + ": decide() returned a tuple of " + std::to_string(t.size()) +
                                 " items; expected {job_id: gpus} or ({job_id: gpus}, wakeup_s)");
      }
      counts = t[0];
      if (!t[1].is_none()) {
        double wake = 0.0;
        try {
          wake = t[1].cast<double>();
        } catch (const py::cast_error&) {
          throw std::runtime_error(where + ": wakeup_s must be a number of seconds or None, got " + short_repr(t[1]));
        }
        if (!(wake > s.now) || std::isnan(wake)) {
          throw std::runtime_error(where + ": wakeup_s " + short_repr(t[1]) +
                                   " is not in the future (a time in seconds after now_s, or None)");
        }
        d.wakeup_at = wake;
      }
    }
    if (!counts.is_none() && !py::hasattr(counts, "items")) {
      throw std::runtime_error(where + ": decide() returned " + short_repr(counts) +
                               "; expected a dict {job_id: gpus} (jobs not in it keep their GPUs), or None");
    }
    read_python_decision(counts, s, where, index, d);
    return d;
  }

  void on_finish(int job_id) override {
    if (on_arrival_) seen_.erase(job_id);
    check_not_stopped(epoch_);
    py::gil_scoped_acquire gil;
    check_not_stopped(epoch_);
    try {
      instance_->get().attr("on_finish")(job_id);
    } catch (const py::error_already_set& e) {
      if (stops_experiment(e)) {
        throw std::runtime_error("strategy '" + name_ + "': stopped by " + error_type(e) + " in on_finish(" +
                                 std::to_string(job_id) + ")");
      }
      throw std::runtime_error("strategy '" + name_ + "': on_finish(" + std::to_string(job_id) + ") raised " +
                               python_error(e));
    }
  }

 private:
  // The snapshot Python sees: every active job's view (index: job id -> snapshot position), the pools with their
  // free GPUs.
  PySnapshot make_snapshot(const Snapshot& s, const std::shared_ptr<bool>& active,
                           std::unordered_map<long long, std::size_t>& index) const {
    PySnapshot snap;
    snap.now_s = s.now;
    snap.total_gpus = s.total_gpus;
    snap.gpus_per_node = s.gpus_per_node;
    snap.nodes = s.cluster != nullptr ? s.cluster->nodes() : 0;
    std::vector<int> pool_used(s.pools.size(), 0);
    int used = 0;
    index.reserve(s.jobs.size());
    for (std::size_t i = 0; i < s.jobs.size(); ++i) {
      const JobView& v = s.jobs[i];
      py::object obj =
          py::cast(PyJob{});  // filled in place (a PyJob moved into Python upsets GCC 12's -Wmaybe-uninitialized)
      auto& j = obj.cast<PyJob&>();
      j.id = v.pub->id;
      j.name = v.pub->name;
      j.class_name = v.pub->cls.name;
      j.gpus = v.gpus;
      j.min_gpus = v.pub->cls.min_gpus;
      j.max_gpus = v.pub->cls.max_gpus;
      j.requested_gpus = v.pub->requested_gpus;
      j.arrival_s = v.pub->arrival;
      j.state = state_name(v.state);
      j.started = v.started;
      j.work_done = v.work_done;
      j.attained_gpu_seconds = v.attained_gpu_seconds;
      j.first_start_s = v.first_start;
      j.restarts = v.restarts;
      j.gpus_per_node = std::max(1, s.gpus_per_node);
      if (!s.pools.empty() && v.gpus > 0) {
        j.pool = v.pool;
        j.gpu_type = s.pools[static_cast<std::size_t>(v.pool)].gpu_type;
        pool_used[static_cast<std::size_t>(v.pool)] += v.gpus;
      }
      j.cluster = s.cluster;
      j.belief = v.belief;
      j.pools = s.pools;
      j.strategy = name_;
      j.active = active;
      used += v.gpus;
      index.emplace(j.id, i);
      snap.jobs.append(obj);
    }
    snap.free_gpus = s.total_gpus - used;
    py::tuple pools(s.pools.size());
    for (std::size_t p = 0; p < s.pools.size(); ++p) {
      const PoolInfo& info = s.pools[p];
      pools[p] = py::cast(PyPool{static_cast<int>(p), info.gpu_type, info.gpus, info.gpus - pool_used[p],
                                 std::max(1, info.gpus_per_node)});
    }
    snap.pools = std::move(pools);
    return snap;
  }

  // on_arrival(snapshot, job) for each job this instance has not shown before, in arrival order.
  void call_on_arrival(const Snapshot& s, const std::string& where, const py::object& snap, const py::list& jobs) {
    for (std::size_t i = 0; i < s.jobs.size(); ++i) {
      const int id = s.jobs[i].pub->id;
      if (!seen_.insert(id).second) continue;
      try {
        instance_->get().attr("on_arrival")(snap, jobs[i]);
      } catch (const py::error_already_set& e) {
        const std::string call = "on_arrival(job " + std::to_string(id) + ")";
        if (stops_experiment(e)) throw std::runtime_error(where + ": stopped by " + error_type(e) + " in " + call);
        throw std::runtime_error(where + ": " + call + " raised " + python_error(e));
      }
    }
  }

  std::string name_;
  std::unique_ptr<PyRef> instance_;
  std::uint64_t epoch_;           // stop_epoch() when the run began: a later stop request ends the run at its next call
  bool on_arrival_;               // the class defines on_arrival
  std::unordered_set<int> seen_;  // with on_arrival_: active jobs already shown
};

// Names registered from Python (the rest of the registry is built-ins, which Python may not replace).
std::set<std::string>& python_names() {
  static std::set<std::string> names;
  return names;
}

std::string class_name_of(const py::handle& cls) {
  std::string mod = py::hasattr(cls, "__module__") ? py::str(cls.attr("__module__")).cast<std::string>() : "";
  std::string q = py::hasattr(cls, "__qualname__") ? py::str(cls.attr("__qualname__")).cast<std::string>()
                                                   : py::repr(cls).cast<std::string>();
  return mod.empty() ? q : mod + "." + q;
}

}  // namespace

const Belief& PyJob::need_belief(const char* query) const {
  if (!active || !*active) {
    throw std::runtime_error("job " + std::to_string(id) + "." + query +
                             ": this view belongs to a decide() call that has returned (keep ids, not views)");
  }
  if (belief == nullptr) {
    throw std::runtime_error("job " + std::to_string(id) + "." + query + ": strategy '" + strategy +
                             "' runs without beliefs (\"beliefs\": \"none\"); give the strategy a belief source in "
                             "the config (e.g. \"beliefs\": \"history\") or default_beliefs= when registering it");
  }
  return *belief;
}

py::tuple PyJob::node_gpus() const {
  if (cluster == nullptr) return py::tuple();
  if (!active || !*active) {
    throw std::runtime_error(
        "job " + std::to_string(id) +
        ".node_gpus: this view belongs to a decide() call that has returned (keep ids, not views)");
  }
  const std::vector<int> counts = cluster->node_gpus(id);
  py::tuple t(counts.size());
  for (std::size_t n = 0; n < counts.size(); ++n)
    t[n] = py::int_(counts[n]);
  return t;
}

namespace {
void check_counts(int w, int nodes) {
  if (w < 1 || w > (1 << 20)) throw py::value_error("gpus must be 1..2^20, got " + std::to_string(w));
  if (nodes < 1 || nodes > w) {
    throw py::value_error("nodes must be 1..gpus (" + std::to_string(w) + "), got " + std::to_string(nodes));
  }
}
}  // namespace

std::string pool_type_names(std::span<const PoolInfo> pools) {
  std::string out;
  for (const PoolInfo& p : pools)
    out += (out.empty() ? "" : ", ") + p.gpu_type;
  return out;
}

int PyJob::query_pool(const py::object& type_arg, const char* query) const {
  const std::string at = "job " + std::to_string(id) + "." + query + ": ";
  if (type_arg.is_none()) {
    if (pools.empty()) return -1;
    if (pool >= 0) return pool;
    if (pools.size() == 1) return 0;
    throw py::value_error(
        at + "the job holds no GPUs, so give gpu_type= (this cluster's GPU types: " + pool_type_names(pools) + ")");
  }
  if (!py::isinstance<py::str>(type_arg)) {
    throw py::value_error(at + "gpu_type must be a str (a GPU type name) or None, got " + short_repr(type_arg));
  }
  const auto type = type_arg.cast<std::string>();
  if (pools.empty()) {
    throw py::value_error(at + "gpu_type '" + type + "': this cluster has no GPU types (no cluster.pools)");
  }
  for (std::size_t p = 0; p < pools.size(); ++p)
    if (pools[p].gpu_type == type) return static_cast<int>(p);
  throw py::value_error(at + "gpu_type '" + type +
                        "' is not a GPU type of this cluster (its types: " + pool_type_names(pools) + ")");
}

int PyJob::default_nodes(int w, int p) const {
  const int per = p < 0 ? gpus_per_node : std::max(1, pools[static_cast<std::size_t>(p)].gpus_per_node);
  return (w + per - 1) / per;
}

double PyJob::believed_throughput(int w, const py::object& nodes, const py::object& type_arg) const {
  const Belief& b = need_belief("believed_throughput");
  const int p = query_pool(type_arg, "believed_throughput");
  const int n = nodes.is_none() ? default_nodes(std::max(1, w), p) : nodes.cast<int>();
  check_counts(w, n);
  return p < 0 ? b.throughput(w, n) : b.throughput_on(pools[static_cast<std::size_t>(p)].gpu_type, w, n);
}

double PyJob::believed_total_work() const {
  return need_belief("believed_total_work").total_work();
}

double PyJob::believed_remaining_work() const {
  return std::max(1.0, need_belief("believed_remaining_work").total_work() - work_done);
}

double PyJob::believed_time(int w, const py::object& nodes, const py::object& type_arg) const {
  const double rate = believed_throughput(w, nodes, type_arg);
  return rate > 0.0 ? believed_remaining_work() / rate : std::numeric_limits<double>::infinity();
}

void bind_snapshot_types(py::module_& m) {
  py::class_<PyJob>(m, "Job",
                    "One active job during one decide() call (read-only). Public facts and progress are plain "
                    "attributes; the believed_* methods ask the strategy's beliefs (never the truth) and work only "
                    "while that decide() runs.")
      .def_readonly("id", &PyJob::id, "job id (the key of the decision dict)")
      .def_readonly("name", &PyJob::name)
      .def_readonly("class_name", &PyJob::class_name, "the job's class in the catalog")
      .def_readonly("gpus", &PyJob::gpus, "GPUs it holds now (0: waiting)")
      .def_readonly("min_gpus", &PyJob::min_gpus, "fewest GPUs it runs on (a count must be 0 or min..max)")
      .def_readonly("max_gpus", &PyJob::max_gpus, "most GPUs it runs on (capped by the cluster)")
      .def_readonly("requested_gpus", &PyJob::requested_gpus, "GPUs its trace row asked for (0: none)")
      .def_readonly("arrival_s", &PyJob::arrival_s)
      .def_readonly("state", &PyJob::state, "'waiting', 'running' or 'restarting'")
      .def_readonly("started", &PyJob::started, "has run before (a resize or resume costs a restart)")
      .def_readonly("work_done", &PyJob::work_done, "samples processed so far")
      .def_readonly("attained_gpu_seconds", &PyJob::attained_gpu_seconds)
      .def_readonly("first_start_s", &PyJob::first_start_s, "-1 if never started")
      .def_readonly("restarts", &PyJob::restarts)
      .def_property_readonly("has_beliefs", [](const PyJob& j) { return j.belief != nullptr; })
      .def_property_readonly(
          "pool", [](const PyJob& j) -> py::object { return j.pool < 0 ? py::object(py::none()) : py::int_(j.pool); },
          "index into snapshot.pools of the pool it holds GPUs in; None when it holds none or the cluster is untyped")
      .def_property_readonly(
          "gpu_type",
          [](const PyJob& j) -> py::object { return j.pool < 0 ? py::object(py::none()) : py::str(j.gpu_type); },
          "the GPU type it runs on (str); None when it holds no GPUs or the cluster is untyped")
      .def_property_readonly("node_gpus", &PyJob::node_gpus,
                             "with a placement policy: GPUs it holds on each node (snapshot.nodes entries); else ()")
      .def("believed_throughput", &PyJob::believed_throughput, py::arg("gpus"), py::arg("nodes") = py::none(),
           py::arg("gpu_type") = py::none(),
           "Believed samples per second on `gpus` GPUs of type `gpu_type` over `nodes` nodes (default: packed, "
           "ceil(gpus / gpus_per_node) of that type's pool). gpu_type None: the job's own type, or the only one.")
      .def("believed_total_work", &PyJob::believed_total_work, "Believed samples to convergence.")
      .def("believed_remaining_work", &PyJob::believed_remaining_work,
           "Believed samples left: believed total minus work_done, at least 1.")
      .def("believed_time", &PyJob::believed_time, py::arg("gpus"), py::arg("nodes") = py::none(),
           py::arg("gpu_type") = py::none(),
           "Believed seconds to finish on `gpus` GPUs: believed_remaining_work() / believed_throughput(gpus, nodes, "
           "gpu_type).")
      .def("__repr__", [](const PyJob& j) {
        return "<Job " + std::to_string(j.id) + " " + j.class_name + " " + j.state + " gpus=" + std::to_string(j.gpus) +
               (j.pool < 0 ? "" : " " + j.gpu_type) + " (" + std::to_string(j.min_gpus) + ".." +
               std::to_string(j.max_gpus) + ")>";
      });
  py::class_<PyPool>(m, "Pool", "One pool of identical GPUs of a cluster with GPU types (read-only).")
      .def_readonly("index", &PyPool::index, "its position in snapshot.pools (job.pool)")
      .def_readonly("gpu_type", &PyPool::gpu_type)
      .def_readonly("gpus", &PyPool::gpus, "GPUs in the pool")
      .def_readonly("free", &PyPool::free, "GPUs of the pool no job holds before this decision")
      .def_readonly("gpus_per_node", &PyPool::gpus_per_node)
      .def("__repr__", [](const PyPool& p) {
        return "<Pool " + std::to_string(p.index) + " " + p.gpu_type + " " + std::to_string(p.free) + "/" +
               std::to_string(p.gpus) + " GPUs free>";
      });
  py::class_<PySnapshot>(m, "Snapshot", "What decide() sees: the time, the GPUs and every active job (read-only).")
      .def_readonly("now_s", &PySnapshot::now_s)
      .def_readonly("total_gpus", &PySnapshot::total_gpus)
      .def_readonly("free_gpus", &PySnapshot::free_gpus, "GPUs no job holds before this decision")
      .def_readonly("gpus_per_node", &PySnapshot::gpus_per_node)
      .def_readonly("nodes", &PySnapshot::nodes,
                    "nodes of the cluster with a placement policy (the length of a decision's \"nodes\"); else 0")
      .def_readonly("jobs", &PySnapshot::jobs, "active jobs (arrived, unfinished) in arrival order")
      .def_readonly("pools", &PySnapshot::pools, "the GPU pools (Pool) of a cluster with GPU types; () untyped")
      .def("__repr__", [](const PySnapshot& s) {
        return "<Snapshot t=" + time_text(s.now_s) + " s, " + std::to_string(py::len(s.jobs)) + " jobs, " +
               std::to_string(s.free_gpus) + "/" + std::to_string(s.total_gpus) + " GPUs free>";
      });
}

void register_python_strategy(const std::string& name, const py::object& cls, const std::vector<std::string>& params,
                              const std::string& description, const std::string& default_beliefs, bool gpu_types,
                              bool on_arrival) {
  if (name.empty() || name.size() > 64) throw InputError("register_strategy: name must be 1..64 characters");
  if (name == "all") {
    throw InputError("register_strategy: 'all' is reserved (strategies='all' runs every registered strategy)");
  }
  if (cls.is_none() || PyCallable_Check(cls.ptr()) == 0) {
    throw InputError("register_strategy: cls must be a class (a subclass of ringsched.Strategy), got " +
                     short_repr(cls));
  }
  for (const char c : name) {
    if (!(std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_' || c == '-' || c == '.')) {
      throw InputError("register_strategy: name '" + name +
                       "' may hold only letters, digits, '_', '-' and '.' (it is written in configs and labels)");
    }
  }
  const auto names = strategy_names();
  if (std::find(names.begin(), names.end(), name) != names.end() && python_names().count(name) == 0) {
    throw InputError("register_strategy: '" + name + "' is a built-in strategy; choose another name");
  }
  const auto sources = belief_source_names();
  if (std::find(sources.begin(), sources.end(), default_beliefs) == sources.end()) {
    throw InputError("register_strategy: default_beliefs '" + default_beliefs +
                     "' is not a belief source (valid: " + join_names(sources) + ")");
  }
  std::set<std::string> seen;
  for (const auto& p : params) {
    if (p.empty() || !seen.insert(p).second) {
      throw InputError("register_strategy: params must be distinct non-empty names, got '" + p + "'");
    }
  }
  const std::string cls_name = class_name_of(cls);
  StrategyInfo info;
  info.name = name;
  info.description = (description.empty() ? std::string("A strategy written in Python.") : description) +
                     " (Python class " + cls_name + ")";
  info.default_beliefs = default_beliefs;
  info.params = params;
  info.gpu_types = gpu_types;
  auto ref = std::make_shared<PyRef>(cls);
  info.make = [name, cls_name, ref, on_arrival](const JsonReader& p) -> std::unique_ptr<Strategy> {
    if (interpreter_exiting()) throw std::runtime_error("stopped: the Python interpreter is exiting");
    py::gil_scoped_acquire gil;
    const py::object kwargs = py::module_::import("json").attr("loads")(p.value().dump());
    py::object instance;
    try {
      instance = ref->get()(**kwargs);
    } catch (const py::error_already_set& e) {
      // Ctrl-C while the config is checked (here on the caller's thread): KeyboardInterrupt, not a bad config.
      if (!e.matches(PyExc_Exception)) throw;
      const std::string at = p.path().empty() ? "params" : p.path();
      throw InputError(p.file() + ": " + at + ": strategy '" + name + "': " + cls_name + "(**params) raised " +
                       python_error(e));
    }
    if (!py::hasattr(instance, "decide") || PyCallable_Check(instance.attr("decide").ptr()) == 0) {
      throw InputError("strategy '" + name + "': " + cls_name + " has no decide(self, snapshot) method");
    }
    return std::make_unique<PyStrategy>(name, instance, on_arrival);
  };
  register_strategy(std::move(info));
  python_names().insert(name);
}

}  // namespace ringsched::python
