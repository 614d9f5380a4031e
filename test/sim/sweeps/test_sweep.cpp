// test/sim/sweeps/test_sweep.cpp — sweep files: JSON paths, cell expansion, bad input, identical output for any
// thread count, stop-and-resume byte equality, failing cells, refusal of foreign results, the example sweeps, progress
// text.
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "sim/experiments/progress.h"
#include "sim/sweeps/sweep.h"
#include "workloads/io/json_reader.h"

using namespace ringsched;
namespace fs = std::filesystem;

namespace {

const std::string kFixtures = std::string(RINGSCHED_TEST_DIR) + "/fixtures/sweep/";

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

fs::path fresh_dir(const std::string& name) {
  const fs::path d = fs::temp_directory_path() / ("ringsched-test-sweep-" + name + "-" + std::to_string(::getpid()));
  fs::remove_all(d);
  return d;
}

int run_sweep_cli(const std::string& args, std::string* output = nullptr) {
  const std::string log =
      (fs::temp_directory_path() / ("ringsched-test-sweep-cli-" + std::to_string(::getpid()))).string();
  const int status = std::system((args + " >" + log + " 2>&1").c_str());
  if (output) *output = slurp(log);
  fs::remove(log);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

SweepSpec spec_from(const std::string& text) {
  return parse_sweep(parse_json_text(text, "s.json"), "s.json", kFixtures);
}

SweepOptions quiet_options(const fs::path& out, int threads) {
  SweepOptions o;
  o.out_dir = out.string();
  o.threads = threads;
  o.quiet = true;
  return o;
}

}  // namespace

TEST_CASE("sim::parse_json_path: keys and array indices", "[sweep]") {
  const auto p = parse_json_path("levels[0].load", "w");
  REQUIRE(p.size() == 3);
  CHECK(std::get<std::string>(p[0]) == "levels");
  CHECK(std::get<std::size_t>(p[1]) == 0);
  CHECK(std::get<std::string>(p[2]) == "load");
  CHECK(parse_json_path("a[2][3]", "w").size() == 3);
  for (const char* bad : {"", "a..b", "a[", "a[x]", "a[]", ".a", "a.", "a[0]b"}) {
    INFO(bad);
    CHECK_THROWS_AS(parse_json_path(bad, "w"), InputError);
  }
  const auto doc = nlohmann::json::parse(R"({"a": {"b": [10, 20]}})");
  const nlohmann::json* v = find_json_path(doc, parse_json_path("a.b[1]", "w"));
  REQUIRE(v != nullptr);
  CHECK(*v == 20);
  std::string why;
  CHECK(find_json_path(doc, parse_json_path("a.c", "w"), &why) == nullptr);
  CHECK(why.find("no key 'c'") != std::string::npos);
  CHECK(find_json_path(doc, parse_json_path("a.b[2]", "w"), &why) == nullptr);
  CHECK(why.find("2 element") != std::string::npos);
}

TEST_CASE("sim::SweepSpec: cartesian product, last axis fastest, ranges as written", "[sweep]") {
  const SweepSpec s = load_sweep(kFixtures + "tiny-sweep.json");
  REQUIRE(s.axes.size() == 2);
  CHECK(s.axes[0].name == "load");
  CHECK(s.axes[1].name == "restart.cost_s");  // default name = path
  // range 0..30 step 30 of integers -> integers 0, 30
  REQUIRE(s.axes[1].values.size() == 2);
  CHECK(s.axes[1].values[0].is_number_integer());
  CHECK(s.axes[1].values[1] == 30);
  REQUIRE(s.size() == 6);
  CHECK(s.cells[0][0] == 0.3);
  CHECK(s.cells[0][1] == 0);
  CHECK(s.cells[1][0] == 0.3);
  CHECK(s.cells[1][1] == 30);
  CHECK(s.cells[5][0] == 0.9);
  CHECK(s.cell_label(3) == "load=0.6, restart.cost_s=30");
  const auto doc = s.cell_document(3);
  CHECK(doc["levels"][0]["load"] == 0.6);
  CHECK(doc["restart"]["cost_s"] == 30);
  CHECK(doc["seeds"] == 3);  // replicates
  CHECK(s.config_hash.rfind("fnv1a64:", 0) == 0);
  CHECK(s.config_hash.size() == 8 + 16);

  // Float range: from + i*step rounded to what was meant, end point included.
  const SweepSpec f = spec_from(R"({"base": "tiny-base.json",
      "axes": [{"path": "levels[0].load", "range": {"from": 0.2, "to": 1.4, "step": 0.2}}]})");
  REQUIRE(f.size() == 7);
  CHECK(f.cells[2][0].get<double>() == 0.6);
  CHECK(f.cells[6][0].get<double>() == 1.4);
  const SweepSpec c = spec_from(R"({"base": "tiny-base.json",
      "axes": [{"path": "levels[0].load", "range": {"from": 0.5, "to": 1.0, "count": 3}}]})");
  REQUIRE(c.size() == 3);
  CHECK(c.cells[1][0].get<double>() == 0.75);
}

