// test/workloads/test_table_sources.cpp — the `table` speed kind's sources (inline points, a plain CSV, a folder of
// Pollux-format tables, a shipped Pollux application), relative paths, and its bad input: no or two sources, a key of
// another source, a bad row (file:line), a table that does not cover the class's GPU range.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>

#include "test/input_error_of.h"
#include "workloads/catalog.h"
#include "workloads/pollux.h"
#include "workloads/table_sources.h"

using namespace ringsched;
using ringsched::test::error_of;

namespace {

const std::string kFixtures = std::string(RINGSCHED_TEST_DIR) + "/fixtures/heldout";

nlohmann::json catalog_with(const nlohmann::json& speed, int max_gpus) {
  return {{"name", "t"},
          {"classes",
           {{{"name", "x"},
             {"batch", {{"mode", "fixed_global"}, {"size", 256}}},
             {"model_size_mparams", 25},
             {"work", {{"samples", 1e6}}},
             {"gpus", {{"max", max_gpus}}},
             {"speed", speed}}}}};
}

}  // namespace

TEST_CASE("workloads::TableSources: a plain CSV is the truth, exact at its rows, resolved against base_dir",
          "[table_sources]") {
  const Catalog c =
      parse_catalog(catalog_with({{"kind", "table"}, {"csv", "own-table.csv"}}, 16), "c.json", "", kFixtures);
  const auto& speed = *c.classes[0].speed;
  CHECK(speed.kind() == "table");
  // Rows of own-table.csv: 4 GPUs on 1 node 0.141 s, 2 GPUs on 2 nodes 0.28 s (global batch 256).
  CHECK(speed.step_seconds(4, 1, 256.0) == Approx(0.141));
  CHECK(speed.step_seconds(2, 2, 256.0) == Approx(0.28));
  // The same file from another folder is not found, and the message names it.
  CHECK_THROWS_WITH(
      parse_catalog(catalog_with({{"kind", "table"}, {"csv", "own-table.csv"}}, 16), "c.json", "", "/nonexistent"),
      Catch::Contains("/nonexistent/own-table.csv"));
}

TEST_CASE("workloads::TableSources: a folder of Pollux-format tables and a shipped application agree",
          "[table_sources]") {
  const std::string folder = default_pollux_dir() + "/traces/bert";
  const Catalog a = parse_catalog(catalog_with({{"kind", "table"}, {"pollux_tables", folder}}, 64), "a.json");
  const Catalog b = parse_catalog(catalog_with({{"kind", "table"}, {"pollux", "bert"}}, 64), "b.json");
  for (int w : {1, 3, 8, 17, 64}) {
    CHECK(a.classes[0].speed->step_seconds(w, (w + 3) / 4, 12.0 * w) ==
          b.classes[0].speed->step_seconds(w, (w + 3) / 4, 12.0 * w));
  }
  CHECK(error_of([&] {
          (void)parse_catalog(catalog_with({{"kind", "table"}, {"pollux_tables", kFixtures}}, 4), "a.json");
        }).find("no placements.csv or scalability.csv here") != std::string::npos);
}

TEST_CASE("workloads::TableSources: bad input names the JSON path or file:line", "[table_sources]") {
  const auto err = [](const nlohmann::json& speed, int max_gpus) {
    return error_of([&] { (void)parse_catalog(catalog_with(speed, max_gpus), "c.json", "", kFixtures); });
  };
  CHECK(err({{"kind", "table"}}, 4).find("c.json: classes[0].speed: give exactly one source of measured points") == 0);
  CHECK(err({{"kind", "table"}, {"csv", "own-table.csv"}, {"points", {{1, 1, 1, 1}}}}, 4).find("got csv, points") !=
        std::string::npos);
  CHECK(err({{"kind", "table"}, {"csv", "own-table.csv"}, {"pollux_dir", "x"}}, 4) ==
        "c.json: classes[0].speed.pollux_dir: only with \"pollux\"");
  CHECK(err({{"kind", "table"}, {"csv", "points-bad.csv"}}, 4)
            .find("c.json: classes[0].speed.csv: " + kFixtures + "/points-bad.csv:") == 0);
  CHECK(err({{"kind", "table"}, {"csv", "own-table.csv"}}, 64) ==
        "c.json: classes[0].gpus: the measured table of class 'x' covers 1..16 GPUs but gpus is 1..64: measure the "
        "missing GPU counts or narrow gpus.min / gpus.max");
  CHECK(err({{"kind", "table"}, {"points", {{2, 1, 10, 1.0}}}}, 2).find("covers 2..2 GPUs but gpus is 1..2") !=
        std::string::npos);
  CHECK(err({{"kind", "table"}, {"points", {{1, 1, 10, -1.0}}}}, 1).find("classes[0].speed.points[0][3]") !=
        std::string::npos);
}

TEST_CASE("workloads::TableSources: one CSV with a gpu_type column gives a table per GPU type", "[table_sources]") {
  nlohmann::json cat = catalog_with({{"kind", "table"}, {"csv", "typed-table.csv"}, {"gpu_type", "v100"}}, 4);
  cat["classes"][0]["speed_by_type"] = {{"v100", {{"kind", "table"}, {"csv", "typed-table.csv"}, {"gpu_type", "v100"}}},
                                        {"k80", {{"kind", "table"}, {"csv", "typed-table.csv"}, {"gpu_type", "k80"}}}};
  const Catalog c = parse_catalog(cat, "c.json", "", kFixtures);
  // Rows: v100 2 GPUs 0.26 s, k80 2 GPUs 0.8 s (global batch 256).
  CHECK(c.classes[0].speed->step_seconds(2, 1, 256.0) == Approx(0.26));
  CHECK(speed_on(c.classes[0], "v100")->step_seconds(2, 1, 256.0) == Approx(0.26));
  CHECK(speed_on(c.classes[0], "k80")->step_seconds(2, 1, 256.0) == Approx(0.8));
  CHECK(speed_on(c.classes[0], "k80")->step_seconds(4, 1, 256.0) == Approx(0.45));
  // Without a type, with one the file lacks, a type asked of an untyped table: named with the file and JSON path.
  const auto err = [&](const nlohmann::json& speed) {
    return error_of([&] { (void)parse_catalog(catalog_with(speed, 4), "c.json", "", kFixtures); });
  };
  const std::string none = err({{"kind", "table"}, {"csv", "typed-table.csv"}});
  CHECK(none.find("c.json: classes[0].speed.csv") != std::string::npos);
  CHECK(none.find("typed-table.csv:1: a gpu_type column (types: k80, v100)") != std::string::npos);
  CHECK(err({{"kind", "table"}, {"csv", "typed-table.csv"}, {"gpu_type", "a100"}})
            .find("no rows of GPU type 'a100' (types in the file: k80, v100)") != std::string::npos);
  CHECK(err({{"kind", "table"}, {"csv", "own-table.csv"}, {"gpu_type", "v100"}})
            .find("own-table.csv:1: GPU type 'v100' asked of a table without a gpu_type column") != std::string::npos);
  CHECK(err({{"kind", "table"}, {"points", {{1, 1, 256, 0.5}}}, {"gpu_type", "v100"}}).find("only with \"csv\"") !=
        std::string::npos);
}
