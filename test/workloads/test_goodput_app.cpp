// test/workloads/test_goodput_app.cpp — workloads::GoodputApp on the shipped cifar10 tables, by hand: measured
// placements (up to rotation, linear between batches), the Delaunay interpolation of the others as SciPy answers it,
// gradient statistics and progress from the validation runs, the efficiency gain and gradient accumulation; and bad
// tables refused with the file (and line) named.
#include <catch2/catch.hpp>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "models/table_speed.h"
#include "test/input_error_of.h"
#include "test/sim/cli_util.h"
#include "workloads/goodput_app.h"
#include "workloads/pollux.h"

using namespace ringsched;
using ringsched::test::error_of;
using ringsched::test::TempDir;

namespace {

std::shared_ptr<const GoodputApp> cifar10() {
  GoodputLimits limits;
  limits.max_epochs = 100;  // the artifact's cifar10 setting (pollux-goodput)
  return GoodputApp::load("cifar10", default_pollux_dir() + "/traces/cifar10", limits);
}

void write(const std::filesystem::path& p, const std::string& text) {
  std::ofstream(p) << text;
}

// A copy of the tiny fixture application, for bad-table variants.
std::filesystem::path tiny_copy(const TempDir& dir) {
  const auto src = std::filesystem::path(RINGSCHED_TEST_DIR) / "fixtures/goodput/tiny";
  std::filesystem::copy(src, dir.path() / "tiny");
  return dir.path() / "tiny";
}

}  // namespace

TEST_CASE("workloads::GoodputApp: limits derived from the shipped cifar10 tables", "[goodput]") {
  const auto app = cifar10();
  CHECK(app->init_batch_size() == 128);  // the smallest validated batch
  CHECK(app->max_batch_size() == 4096);  // the largest
  CHECK(app->min_local_bsz() == 32);     // the smallest and largest per-GPU batch measured
  CHECK(app->max_local_bsz() == 1024);
  CHECK(app->max_epochs() == 100);
  CHECK(app->validated_batches() == std::vector<double>{128, 256, 512, 1024, 2048, 4096});
  // A second load of the same tables is the same (immutable, shared) application.
  CHECK(cifar10().get() == app.get());
}

TEST_CASE("workloads::GoodputApp: step times of measured placements (hand-computed from placements.csv)", "[goodput]") {
  const auto app = cifar10();
  // Row "1,64".
  models::StepSync s = app->step_time({1}, 64);
  CHECK(s.step == 0.05983335971832275);
  CHECK(s.sync == 0.0005080448031425476);
  // Between rows "1,45" and "1,64": linear in the per-GPU batch.
  s = app->step_time({1}, 50);
  const double t = (50.0 - 45.0) / (64.0 - 45.0);
  CHECK(s.step == Approx(0.05048525333404541 + t * (0.05983335971832275 - 0.05048525333404541)).epsilon(1e-14));
  CHECK(s.sync == Approx(0.000504022404551506 + t * (0.0005080448031425476 - 0.000504022404551506)).epsilon(1e-14));
  // Zeros are ignored and placements match up to rotation: one GPU on each of two nodes is row "11,129".
  s = app->step_time({1, 0, 1}, 129);
  CHECK(s.step == 0.1327885866165161);
  CHECK(s.sync == 0.02719344959259033);
  // Below the smallest measured batch: the edge row, counted as clamped.
  models::reset_thread_table_stats();
  s = app->step_time({2}, 16);
  CHECK(s.step == 0.04904515743255615);
  CHECK(models::thread_table_stats().clamped == 1);
  CHECK(models::thread_table_stats().lookups == 1);
  // Asked again (memoised): counted again.
  (void)app->step_time({2}, 16);
  CHECK(models::thread_table_stats().clamped == 2);
}