TEST_CASE("sim::SweepSpec: explicit cell list, columns in first-appearance order", "[sweep]") {
  const SweepSpec s = spec_from(R"({"base": "tiny-base.json", "cells": [
      {"restart.cost_s": 5},
      {"restart.cost_s": 7, "cluster.nodes": 1},
      {}]})");
  REQUIRE(s.size() == 3);
  REQUIRE(s.axes.size() == 2);
  CHECK(s.axes[0].path == "restart.cost_s");
  CHECK(s.axes[1].path == "cluster.nodes");
  CHECK(s.cells[0][1].is_null());
  CHECK(s.cell_document(0)["cluster"]["nodes"] == 2);  // unset keeps the base
  CHECK(s.cell_document(1)["cluster"]["nodes"] == 1);
  CHECK(s.cell_label(2) == "(base)");
}

TEST_CASE("sim::SweepSpec: bad input names the sweep file and the JSON path", "[sweep]") {
  auto message = [](const std::string& text) {
    try {
      (void)spec_from(text);
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  const std::string missing =
      message(R"({"base": "tiny-base.json", "axes": [{"path": "cluster.nodez", "values": [1]}]})");
  CHECK(missing.find("s.json: axes[0].path") != std::string::npos);
  CHECK(missing.find("'cluster.nodez' does not exist") != std::string::npos);
  const std::string empty = message(R"({"base": "tiny-base.json", "axes": [{"path": "cluster.nodes", "values": []}]})");
  CHECK(empty.find("s.json: axes[0].values: must not be empty") != std::string::npos);
  CHECK(message(R"({"base": "tiny-base.json", "axes": []})").find("s.json: axes") != std::string::npos);
  CHECK(message(R"({"base": "tiny-base.json", "axes": [{"path": "seeds", "range": {"from": 3, "to": 1, "step": 1}}]})")
            .find("axes[0].range.step") != std::string::npos);
  CHECK(message(R"({"base": "tiny-base.json"})").find("exactly one of axes") != std::string::npos);
  // INT64 bounds used to print nodes=-9223372036854775808: bounds stay within +-1e15.
  CHECK(message(R"({"base": "tiny-base.json", "axes": [{"path": "cluster.nodes", "range":
                    {"from": -9223372036854775808, "to": 9223372036854775807, "count": 3}}]})")
            .find("s.json: axes[0].range.from: must be between -1000000000000000 and 1000000000000000") !=
        std::string::npos);
  CHECK(message(R"({"base": "nope.json", "axes": [{"path": "seeds", "values": [1]}]})").find("s.json: base") !=
        std::string::npos);
  CHECK(message(R"({"base": "tiny-base.json", "cells": [{"levels[3].load": 1}]})").find("s.json: cells[0]") !=
        std::string::npos);
  CHECK(
      message(R"({"base": "tiny-base.json", "axes": [{"path": "seeds", "values": [1]}], "bogus": 1})").find("bogus") !=
      std::string::npos);
  // The CLI maps it to exit code 2 and names the file.
  const fs::path dir = fresh_dir("badaxis");
  fs::create_directories(dir);
  std::ofstream(dir / "bad.json")
      << R"({"base": "builtin:table3", "axes": [{"path": "cluster.nodez", "values": [1]}]})";
  std::string out;
  CHECK(run_sweep_cli(std::string(RINGSCHED_BINARY) + " sweep --config " + (dir / "bad.json").string() + " --out " +
                          (dir / "o").string(),
                      &out) == 2);
  CHECK(out.find("bad.json: axes[0].path") != std::string::npos);
  fs::remove_all(dir);
}

