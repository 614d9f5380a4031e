// test/workloads/test_goodput_types.cpp — goodput tables per GPU type (GoodputApp::load_by_type, a catalog's
// goodput.by_type) on test/fixtures/goodput/tiny-types: Sia's per-type files and a gpu_type column read the same
// step times (hand-computed from the fixture), every type shares the validation runs, the class gets one application
// and one speed view per type; missing or inconsistent rows are refused naming the file and line.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "test/input_error_of.h"
#include "test/sim/cli_util.h"
#include "workloads/catalog.h"
#include "workloads/goodput_app.h"
#include "workloads/io/json_reader.h"

using namespace ringsched;
using ringsched::test::error_of;
using ringsched::test::TempDir;

namespace {

const std::filesystem::path kTinyTypes = std::filesystem::path(RINGSCHED_TEST_DIR) / "fixtures/goodput/tiny-types";

GoodputLimits tiny_types_limits() {
  GoodputLimits limits;
  limits.max_epochs = 3;
  return limits;
}

void write_tiny_types_file(const std::filesystem::path& p, const std::string& text) {
  std::ofstream(p) << text;
}

// A copy of tiny-types in Sia's layout, for bad-table variants.
std::filesystem::path tiny_types_files(const TempDir& dir) {
  std::filesystem::copy(kTinyTypes, dir.path() / "files");
  return dir.path() / "files";
}

// The same tables as one placements.csv and scalability.csv with a gpu_type column (slow rows first: lines 2-7 of
// placements.csv, fast rows 8-13; scalability.csv: slow 2-3, fast 4-5).
std::filesystem::path tiny_types_column(const TempDir& dir) {
  const auto t = dir.path() / "column";
  std::filesystem::create_directories(t);
  std::filesystem::copy(kTinyTypes / "validation-8.csv", t / "validation-8.csv");
  std::filesystem::copy(kTinyTypes / "validation-16.csv", t / "validation-16.csv");
  write_tiny_types_file(t / "placements.csv",
                        "placement,local_bsz,step_time,sync_time,gpu_type\n"
                        "1,4,0.5,0.0,slow\n1,8,1.0,0.0,slow\n2,4,0.6,0.1,slow\n2,8,1.1,0.1,slow\n"
                        "11,4,0.8,0.3,slow\n11,8,1.3,0.3,slow\n"
                        "1,4,0.25,0.0,fast\n1,8,0.5,0.0,fast\n2,4,0.35,0.1,fast\n2,8,0.6,0.1,fast\n"
                        "11,4,0.55,0.3,fast\n11,8,0.8,0.3,fast\n");
  write_tiny_types_file(t / "scalability.csv",
                        "num_nodes,num_replicas,local_bsz,step_time,sync_time,gpu_type\n"
                        "2,4,4,1.0,0.5,slow\n2,4,8,1.5,0.5,slow\n2,4,4,0.75,0.5,fast\n2,4,8,1.0,0.5,fast\n");
  return t;
}

void check_tiny_types(const GoodputAppsByType& apps) {
  REQUIRE(apps.size() == 2);
  CHECK(apps[0].first == "fast");  // by type name
  CHECK(apps[1].first == "slow");
  const GoodputApp& fast = *apps[0].second;
  const GoodputApp& slow = *apps[1].second;
  CHECK(fast.gpu_type() == "fast");
  CHECK(slow.gpu_type() == "slow");
  // Measured rows: "1,8" and "11,4"; an unmeasured placement (2 nodes x 2 GPUs) is the scalability row (2, 4, 4).
  CHECK(slow.step_time({1}, 8).step == 1.0);
  CHECK(fast.step_time({1}, 8).step == 0.5);
  CHECK(fast.step_time({1}, 8).sync == 0.0);
  CHECK(fast.step_time({1, 1}, 4).step == Approx(0.55).epsilon(1e-12));
  CHECK(fast.step_time({1, 1}, 4).sync == Approx(0.3).epsilon(1e-12));
  CHECK(slow.step_time({2, 2}, 4).step == Approx(1.0).epsilon(1e-12));
  CHECK(fast.step_time({2, 2}, 4).step == Approx(0.75).epsilon(1e-12));
  // The validation runs are shared: the same progress (90 units per epoch), batches and limits on both.
  CHECK(fast.same_progress(slow));
  CHECK(fast.progress_at(1) == 90.0);
  CHECK(slow.total_progress() == 270.0);
  CHECK(fast.init_batch_size() == 8.0);
  CHECK(fast.max_batch_size() == 16.0);
  CHECK(fast.max_local_bsz() == 8.0);
  CHECK(fast.max_measured_gpus() == 4);
}

std::string tiny_types_class(const std::string& tables, const std::string& goodput_extra, int max_gpus = 4) {
  return R"({"name": "cat", "classes": [{"name": "tiny", "gpus": {"max": )" + std::to_string(max_gpus) +
         R"(}, "goodput": {"tables": ")" + tables + R"(", "max_epochs": 3)" + goodput_extra + "}}]}";
}

Catalog parse_tiny_types(const std::string& text) {
  return parse_catalog(parse_json_text(text, "cat.json"), "cat.json");
}

}  // namespace

