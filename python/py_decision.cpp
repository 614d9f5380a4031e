// python/py_decision.cpp — a Python strategy's decision read back and checked job by job: `{id: gpus}`,
// `{id: (gpu_type, gpus)}` or `{id: {"gpus": n, "gpu_type": t, "nodes": [...]}}` (docs/python.md), each error naming
// the strategy, the time and the job; then turned into the engine's Decision in one place (to_decision).
#include <algorithm>
#include <cstddef>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <vector>

#include "py_strategy.h"
#include "py_values.h"
#include "sim/engine/decision_check.h"

namespace ringsched::python {
namespace {

// What the decision gives one snapshot job: its GPUs, its pool (typed clusters; -1: none) and, when the strategy
// placed it, its GPUs per node.
struct PyAssignment {
  int gpus = 0;
  int pool = -1;
  std::vector<int> nodes;  // empty: not placed by the strategy
};

// The one place a read Python decision becomes the engine's Decision (one Assignment per job).
Decision to_decision(const std::vector<PyAssignment>& a, double wakeup_at) {
  Decision d;
  d.wakeup_at = wakeup_at;
  d.jobs.reserve(a.size());
  for (const PyAssignment& x : a)
    d.jobs.push_back(Assignment{x.gpus, x.pool < 0 ? 0 : x.pool, x.nodes});
  return d;
}

// Reads one decision entry for one job; `where` names the strategy and time, `job` the job.
class EntryReader {
 public:
  EntryReader(const Snapshot& s, const std::string& where) : s_(s), where_(where) {}

  [[noreturn]] void fail(const std::string& job, const std::string& what) const {
    throw std::runtime_error(where_ + ": " + job + ": " + what);
  }

  // value -> the job's assignment (starting from what it holds now).
  PyAssignment read(const py::handle& value, const JobView& v, const std::string& job) const {
    PyAssignment a;
    a.pool = v.gpus > 0 && !s_.pools.empty() ? v.pool : -1;
    py::handle gpus = value;
    py::handle type = py::none();
    py::handle nodes = py::none();
    if (py::isinstance<py::tuple>(value)) {
      const auto t = py::reinterpret_borrow<py::tuple>(value);
      if (t.size() != 2 || !py::isinstance<py::str>(t[0])) {
        fail(job, "the tuple " + short_repr(value) + " is not (gpu_type, gpus) (a GPU type name and a count)");
      }
      type = t[0];
      gpus = t[1];
    } else if (py::isinstance<py::dict>(value)) {
      const auto m = py::reinterpret_borrow<py::dict>(value);
      for (const auto kv : m) {
        const std::string key = py::isinstance<py::str>(kv.first) ? kv.first.cast<std::string>() : "";
        if (key != "gpus" && key != "gpu_type" && key != "nodes") {
          fail(job, "unknown key " + short_repr(kv.first) + " in " + short_repr(value) +
                        " (valid: \"gpus\", \"gpu_type\", \"nodes\")");
        }
      }
      if (!m.contains("gpus")) fail(job, short_repr(value) + " has no \"gpus\" (the GPU count)");
      gpus = m["gpus"];
      if (m.contains("gpu_type")) type = m["gpu_type"];
      if (m.contains("nodes")) nodes = m["nodes"];
    }
    a.gpus = read_count(gpus, v, job);
    if (!type.is_none()) a.pool = read_type(type, job);
    if (a.gpus > 0 && !s_.pools.empty()) {
      if (a.pool < 0 && s_.pools.size() == 1) a.pool = 0;
      if (a.pool < 0) {
        fail(job, "which GPU type? The job holds no GPUs and the cluster has " + std::to_string(s_.pools.size()) +
                      " (" + pool_type_names(s_.pools) + "): give (gpu_type, gpus) or {\"gpus\": n, \"gpu_type\": t}");
      }
      check_speed(v, a, job);
    }
    if (!nodes.is_none()) a.nodes = read_nodes(nodes, a.gpus, job);
    return a;
  }

 private:
  int read_count(const py::handle& h, const JobView& v, const std::string& job) const {
    long long w = 0;
    if (python_bool(h)) fail(job, "GPU count " + short_repr(h) + " is a bool, not an int");  // True would be 1
    if (!python_int(h, w)) {
      fail(job, "GPU count " + short_repr(h) +
                    " is not an int (a value is gpus, (gpu_type, gpus) or {\"gpus\": n, \"gpu_type\": t, "
                    "\"nodes\": [...]})");
    }
    if (w < 0 || (w > 0 && (w < v.pub->cls.min_gpus || w > v.pub->cls.max_gpus))) {
      fail(job, std::to_string(w) + " GPUs is outside its limits (0, or " + std::to_string(v.pub->cls.min_gpus) + ".." +
                    std::to_string(v.pub->cls.max_gpus) + ")");
    }
    return static_cast<int>(w);
  }

  int read_type(const py::handle& h, const std::string& job) const {
    if (!py::isinstance<py::str>(h)) fail(job, "gpu_type " + short_repr(h) + " is not a str (a GPU type name)");
    const auto type = h.cast<std::string>();
    if (s_.pools.empty()) {
      fail(job, "GPU type '" + type + "': this cluster has no GPU types (no cluster.pools); give {job_id: gpus}");
    }
    for (std::size_t p = 0; p < s_.pools.size(); ++p)
      if (s_.pools[p].gpu_type == type) return static_cast<int>(p);
    fail(job,
         "GPU type '" + type + "' is not a GPU type of this cluster (its types: " + pool_type_names(s_.pools) + ")");
  }

