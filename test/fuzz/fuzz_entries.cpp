// test/fuzz/fuzz_entries.cpp — the fuzz-target registry and the targets: bytes into the project's readers as the
// command line uses them, InputError accepted, anything else left to escape (libFuzzer and the replay test report it).
#include "test/fuzz/fuzz_entries.h"

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <mutex>
#include <sstream>
#include <stdexcept>

#include "models/input_error.h"
#include "sim/experiments/config.h"
#include "sim/experiments/report.h"
#include "sim/experiments/runner.h"
#include "sim/fitting/fit_command.h"
#include "sim/fitting/speed_fit.h"
#include "sim/sweeps/check.h"
#include "sim/sweeps/sweep_results.h"
#include "sim/sweeps/sweep_spec.h"
#include "traces/gavel_trace.h"
#include "traces/generic_trace.h"
#include "traces/pollux_trace.h"
#include "traces/trace_workload.h"
#include "workloads/catalog.h"
#include "workloads/gavel.h"
#include "workloads/goodput_app.h"
#include "workloads/io/csv.h"
#include "workloads/io/json_reader.h"
#include "workloads/measurement/measurement.h"
#include "workloads/measurement/points_csv.h"
#include "workloads/pollux.h"
#ifdef RINGSCHED_HAVE_PROFILER_CORE
#include "profiler/checkpoint.h"
#endif

namespace fs = std::filesystem;