TEST_CASE("sim::sweep: identical files for 1 and 2 threads, and rows in cell order", "[sweep]") {
  const SweepSpec s = load_sweep(kFixtures + "tiny-sweep.json");
  const fs::path a = fresh_dir("t1");
  const fs::path b = fresh_dir("t2");
  auto comm = make_local_comm();
  const SweepOutcome o1 = run_sweep(s, quiet_options(a, 1), *comm);
  const SweepOutcome o2 = run_sweep(s, quiet_options(b, 2), *comm);
  CHECK(o1.cells_run == 6);
  CHECK(o1.runs == 6 * 2 * 3);  // cells x strategies x replicates
  CHECK(o1.failed_cells == 0);
  CHECK(o2.runs == o1.runs);
  for (const char* f : {"sweep.json", "runs.csv", "cells.csv"}) {
    INFO(f);
    CHECK(slurp(a / f) == slurp(b / f));
  }
  const auto j = read_json_file((a / "sweep.json").string());
  CHECK(j["complete"] == true);
  CHECK(j["config_hash"] == s.config_hash);
  REQUIRE(j["cells"].size() == 6);
  CHECK(j["cells"][4]["cell"] == 4);
  CHECK(j["cells"][4]["groups"][1]["strategy"] == "precompute");
  CHECK(j["cells"][4]["groups"][1]["n"] == 3);
  // runs.csv: header comment, column line, one row per cell x strategy x replicate.
  const std::string runs = slurp(a / "runs.csv");
  CHECK(runs.rfind("# ringsched-sweep format 1, ringsched ", 0) == 0);
  CHECK(runs.find("config_hash " + s.config_hash) != std::string::npos);
  CHECK(std::count(runs.begin(), runs.end(), '\n') == 2 + 36);
  CHECK(runs.find("\ncell,load,restart.cost_s,level,strategy,replicate,seed,mean_jct_s,") != std::string::npos);
  // The sweep's numbers are exactly those of running the cell's config directly.
  const ExperimentConfig cfg = parse_experiment(s.cell_document(4), "x", kFixtures);
  const CellRun direct = run_cell(cfg, 0, 1, 2, false);
  CHECK(j["cells"][4]["groups"][1]["runs"][2]["metrics"]["mean_jct_s"].get<double>() == direct.metrics.mean_jct_s);
  fs::remove_all(a);
  fs::remove_all(b);
}

TEST_CASE("sim::sweep: stopped part way then resumed gives the same bytes as one run", "[sweep]") {
  const std::string bin = RINGSCHED_BINARY;
  const std::string cfg = kFixtures + "tiny-sweep.json";
  const fs::path full = fresh_dir("full");
  const fs::path part = fresh_dir("part");
  REQUIRE(run_sweep_cli(bin + " sweep --quiet --threads 2 --config " + cfg + " --out " + full.string()) == 0);
  std::string out;
  REQUIRE(run_sweep_cli("RINGSCHED_SWEEP_STOP_AFTER=2 " + bin + " sweep --quiet --threads 2 --config " + cfg +
                            " --out " + part.string(),
                        &out) == 75);
  const auto partial = read_json_file((part / "sweep.json").string());
  CHECK(partial["complete"] == false);
  CHECK(partial["done_cells"] == 2);
  CHECK(slurp(part / "sweep.json") != slurp(full / "sweep.json"));
  // Without --resume the earlier results are protected.
  CHECK(run_sweep_cli(bin + " sweep --quiet --config " + cfg + " --out " + part.string(), &out) == 2);
  CHECK(out.find("--resume") != std::string::npos);
  REQUIRE(run_sweep_cli(bin + " sweep --quiet --threads 1 --resume --config " + cfg + " --out " + part.string(),
                        &out) == 0);
  CHECK(out.find("(2 already done)") != std::string::npos);
  for (const char* f : {"sweep.json", "runs.csv", "cells.csv"}) {
    INFO(f);
    CHECK(slurp(part / f) == slurp(full / f));
  }
  // Resuming a finished sweep runs nothing and changes nothing.
  REQUIRE(run_sweep_cli(bin + " sweep --quiet --resume --config " + cfg + " --out " + part.string(), &out) == 0);
  CHECK(slurp(part / "cells.csv") == slurp(full / "cells.csv"));
  fs::remove_all(full);
  fs::remove_all(part);
}

