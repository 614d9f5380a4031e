// test/sim/experiments/test_hostile_runs.cpp — runs that hostile input used to hang, overflow or half-write: the
// simulated clock's horizon, round lengths, the memory cap on job results, Welch's test on huge metrics, and output
// folders written as a whole (a failure leaves the previous run's files; stale temporaries are removed).
#include <catch2/catch.hpp>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <limits>

#include "sim/engine/engine.h"
#include "sim/experiments/atomic_file.h"
#include "sim/experiments/config.h"
#include "sim/experiments/runner.h"
#include "sim/sweeps/check.h"
#include "strategies/registry.h"
#include "test/input_error_of.h"
#include "workloads/io/json_reader.h"

using namespace ringsched;
using ringsched::test::error_of;
namespace fs = std::filesystem;

namespace {

nlohmann::json tiny_doc() {
  return parse_json_text(R"({
    "cluster": {"nodes": 1, "gpus_per_node": 4},
    "workload": {"catalog": {"name": "c", "classes": [
      {"name": "lin", "batch": {"mode": "fixed_global", "size": 100}, "model_size_mparams": 1,
       "work": {"samples": 1000}, "gpus": {"max": 4}, "speed": {"kind": "eq5", "t0": 0.01, "t1": 0, "t2": 0, "t3": 0}}
    ]}, "jobs": 4, "arrival": {"process": "poisson", "load": 0.5}},
    "strategies": ["eight", "precompute"], "seeds": 1})",
                         "t.json");
}

fs::path fresh(const std::string& name) {
  const fs::path d = fs::temp_directory_path() / ("ringsched-hostile-" + name + "-" + std::to_string(::getpid()));
  fs::remove_all(d);
  return d;
}

}  // namespace

TEST_CASE("sim::Engine: a NaN or far-future time stops the run naming the job instead of hanging", "[hostile]") {
  const ExperimentConfig c = parse_experiment(tiny_doc(), "t.json", "");
  Workload w = make_workload(c, 0, 1);
  const nlohmann::json no_params = nlohmann::json::object();
  auto s = find_strategy("eight", "test").make(JsonReader(no_params, "test"));
  auto b = make_belief_source("none", "test");
  EngineConfig ec = engine_config(c, 1, false);
  Workload nan_arrival = w;
  nan_arrival.jobs[1].arrival = std::numeric_limits<double>::quiet_NaN();
  CHECK(error_of([&] { (void)simulate(nan_arrival, *s, *b, ec); }) ==
        "job 'job-1': arrival time nan s is not a time within the simulated horizon (0..1e12 s)");
  // 1e17 samples at 400 samples/s end after 2.5e14 s, beyond the horizon.
  Workload slow = w;
  slow.jobs[2].work_samples = 1e17;
  CHECK_THAT(error_of([&] { (void)simulate(slow, *s, *b, ec); }),
             Catch::StartsWith("job 'job-2' (class lin): the simulated clock would reach 2.5e+14 s, beyond the "
                               "horizon of 1e12 s"));
  Workload inf_work = w;
  inf_work.jobs[0].work_samples = std::numeric_limits<double>::infinity();
  CHECK_THAT(error_of([&] { (void)simulate(inf_work, *s, *b, ec); }), Catch::Contains("not a positive finite"));
}

TEST_CASE("sim::ExperimentConfig: tiny rounds and results beyond memory are refused before running", "[hostile]") {
  auto doc = tiny_doc();
  doc["scheduler"] = {{"interval_s", 1e-300}};
  CHECK(error_of([&] { (void)parse_experiment(doc, "t.json", ""); }) ==
        "t.json: scheduler.interval_s: must be 0 (event-driven) or at least 1 s");
  doc["scheduler"] = {{"interval_s", 60}};
  CHECK_NOTHROW(parse_experiment(doc, "t.json", ""));
  doc["workload"]["jobs"] = 10000000;
  doc["seeds"] = 100000;
  CHECK_THAT(error_of([&] { (void)parse_experiment(doc, "t.json", ""); }),
             Catch::StartsWith("t.json: levels x strategies x seeds x jobs = 1 x 2 x 100000 x 10000000 = 2e+12 job "
                               "results, more than the 2e+07"));
  // A class batch of 1e308 used to give a NaN arrival rate (and a hang): now refused at its JSON path.
  auto huge = tiny_doc();
  huge["workload"]["catalog"]["classes"][0]["batch"]["size"] = 1e308;
  CHECK_THAT(error_of([&] { (void)parse_experiment(huge, "t.json", ""); }),
             Catch::Contains("classes[0].batch.size: must be <= 1e9"));
}

