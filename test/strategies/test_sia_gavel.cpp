// test/strategies/test_sia_gavel.cpp — `sia_gavel`, Gavel as Sia's (SOSP'23) simulator runs it on goodput jobs:
// its max_sum_throughput_perf program and its round queue hand-worked, and a config with goodput.slowdown and
// goodput.restart_s on two GPU types (the tiny-types fixture, a workload file in the Saturn/Pollux format written
// here) run end to end with the engine's invariants and a hand-worked finish time.
#include <catch2/catch.hpp>

#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "models/input_error.h"
#include "sim/experiments/replicate.h"
#include "strategies/gavel/sia_gavel.h"
#include "test/sim/cli_util.h"
#include "traces/pollux_trace.h"
#include "workloads/goodput_app.h"

using namespace ringsched;

namespace {

const std::string kSiaTinyTypes = std::string(RINGSCHED_TEST_DIR) + "/fixtures/goodput/tiny-types";

// Pools slow and fast (one GPU each), the tiny class with Sia's per-type tables at a fixed batch, slowdown 2 and a
// 20 s restart of its own, sia_gavel every 50 s; the trace file `trace`.
nlohmann::json sia_tiny_config(const std::string& trace) {
  nlohmann::json doc = nlohmann::json::parse(R"({
    "allow_parent_paths": true,
    "cluster": {"pools": [{"gpu_type": "slow", "nodes": 1, "gpus_per_node": 1},
                          {"gpu_type": "fast", "nodes": 1, "gpus_per_node": 1}]},
    "workload": {"catalog": {"name": "tiny", "classes": [{"name": "tiny", "gpus": {"max": 1},
                 "goodput": {"by_type": "files", "reference_type": "slow", "max_epochs": 3, "adaptive_batch": false,
                             "slowdown": 2, "restart_s": 20}}]},
                 "trace": {"format": "pollux"}},
    "strategies": [{"name": "sia_gavel", "params": {"round_s": 50}}],
    "scheduler": {"interval_s": 50},
    "restart": {"cost_s": 5, "on_first_start": true},
    "seeds": 1})");
  doc["workload"]["catalog"]["classes"][0]["goodput"]["tables"] = kSiaTinyTypes;
  doc["workload"]["trace"]["file"] = trace;
  return doc;
}

}  // namespace

TEST_CASE("strategies::sia_gavel_max_sum_throughput: the program of a hand-worked round", "[strategies][gavel][sia]") {
  // Job 0 makes 3 steps/s on type 0 and 1 on type 1, job 1 2 on both; one GPU per type. The best: job 0 on type 0,
  // job 1 on type 1 (3 + 2 = 5; the swap gives 3). A unique optimum: vertex and centre agree.
  for (const bool centre : {false, true}) {
    const std::vector<double> x = sia_gavel_max_sum_throughput({{3.0, 1.0}, {2.0, 2.0}}, {1, 1}, {1, 1}, centre);
    REQUIRE(x.size() == 4);
    CHECK(x[0] == Approx(1.0).margin(1e-4));
    CHECK(x[1] == Approx(0.0).margin(1e-4));
    CHECK(x[2] == Approx(0.0).margin(1e-4));
    CHECK(x[3] == Approx(1.0).margin(1e-4));
  }
  // A job of scale factor 2 on types of 1 and 2 GPUs, 1 step/s on both: 2 x0 <= 1, 2 x1 <= 2, x0 + x1 <= 1: the
  // optimum 1 is every x0 + x1 = 1 with x0 <= 1/2. The centre lies inside that face (x0 strictly between 0 and 1/2).
  const std::vector<double> c = sia_gavel_max_sum_throughput({{1.0, 1.0}}, {2}, {1, 2}, true);
  CHECK(c[0] + c[1] == Approx(1.0).margin(1e-4));
  CHECK(c[0] > 0.05);
  CHECK(c[0] < 0.45);
}

TEST_CASE("strategies::sia_gavel_queue: priorities, one queue over every type, leftovers taken",
          "[strategies][gavel][sia]") {
  // Two types; jobs 0, 1, 2 of scale factors 1, 1, 2 and job 3 of 1 with no allocation. Allocations (type 0, type 1):
  // job 0 (0.5, 0), job 1 (0, 1), job 2 (0.5, 0). Time received: job 0 (180, 180), job 1 (180, 180), job 2 (900,
  // 180), job 3 (180, 180); per type 1440 and 720. Priorities: job 0 on type 0 0.5 / (180 / 1440) = 4; job 1 on
  // type 1 1 / (180 / 720) = 4; job 2 on type 0 0.5 / (900 / 1440) = 0.8; the rest 0. Equal priorities 4: the larger
  // allocation first (job 1), so the queue is job 1 @1, job 0 @0, job 2 @0, then the zeros type-major.
  const std::vector<double> alloc = {0.5, 0.0, 0.0, 1.0, 0.5, 0.0, 0.0, 0.0};
  const std::vector<double> job_time = {180, 180, 180, 180, 900, 180, 180, 180};
  const std::vector<double> cluster_time = {1440, 720};
  const std::vector<int> sf = {1, 1, 2, 1};
  SECTION("room for all but job 2: it is skipped, job 3 (no allocation) takes the GPU left") {
    const std::vector<SiaGavelPick> p = sia_gavel_queue(alloc, job_time, cluster_time, sf, {2, 1});
    REQUIRE(p.size() == 3);
    CHECK((p[0].job == 1 && p[0].pool == 1));
    CHECK((p[1].job == 0 && p[1].pool == 0));
    CHECK((p[2].job == 3 && p[2].pool == 0));
  }
  SECTION("room for all: job 2 takes two GPUs of type 0, job 3 the last one") {
    const std::vector<SiaGavelPick> p = sia_gavel_queue(alloc, job_time, cluster_time, sf, {4, 1});
    REQUIRE(p.size() == 4);
    CHECK((p[2].job == 2 && p[2].pool == 0));
    CHECK((p[3].job == 3 && p[3].pool == 0));
  }
  SECTION("a type whose time is 0: the allocation x 1e9 orders first") {
    const std::vector<SiaGavelPick> p = sia_gavel_queue(alloc, job_time, {0.0, 720}, sf, {1, 1});
    REQUIRE(p.size() == 2);
    CHECK((p[0].job == 0 && p[0].pool == 0));
    CHECK((p[1].job == 1 && p[1].pool == 1));
  }
}

