// test/workloads/test_measurement.cpp — measurement files: round trip, schema errors naming file and JSON path,
// log-log interpolation and Eq. 5 fit points.
#include <catch2/catch.hpp>
#include <cmath>
#include <fstream>
#include <functional>
#include <nlohmann/json.hpp>

#include "models/input_error.h"
#include "test/sim/cli_util.h"
#include "workloads/measurement/measurement.h"

using namespace ringsched::profiler;
using ringsched::InputError;
using ringsched::test::TempDir;

namespace {

Measurement sample_measurement(int world, const std::vector<int>& layers = {10, 10}) {
  Measurement m;
  m.machine = {"host-a", "Test CPU", "cpu"};
  m.backend = "cpu";
  m.world_size = world;
  m.hostnames = {"host-a"};
  m.nodes = 1;
  m.model.layers = layers;
  m.model.parameters = mlp_parameter_count(layers);
  m.model.gradient_bytes = 4 * m.model.parameters;
  m.settings = {2, 3, "default"};
  m.compute.push_back({8, seconds_from_repeats({0.001, 0.002, 0.003})});
  m.compute.push_back({16, seconds_from_repeats({0.004, 0.004, 0.004})});
  m.allreduce.push_back({100, seconds_from_repeats({1e-5, 1e-5, 1e-5})});
  m.allreduce.push_back({1000, seconds_from_repeats({1e-4, 1e-4, 1e-4})});
  m.timestamp = "2024-01-01T00:00:00Z";
  m.command_line = "ringsched-profile --out x.json";
  return m;
}

void write_text(const std::string& path, const std::string& text) {
  std::ofstream(path, std::ios::binary) << text;
}

// Saves a valid file, applies `edit` to its JSON, writes it back, and returns the load error message.
std::string error_after(const TempDir& dir, const std::function<void(nlohmann::json&)>& edit) {
  const std::string path = dir / "m.json";
  save_measurement(sample_measurement(2), path);
  std::ifstream in(path);
  nlohmann::json j = nlohmann::json::parse(in);
  edit(j);
  write_text(path, j.dump());
  try {
    load_measurement(path);
  } catch (const InputError& e) {
    return e.what();
  }
  return "no error";
}

}  // namespace

TEST_CASE("profiler::measurement: save then load gives the same measurement", "[profiler][measurement]") {
  TempDir dir;
  const std::string path = dir / "m2.json";
  const Measurement m = sample_measurement(2);
  save_measurement(m, path);
  const Measurement back = load_measurement(path);
  CHECK(back.source == path);
  CHECK(back.machine.hostname == "host-a");
  CHECK(back.machine.cpu_model == "Test CPU");
  CHECK(back.world_size == 2);
  CHECK(back.nodes == 1);
  CHECK(back.model.layers == m.model.layers);
  CHECK(back.model.parameters == 110);
  CHECK(back.model_size() == 110.0);
  CHECK(back.settings.repeats == 3);
  REQUIRE(back.compute.size() == 2);
  CHECK(back.compute[0].seconds.repeats == m.compute[0].seconds.repeats);
  CHECK(back.compute[0].seconds.mean == m.compute[0].seconds.mean);
  REQUIRE(back.allreduce.size() == 2);
  CHECK(back.allreduce[1].bytes == 1000);
  CHECK(back.command_line == m.command_line);
  CHECK(measurement_to_json(back) == measurement_to_json(m));
  // Atomic write leaves no temp files behind.
  int files = 0;
  for (const auto& e : std::filesystem::directory_iterator(std::filesystem::path(path).parent_path())) {
    (void)e;
    ++files;
  }
  CHECK(files == 1);
}