TEST_CASE("sim::ExperimentConfig: arrivals or work beyond the clock's horizon are refused by validation", "[hostile]") {
  // Both used to pass `validate` and fail every run ("not a time within the simulated horizon").
  auto slow = tiny_doc();
  slow["workload"]["arrival"] = {{"process", "poisson"}};
  slow["levels"] = nlohmann::json::array({{{"name", "slow"}, {"rate_per_hour", 1e-300}}});
  CHECK(error_of([&] { (void)parse_experiment(slow, "t.json", ""); }) ==
        "t.json: levels[0].rate_per_hour: 4 jobs at 1e-300 arrivals per hour take about 1.44e+304 s to arrive; the "
        "simulated clock stops at 1e12 s (raise the rate or give fewer jobs)");
  // 4 jobs arriving over 1e11 s is the limit: a slightly faster rate passes, a slightly slower one fails.
  slow["levels"][0]["rate_per_hour"] = 4 * 3600 / 1e11 * 1.0001;
  CHECK_NOTHROW(parse_experiment(slow, "t.json", ""));
  slow["levels"][0]["rate_per_hour"] = 4 * 3600 / 1e11 * 0.999;
  CHECK_THROWS(parse_experiment(slow, "t.json", ""));
  // 1e17 samples at most 400 samples/s (t0 = 0.01 s per sample on 1..4 GPUs at a fixed global batch of 100).
  auto big = tiny_doc();
  big["workload"]["catalog"]["classes"][0]["work"]["samples"] = 1e17;
  CHECK(error_of([&] { (void)parse_experiment(big, "t.json", ""); }) ==
        "t.json: workload.catalog: class 'lin': its work (1e+17 samples) takes at least 2.5e+14 s even at its "
        "fastest (4 GPUs, 400 samples/s); the simulated clock stops at 1e12 s (check its work, batch and speed)");
  big["workload"]["catalog"]["classes"][0]["work"]["samples"] = 4e12;  // 1e10 s per job: accepted
  CHECK_NOTHROW(parse_experiment(big, "t.json", ""));
}

TEST_CASE("sim::ClusterConfig: a topology or placement policy on more than 4,096 nodes is refused", "[hostile]") {
  // Their cost grows with nodes^2: 16,384 nodes took over 60 s and 4 GB to validate, 65,536 ran out of memory.
  auto doc = tiny_doc();
  doc["cluster"] = {{"nodes", 5000}, {"gpus_per_node", 4}, {"placement", {{"policy", "packed"}}}};
  CHECK(error_of([&] { (void)parse_experiment(doc, "t.json", ""); }) ==
        "t.json: cluster.nodes: 5000 nodes with a placement policy: at most 4096 (placing jobs on nodes costs time "
        "and memory that grow with nodes^2); without a topology and placement up to 100,000");
  doc["cluster"] = {{"nodes", 5000},
                    {"gpus_per_node", 4},
                    {"topology", {{"kind", "fat_tree"}, {"nodes_per_leaf", 2}, {"spines", 2}}}};
  CHECK_THAT(error_of([&] { (void)parse_experiment(doc, "t.json", ""); }),
             Catch::StartsWith("t.json: cluster.nodes: 5000 nodes with a topology: at most 4096"));
  doc["cluster"] = {{"pools",
                     {{{"gpu_type", "a"},
                       {"nodes", 5000},
                       {"gpus_per_node", 4},
                       {"topology", {{"kind", "fat_tree"}, {"nodes_per_leaf", 2}, {"spines", 2}}}}}}};
  CHECK_THAT(error_of([&] { (void)parse_experiment(doc, "t.json", ""); }),
             Catch::StartsWith("t.json: cluster.pools[0].nodes: 5000 nodes with a topology: at most 4096"));
  doc["cluster"] = {{"nodes", 5000}, {"gpus_per_node", 4}};  // no placement: fine
  CHECK_NOTHROW(parse_experiment(doc, "t.json", ""));
}

TEST_CASE("sim::welch_t_test: metrics near 1e78 give no test rather than a Boost error", "[hostile][check]") {
  const WelchResult w = welch_t_test({1e78, 2e78, 3e78}, {1e78, 5e78, 9e78});
  CHECK(w.available);  // scaled variances keep the test computable
  CHECK(w.p > 0.0);
  CHECK(w.p <= 1.0);
  const WelchResult x = welch_t_test({1e300, -1e300, 1e300}, {0, 1, 2});
  CHECK_FALSE(x.available);  // the variance overflows: no test, no exception
}

TEST_CASE("sim::StagedOutput: files appear only at commit, a failed run leaves the previous files", "[hostile]") {
  const fs::path d = fresh("staged");
  {
    StagedOutput first(d.string());
    first.write("summary.json", "old summary\n");
    first.write("jobs.csv", "old jobs\n");
    first.commit();
  }
  {
    StagedOutput second(d.string());
    second.write("summary.json", "new summary\n");
    // No commit (the run failed part-way): the staging folder goes, the old files stay.
  }
  std::ifstream in(d / "summary.json");
  std::string line;
  std::getline(in, line);
  CHECK(line == "old summary");
  int entries = 0;
  for (const auto& e : fs::directory_iterator(d)) {
    (void)e;
    ++entries;
  }
  CHECK(entries == 2);
  // A temporary file of a process that no longer runs is removed; ours and foreign names are kept.
  std::ofstream(d / ".ringsched-tmp.999999999.table.md") << "x";
  std::ofstream(d / (".ringsched-tmp." + std::to_string(::getpid()) + ".keep")) << "x";
  std::ofstream(d / "notes.tmp.txt") << "x";
  CHECK(remove_stale_temporaries(d.string()) == 1);
  CHECK(fs::exists(d / "notes.tmp.txt"));
  fs::remove_all(d);
}

TEST_CASE("sim::check_output_dir: a file in the way or /dev/full fails before any work", "[hostile]") {
  const fs::path d = fresh("outdir");
  fs::create_directories(d);
  std::ofstream(d / "file") << "x";
  CHECK_THAT(error_of([&] { check_output_dir((d / "file").string()); }),
             Catch::EndsWith("exists and is not a directory"));
  CHECK_THAT(error_of([] { check_output_dir("/dev/full"); }), Catch::Contains("not a directory"));
  CHECK_NOTHROW(check_output_dir((d / "new" / "deeper").string()));
  CHECK(fs::is_directory(d / "new" / "deeper"));
  fs::remove_all(d);
}