TEST_CASE("sim::sweep: results of another config are refused on --resume, with the reason", "[sweep]") {
  const SweepSpec s = load_sweep(kFixtures + "tiny-sweep.json");
  const SweepSpec other = spec_from(R"({"base": "tiny-base.json", "axes": [{"path": "seeds", "values": [1, 2]}]})");
  const fs::path d = fresh_dir("foreign");
  auto comm = make_local_comm();
  (void)run_sweep(other, quiet_options(d, 1), *comm);
  SweepOptions o = quiet_options(d, 1);
  o.resume = true;
  try {
    (void)run_sweep(s, o, *comm);
    FAIL("expected an InputError");
  } catch (const InputError& e) {
    const std::string m = e.what();
    CHECK(m.find("sweep.json: belongs to another sweep config") != std::string::npos);
    CHECK(m.find(s.config_hash) != std::string::npos);
    CHECK(m.find(other.config_hash) != std::string::npos);
  }
  // A results file from another ringsched version is refused too.
  auto doc = read_json_file((d / "sweep.json").string());
  doc["ringsched_version"] = "0.0.0-other";
  CHECK_THROWS_WITH(read_sweep_results(other, doc, "r.json"), Catch::Contains("written by ringsched 0.0.0-other"));
  // And reading back our own gives byte-identical output.
  const auto own = read_json_file((d / "sweep.json").string());
  const SweepResults back = read_sweep_results(other, own, "r.json");
  CHECK(sweep_results_json(other, back).dump(1) + "\n" == slurp(d / "sweep.json"));
  CHECK(sweep_runs_csv(other, back) == slurp(d / "runs.csv"));
  fs::remove_all(d);
}

TEST_CASE("sim::sweep: a failing cell records its error in its row and the rest goes on", "[sweep]") {
  const SweepSpec s = load_sweep(kFixtures + "tiny-failing.json");
  const fs::path d = fresh_dir("failing");
  auto comm = make_local_comm();
  const SweepOutcome o = run_sweep(s, quiet_options(d, 2), *comm);
  CHECK(o.cells_run == 3);
  CHECK(o.failed_cells == 1);
  CHECK(o.failures.find("cell 1 [restart.cost_s=-5]") != std::string::npos);
  const auto j = read_json_file((d / "sweep.json").string());
  REQUIRE(j["cells"].size() == 3);
  CHECK(j["cells"][1]["error"].get<std::string>().find("restart.cost_s") != std::string::npos);
  CHECK(j["cells"][0]["groups"][0]["n"] == 2);
  CHECK(j["cells"][2]["groups"][1]["n"] == 2);
  const std::string cells = slurp(d / "cells.csv");
  CHECK(cells.find("\n1,-5,,,0,0,") != std::string::npos);
  // The CLI exits with 1 at the end.
  std::string out;
  CHECK(run_sweep_cli(std::string(RINGSCHED_BINARY) + " sweep --quiet --force --config " + kFixtures +
                          "tiny-failing.json --out " + d.string(),
                      &out) == 1);
  CHECK(out.find("1 cell(s) failed") != std::string::npos);
  fs::remove_all(d);
}