  // A type the job's class cannot run on (believed throughput 0; without beliefs the engine finds it at the start).
  void check_speed(const JobView& v, const PyAssignment& a, const std::string& job) const {
    if (v.belief == nullptr) return;
    const PoolInfo& p = s_.pools[static_cast<std::size_t>(a.pool)];
    const int nodes = (a.gpus + std::max(1, p.gpus_per_node) - 1) / std::max(1, p.gpus_per_node);
    if (!(v.belief->throughput_on(p.gpu_type, a.gpus, nodes) > 0.0)) {
      fail(job, "its class '" + v.pub->cls.name + "' has no speed on " + std::to_string(a.gpus) + " '" + p.gpu_type +
                    "' GPUs (believed throughput 0): choose another GPU type");
    }
  }

  std::vector<int> read_nodes(const py::handle& h, int gpus, const std::string& job) const {
    if (!s_.pools.empty()) {
      fail(job,
           "\"nodes\": placing jobs on nodes is not supported on a cluster with GPU types (each pool's "
           "placement policy places its jobs)");
    }
    if (s_.cluster == nullptr) {
      fail(job, "\"nodes\": this cluster places no jobs on nodes (give cluster.placement or a topology)");
    }
    const auto n = static_cast<std::size_t>(s_.cluster->nodes());
    if (!py::isinstance<py::list>(h) && !py::isinstance<py::tuple>(h)) {
      fail(job, "\"nodes\" " + short_repr(h) + " is not a list of GPUs per node (" + std::to_string(n) + " ints)");
    }
    const auto seq = py::reinterpret_borrow<py::sequence>(h);
    if (seq.size() != n) {
      fail(job, "\"nodes\" has " + std::to_string(seq.size()) + " entries; the cluster has " + std::to_string(n) +
                    " nodes (snapshot.nodes)");
    }
    std::vector<int> out(n, 0);
    long long sum = 0;
    for (std::size_t i = 0; i < n; ++i) {
      long long g = 0;
      if (!python_int(seq[i], g) || g < 0 || g > s_.gpus_per_node) {
        fail(job, "\"nodes\"[" + std::to_string(i) + "] " + short_repr(seq[i]) + " is not a GPU count 0.." +
                      std::to_string(s_.gpus_per_node));
      }
      out[i] = static_cast<int>(g);
      sum += g;
    }
    if (sum != gpus) {
      fail(job, "\"nodes\" places " + std::to_string(sum) + " GPUs, but the job gets " + std::to_string(gpus));
    }
    return out;
  }

  const Snapshot& s_;
  const std::string& where_;
};

// With placements: every other job keeps its GPUs per node; a job whose count changes must be placed too.
void fill_placements(const Snapshot& s, const std::string& where, std::vector<PyAssignment>& a) {
  const auto n = static_cast<std::size_t>(s.cluster->nodes());
  for (std::size_t k = 0; k < a.size(); ++k) {
    if (!a[k].nodes.empty()) continue;
    const JobView& v = s.jobs[k];
    if (a[k].gpus == 0) {
      a[k].nodes.assign(n, 0);
    } else if (a[k].gpus == v.gpus) {
      a[k].nodes = s.cluster->node_gpus(v.pub->id);
    } else {
      throw std::runtime_error(where + ": job " + std::to_string(v.pub->id) + " (" + v.pub->name +
                               "): its GPUs change without \"nodes\" while the decision places other jobs on nodes: "
                               "give \"nodes\" for every job whose GPUs change, or for none");
    }
  }
}

}  // namespace

void read_python_decision(const py::handle& counts, const Snapshot& s, const std::string& where,
                          const std::unordered_map<long long, std::size_t>& index, Decision& d) {
  const bool typed = !s.pools.empty();
  std::vector<PyAssignment> a(s.jobs.size());
  for (std::size_t k = 0; k < s.jobs.size(); ++k) {
    a[k].gpus = s.jobs[k].gpus;
    a[k].pool = typed && s.jobs[k].gpus > 0 ? s.jobs[k].pool : -1;
  }
  bool placed = false;
  if (!counts.is_none()) {
    const EntryReader reader(s, where);
    for (const auto item : counts.attr("items")()) {
      const auto kv = item.cast<py::tuple>();
      long long id = 0;
      if (!python_int(kv[0], id)) {
        throw std::runtime_error(where + ": key " + short_repr(kv[0]) + " is not a job id (an int)");
      }
      const auto it = index.find(id);
      if (it == index.end()) {
        throw std::runtime_error(where + ": job " + std::to_string(id) +
                                 " is not an active job (not in snapshot.jobs: not arrived yet, finished or unknown)");
      }
      const JobView& v = s.jobs[it->second];
      a[it->second] = reader.read(kv[1], v, "job " + std::to_string(id) + " (" + v.pub->name + ")");
      placed = placed || !a[it->second].nodes.empty();
    }
  }
  if (placed) fill_placements(s, where, a);
  d = to_decision(a, d.wakeup_at);
  // The engine's own check (sim/engine/decision_check.h): the same contract and words as for C++ strategies.
  try {
    check_decision(s, d, where + ":");
  } catch (const std::logic_error& e) {
    throw std::runtime_error(e.what());
  }
}

}  // namespace ringsched::python
