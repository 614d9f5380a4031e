// test/sim/experiments/test_run_checks.cpp — configs whose every value is valid but whose every run would fail
// (issue 33): validation refuses each naming the JSON path (and file:line), and the same run without the check is
// shown to fail: a trace row pushed to the clock's horizon by time_scale or by repeat.every, a Gavel row of 1e15
// steps, a class Gavel's generator cannot time on its reference type, a zero or denormal throughput in Gavel's file.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <memory>
#include <string>

#include <nlohmann/json.hpp>

#include "models/scale_table.h"
#include "sim/experiments/config.h"
#include "sim/experiments/replicate.h"
#include "test/input_error_of.h"
#include "test/sim/cli_util.h"
#include "traces/trace.h"
#include "workloads/gavel.h"
#include "workloads/gavel_jobs.h"
#include "workloads/io/json_reader.h"

using namespace ringsched;
using Catch::Contains;
using Catch::StartsWith;
using ringsched::test::error_of;
using ringsched::test::write_whole_file;

namespace {

// 1 node x 4 GPUs, one class of 100 w samples/s, a generic trace of two rows (0 s and 10 s, 100 s on one GPU).
nlohmann::json generic_doc(const test::TempDir& dir) {
  write_whole_file(dir / "two.csv", "timestamp,duration,num_gpus\n0,100,1\n10,100,1\n");
  return parse_json_text(R"({
    "cluster": {"nodes": 1, "gpus_per_node": 4},
    "workload": {"catalog": {"name": "c", "classes": [
      {"name": "lin", "batch": {"mode": "fixed_global", "size": 100}, "model_size_mparams": 1,
       "work": {"samples": 1000}, "gpus": {"max": 4}, "speed": {"kind": "eq5", "t0": 0.01, "t1": 0, "t2": 0, "t3": 0}}
    ]}, "trace": {"file": "two.csv", "format": "generic"}},
    "strategies": ["eight"], "seeds": 1})",
                         "t.json");
}

std::string parse_error(const nlohmann::json& doc, const test::TempDir& dir) {
  return error_of([&] { (void)parse_experiment(doc, "t.json", dir.path().string()); });
}

// The error the config's first run stops with ("" when it runs through); the config was changed after parsing, so
// no check of parse_experiment stands in its way.
std::string run_error(const ExperimentConfig& c) {
  return error_of([&] { (void)run_cell(c, 0, 0, 0, false); });
}

}  // namespace

TEST_CASE("sim::check_runs_can_finish: a time_scale that puts a trace row past the horizon is refused at its path",
          "[hostile][run_checks]") {
  test::TempDir dir;
  nlohmann::json doc = generic_doc(dir);
  doc["workload"]["trace"]["time_scale"] = 1e300;
  CHECK_THAT(parse_error(doc, dir),
             StartsWith("t.json: workload.trace.time_scale: " + (dir / "two.csv") +
                        ":3: job 'line-3' (class lin) arrives at 1e+301 s and needs at least") &&
                 Contains("the simulated clock stops at 1e12 s, so every run would fail there (lower time_scale)"));
  // The same run without the check: the second job's arrival is beyond the horizon, and the run fails.
  doc["workload"]["trace"]["time_scale"] = 1.0;
  ExperimentConfig c = parse_experiment(doc, "t.json", dir.path().string());
  c.workload.trace_spec.time_scale = 1e300;
  CHECK_THAT(run_error(c), Contains("arrival time 1e+301 s is not a time within the simulated horizon"));
  // The check itself, on the changed config (as parse_experiment calls it).
  doc["workload"]["trace"]["time_scale"] = 1e300;
  CHECK_THAT(error_of([&] { check_runs_can_finish(JsonReader(doc, "t.json"), c); }),
             StartsWith("t.json: workload.trace.time_scale: "));
  // A scale that keeps the rows well inside the horizon passes.
  doc["workload"]["trace"]["time_scale"] = 1e9;
  CHECK_NOTHROW(parse_experiment(doc, "t.json", dir.path().string()));
}

TEST_CASE("sim::check_runs_can_finish: repeat.every that starts the last copy at the horizon is refused",
          "[hostile][run_checks]") {
  test::TempDir dir;
  nlohmann::json doc = generic_doc(dir);
  // (copies - 1) x every = 1e12 s exactly: within parse_repeat's own limit, but copy 1 arrives at 1e12 s and 1e12 +
  // 10 s with 100 s of work each.
  doc["workload"]["trace"]["repeat"] = {{"copies", 2}, {"every", 1e12}};
  CHECK_THAT(parse_error(doc, dir),
             StartsWith("t.json: workload.trace.repeat.every: " + (dir / "two.csv") +
                        ":2: job 'line-2~1' (class lin) arrives at 1e+12 s and needs at least") &&
                 Contains("(lower repeat.every or repeat.copies)"));
  // The same run without the check fails: copy 1 cannot finish before the clock stops.
  doc["workload"]["trace"].erase("repeat");
  ExperimentConfig c = parse_experiment(doc, "t.json", dir.path().string());
  c.workload.trace = std::make_shared<const Trace>(repeat_trace(*c.workload.trace, 2, 1e12));
  c.workload.jobs = 4;
  CHECK_THAT(run_error(c), Contains("job 'line-3~1': arrival time 1e+12 s is not a time within the simulated horizon"));
  // Half the horizon is fine.
  doc["workload"]["trace"]["repeat"] = {{"copies", 2}, {"every", 5e11}};
  CHECK_NOTHROW(parse_experiment(doc, "t.json", dir.path().string()));
}