TEST_CASE("sim::sweep: the example sweeps expand and run", "[sweep]") {
  const std::string ex = std::string(RINGSCHED_SOURCE_DIR) + "/workloads/examples/";
  auto comm = make_local_comm();
  for (const auto& [name, cells] : std::vector<std::pair<std::string, std::size_t>>{
           {"sweep-load.json", 7}, {"sweep-restart.json", 7}, {"sweep-cluster.json", 5}}) {
    INFO(name);
    const SweepSpec s = load_sweep(ex + name);
    CHECK(s.size() == cells);
    const fs::path d = fresh_dir("example");
    const SweepOutcome o = run_sweep(s, quiet_options(d, 2), *comm);
    CHECK(o.failed_cells == 0);
    CHECK(o.runs == cells * 4 * 8);  // 4 strategies x 8 replicates
    const auto j = read_json_file((d / "sweep.json").string());
    CHECK(j["complete"] == true);
    fs::remove_all(d);
  }
}

TEST_CASE("sim::progress: line text and durations", "[sweep]") {
  CHECK(format_duration(4.0) == "0:04");
  CHECK(format_duration(3725.0) == "1:02:05");
  CHECK(format_duration(-1.0) == "?");
  // 3 of 10 cells in 1.5 s: 2 cells/s, 7 left -> 3.5 s -> "0:04".
  CHECK(format_progress_line(3, 10, 0, 1.5, 10) == "[###.......] 3/10 cells  2 cells/s  ETA 0:04");
  // Resumed with 5 done: only the 1 new cell counts for the rate.
  CHECK(format_progress_line(6, 10, 5, 2.0, 4) == "[##..] 6/10 cells  0.5 cells/s  ETA 0:08");
  CHECK(format_progress_line(0, 10, 0, 0.0, 2) == "[..] 0/10 cells  - cells/s  ETA ?");
  // The live line of simulate/table3: 25% of the jobs in 2 s leaves 6 s; counts shortened.
  CHECK(format_live_line(1, 4, 20000, 80000, 3000000, 2.0) ==
        "ringsched: 1/4 runs  20k/80k jobs  1.5M events/s  ETA 0:06");
  CHECK(format_live_line(0, 4, 0, 80000, 0, 0.0) == "ringsched: 0/4 runs  0/80k jobs  - events/s  ETA ?");
  ProgressBar off(10, 0, false);  // never draws when disabled (e.g. stderr is not a terminal)
  off.update(5);
  off.finish();
  CHECK_FALSE(off.enabled());
}

TEST_CASE("sim::sweep: a held-out config under sweep gives the numbers of its cells run one by one",
          "[sweep][heldout]") {
  const SweepSpec s = spec_from(R"({
    "base": "builtin:heldout",
    "replicates": 2,
    "axes": [
      {"name": "jobs", "path": "workload.jobs", "values": [10]},
      {"name": "msigma", "path": "beliefs.history.measurement_sigma", "values": [0.05, 0.3]}
    ]
  })");
  REQUIRE(s.size() == 2);
  const fs::path out = fresh_dir("heldout");
  auto comm = make_local_comm();
  const SweepOutcome o = run_sweep(s, quiet_options(out, 2), *comm);
  CHECK(o.failed_cells == 0);
  CHECK(o.runs == 2 * 4 * 6 * 2);  // cells x levels x strategies x replicates
  const auto j = read_json_file((out / "sweep.json").string());
  REQUIRE(j["cells"].size() == 2);
  for (std::size_t cell = 0; cell < 2; ++cell) {
    const ExperimentConfig cfg = parse_experiment(s.cell_document(cell), "cell", "");
    const ExperimentResult direct = run_experiment(cfg, 1);
    const auto& jc = j["cells"][cell];
    for (int l = 0; l < 4; ++l) {
      for (int st = 0; st < 6; ++st) {
        for (int rep = 0; rep < 2; ++rep) {
          const auto& jr = jc["groups"][static_cast<std::size_t>(l * 6 + st)]["runs"][static_cast<std::size_t>(rep)];
          CHECK(jr["metrics"]["mean_jct_s"].get<double>() == direct.run(cfg, l, st, rep).metrics.mean_jct_s);
        }
      }
    }
    // The cell's prediction-error table is the config's own (its all-class rows: a sweep keeps no per-class rows).
    std::size_t all_classes = 0;
    for (const auto& e : direct.prediction_errors)
      all_classes += e.class_name.empty() ? 1 : 0;
    REQUIRE(jc["prediction_errors"].size() == all_classes);
    for (std::size_t e = 0; e < all_classes; ++e) {
      CHECK(jc["prediction_errors"][e]["source"] == direct.prediction_errors[e].source);
      CHECK(jc["prediction_errors"][e]["speed_mape_pct"].get<double>() == direct.prediction_errors[e].speed_mape);
    }
  }
  // Noisier profiling changes the history fit, hence its speed error.
  CHECK(j["cells"][0]["prediction_errors"][1]["speed_mape_pct"] !=
        j["cells"][1]["prediction_errors"][1]["speed_mape_pct"]);
  // --resume reads the prediction errors back unchanged.
  const std::string before = slurp(out / "sweep.json");
  SweepOptions again = quiet_options(out, 1);
  again.resume = true;
  (void)run_sweep(s, again, *comm);
  CHECK(slurp(out / "sweep.json") == before);
  fs::remove_all(out);
}

