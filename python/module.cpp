// python/module.cpp — the C++ side of the Python package `ringsched` (module `ringsched._core`): run a config and
// keep its results (the same summary.json, jobs.csv, events.csv and tables as `ringsched simulate`), validate a
// config, list strategies, fit a speed model, and register Python strategies. The Python-facing API (keyword
// arguments, DataFrames, the Strategy base class) is ringsched/__init__.py; docs/python.md documents both.
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include "models/input_error.h"
#include "py_control.h"
#include "py_strategy.h"
#include "py_values.h"
#include "sim/cli/run_options.h"
#include "sim/experiments/atomic_file.h"
#include "sim/experiments/belief_checks.h"
#include "sim/experiments/breakdown_report.h"
#include "sim/experiments/network_report.h"
#include "sim/experiments/placement_report.h"
#include "sim/experiments/report.h"
#include "sim/experiments/runner.h"
#include "sim/fitting/fit_command.h"
#include "strategies/registry.h"
#include "workloads/io/json_reader.h"

namespace py = pybind11;

namespace ringsched::python {
namespace {

// A finished experiment: its config and results, rendered on demand exactly as the command line renders them.
class PyResult {
 public:
  PyResult(std::shared_ptr<const ExperimentConfig> cfg, std::shared_ptr<const ExperimentResult> res)
      : cfg_(std::move(cfg)), res_(std::move(res)) {}

  [[nodiscard]] std::string summary_json_text() const {
    return summary_json(*cfg_, *res_).dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
  }
  [[nodiscard]] std::string jobs() const { return jobs_csv(*cfg_, *res_); }
  [[nodiscard]] std::string events() const { return events_csv(*cfg_, *res_); }
  [[nodiscard]] std::string table(const std::string& view, const std::string& format, bool reports) const {
    const Format f = parse_format(format);
    if (view != "summary" && view != "table3") {
      throw InputError("table: view must be 'summary' or 'table3', got '" + view + "'");
    }
    std::string out = view == "table3" ? render_table3(*cfg_, *res_, f) : render_summary(*cfg_, *res_, f);
    if (reports) {
      out += render_belief_report(*cfg_, *res_, f);
      if (view == "summary") out += render_placement_report(*cfg_, *res_, f) + render_network_report(*cfg_, *res_, f);
    }
    return out;
  }
  [[nodiscard]] int failed() const { return failed_runs(*res_); }
  [[nodiscard]] std::string failures() const { return describe_failures(*cfg_, *res_); }
  [[nodiscard]] std::vector<std::string> warnings() const {
    return experiment_warnings(*cfg_, *res_, trace_work_check(*cfg_));
  }
  // The files `ringsched simulate --out DIR` writes, all at once (the folder changes only when everything is written).
  void write(const std::string& dir, bool force) const {
    path_keyword(dir, "out_dir");
    if (failed() > 0) {
      throw std::runtime_error(std::to_string(failed()) + " run(s) failed: nothing written to " + dir +
                               " (their cells would be empty)");
    }
    OutputLock lock(dir);  // a second writer of `dir` is refused at once, as on the command line
    check_earlier_results(dir, force);
    check_output_dir(dir);  // free space, no folder where an output file goes
    StagedOutput staged(dir);
    staged.replace(output_file_names());
    write_outputs(staged, *cfg_, *res_);
    write_placement_outputs(staged, *cfg_, *res_);
    write_network_outputs(staged, *cfg_, *res_);
    write_breakdown_outputs(staged, *cfg_, *res_);
    staged.commit();
  }

