// test/workloads/test_pollux.cpp — reading the Pollux tables: the work rule, loss points, class choice, the shipped
// data, and bad input (unknown applications, malformed rows) as InputError with file and line.
#include <catch2/catch.hpp>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>

#include "workloads/pollux.h"

using namespace ringsched;

namespace {
const std::string kFixture = std::string(RINGSCHED_TEST_DIR) + "/fixtures/heldout/pollux";
}

TEST_CASE("workloads::Pollux: fixture tables, work rule and loss points (hand-computed)", "[pollux]") {
  const PolluxApp app = load_pollux_app(kFixture, "cifar10");
  CHECK(app.steps.size() == 8);
  CHECK(app.steps[4].placement == "11");
  CHECK(app.steps[4].w == 2);
  CHECK(app.steps[4].nodes == 2);
  CHECK(app.steps[6].w == 4);  // scalability.csv row
  CHECK(app.higher_is_better);
  // Best metric of each run: 0.80 (B=8), 0.76 (B=16): the target every run reaches is 0.76.
  CHECK(app.target_metric == Approx(0.76));
  CHECK(pollux_work_samples(app, 8) == Approx(300.0 * 8));    // 0.80 at iteration 300
  CHECK(pollux_work_samples(app, 16) == Approx(240.0 * 16));  // 0.76 at iteration 240
  const auto loss = pollux_loss_points(app, 8);
  REQUIRE(loss.size() == 4);
  CHECK(loss[0].k == Approx(800.0));
  CHECK(loss[0].loss == Approx(0.5));
  CHECK(loss[2].loss == Approx(0.2));
  // Table truth: between measured batches at w=2 in one node.
  CHECK(app.table->lookup(2, 1, 15.0, nullptr) == Approx(2.0));
  // Class: per-GPU batch 20 (measured at every placement), validation batch closest to 8*20 = 160 in log: 16.
  const PolluxClassChoice ch = pollux_class_choice(app);
  CHECK(ch.local_batch == 20);
  CHECK(ch.validation_batch == 16);
  CHECK_THROWS_WITH(pollux_work_samples(app, 32), Catch::Contains("batches: 8, 16"));
}

TEST_CASE("workloads::Pollux: bad input names the file and line, unknown names list the known ones", "[pollux]") {
  CHECK_THROWS_WITH(load_pollux_app(kFixture, "gpt5"),
                    Catch::Contains("unknown Pollux application 'gpt5'") &&
                        Catch::Contains("cifar10, imagenet, bert, ncf, yolov3, deepspeech2"));
  CHECK_THROWS_WITH(load_pollux_app(std::string(RINGSCHED_TEST_DIR) + "/fixtures/heldout/bad_step", "cifar10"),
                    Catch::Contains("placements.csv:4: column 'step_time': must be > 0"));
  CHECK_THROWS_AS(load_pollux_app(kFixture, "imagenet"), InputError);  // folder missing in the fixture
  // A step of 1e300 s was accepted (and overflowed the fits); bounded as measured points are.
  namespace fs = std::filesystem;
  const fs::path tmp = fs::temp_directory_path() / ("ringsched-pollux-huge-" + std::to_string(::getpid()));
  fs::remove_all(tmp);
  fs::create_directories(tmp / "traces");
  fs::copy(std::string(RINGSCHED_TEST_DIR) + "/fixtures/heldout/bad_step/traces/cifar10", tmp / "traces/cifar10");
  std::ofstream(tmp / "traces/cifar10/placements.csv", std::ios::trunc)
      << "placement,local_bsz,step_time,sync_time\n1,10,1.0,0.0\n1,20,1e300,0.0\n";
  CHECK_THROWS_WITH(load_pollux_app(tmp.string(), "cifar10"),
                    Catch::Contains("placements.csv:3: column 'step_time': must be between 1e-9 and 3.2e7 s, got "
                                    "1e300"));
  fs::remove_all(tmp);
}