TEST_CASE("sim::sweep: damaged results are refused on --resume: a missing run, a bad replicate, cells not a list",
          "[sweep][hostile]") {
  const SweepSpec s = load_sweep(kFixtures + "tiny-sweep.json");
  const fs::path d = fresh_dir("damaged");
  auto comm = make_local_comm();
  (void)run_sweep(s, quiet_options(d, 1), *comm);
  const auto good = read_json_file((d / "sweep.json").string());
  CHECK_NOTHROW(read_sweep_results(s, good, "r.json"));
  auto missing = good;
  missing["cells"][2]["groups"][0]["runs"].erase(1);
  CHECK_THROWS_WITH(read_sweep_results(s, missing, "r.json"),
                    "r.json: cells[cell 2]: groups[0]: 2 runs, the sweep has 3 replicates (an incomplete cell)");
  auto replicate = good;
  replicate["cells"][0]["groups"][1]["runs"][0]["replicate"] = 1e10;
  CHECK_THROWS_WITH(read_sweep_results(s, replicate, "r.json"), Catch::Contains("replicate: must be an integer"));
  replicate["cells"][0]["groups"][1]["runs"][0]["replicate"] = 7;
  CHECK_THROWS_WITH(read_sweep_results(s, replicate, "r.json"), Catch::Contains("replicate: out of range"));
  auto twice = good;
  twice["cells"][0]["groups"][1]["runs"][0]["replicate"] = 1;
  CHECK_THROWS_WITH(read_sweep_results(s, twice, "r.json"), Catch::Contains("a replicate is listed twice"));
  auto object = good;
  object["cells"] = nlohmann::json::object();
  CHECK_THROWS_WITH(read_sweep_results(s, object, "r.json"), Catch::Contains("cells must be an array"));
  auto header = good;
  header["format"] = 5;  // nlohmann type_error.302 before: now an input error naming the file
  CHECK_THROWS_AS(read_sweep_results(s, header, "r.json"), InputError);
  fs::remove_all(d);
}

TEST_CASE("sim::sweep: temporaries of a killed writer are removed on --resume, non-UTF-8 errors stay writable",
          "[sweep][hostile]") {
  const SweepSpec s = load_sweep(kFixtures + "tiny-sweep.json");
  const fs::path d = fresh_dir("stale");
  auto comm = make_local_comm();
  SweepOptions o = quiet_options(d, 1);
  (void)run_sweep(s, o, *comm);
  // A pid that cannot be running (above the kernel's pid_max) left a temporary file behind.
  std::ofstream(d / ".ringsched-tmp.999999999.sweep.json") << "partial";
  o.resume = true;
  (void)run_sweep(s, o, *comm);
  CHECK_FALSE(fs::exists(d / ".ringsched-tmp.999999999.sweep.json"));
  // A cell error holding bytes that are not UTF-8 (an application name from a trace) is written as U+FFFD.
  SweepResults r = read_sweep_results(s, read_json_file((d / "sweep.json").string()), "r.json");
  r.cells[0].error = "unknown application '\xff\xfe'";
  const std::string text = sweep_results_json(s, r).dump(1, ' ', false, nlohmann::json::error_handler_t::replace);
  CHECK(text.find("unknown application '\xEF\xBF\xBD\xEF\xBF\xBD'") != std::string::npos);
  fs::remove_all(d);
}