TEST_CASE("profiler::measurement: schema errors name the file and the JSON path", "[profiler][measurement]") {
  TempDir dir;
  const std::string file = dir / "m.json";
  struct Case {
    const char* name;
    std::function<void(nlohmann::json&)> edit;
    std::string expected;
  };
  const std::vector<Case> cases = {
      {"missing key", [](nlohmann::json& j) { j.erase("world_size"); }, "world_size: missing required key"},
      {"unknown key", [](nlohmann::json& j) { j["colour"] = 1; }, "colour: unknown key"},
      {"unknown nested key", [](nlohmann::json& j) { j["compute"][1]["seconds"]["median"] = 1; },
       "compute[1].seconds.median: unknown key"},
      {"negative time", [](nlohmann::json& j) { j["compute"][1]["seconds"]["mean"] = -1; },
       "compute[1].seconds.mean: must be > 0, got -1"},
      {"zero repeat", [](nlohmann::json& j) { j["allreduce"][0]["seconds"]["repeats"][2] = 0; },
       "allreduce[0].seconds.repeats[2]: must be > 0"},
      {"zero bytes", [](nlohmann::json& j) { j["allreduce"][0]["bytes"] = 0; }, "allreduce[0].bytes: must be > 0"},
      {"negative batch", [](nlohmann::json& j) { j["compute"][0]["per_worker_batch"] = -8; },
       "compute[0].per_worker_batch: must be > 0"},
      {"wrong type", [](nlohmann::json& j) { j["backend"] = 3; }, "backend: must be a string"},
      {"string for number", [](nlohmann::json& j) { j["world_size"] = "2"; }, "world_size: must be an integer"},
      {"unknown backend", [](nlohmann::json& j) { j["backend"] = "tpu"; }, "backend: must be \"cpu\" or \"cuda\""},
      {"schema", [](nlohmann::json& j) { j["schema"] = "other"; }, "schema: must be \"ringsched.measurement\""},
      {"version", [](nlohmann::json& j) { j["version"] = 2; }, "version: unsupported version 2"},
      {"parameters", [](nlohmann::json& j) { j["model"]["parameters"] = 7; }, "model.parameters: must be 110"},
      {"unsorted", [](nlohmann::json& j) { j["compute"][1]["per_worker_batch"] = 8; },
       "compute[1].per_worker_batch: batch sizes must be strictly increasing"},
      {"empty repeats", [](nlohmann::json& j) { j["compute"][0]["seconds"]["repeats"] = nlohmann::json::array(); },
       "compute[0].seconds.repeats: must not be empty"},
      {"min above mean", [](nlohmann::json& j) { j["compute"][0]["seconds"]["min"] = 1.0; },
       "compute[0].seconds: needs min <= mean <= max"},
      {"nodes vs hostnames", [](nlohmann::json& j) { j["nodes"] = 2; }, "nodes: must equal the number of hostnames"},
      {"not an object", [](nlohmann::json& j) { j["machine"] = nlohmann::json::array(); },
       "machine: must be an object"},
      {"empty allreduce at W=2", [](nlohmann::json& j) { j["allreduce"] = nlohmann::json::array(); },
       "allreduce: must not be empty"},
      // An overflowing parameter count was exit 2 without the file's name.
      {"overflowing layers",
       [](nlohmann::json& j) { j["model"]["layers"] = std::vector<int>(5000, 1 << 24); },  // 4999 x 2^48 > 2^60
       "model.layers: these widths give more than 2^60 parameters"},
  };
  for (const Case& c : cases) {
    INFO(c.name);
    const std::string message = error_after(dir, c.edit);
    CHECK_THAT(message, Catch::StartsWith(file + ": "));
    CHECK_THAT(message, Catch::Contains(c.expected));
  }
}

TEST_CASE("profiler::measurement: unreadable and malformed files name the file", "[profiler][measurement]") {
  TempDir dir;
  const std::string missing = dir / "missing.json";
  CHECK_THROWS_WITH(load_measurement(missing), Catch::StartsWith(missing + ": cannot open"));
  const std::string broken = dir / "broken.json";
  write_text(broken, "{\n  \"schema\": \"ringsched.measurement\",\n  \"version\": 1,\n");
  CHECK_THROWS_WITH(load_measurement(broken),
                    Catch::StartsWith(broken + ":4:1: malformed JSON") && Catch::Contains("line 4"));
  const std::string array = dir / "array.json";
  write_text(array, "[1, 2]");
  CHECK_THROWS_WITH(load_measurement(array), Catch::StartsWith(array + ": (top level): must be an object"));
}

TEST_CASE("profiler::measurement_points: compute + interpolated all-reduce, global batch b*W",
          "[profiler][measurement]") {
  std::vector<Measurement> ms = {sample_measurement(1), sample_measurement(2)};
  ms[0].source = "m1.json";
  ms[1].source = "m2.json";
  ms[1].hostnames = {"host-a", "host-b"};
  ms[1].nodes = 2;
  // Gradient bytes = 4 * 110 = 440, between the measured 100 B (1e-5 s) and 1000 B (1e-4 s): on a log-log line
  // through them time is proportional to size, so 440 B -> 4.4e-5 s.
  CHECK(allreduce_seconds(ms[1], 440) == Approx(4.4e-5).epsilon(1e-12));
  CHECK(allreduce_seconds(ms[1], 1000) == 1e-4);
  const auto points = measurement_points(ms);
  REQUIRE(points.size() == 4);
  CHECK(points[0].w == 1);
  CHECK(points[0].global_batch == 8);
  CHECK(points[0].step_seconds == Approx(0.002 + 4.4e-5).epsilon(1e-12));
  CHECK(points[3].w == 2);
  CHECK(points[3].nodes == 2);
  CHECK(points[3].global_batch == 32);
  CHECK(points[3].step_seconds == Approx(0.004 + 4.4e-5).epsilon(1e-12));
  CHECK(measurement_model_size(ms) == 110.0);

  // World size 1 without all-reduce points: communication costs nothing.
  ms[0].allreduce.clear();
  CHECK(measurement_points(ms)[0].step_seconds == Approx(0.002).epsilon(1e-12));
}

TEST_CASE("profiler::measurement_points: refuses extrapolation and mixed models", "[profiler][measurement]") {
  Measurement m = sample_measurement(2, {40, 10});  // 410 params -> 1640 gradient bytes > 1000 measured
  m.source = "big.json";
  CHECK_THROWS_WITH(measurement_points({m}), Catch::StartsWith("big.json: allreduce: message size 1640 bytes is "
                                                               "outside the measured range [100, 1000]"));
  Measurement a = sample_measurement(1);
  a.source = "a.json";
  Measurement b = sample_measurement(2, {10, 4, 10});
  b.source = "b.json";
  CHECK_THROWS_WITH(measurement_points({a, b}), Catch::StartsWith("b.json: model.layers: differs from a.json"));
  CHECK_THROWS_AS(measurement_model_size({}), InputError);
}