TEST_CASE("workloads::GoodputApp: other placements interpolate as the artifact's SciPy call does",
          "[goodput][fidelity]") {
  for (const std::string name : {"cifar10", "bert", "yolov3"}) {
    DYNAMIC_SECTION(name) {
      GoodputLimits limits;
      limits.max_epochs = 1;
      const auto app = GoodputApp::load(name, default_pollux_dir() + "/traces/" + name, limits);
      std::ifstream in(std::string(RINGSCHED_TEST_DIR) + "/fixtures/goodput/" + name + "-queries.csv");
      REQUIRE(in.good());
      std::string line;
      std::getline(in, line);
      int checked = 0;
      while (std::getline(in, line)) {
        std::stringstream ss(line);
        std::string placement;
        std::string bsz;
        std::string step;
        std::string sync;
        std::getline(ss, placement, ',');
        std::getline(ss, bsz, ',');
        std::getline(ss, step, ',');
        std::getline(ss, sync, ',');
        if (step == "nan") continue;  // outside the hull: the artifact has no answer (ringsched clamps, below)
        std::vector<int> p;
        std::stringstream ps(placement);
        std::string g;
        while (std::getline(ps, g, '-'))
          p.push_back(std::stoi(g));
        INFO(placement << " at " << bsz);
        const models::StepSync s = app->step_time(p, std::stod(bsz));
        CHECK(s.step == Approx(std::stod(step)).epsilon(1e-12));
        CHECK(s.sync == Approx(std::stod(sync)).epsilon(1e-12));
        ++checked;
      }
      CHECK(checked > 100);
    }
  }
}

TEST_CASE("workloads::GoodputApp: outside the measured hull the batch is clamped and the lookup counted", "[goodput]") {
  const auto app = cifar10();
  models::reset_thread_table_stats();
  // 5 GPUs on 5 nodes at a per-GPU batch beyond the largest measured one: not in placements.csv, outside the hull.
  const models::StepSync far = app->step_time({1, 1, 1, 1, 1}, 1031);
  const models::StepSync edge = app->step_time({1, 1, 1, 1, 1}, 1024);
  CHECK(far.step == edge.step);
  CHECK(std::isfinite(far.step));
  CHECK(models::thread_table_stats().clamped >= 1);
  // Still outside with the batch clamped (tiny measured 1 and 2 GPUs on one node, 2 and 4 on two): the nearest
  // measured point, here (1 node, 2 GPUs, batch 4) for 4 GPUs on one node at batch 2: row "2,4".
  GoodputLimits limits;
  limits.max_epochs = 3;
  const auto tiny = GoodputApp::load("tiny", std::string(RINGSCHED_TEST_DIR) + "/fixtures/goodput/tiny", limits);
  models::reset_thread_table_stats();
  const models::StepSync s = tiny->step_time({4}, 2);
  CHECK(s.step == 0.6);
  CHECK(s.sync == 0.1);
  CHECK(models::thread_table_stats().clamped == 1);
}

TEST_CASE("workloads::GoodputApp: gradient statistics, gain, progress and accumulation (hand-computed)", "[goodput]") {
  const auto app = cifar10();
  // Epoch 0 of validation-128.csv.
  models::GradStats g = app->grad_stats(128, 0);
  CHECK(g.sqr == 8.947307535897329);
  CHECK(g.var == 5.066593295150894);
  // Half-way between the 128 and 256 runs.
  g = app->grad_stats(192, 0);
  CHECK(g.sqr == Approx((8.947307535897329 + 17.379458169870425) / 2).epsilon(1e-14));
  CHECK(g.var == Approx((5.066593295150894 + 13.937760473946334) / 2).epsilon(1e-14));
  // Gain at 192: scale 1.5.
  CHECK(models::efficiency_gain(g, 192, 128) == Approx((g.var + g.sqr) / (g.var / 1.5 + g.sqr)));
  // Progress after one epoch: the smallest over the six runs (validation-256.csv).
  CHECK(app->progress_at(1) == 390.71438596642224);
  CHECK(app->progress_at(0) == 0.0);
  // Completion: the end of epoch 100, the smallest over the runs.
  CHECK(app->total_progress() == app->progress_at(100));
  CHECK(app->total_progress() <= 39084.62307012214);  // validation-4096.csv's last row
  // Batch 4096 on 2 GPUs of one node: local 2048 > 1024 per GPU -> one accumulation step of 2 x 1024.
  const models::BatchConfig cfg = app->fixed_batch(4096, 2);
  CHECK(cfg.atomic_bsz == 1024);
  CHECK(cfg.accum_steps == 1);
  // Goodput = gain(4096, epoch 0) / (step + (step - sync)) with row "2,1024" and validation-4096.csv's epoch 0.
  const double gain = (11.815138409160218 + 14.297054109491588) / (11.815138409160218 / 32.0 + 14.297054109491588);
  const double step = 0.8379724740982055 + (0.8379724740982055 - 0.0011728127837181094);
  CHECK(app->goodput({2}, cfg, 0) == Approx(gain / step).epsilon(1e-13));
}