TEST_CASE("workloads::GoodputApp: per-type tables in Sia's layout (hand-computed from tiny-types)",
          "[goodput][types]") {
  const auto apps =
      GoodputApp::load_by_type("tiny", kTinyTypes.string(), tiny_types_limits(), GoodputTypeLayout::kFiles);
  check_tiny_types(apps);
  // Cached as load is: a second load is the same applications.
  const auto again =
      GoodputApp::load_by_type("tiny", kTinyTypes.string(), tiny_types_limits(), GoodputTypeLayout::kFiles);
  CHECK(again[0].second.get() == apps[0].second.get());
}

TEST_CASE("workloads::GoodputApp: per-type tables with a gpu_type column read as Sia's files", "[goodput][types]") {
  TempDir dir;
  check_tiny_types(GoodputApp::load_by_type("tiny", tiny_types_column(dir).string(), tiny_types_limits(),
                                            GoodputTypeLayout::kColumn));
}

TEST_CASE("workloads::Catalog: a goodput class with goodput.by_type holds one application per GPU type",
          "[goodput][types]") {
  SECTION("the reference is the first type by name") {
    const Catalog cat = parse_tiny_types(tiny_types_class(kTinyTypes.string(), R"(, "by_type": "files")"));
    const JobClass& c = cat.classes[0];
    REQUIRE(c.goodput_by_type.size() == 2);
    REQUIRE(c.speed_by_type.size() == 2);
    CHECK(c.speed_by_type[0].first == "fast");
    CHECK(c.speed_by_type[1].first == "slow");
    CHECK(c.goodput->gpu_type() == "fast");
    CHECK(goodput_on(c, "slow")->gpu_type() == "slow");
    CHECK(goodput_on(c, "").get() == c.goodput.get());
    CHECK(goodput_on(c, "mid") == nullptr);
    // At the initial batch 8 on one GPU: "1,8", no accumulation, gain 1: 8 samples-equivalent per step of 1.0 s on
    // slow, 0.5 s on fast.
    CHECK(class_throughput_on(c, "slow", 1, 1) == Approx(8.0).epsilon(1e-12));
    CHECK(class_throughput_on(c, "fast", 1, 1) == Approx(16.0).epsilon(1e-12));
    CHECK(class_throughput(c, 1, 1) == Approx(16.0).epsilon(1e-12));
    CHECK(c.work_samples == 270.0 * 8.0);
  }
  SECTION("reference_type picks it") {
    TempDir dir;
    const Catalog cat = parse_tiny_types(
        tiny_types_class(tiny_types_column(dir).string(), R"(, "by_type": "column", "reference_type": "slow")"));
    CHECK(cat.classes[0].goodput->gpu_type() == "slow");
    CHECK(class_throughput(cat.classes[0], 1, 1) == Approx(8.0).epsilon(1e-12));
  }
  SECTION("without by_type a class has no types") {
    const Catalog cat = parse_tiny_types(
        tiny_types_class((std::filesystem::path(RINGSCHED_TEST_DIR) / "fixtures/goodput/tiny").string(), ""));
    CHECK(cat.classes[0].goodput_by_type.empty());
    CHECK(cat.classes[0].speed_by_type.empty());
    CHECK(cat.classes[0].goodput->gpu_type().empty());
  }
}