 private:
  std::shared_ptr<const ExperimentConfig> cfg_;
  std::shared_ptr<const ExperimentResult> res_;
};

// The run options from Python's keywords, checked as the command line checks its flags (any Python value: a wrong
// type or a number out of range is an InputError naming the keyword, never a pybind11 casting error).
cli::RunOptions run_options(const py::object& seeds, const py::object& jobs, const py::object& restart_cost,
                            const std::string& strategies, const py::object& threads, bool optimality_gap) {
  cli::RunOptions o;
  if (!seeds.is_none()) o.seeds = static_cast<int>(int_keyword(seeds, "seeds", 1, 100000));
  if (!jobs.is_none()) o.jobs = static_cast<int>(int_keyword(jobs, "jobs", 1, 10000000));
  if (!restart_cost.is_none())
    o.restart_cost = number_keyword(restart_cost, "restart_cost", 0.0, 86400.0, "0..86400 s");
  o.threads = static_cast<int>(int_keyword(threads, "threads", 0, 4096, " (0: all cores)"));
  o.strategies = strategies;
  o.optimality_gap = optimality_gap;
  o.quiet = true;
  return o;
}

// config_text non-empty: the config as JSON text (from a dict), named `origin`, relative paths from base_dir;
// otherwise the file `path`.
ExperimentConfig load_config(const std::string& path, const std::string& config_text, const std::string& origin,
                             const std::string& base_dir, const cli::RunOptions& o) {
  nlohmann::json doc = config_text.empty() ? read_json_file(path) : parse_json_text(config_text, origin);
  cli::apply_run_options(doc, o);
  return config_text.empty() ? parse_experiment(doc, path, std::filesystem::path(path).parent_path().string())
                             : parse_experiment(doc, origin, base_dir);
}

PyResult py_simulate(const std::string& path, const std::string& config_text, const std::string& origin,
                     const std::string& base_dir, const py::object& seeds, const py::object& jobs,
                     const py::object& restart_cost, const std::string& strategies, const py::object& threads,
                     bool optimality_gap) {
  path_keyword(path, "config");
  path_keyword(base_dir, "base_dir");
  const cli::RunOptions o = run_options(seeds, jobs, restart_cost, strategies, threads, optimality_gap);
  const PythonCall call;  // the exit hook waits for it (and it refuses to start once the interpreter is exiting)
  const std::uint64_t epoch = stop_epoch();
  // Parsed with the GIL held (it builds one instance of each strategy to check its params, Python ones included).
  auto cfg = std::make_shared<const ExperimentConfig>(load_config(path, config_text, origin, base_dir, o));
  auto res = std::make_shared<ExperimentResult>();
  // Python strategies take the GIL back for each decision; the C++ engine runs without it. A stop request (Ctrl-C,
  // KeyboardInterrupt or SystemExit from a strategy, interpreter exit) ends the experiment: no further run starts.
  RunHooks hooks;
  hooks.stop = [epoch] { return stop_epoch() != epoch; };
  run_without_gil(
      call, [&] { *res = run_experiment(*cfg, o.threads, hooks); }, epoch);
  return {cfg, res};
}

py::dict py_validate(const std::string& path, const std::string& config_text, const std::string& origin,
                     const std::string& base_dir) {
  path_keyword(path, "config");
  path_keyword(base_dir, "base_dir");
  const PythonCall call;  // it builds Python strategies to check their params
  const ExperimentConfig c = load_config(path, config_text, origin, base_dir, cli::RunOptions{});
  py::dict d;
  d["origin"] = c.origin;
  d["description"] = c.description;
  d["total_gpus"] = c.total_gpus();
  d["nodes"] = c.cluster.nodes;
  d["gpus_per_node"] = c.cluster.gpus_per_node;
  py::list pools;
  for (const GpuPool& p : c.cluster.pools) {
    py::dict q;
    q["gpu_type"] = p.gpu_type;
    q["nodes"] = p.nodes;
    q["gpus_per_node"] = p.gpus_per_node;
    pools.append(q);
  }
  d["pools"] = pools;
  d["catalog"] = c.workload.catalog->name;
  py::list classes;
  for (const auto& k : c.workload.catalog->classes)
    classes.append(k.name);
  d["classes"] = classes;
  d["jobs"] = c.workload.jobs;
  d["trace"] = c.workload.trace_file;
  py::list levels;
  for (const auto& l : c.levels) {
    py::dict q;
    q["name"] = l.name;
    q["load"] = l.load;
    q["arrivals_per_hour"] = l.rate_per_s * 3600.0;
    levels.append(q);
  }
  d["levels"] = levels;
  py::list strats;
  for (const auto& s : c.strategies) {
    py::dict q;
    q["label"] = s.label;
    q["name"] = s.name;
    q["beliefs"] = s.beliefs;
    q["params"] = py::module_::import("json").attr("loads")(s.params.dump());
    strats.append(q);
  }
  d["strategies"] = strats;
  d["seeds"] = c.seeds;
  d["runs"] = c.levels.size() * c.strategies.size() * static_cast<std::size_t>(c.seeds);
  d["interval_s"] = c.scheduler.interval_s;
  d["restart_cost_s"] = c.restart.cost_s;
  return d;
}

py::list py_strategies() {
  py::list out;
  for (const auto& i : strategy_infos()) {
    py::dict d;
    d["name"] = i.name;
    d["description"] = i.description;
    d["default_beliefs"] = i.default_beliefs;
    d["params"] = i.params;
    d["gpu_types"] = i.gpu_types;
    d["needs_gpu_types"] = i.needs_gpu_types;
    d["no_gpu_types_reason"] = i.no_gpu_types_reason;
    out.append(d);
  }
  return out;
}

// csv_path non-empty: the points CSV file, read as `ringsched fit --csv` reads it (a regular file of at most 1 GiB:
// never a FIFO or a device); else csv_text, named `origin`.
py::tuple py_fit(const std::string& csv_path, const std::string& csv_text, const std::string& origin,
                 const std::string& pollux, const std::vector<std::string>& measurements,
                 const std::vector<std::string>& probes, const std::string& protocol, const std::string& name,
                 const py::object& model_size, const py::object& gpus_per_node, const py::object& work_samples,
                 const py::object& max_gpus, bool suggest_probe, const std::string& model, const py::object& nic_gbps,
                 const py::object& intra_gbps, const py::object& bytes_per_param, const py::object& overlap,
                 const py::object& budget, const std::vector<std::string>& add_probes) {
  FitCommandOptions o;
  o.csv = path_keyword(csv_path, "points");
  o.csv_text = csv_text;
  o.csv_origin = origin;
  o.pollux = pollux;
  if (pollux == "all") throw InputError("fit: pollux='all' is the command line's study table; name one application");
  for (const auto& m : measurements)
    path_keyword(m, "measurements");
  o.measurements = measurements;
  o.probes = probes;
  o.protocol = protocol;
  o.name = name;
  o.model_size = number_keyword(model_size, "fit: model_size", 0.0, 1e7, "0..1e7 (millions of parameters)");
  o.gpus_per_node = static_cast<int>(int_keyword(gpus_per_node, "fit: gpus_per_node", 0, 1024, " (0: inferred)"));
  o.work_samples = number_keyword(work_samples, "fit: work_samples", 0.0, 1e18, "0..1e18 samples");
  o.max_gpus = static_cast<int>(int_keyword(max_gpus, "fit: max_gpus", 1, 1 << 20));
  o.suggest_probe = suggest_probe;
  // The phys model (docs/heldout.md): None leaves a rate undeclared; a given one is checked by run_fit_command.
  o.model = model;
  if (!nic_gbps.is_none()) o.nic_gbps = number_keyword(nic_gbps, "fit: nic_gbps", -1e300, 1e300, "Gb/s > 0");
  if (!intra_gbps.is_none()) o.intra_gbps = number_keyword(intra_gbps, "fit: intra_gbps", -1e300, 1e300, "Gb/s > 0");
  o.bytes_per_param = number_keyword(bytes_per_param, "fit: bytes_per_param", -1e300, 1e300, "(0, 16]");
  o.overlap = number_keyword(overlap, "fit: overlap", -1e300, 1e300, "[0, 0.99]");
  o.budget = static_cast<int>(int_keyword(budget, "fit: budget", 0, 64));
  o.add_probes = add_probes;
  std::ostringstream out;
  std::ostringstream err;
  run_fit_command(o, out, err);
  return py::make_tuple(out.str(), err.str());
}

}  // namespace
}  // namespace ringsched::python

