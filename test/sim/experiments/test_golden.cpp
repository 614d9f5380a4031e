// test/sim/experiments/test_golden.cpp — golden outputs of workloads/examples/tiny-2node.json (summary.json, jobs.csv,
// events.csv, table.md, table.csv) in test/fixtures/golden/tiny-2node.*. Any change to results shows up here.
// After an intended change, regenerate with RINGSCHED_UPDATE_GOLDEN=1 <build>/test/ringsched_tests "[golden]"
// and review the diff (docs/config.md, "Golden files").
#include <catch2/catch.hpp>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "sim/experiments/report.h"
#include "sim/experiments/runner.h"
#include "test/sim/cli_util.h"
#include "workloads/json_reader.h"

using namespace ringsched;

TEST_CASE("sim::golden: tiny-2node outputs match the golden files", "[sim][golden]") {
  const std::string root = std::string(RINGSCHED_TEST_DIR) + "/..";
  // The origin is the repository-relative path so the golden summary.json does not depend on the checkout path.
  const std::string origin = "workloads/examples/tiny-2node.json";
  const ExperimentConfig c =
      parse_experiment(read_json_file(root + "/" + origin), origin, root + "/workloads/examples");
  const ExperimentResult r = run_experiment(c, 2);
  REQUIRE(failed_runs(r) == 0);
  const std::vector<std::pair<std::string, std::string>> files = {{"summary.json", summary_json(c, r).dump(2) + "\n"},
                                                                  {"jobs.csv", jobs_csv(c, r)},
                                                                  {"events.csv", events_csv(c, r)},
                                                                  {"table.md", render_table3(c, r, Format::kMarkdown)},
                                                                  {"table.csv", render_table3(c, r, Format::kCsv)}};
  const std::filesystem::path dir = std::filesystem::path(RINGSCHED_TEST_DIR) / "fixtures" / "golden";
  const char* update = std::getenv("RINGSCHED_UPDATE_GOLDEN");
  const bool rewrite = update != nullptr && std::string(update) == "1";
  for (const auto& [name, text] : files) {
    const auto path = dir / ("tiny-2node." + name);
    if (rewrite) {
      std::filesystem::create_directories(dir);
      std::ofstream(path, std::ios::binary) << text;
      WARN("rewrote " << path.string());
      continue;
    }
    INFO(path.string() << " (set RINGSCHED_UPDATE_GOLDEN=1 to regenerate after an intended change)");
    REQUIRE(std::filesystem::exists(path));
    CHECK(ringsched::test::read_whole_file(path) == text);
  }
}
