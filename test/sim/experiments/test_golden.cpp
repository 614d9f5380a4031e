// test/sim/experiments/test_golden.cpp — golden outputs of workloads/examples/tiny-2node.json (summary.json, jobs.csv,
// events.csv, table.md, table.csv) in test/fixtures/golden/tiny-2node.*, and of pollux-artifact.json (the Pollux
// artifact's setting on its load-1.0 workload-6: summary.json, jobs.csv, table.md) in
// test/fixtures/golden/pollux-artifact.*, the latter also identical on 1 thread. Any change to results shows up here.
// After an intended change, regenerate with RINGSCHED_UPDATE_GOLDEN=1 <build>/test/ringsched_tests "[golden]"
// and review the diff (docs/config.md, "Golden files").
#include <catch2/catch.hpp>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <utility>
#include <vector>

#include "sim/experiments/report.h"
#include "sim/experiments/runner.h"
#include "test/sim/cli_util.h"
#include "workloads/io/json_reader.h"

using namespace ringsched;

namespace {

// Compares (or with RINGSCHED_UPDATE_GOLDEN=1 rewrites) test/fixtures/golden/<stem>.<name> with each text.
void check_golden(const std::string& stem, const std::vector<std::pair<std::string, std::string>>& files) {
  const std::filesystem::path dir = std::filesystem::path(RINGSCHED_TEST_DIR) / "fixtures" / "golden";
  const char* update = std::getenv("RINGSCHED_UPDATE_GOLDEN");
  const bool rewrite = update != nullptr && std::string(update) == "1";
  for (const auto& [name, text] : files) {
    const auto path = dir / (stem + "." + name);
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

// The example's config, with its repository-relative path as origin (golden files do not depend on the checkout).
ExperimentConfig example(const std::string& file) {
  const std::string root = std::string(RINGSCHED_TEST_DIR) + "/..";
  const std::string origin = "workloads/examples/" + file;
  return parse_experiment(read_json_file(root + "/" + origin), origin, root + "/workloads/examples");
}

}  // namespace

TEST_CASE("sim::golden: tiny-2node outputs match the golden files", "[sim][golden]") {
  const ExperimentConfig c = example("tiny-2node.json");
  const ExperimentResult r = run_experiment(c, 2);
  REQUIRE(failed_runs(r) == 0);
  check_golden("tiny-2node", {{"summary.json", summary_json(c, r).dump(2) + "\n"},
                              {"jobs.csv", jobs_csv(c, r)},
                              {"events.csv", events_csv(c, r)},
                              {"table.md", render_table3(c, r, Format::kMarkdown)},
                              {"table.csv", render_table3(c, r, Format::kCsv)}});
}

TEST_CASE("sim::golden: pollux-artifact on workload-6 matches the golden files, on any thread count",
          "[sim][golden][fidelity]") {
  const ExperimentConfig c = example("pollux-artifact.json");
  const ExperimentResult r = run_experiment(c, 2);
  REQUIRE(failed_runs(r) == 0);
  REQUIRE(r.runs.size() == 3);  // optimus, tiresias, pollux, one seed
  const std::string jobs = jobs_csv(c, r);
  check_golden("pollux-artifact", {{"summary.json", summary_json(c, r).dump(2) + "\n"},
                                   {"jobs.csv", jobs},
                                   {"table.md", render_table3(c, r, Format::kMarkdown)}});
  // One thread (and warm step-time and fit memos): the same bytes.
  const ExperimentResult one = run_experiment(c, 1);
  CHECK(jobs_csv(c, one) == jobs);
  CHECK(summary_json(c, one).dump(2) == summary_json(c, r).dump(2));
}