PYBIND11_MODULE(_core, m) {
  using namespace ringsched;
  using namespace ringsched::python;
  m.doc() = "ringsched's C++ engine (use the package `ringsched`, not this module)";
  static py::exception<InputError> input_error(m, "InputError", PyExc_ValueError);
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const InputError& e) {
      PyErr_SetString(input_error.ptr(), e.what());
    }
  });
  bind_snapshot_types(m);
  py::class_<PyResult>(m, "_Result")
      .def("summary_json", &PyResult::summary_json_text)
      .def("jobs_csv", &PyResult::jobs)
      .def("events_csv", &PyResult::events)
      .def("table", &PyResult::table, py::arg("view"), py::arg("format"), py::arg("reports"))
      .def("failed", &PyResult::failed)
      .def("failures", &PyResult::failures)
      .def("warnings", &PyResult::warnings)
      .def("write", &PyResult::write, py::arg("dir"), py::arg("force"));
  m.def("simulate", &py_simulate, py::arg("path"), py::arg("config_text"), py::arg("origin"), py::arg("base_dir"),
        py::arg("seeds"), py::arg("jobs"), py::arg("restart_cost"), py::arg("strategies"), py::arg("threads"),
        py::arg("optimality_gap"));
  m.def("validate", &py_validate, py::arg("path"), py::arg("config_text"), py::arg("origin"), py::arg("base_dir"));
  m.def("strategies", &py_strategies);
  m.def("fit", &py_fit, py::arg("csv_path"), py::arg("csv_text"), py::arg("origin"), py::arg("pollux"),
        py::arg("measurements"), py::arg("probes"), py::arg("protocol"), py::arg("name"), py::arg("model_size"),
        py::arg("gpus_per_node"), py::arg("work_samples"), py::arg("max_gpus"), py::arg("suggest_probe"),
        py::arg("model"), py::arg("nic_gbps"), py::arg("intra_gbps"), py::arg("bytes_per_param"), py::arg("overlap"),
        py::arg("budget"), py::arg("add_probes"));
  m.def("register_strategy", &register_python_strategy, py::arg("name"), py::arg("cls"), py::arg("params"),
        py::arg("description"), py::arg("default_beliefs"), py::arg("gpu_types") = false,
        py::arg("on_arrival") = false);
  m.attr("__version__") = RINGSCHED_VERSION;
  install_exit_hook();
}
