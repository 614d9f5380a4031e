// test/workloads/test_gavel.cpp — Gavel's throughputs file: the shipped file's job types and values (checked against
// figures read off the file by hand), the `gavel` catalog, and malformed files with file and JSON path.
#include <catch2/catch.hpp>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <string>

#include <unistd.h>

#include "models/input_error.h"
#include "workloads/data_catalogs.h"
#include "workloads/gavel.h"

using namespace ringsched;

namespace {

double isolated(const GavelThroughputs& t, const std::string& model, const std::string& type, int sf) {
  for (const auto& [g, v] : t.isolated.at(model).at(type))
    if (g == sf) return v;
  return -1.0;
}

std::string gavel_error(const std::string& text) {
  const auto dir = std::filesystem::temp_directory_path() / ("ringsched-gavel-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const auto file = dir / "simulation_throughputs.json";
  std::ofstream(file) << text;
  std::string msg;
  try {
    (void)read_gavel_throughputs(file.string());
  } catch (const InputError& e) {
    msg = e.what();
  }
  std::filesystem::remove_all(dir);
  return msg;
}

}  // namespace

TEST_CASE("workloads::Gavel: the shipped throughputs: 3 GPU types, 26 job types, isolated steps per second",
          "[gavel]") {
  const GavelThroughputs t = read_gavel_throughputs(default_gavel_dir() + "/simulation_throughputs.json");
  CHECK(t.gpu_types == std::vector<std::string>{"k80", "p100", "v100"});  // *_unconsolidated skipped
  CHECK(t.models.size() == 26);
  // Read off the file: ResNet-18 (batch size 64) at scale factor 1 runs 7.05 / 22.30 / 24.09 steps/s.
  CHECK(isolated(t, "ResNet-18 (batch size 64)", "k80", 1) == Approx(7.05).margin(0.01));
  CHECK(isolated(t, "ResNet-18 (batch size 64)", "p100", 1) == Approx(22.30).margin(0.01));
  CHECK(isolated(t, "ResNet-18 (batch size 64)", "v100", 1) == Approx(24.09).margin(0.01));
  CHECK(isolated(t, "ResNet-50 (batch size 128)", "k80", 2) == 0.0);  // cannot run there
  CHECK(t.isolated.at("A3C").at("v100").size() == 1);                 // not distributed: scale factor 1 only
  CHECK(t.isolated.at("LM (batch size 5)").at("v100").back().first == 8);
}

TEST_CASE("workloads::Gavel: the gavel catalog: one class per job type, speed per GPU type from the file", "[gavel]") {
  REQUIRE(is_data_folder_catalog("gavel"));
  const Catalog cat = data_folder_catalog("gavel", default_gavel_dir());
  REQUIRE(cat.classes.size() == 26);
  const JobClass& r18 = cat.classes[static_cast<std::size_t>(cat.find("ResNet-18 (batch size 64)"))];
  CHECK(r18.max_gpus == 8);
  CHECK(r18.batch_size == 1.0);
  CHECK(r18.speed_by_type.size() == 3);
  // samples/s = steps/s (batch 1): the file's values on each type; the reference speed is the V100's.
  CHECK(class_throughput_on(r18, "k80", 1, 1) == Approx(7.05).margin(0.01));
  CHECK(class_throughput(r18, 1, 1) == Approx(24.09).margin(0.01));
  const JobClass& a3c = cat.classes[static_cast<std::size_t>(cat.find("A3C"))];
  CHECK(a3c.max_gpus == 1);
}

TEST_CASE("workloads::Gavel: a malformed throughputs file fails naming the file and JSON path", "[gavel]") {
  using Catch::Contains;
  const std::string bad_key = R"j({"v100": {"ResNet, 1": {"null": 1}}})j";
  const std::string no_null = R"j({"v100": {"('A', 1)": {"('A', 1)": [1, 2]}}})j";
  const std::string negative = R"j({"v100": {"('A', 1)": {"null": -3}}})j";
  const std::string missing = R"j({"v100": {"('A', 1)": {"null": 1}}, "k80": {"('B', 1)": {"null": 1}}})j";
  CHECK_THAT(gavel_error(bad_key),
             Contains("simulation_throughputs.json: v100.ResNet, 1") && Contains("('<model>', <scale factor>)"));
  CHECK_THAT(gavel_error(no_null), Contains("no isolated throughput"));
  CHECK_THAT(gavel_error(negative), Contains("null"));
  CHECK_THAT(gavel_error(missing), Contains("no entry for job type"));
  CHECK_THAT(gavel_error("[1, 2]"), Contains("expected an object"));
  CHECK_THAT(gavel_error(R"j({"v100_unconsolidated": {}})j"), Contains("no GPU type"));
}