TEST_CASE("sim::check_runs_can_finish: a Gavel trace row of 1e15 steps is refused naming the file and line",
          "[hostile][run_checks]") {
  test::TempDir dir;
  const std::string row = "Transformer (batch size 128)\tcmd\t-step\t1\t";
  write_whole_file(dir / "g.trace", row + "1000\t0\t1\n" + row + "1000000000000000\t60\t1\n");
  nlohmann::json doc = parse_json_text(R"({
    "cluster": {"pools": [{"gpu_type": "v100", "nodes": 2, "gpus_per_node": 1},
                          {"gpu_type": "k80", "nodes": 2, "gpus_per_node": 1}]},
    "workload": {"catalog": "gavel", "trace": {"file": "g.trace", "format": "gavel"}},
    "strategies": ["gavel_fifo"], "scheduler": {"interval_s": 360}, "restart": {"cost_s": 0}, "seeds": 1})",
                                       "t.json");
  CHECK_THAT(parse_error(doc, dir), StartsWith("t.json: workload.trace.file: " + (dir / "g.trace") + ":2: job '") &&
                                        Contains("its work (1e+15 samples) takes at least") &&
                                        Contains("(check the row's steps or duration)"));
  // The same run without the check: the job's completion lies beyond the horizon.
  write_whole_file(dir / "g.trace", row + "1000\t0\t1\n" + row + "1000\t60\t1\n");
  ExperimentConfig c = parse_experiment(doc, "t.json", dir.path().string());
  Trace big = *c.workload.trace;
  big.jobs[1].steps = 1e15;
  c.workload.trace = std::make_shared<const Trace>(big);
  CHECK_THAT(run_error(c), Contains("beyond the horizon of 1e12 s"));
}

TEST_CASE("sim::check_runs_can_finish: a class with throughput 0 on Gavel's reference type is refused",
          "[hostile][run_checks]") {
  // The shipped file measures ResNet-50 (batch size 128) at 0 steps/s on 2, 4 and 8 K80s: with K80 as the reference,
  // Gavel's multi-GPU generator gives such jobs no duration.
  nlohmann::json doc = parse_json_text(R"({
    "cluster": {"pools": [{"gpu_type": "v100", "nodes": 8, "gpus_per_node": 1},
                          {"gpu_type": "k80", "nodes": 8, "gpus_per_node": 1}]},
    "workload": {"catalog": "gavel", "jobs": 2000,
                 "arrival": {"process": "gavel", "rate_per_hour": 1, "multi_gpu": true, "reference_gpu_type": "k80"}},
    "strategies": ["gavel_fifo"], "scheduler": {"interval_s": 360}, "restart": {"cost_s": 0}, "seeds": 1})",
                                       "t.json");
  CHECK_THAT(error_of([&] { (void)parse_experiment(doc, "t.json", ""); }),
             StartsWith("t.json: workload.arrival.reference_gpu_type: class 'ResNet-50 (batch size 128)' of catalog "
                        "gavel (") &&
                 Contains("has throughput 0 on 2 k80 GPU(s), where Gavel's generator measures job durations"));
  // The same run without the check: the generator stops at the first such job.
  doc["workload"]["arrival"]["reference_gpu_type"] = "v100";
  ExperimentConfig c = parse_experiment(doc, "t.json", "");
  c.workload.gavel_reference_type = "k80";
  CHECK_THAT(run_error(c), Contains("cannot run on") && Contains("k80 GPUs (throughput 0)"));
}

TEST_CASE("sim::read_gavel_throughputs: a zero on the reference type or a denormal throughput is refused",
          "[hostile][run_checks]") {
  test::TempDir dir;
  std::ifstream in(default_gavel_dir() + "/simulation_throughputs.json");
  const nlohmann::json shipped = nlohmann::json::parse(in);
  const std::string key = "('Transformer (batch size 128)', 1)";
  const std::string file = dir / "simulation_throughputs.json";
  nlohmann::json zero = shipped;
  zero["v100"][key]["null"] = 0.0;
  write_whole_file(file, zero.dump());
  CHECK(error_of([&] { (void)gavel_catalog(dir.path().string()); }) ==
        file + ": v100." + key +
            ".null: throughput 0 on the reference GPU type v100, where job durations are defined (a job type must "
            "run there)");
  nlohmann::json tiny = shipped;
  tiny["p100"][key]["null"] = 4.9e-324;
  write_whole_file(file, tiny.dump());
  CHECK(error_of([&] { (void)gavel_catalog(dir.path().string()); }) ==
        file + ": p100." + key + ".null: a throughput below 2.2e-308 steps/s");
  // Without the check each would give Gavel's generator a class it cannot time: 0 steps/s, and a denormal whose
  // step time overflows to infinity (0 samples/s).
  for (const double tput : {0.0, 4.9e-324}) {
    JobClass cls;
    cls.name = "t";
    cls.batch_mode = BatchMode::kFixedGlobal;
    cls.batch_size = 1.0;
    cls.max_gpus = 1;
    cls.speed = std::make_shared<const models::ScaleTableStepTime>(std::vector<std::pair<int, double>>{{1, tput}});
    cls.speed_by_type = {{"v100", cls.speed}};
    auto cat = std::make_shared<Catalog>();
    cat->name = "t";
    cat->classes = {cls};
    GavelJobsSpec spec;
    spec.jobs = 1;
    spec.rate_per_s = 1.0;
    CHECK_THAT(error_of([&] { (void)generate_gavel_workload(cat, spec, 1); }), Contains("(throughput 0)"));
  }
  // The shipped file passes (its zeros are on K80s, not the reference).
  CHECK_NOTHROW(gavel_catalog(default_gavel_dir()));
}
