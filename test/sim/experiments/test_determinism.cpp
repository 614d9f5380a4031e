// test/sim/experiments/test_determinism.cpp — same config and seed give byte-identical outputs (summary.json, jobs.csv,
// events.csv, table.md, table.csv) for any thread count, in process (run_experiment + render functions) and
// through the CLI (--out into two directories), and the CLI writes what the library renders.
#include <catch2/catch.hpp>

#include <filesystem>
#include <map>
#include <string>

#include "sim/experiments/report.h"
#include "sim/experiments/runner.h"
#include "test/sim/cli_util.h"

using namespace ringsched;
using ringsched::test::read_whole_file;
using ringsched::test::run_cli;
using ringsched::test::shell_quote;
using ringsched::test::TempDir;

namespace {

const std::string kExampleDir = std::string(RINGSCHED_TEST_DIR) + "/../workloads/examples/";

// Every output file as rendered in process, by file name.
std::map<std::string, std::string> render_all(const ExperimentConfig& c, int threads) {
  const ExperimentResult r = run_experiment(c, threads);
  REQUIRE(failed_runs(r) == 0);
  return {{"summary.json", summary_json(c, r).dump(2) + "\n"},
          {"jobs.csv", jobs_csv(c, r)},
          {"events.csv", events_csv(c, r)},
          {"table.md", render_table3(c, r, Format::kMarkdown)},
          {"table.csv", render_table3(c, r, Format::kCsv)}};
}

}  // namespace

TEST_CASE("sim::run_experiment: same seed gives identical outputs for 1 and 2 threads", "[sim][determinism]") {
  for (const char* name : {"tiny-2node.json", "inline-catalog.json"}) {
    DYNAMIC_SECTION(name) {
      const ExperimentConfig c = load_experiment(kExampleDir + name);
      const auto one = render_all(c, 1);
      const auto again = render_all(c, 1);
      const auto two = render_all(c, 2);
      for (const auto& [file, text] : one) {
        INFO(file);
        CHECK(text.size() > 0);
        CHECK(text == again.at(file));
        CHECK(text == two.at(file));
      }
      // A different base seed changes the jobs.
      nlohmann::json doc = c.source;
      doc["base_seed"] = 1000;
      const ExperimentConfig other = parse_experiment(doc, c.origin, kExampleDir);
      CHECK(render_all(other, 2).at("jobs.csv") != one.at("jobs.csv"));
    }
  }
}

TEST_CASE("sim::cli: simulate --out is byte-identical for --threads 1 and 2 and matches the library",
          "[sim][determinism][cli]") {
  const std::string config = kExampleDir + "tiny-2node.json";
  TempDir tmp;
  const auto a = run_cli("simulate --config " + shell_quote(config) + " --threads 1 --out " + shell_quote(tmp / "a"));
  const auto b = run_cli("simulate --config " + shell_quote(config) + " --threads 2 --out " + shell_quote(tmp / "b"));
  REQUIRE(a.code == 0);
  REQUIRE(b.code == 0);
  CHECK(a.out == b.out);  // the summary table on stdout
  const ExperimentConfig c = load_experiment(config);
  const auto lib = render_all(c, 2);
  for (const auto& [file, text] : lib) {
    INFO(file);
    const std::string fa = read_whole_file(tmp.path() / "a" / file);
    CHECK(fa == read_whole_file(tmp.path() / "b" / file));
    CHECK(fa == text);
  }
  // Nothing but the five outputs (no leftover temporary files).
  int n = 0;
  for (const auto& e : std::filesystem::directory_iterator(tmp.path() / "a")) {
    (void)e;
    ++n;
  }
  CHECK(n == 5);
}

TEST_CASE("sim::run_experiment: streamed runs arrive in run order and are not kept", "[sim][determinism]") {
  const ExperimentConfig c = load_experiment(kExampleDir + "tiny-2node.json");
  const ExperimentResult kept = run_experiment(c, 1);
  for (const int threads : {1, 2}) {
    DYNAMIC_SECTION("threads " << threads) {
      std::vector<std::size_t> jobs_seen;
      std::string rows;
      RunHooks hooks;
      std::size_t next = 0;
      hooks.on_run = [&](const CellRun& run) {
        // In index order: level, then strategy, then seed.
        const CellRun& want = kept.runs.at(next++);
        CHECK(run.level == want.level);
        CHECK(run.strategy == want.strategy);
        CHECK(run.seed == want.seed);
        jobs_seen.push_back(run.jobs.size());
        CHECK(run.jobs.size() == want.jobs.size());
      };
      const ExperimentResult streamed = run_experiment(c, threads, hooks);
      CHECK(next == kept.runs.size());
      for (std::size_t i = 0; i < streamed.runs.size(); ++i) {
        CHECK(jobs_seen[i] > 0);
        CHECK(streamed.runs[i].jobs.empty());  // dropped once handed over
        CHECK(streamed.runs[i].events.empty());
        CHECK(streamed.runs[i].metrics.mean_jct_s == kept.runs[i].metrics.mean_jct_s);
      }
      CHECK(summary_json(c, streamed) == summary_json(c, kept));
    }
  }
}