TEST_CASE("workloads::Pollux: the shipped data of all six applications", "[pollux]") {
  const std::string dir = default_pollux_dir();
  for (const auto& name : pollux_app_names()) {
    const auto app = pollux_app(dir, name);
    CHECK(app->steps.size() > 100);
    CHECK(app->runs.size() >= 6);
    const JobClass c = pollux_job_class(*app, 0.1);
    CHECK(c.work_samples > 0.0);
    CHECK(c.batch_mode == BatchMode::kFixedPerWorker);
    // The table is exact at the first measured row.
    const auto& r = app->steps.front();
    CHECK(app->table->lookup(r.w, r.nodes, r.local_batch, nullptr) == Approx(r.step_seconds));
  }
  // Metric directions: deepspeech2 (WER) and yolov3 decrease; cifar10 accuracy increases.
  CHECK_FALSE(pollux_app(dir, "deepspeech2")->higher_is_better);
  CHECK_FALSE(pollux_app(dir, "yolov3")->higher_is_better);
  CHECK(pollux_app(dir, "cifar10")->higher_is_better);
  CHECK(pollux_catalog(dir, 0.1).classes.size() == 6);
}

TEST_CASE("workloads::Pollux: the `table` speed kind in a catalog", "[pollux]") {
  const auto doc =
      nlohmann::json::parse(R"({"name": "t", "classes": [{"name": "x", "batch": {"mode": "fixed_per_worker",
    "size": 10}, "model_size_mparams": 1, "work": {"samples": 1000}, "gpus": {"max": 2},
    "speed": {"kind": "table", "points": [[1, 1, 10, 1.0], [2, 1, 10, 1.5]]}}]})");
  const Catalog cat = parse_catalog(doc, "inline.json");
  CHECK(cat.classes[0].speed->kind() == "table");
  CHECK(cat.classes[0].speed->step_seconds(2, 1, 20.0) == 1.5);
  auto bad = doc;
  bad["classes"][0]["speed"] = {{"kind", "table"}, {"pollux", "gpt5"}};
  CHECK_THROWS_WITH(parse_catalog(bad, "inline.json"),
                    Catch::Contains("classes[0].speed.pollux") && Catch::Contains("known: cifar10"));
}

TEST_CASE("workloads::LossCurve: exact at points, linear between, held beyond the ends, bad curves rejected",
          "[pollux][loss]") {
  const LossCurve c({{10.0, 3.0}, {20.0, 1.0}, {40.0, 2.0}});
  CHECK(c.loss(10.0) == 3.0);
  CHECK(c.loss(20.0) == 1.0);
  CHECK(c.loss(15.0) == Approx(2.0));
  CHECK(c.loss(30.0) == Approx(1.5));
  CHECK(c.loss(0.0) == 3.0);
  CHECK(c.loss(1e9) == 2.0);
  CHECK_THROWS_AS(LossCurve({{1.0, 1.0}}), std::invalid_argument);
  CHECK_THROWS_AS(LossCurve({{1.0, 1.0}, {1.0, 0.5}}), std::invalid_argument);
  CHECK_THROWS_AS(LossCurve({{1.0, 1.0}, {2.0, 0.0}}), std::invalid_argument);
}

TEST_CASE("workloads::Pollux: held-out classes carry their validation run as the loss curve", "[pollux][loss]") {
  const Catalog cat = pollux_catalog(default_pollux_dir(), 0.1);
  for (const JobClass& c : cat.classes) {
    INFO(c.name);
    REQUIRE(c.convergence);
    CHECK(c.loss_interval_samples > 0.0);
    // The curve is at or below the target loss at the class's work (the work rule's first epoch reaching it).
    CHECK(c.convergence->loss(c.work_samples) <= c.target_loss + 1e-12);
    // ... and above it at the epoch before (the first epoch reaching the target defines the work).
    const auto& pts = c.convergence->points();
    for (const auto& p : pts) {
      if (p.k < c.work_samples) CHECK(p.loss > c.target_loss);
    }
  }
}