TEST_CASE("workloads::GoodputApp: per-type tables with missing or inconsistent rows are refused naming file and line",
          "[goodput][types][bad-input]") {
  const auto files = [](const std::filesystem::path& t) {
    return error_of(
        [&] { (void)GoodputApp::load_by_type("tiny", t.string(), tiny_types_limits(), GoodputTypeLayout::kFiles); });
  };
  const auto column = [](const std::filesystem::path& t) {
    return error_of(
        [&] { (void)GoodputApp::load_by_type("tiny", t.string(), tiny_types_limits(), GoodputTypeLayout::kColumn); });
  };
  SECTION("a type with a scalability file but no placements") {
    TempDir dir;
    const auto t = tiny_types_files(dir);
    std::filesystem::remove(t / "placements-fast.csv");
    CHECK_THAT(files(t), Catch::Contains("scalability-fast.csv: GPU type 'fast' has no placements-fast.csv"));
  }
  SECTION("a type without the scalability file another type has") {
    TempDir dir;
    const auto t = tiny_types_files(dir);
    std::filesystem::remove(t / "scalability-fast.csv");
    CHECK_THAT(files(t), Catch::Contains("placements-fast.csv: GPU type 'fast' has no scalability-fast.csv but "
                                         "type 'slow' has one"));
  }
  SECTION("a type with no rows") {
    TempDir dir;
    const auto t = tiny_types_files(dir);
    write_tiny_types_file(t / "placements-fast.csv", "placement,local_bsz,step_time,sync_time\n");
    CHECK_THAT(files(t), Catch::Contains("placements-fast.csv:2: empty table"));
  }
  SECTION("a bad row in one type's file") {
    TempDir dir;
    const auto t = tiny_types_files(dir);
    write_tiny_types_file(t / "placements-fast.csv", "placement,local_bsz,step_time,sync_time\n1,4,0.25,0\n1,8,x,0\n");
    CHECK_THAT(files(t), Catch::Contains("placements-fast.csv:3: column 'step_time'"));
  }
  SECTION("no per-type files at all") {
    CHECK_THAT(files(std::filesystem::path(RINGSCHED_TEST_DIR) / "fixtures/goodput/tiny"),
               Catch::Contains("no placements-<gpu type>.csv files"));
  }
  SECTION("an empty gpu_type") {
    TempDir dir;
    const auto t = tiny_types_column(dir);
    write_tiny_types_file(t / "placements.csv",
                          "placement,local_bsz,step_time,sync_time,gpu_type\n1,4,0.5,0.0,slow\n1,8,1.0,0.0,\n");
    CHECK_THAT(column(t), Catch::Contains("placements.csv:3: column 'gpu_type': empty"));
  }
  SECTION("a type in scalability.csv but not in placements.csv") {
    TempDir dir;
    const auto t = tiny_types_column(dir);
    write_tiny_types_file(t / "scalability.csv",
                          "num_nodes,num_replicas,local_bsz,step_time,sync_time,gpu_type\n2,4,4,1.0,0.5,mid\n");
    CHECK_THAT(column(t), Catch::Contains("scalability.csv:2: GPU type 'mid' has no rows in"));
  }
  SECTION("a type in placements.csv but not in scalability.csv") {
    TempDir dir;
    const auto t = tiny_types_column(dir);
    write_tiny_types_file(t / "scalability.csv",
                          "num_nodes,num_replicas,local_bsz,step_time,sync_time,gpu_type\n2,4,4,1.0,0.5,slow\n");
    CHECK_THAT(column(t), Catch::Contains("placements.csv:8: GPU type 'fast' has no rows in") &&
                              Catch::Contains("scalability.csv"));
  }
  SECTION("no gpu_type column") {
    CHECK_THAT(column(std::filesystem::path(RINGSCHED_TEST_DIR) / "fixtures/goodput/tiny"),
               Catch::Contains("placements.csv:1: missing column 'gpu_type'"));
  }
  SECTION("a gpu_type column read as one type's tables") {
    TempDir dir;
    const auto t = tiny_types_column(dir);
    CHECK_THAT(error_of([&] { (void)GoodputApp::load("tiny", t.string(), tiny_types_limits()); }),
               Catch::Contains("placements.csv:1: a 'gpu_type' column"));
  }
}

TEST_CASE("workloads::Catalog: bad goodput.by_type keys are refused naming the JSON path",
          "[goodput][types][bad-input]") {
  const std::string tables = kTinyTypes.string();
  const auto err = [](const std::string& text) { return error_of([&] { (void)parse_tiny_types(text); }); };
  CHECK_THAT(err(tiny_types_class(tables, R"(, "by_type": "sia")")),
             Catch::Contains("goodput.by_type") && Catch::Contains("unknown layout 'sia'"));
  CHECK_THAT(err(tiny_types_class(tables, R"(, "by_type": "files", "reference_type": "mid")")),
             Catch::Contains("goodput.reference_type") && Catch::Contains("no GPU type 'mid' in the tables (types: "
                                                                          "fast, slow)"));
  CHECK_THAT(err(tiny_types_class(tables, R"(, "reference_type": "slow")")), Catch::Contains("needs goodput.by_type"));
  CHECK_THAT(err(tiny_types_class(tables, R"(, "by_type": "files")", 8)),
             Catch::Contains("on GPU type 'fast' go up to 4 GPUs but gpus.max is 8"));
  CHECK_THAT(err(tiny_types_class(tables, R"(, "by_type": "column")")),
             Catch::Contains("goodput.tables") && Catch::Contains("placements.csv: no such file"));
}