TEST_CASE("traces::read_pollux_workload: a Saturn workload file of Sia's artifact", "[traces][sia]") {
  // Sia's Saturn workloads use the Pollux columns name,time,application,num_replicas,batch_size (hand-written here).
  test::TempDir dir;
  const auto file = dir.path() / "workload-1.csv";
  test::write_whole_file(file,
                         "name,time,application,num_replicas,batch_size\n"
                         "cifar10-0,401.0,cifar10,12,4096\n"
                         "yolov3-7,1448.0,yolov3,4,64\n");
  const Trace t = read_pollux_workload(file.string());
  REQUIRE(t.jobs.size() == 2);
  CHECK(t.jobs[0].name == "cifar10-0");
  CHECK(t.jobs[0].submit_s == 401.0);
  CHECK(t.jobs[1].gpus == 4);
}

TEST_CASE("sim::Experiment: sia_gavel on goodput jobs with slowdown and their own restart (hand-worked)",
          "[sim][gavel][sia]") {
  // One tiny job (batch 16, 1 GPU) at t = 0. Round at 50: steps/s slow 1 / 2.0 / 2 = 0.25, fast 1 / 1.0 / 2 = 0.5
  // (slowdown 2): the program puts it on fast, priority 1 there, 0 on slow. It restarts 20 s (its restart_s, not the
  // config's 5) and then needs twice fast's 213.75 s (test_goodput_pools.cpp): done at 70 + 427.5 = 497.5. Every
  // later round keeps it on fast: no restart.
  test::TempDir dir;
  const auto trace = dir.path() / "w.csv";
  test::write_whole_file(trace, "name,time,application,num_replicas,batch_size\ntiny-0,0,tiny,1,16\n");
  const ExperimentConfig c = parse_experiment(sia_tiny_config(trace.string()), "cfg.json", "");
  const CellRun r = run_cell(c, 0, 0, 0, true);
  REQUIRE(r.error.empty());
  REQUIRE(r.jobs.size() == 1);
  CHECK(r.jobs[0].first_start == 50.0);
  CHECK(r.jobs[0].finish == Approx(497.5).epsilon(1e-9));
  CHECK(r.jobs[0].restarts == 0);
  CHECK(r.jobs[0].gpu_type == "fast");
  CHECK(r.jobs[0].gpu_seconds == Approx(447.5).epsilon(1e-9));
}

TEST_CASE("sim::Experiment: goodput.restart_s not shorter than the round is refused", "[sim][gavel][sia]") {
  test::TempDir dir;
  const auto trace = dir.path() / "w.csv";
  test::write_whole_file(trace, "name,time,application,num_replicas,batch_size\ntiny-0,0,tiny,1,16\n");
  nlohmann::json doc = sia_tiny_config(trace.string());
  doc["workload"]["catalog"]["classes"][0]["goodput"]["restart_s"] = 50;
  std::string what;
  try {
    (void)parse_experiment(doc, "cfg.json", "");
  } catch (const InputError& e) {
    what = e.what();
  }
  CHECK(what.find("class 'tiny'") != std::string::npos);
  CHECK(what.find("scheduler.interval_s") != std::string::npos);
}

TEST_CASE("workloads::GoodputApp: interpolation when_needed loads tables that cannot be triangulated",
          "[goodput][sia]") {
  // Every point in one plane (one node, one GPU, as the per-GPU batch of Sia's bert tables is one value): at_load is
  // a load error (test_goodput_app.cpp); when_needed loads, a measured placement reads its rows, an unmeasured one
  // the nearest measured point: "11" (2 nodes, 2 GPUs) at batch 8 -> the "1,8" row (1.0 s, sync 0).
  test::TempDir dir;
  const auto t = dir.path() / "flat";
  std::filesystem::copy(std::string(RINGSCHED_TEST_DIR) + "/fixtures/goodput/tiny", t);
  test::write_whole_file(t / "placements.csv", "placement,local_bsz,step_time,sync_time\n1,4,0.5,0.0\n1,8,1.0,0.0\n");
  std::filesystem::remove(t / "scalability.csv");
  GoodputLimits limits;
  limits.max_epochs = 3;
  CHECK_THROWS_AS(GoodputApp::load_uncached("flat", t.string(), limits), InputError);
  limits.interpolate_when_needed = true;
  const auto app = GoodputApp::load_uncached("flat", t.string(), limits);
  CHECK(app->step_time({1}, 4.0).step == 0.5);
  const models::StepSync s = app->step_time({1, 1}, 8.0);
  CHECK(s.step == 1.0);
  CHECK(s.sync == 0.0);
}