TEST_CASE("workloads::GoodputApp: bad tables are refused naming the file", "[goodput][bad-input]") {
  GoodputLimits limits;
  limits.max_epochs = 3;
  {
    TempDir dir;
    CHECK_THAT(error_of([&] { (void)GoodputApp::load("x", (dir.path() / "none").string(), limits); }),
               Catch::Contains("no such directory"));
  }
  {
    TempDir dir;
    const auto t = tiny_copy(dir);
    limits.max_epochs = 4;  // the runs have 3 epochs
    CHECK_THAT(error_of([&] { (void)GoodputApp::load("tiny", t.string(), limits); }),
               Catch::Contains("max_epochs 4 exceeds the shortest validation run (3 epochs)"));
    limits.max_epochs = 3;
  }
  {
    TempDir dir;
    const auto t = tiny_copy(dir);
    write(t / "validation-16.csv", "progress,iteration,metric,grad_sqr\n90,45,0.5,1.0\n");
    CHECK_THAT(error_of([&] { (void)GoodputApp::load("tiny", t.string(), limits); }),
               Catch::Contains("validation-16.csv") && Catch::Contains("grad_var"));
  }
  {
    TempDir dir;
    const auto t = tiny_copy(dir);
    write(t / "validation-16.csv",
          "progress,iteration,metric,grad_sqr,grad_var\n90,45,0.5,1.0,3.0\n80,90,0.6,1.0,1.0\n270,135,0.7,2,0\n");
    CHECK_THAT(error_of([&] { (void)GoodputApp::load("tiny", t.string(), limits); }),
               Catch::Contains("validation-16.csv:3") && Catch::Contains("must not decrease"));
  }
  {
    TempDir dir;
    const auto t = tiny_copy(dir);
    write(t / "validation-16.csv",
          "progress,iteration,metric,grad_sqr,grad_var\n90,45,0.5,nan,3.0\n180,90,0.6,1.0,1.0\n270,135,0.7,2,0\n");
    CHECK_THAT(error_of([&] { (void)GoodputApp::load("tiny", t.string(), limits); }),
               Catch::Contains("validation-16.csv:2"));
  }
  {
    TempDir dir;
    const auto t = tiny_copy(dir);
    write(t / "validation-big.csv", "progress,iteration,metric,grad_sqr,grad_var\n");
    CHECK_THAT(error_of([&] { (void)GoodputApp::load("tiny", t.string(), limits); }),
               Catch::Contains("expected validation-<global batch>.csv"));
  }
  {
    TempDir dir;
    const auto t = tiny_copy(dir);
    std::filesystem::remove(t / "validation-8.csv");
    std::filesystem::remove(t / "validation-16.csv");
    CHECK_THAT(error_of([&] { (void)GoodputApp::load("tiny", t.string(), limits); }),
               Catch::Contains("no validation-<B>.csv files"));
  }
  {
    TempDir dir;
    const auto t = tiny_copy(dir);
    GoodputLimits bad = limits;
    bad.init_batch_size = 64;
    bad.max_batch_size = 32;
    CHECK_THAT(error_of([&] { (void)GoodputApp::load("tiny", t.string(), bad); }),
               Catch::Contains("inconsistent limits"));
  }
  {
    TempDir dir;
    const auto t = tiny_copy(dir);
    write(t / "placements.csv", "placement,local_bsz,step_time,sync_time\n1,4,0.5,0.0\n1,4,0.6,0.0\n");
    CHECK_THAT(error_of([&] { (void)GoodputApp::load("tiny", t.string(), limits); }),
               Catch::Contains("placements.csv") && Catch::Contains("measured twice"));
  }
  {
    TempDir dir;
    const auto t = tiny_copy(dir);
    // Every point in one plane (one node, one GPU count): nothing to triangulate.
    write(t / "placements.csv", "placement,local_bsz,step_time,sync_time\n1,4,0.5,0.0\n1,8,1.0,0.0\n");
    std::filesystem::remove(t / "scalability.csv");
    CHECK_THAT(error_of([&] { (void)GoodputApp::load("tiny", t.string(), limits); }),
               Catch::Contains("cannot be interpolated"));
  }
}