namespace ringsched::fuzz {
namespace {

const std::string kSource = RINGSCHED_SOURCE_DIR;

// A private folder for the files a reader needs on disk, removed at exit.
const std::string& scratch() {
  static const std::string dir = [] {
    const char* tmp = std::getenv("TMPDIR");
    std::string templ = std::string(tmp != nullptr && *tmp != '\0' ? tmp : "/tmp") + "/ringsched-fuzz-XXXXXX";
    if (::mkdtemp(templ.data()) == nullptr) std::abort();
    static const std::string keep = templ;
    std::atexit([] {
      std::error_code ec;
      fs::remove_all(keep, ec);
    });
    return templ;
  }();
  return dir;
}

std::string put(const std::string& name, std::string_view data) {
  const std::string path = scratch() + "/" + name;
  fs::create_directories(fs::path(path).parent_path());
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(data.data(), static_cast<std::streamsize>(data.size()));
  return path;
}

template <class F>
void accepting_input_errors(F&& f) {
  try {
    f();
  } catch (const InputError&) {
    // a clear rejection: what bad input must get
  }
}

std::string read_file(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::vector<std::string> files_in(const std::string& dir, const std::string& ext) {
  std::vector<std::string> out;
  std::error_code ec;
  std::vector<fs::path> paths;
  for (fs::recursive_directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec))
    if (it->is_regular_file() && it->path().extension() == ext) paths.push_back(it->path());
  std::sort(paths.begin(), paths.end());
  for (const auto& p : paths)
    out.push_back(read_file(p));
  return out;
}

std::vector<std::string> first_of(std::vector<std::string> v, std::size_t n) {
  if (v.size() > n) v.resize(n);
  return v;
}

// ---- config: parse + validate + a capped run (1 seed, at most 12 jobs, clusters up to 1,024 GPUs) ----

void run_config(std::string_view data) {
  accepting_input_errors([&] {
    const nlohmann::json doc = parse_json_text(std::string(data), "fuzz.json");
    // Relative paths (catalog and trace files) resolve as in the shipped examples.
    ExperimentConfig c = parse_experiment(doc, "fuzz.json", kSource + "/workloads/examples");
    if (c.total_gpus() > 1024) return;
    c.seeds = 1;
    c.workload.jobs = std::min(c.workload.jobs, 12);
    ExperimentResult r;
    for (int l = 0; l < static_cast<int>(c.levels.size()); ++l)
      for (int s = 0; s < static_cast<int>(c.strategies.size()); ++s)
        r.runs.push_back(run_cell(c, l, s, 0, true));
    (void)summary_json(c, r).dump(2, ' ', false, nlohmann::json::error_handler_t::replace);
    (void)render_table3(c, r, Format::kMarkdown);
    (void)jobs_csv(c, r);
  });
}

std::vector<std::string> config_seeds() {
  return files_in(kSource + "/workloads/examples", ".json");
}

// ---- traces ----

std::shared_ptr<const Catalog> goodput_catalog() {
  static const auto cat = std::make_shared<const Catalog>(pollux_goodput_catalog(default_pollux_dir()));
  return cat;
}

std::shared_ptr<const Catalog> paper_catalog() {
  static const auto cat = std::make_shared<const Catalog>(load_catalog("paper"));
  return cat;
}

// Every trace target reads with a held-row cap of 0 (all) .. 6, as workload.jobs caps a trace (TraceRows' bounded
// heap), then builds the notes and the workload under the same cap, with an oversize mode chosen by the input.
std::size_t trace_keep(std::string_view data) {
  return data.size() % 7;
}

void trace_into_workload(const Trace& t, const std::shared_ptr<const Catalog>& catalog, std::string_view data) {
  TraceWorkloadSpec spec;
  spec.max_jobs = trace_keep(data) == 0 ? 200 : static_cast<int>(trace_keep(data));
  spec.max_gpus = 64;
  spec.oversize = static_cast<Oversize>(data.size() % 3);
  (void)trace_notes(t, *catalog, spec, 64);
  (void)workload_from_trace(t, catalog, spec, 1);
}

void run_pollux_trace(std::string_view data) {
  accepting_input_errors([&] {
    trace_into_workload(read_pollux_workload(put("workload.csv", data), trace_keep(data)), goodput_catalog(), data);
  });
}

std::vector<std::string> pollux_trace_seeds() {
  auto seeds = first_of(files_in(kSource + "/workloads/data/pollux/workloads", ".csv"), 4);
  for (auto& s : files_in(kSource + "/test/fixtures/heldout/pollux", ".csv"))
    seeds.push_back(std::move(s));
  return seeds;
}

void run_generic_trace(std::string_view data) {
  accepting_input_errors([&] {
    GenericTraceSpec g;
    g.submit_column = "timestamp";
    g.duration_column = "duration";
    g.gpus_column = "num_gpus";
    g.id_column = data.size() % 2 == 0 ? "" : "timestamp";
    g.time_unit = data.size() % 5 == 0 ? "h" : "s";
    trace_into_workload(read_generic_trace(put("trace.csv", data), g, trace_keep(data)), paper_catalog(), data);
  });
}

std::vector<std::string> generic_trace_seeds() {
  std::vector<std::string> seeds;
  for (const char* f : {"/test/fixtures/heldout/generic-small.csv", "/test/fixtures/heldout/generic-negative.csv"})
    seeds.push_back(read_file(kSource + f));
  return seeds;
}

// ---- Gavel traces (tab-separated, 10 or 7 columns) into a workload of the gavel catalog ----

std::shared_ptr<const Catalog> gavel_types_catalog() {
  static const auto cat = std::make_shared<const Catalog>(gavel_catalog(default_gavel_dir()));
  return cat;
}

void run_gavel_trace(std::string_view data) {
  accepting_input_errors([&] {
    const std::string unit = data.size() % 5 == 0 ? "min" : "s";
    trace_into_workload(read_gavel_trace(put("jobs.trace", data), unit, trace_keep(data)), gavel_types_catalog(), data);
  });
}

std::vector<std::string> gavel_trace_seeds() {
  return files_in(kSource + "/workloads/data/gavel/traces", ".trace");
}

// ---- fit --csv points: read and fitted under each protocol ----

void run_points_csv(std::string_view data) {
  accepting_input_errors([&] {
    const auto points = read_points_csv(put("points.csv", data));
    for (const char* proto : {"paper", "two-level", "eq5-all", "multi-node", "two-node"}) {
      accepting_input_errors([&] {  // each protocol on its own: one refusing the points must not hide the others
        try {
          (void)fit_with_protocol(parse_fit_protocol(proto, "fuzz"), points, 25.0, 0, "points.csv");
        } catch (const std::invalid_argument&) {
          // the fit library's own check of what the protocol needs (too few points of a kind): the command line
          // turns it into an input error naming the file (fit_command.cpp)
        }
      });
    }
  });
}

std::vector<std::string> points_csv_seeds() {
  std::vector<std::string> seeds;
  for (const char* f : {"points-eq5.csv", "points-three.csv", "points-twolevel.csv", "points-bad.csv", "own-table.csv"})
    seeds.push_back(read_file(kSource + "/test/fixtures/heldout/" + f));
  return seeds;
}

// ---- goodput tables: one file of an application folder replaced by the input ----

void run_goodput_tables(std::string_view data) {
  static const std::string app = [] {
    const std::string dir = scratch() + "/app";
    fs::create_directories(dir);
    for (const auto& e : fs::directory_iterator(kSource + "/test/fixtures/goodput/tiny"))
      if (e.path().extension() == ".csv") fs::copy_file(e.path(), dir / e.path().filename());
    return dir;
  }();
  const char* names[] = {"placements.csv", "scalability.csv", "validation-8.csv"};
  const std::string name = names[data.size() % 3];
  const std::string original = read_file(app + "/" + name);
  put("app/" + name, data);
  accepting_input_errors([&] {
    GoodputLimits limits;
    limits.max_epochs = 2;
    const auto a = GoodputApp::load_uncached("tiny", app, limits);
    for (int g : {1, 2, 4})
      (void)a->step_time({g}, a->init_batch_size() / g);
  });
  put("app/" + name, original);
}

std::vector<std::string> goodput_tables_seeds() {
  return files_in(kSource + "/test/fixtures/goodput/tiny", ".csv");
}

// ---- results: sweep.json on --resume, and check's inputs ----

const SweepSpec& results_spec() {
  static const SweepSpec spec = load_sweep(kSource + "/test/fixtures/sweep/tiny-sweep.json");
  return spec;
}

void run_results(std::string_view data) {
  accepting_input_errors([&] {
    const nlohmann::json doc = parse_json_text(std::string(data), "sweep.json");
    accepting_input_errors([&] { (void)read_sweep_results(results_spec(), doc, "sweep.json"); });
    (void)load_result_groups(doc, "results.json");
    // check compares a file with itself and with a shipped baseline.
    static const nlohmann::json baseline = read_json_file(kSource + "/test/baselines/regression.json");
    const CheckOptions o;
    (void)check_results(doc, "results.json", doc, "results.json", o).render();
    accepting_input_errors([&] { (void)check_results(baseline, "baseline.json", doc, "results.json", o).render(); });
  });
}

std::vector<std::string> results_seeds() {
  return files_in(kSource + "/test/baselines", ".json");
}

// ---- measurement files: the profiler's JSON, read; and through `ringsched fit --measurement` ----

// A valid measurement at world size `world` (the seeds).
profiler::Measurement seed_measurement(int world) {
  profiler::Measurement m;
  m.machine = {"host-a", "Test CPU", "cpu"};
  m.backend = "cpu";
  m.world_size = world;
  m.hostnames = {"host-a"};
  m.nodes = 1;
  m.model.layers = {10, 10};
  m.model.parameters = profiler::mlp_parameter_count(m.model.layers);
  m.model.gradient_bytes = 4 * m.model.parameters;
  m.settings = {2, 3, "default"};
  m.compute.push_back({8, profiler::seconds_from_repeats({0.001, 0.002, 0.003})});
  m.compute.push_back({16, profiler::seconds_from_repeats({0.004, 0.004, 0.004})});
  m.allreduce.push_back({100, profiler::seconds_from_repeats({1e-5, 1e-5, 1e-5})});
  m.allreduce.push_back({1000, profiler::seconds_from_repeats({1e-4, 1e-4, 1e-4})});
  m.timestamp = "2024-01-01T00:00:00Z";
  m.command_line = "ringsched-profile --out x.json";
  return m;
}

void run_measurement(std::string_view data) {
  accepting_input_errors([&] { (void)profiler::load_measurement(put("measurement.json", data)); });
}

std::vector<std::string> measurement_seeds() {
  return {profiler::measurement_to_json(seed_measurement(2))};
}

// fit --measurement: one or two measurement files through `ringsched fit` (read, points, fit, entry).
void run_fit_measurement(std::string_view data) {
  static const std::string companion = put("companion.json", profiler::measurement_to_json(seed_measurement(4)));
  accepting_input_errors([&] {
    FitCommandOptions o;
    o.measurements = {put("measurement.json", data)};
    if (data.size() % 2 == 1) o.measurements.push_back(companion);  // with a second world size, as fit is used
    o.format = data.size() % 3 == 0 ? "md" : "json";
    std::ostringstream out;
    std::ostringstream err;
    (void)run_fit_command(o, out, err);
  });
}

std::vector<std::string> fit_measurement_seeds() {
  return {profiler::measurement_to_json(seed_measurement(2)), profiler::measurement_to_json(seed_measurement(1))};
}

// ---- Gavel's throughputs file (simulation_throughputs.json) into the gavel catalog ----

void run_gavel_throughputs(std::string_view data) {
  accepting_input_errors([&] {
    put("gavel/simulation_throughputs.json", data);
    (void)gavel_catalog(scratch() + "/gavel");
  });
}

std::vector<std::string> gavel_throughputs_seeds() {
  // A small file first (the structured generator grows the first seed), then the shipped one.
  const std::string small =
      R"j({"v100": {"('ResNet-18 (batch size 64)', 1)": {"null": 24.09, "('A3C', 1)": [12.0, 3.5]},)j"
      R"j( "('ResNet-18 (batch size 64)', 2)": {"null": 40.5}, "('A3C', 1)": {"null": 3.9}},)j"
      R"j( "k80": {"('ResNet-18 (batch size 64)', 1)": {"null": 7.05},)j"
      R"j( "('ResNet-18 (batch size 64)', 2)": {"null": 0.0}, "('A3C', 1)": {"null": 1.2}},)j"
      R"j( "k80_unconsolidated": {}})j";
  return {small, read_file(default_gavel_dir() + "/simulation_throughputs.json")};
}

#ifdef RINGSCHED_HAVE_PROFILER_CORE
void run_checkpoint(std::string_view data) {
  accepting_input_errors([&] { (void)profiler::parse_checkpoint(std::string(data), "checkpoint"); });
}

std::vector<std::string> checkpoint_seeds() {
  profiler::Checkpoint c;
  c.layers = {4, 3, 2};
  c.parameters.assign(static_cast<std::size_t>(profiler::mlp_parameter_count(c.layers)), 0.5f);
  c.velocity.assign(c.parameters.size(), 0.0f);
  return {profiler::serialize_checkpoint(c)};
}
#endif

// Each target registers itself beside its body (a new target may be a file of its own in test/fuzz/: the library
// globs the folder and is linked whole).
const TargetRegistrar config_fuzz_target{
    {"config", "experiment config: parse, validate, one capped run", run_config, config_seeds}};
const TargetRegistrar pollux_trace_fuzz_target{
    {"pollux_trace", "Pollux workload CSV into a goodput workload", run_pollux_trace, pollux_trace_seeds}};
const TargetRegistrar generic_trace_fuzz_target{
    {"generic_trace", "generic trace CSV into a workload", run_generic_trace, generic_trace_seeds}};
const TargetRegistrar gavel_trace_fuzz_target{
    {"gavel_trace", "Gavel trace (tab-separated) into a workload", run_gavel_trace, gavel_trace_seeds}};
const TargetRegistrar points_csv_fuzz_target{
    {"points_csv", "fit --csv points, fitted under each protocol", run_points_csv, points_csv_seeds}};
const TargetRegistrar goodput_tables_fuzz_target{{"goodput_tables",
                                                  "Pollux application tables (placements, scalability, validation)",
                                                  run_goodput_tables, goodput_tables_seeds}};
const TargetRegistrar results_fuzz_target{
    {"results", "sweep.json on --resume and check's summary/sweep inputs", run_results, results_seeds}};
const TargetRegistrar measurement_fuzz_target{
    {"measurement", "ringsched-profile measurement JSON", run_measurement, measurement_seeds}};
const TargetRegistrar fit_measurement_fuzz_target{
    {"fit_measurement", "measurement files through `ringsched fit --measurement` (points, fit, entry)",
     run_fit_measurement, fit_measurement_seeds}};
const TargetRegistrar gavel_throughputs_fuzz_target{{"gavel_throughputs",
                                                     "Gavel's throughputs file into the gavel catalog",
                                                     run_gavel_throughputs, gavel_throughputs_seeds}};
#ifdef RINGSCHED_HAVE_PROFILER_CORE
const TargetRegistrar checkpoint_fuzz_target{
    {"checkpoint", "ringsched-profile checkpoint bytes", run_checkpoint, checkpoint_seeds}};
#endif

std::vector<Target>& registrations() {
  static std::vector<Target> all;
  return all;
}

std::vector<Target> sorted_targets() {
  auto all = registrations();
  std::sort(all.begin(), all.end(), [](const Target& a, const Target& b) { return std::string_view(a.name) < b.name; });
  for (std::size_t i = 1; i < all.size(); ++i)
    if (std::string_view(all[i].name) == all[i - 1].name)
      throw std::logic_error(std::string("fuzz target '") + all[i].name + "' is registered twice (TargetRegistrar)");
  return all;
}

}  // namespace

TargetRegistrar::TargetRegistrar(const Target& target) {
  registrations().push_back(target);
}

// Registrars run during static initialisation, before any look-up.
const std::vector<Target>& targets() {
  static const std::vector<Target> all = sorted_targets();
  return all;
}

const Target* find_target(std::string_view name) {
  for (const auto& t : targets())
    if (name == t.name) return &t;
  return nullptr;
}

std::string regressions_dir(std::string_view target) {
  return kSource + "/test/fuzz/regressions/" + std::string(target);
}

std::string scratch_file(const std::string& name, std::string_view data) {
  return put(name, data);
}

std::string file_bytes(const std::string& path) {
  return read_file(path);
}

}  // namespace ringsched::fuzz
