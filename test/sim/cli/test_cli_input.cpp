// test/sim/cli/test_cli_input.cpp — the command line on input people get wrong (issue 33): an empty name in
// --strategies, a config with a key given twice, a config file name that climbs out of its folder, and a trace that
// is not a trace (exit 2, one line, nothing of the file's content quoted).
#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>
#include <utility>
#include <vector>

#include "test/sim/cli_util.h"

using Catch::Matchers::Contains;
using ringsched::test::CliResult;
using ringsched::test::run_cli;
using ringsched::test::shell_quote;
using ringsched::test::TempDir;

namespace {

const std::filesystem::path kInputTiny =
    std::filesystem::path(RINGSCHED_TEST_DIR) / ".." / "workloads" / "examples" / "tiny-2node.json";

std::string tiny() {
  return "simulate --quiet --seeds 1 --jobs 5 --config " + shell_quote(kInputTiny.string()) + " ";
}

}  // namespace

TEST_CASE("sim::cli: an empty name in --strategies is refused naming its position", "[sim][cli][hostile]") {
  // Before: "eight,,precompute" ran eight and precompute, one strategy fewer than the list has places for.
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"eight,,precompute", "--strategies: name 2 of 3 is empty in 'eight,,precompute'"},
      {",eight", "--strategies: name 1 of 2 is empty in ',eight'"},
      {"eight,", "--strategies: name 2 of 2 is empty in 'eight,'"},
      {",", "--strategies: name 1 of 2 is empty in ','"},
  };
  for (const auto& [list, expected] : cases) {
    DYNAMIC_SECTION(list) {
      const CliResult r = run_cli(tiny() + "--strategies " + shell_quote(list));
      CHECK(r.code == 2);
      CHECK_THAT(r.err, Contains(expected));
      CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
    }
  }
  // The same names without the empty one run, brackets included.
  const CliResult ok = run_cli(tiny() + "--strategies 'eight,precompute[oracle]'");
  CHECK(ok.code == 0);
  CHECK_THAT(ok.out, Contains("precompute[oracle]"));
}

TEST_CASE("sim::cli: a config with a key given twice exits 2 naming file:line:col and the path",
          "[sim][cli][hostile]") {
  TempDir dir;
  const std::string cfg = dir / "cfg.json";
  std::ofstream(cfg) << "{\n"
                        "  \"cluster\": {\"nodes\": 2, \"gpus_per_node\": 8},\n"
                        "  \"workload\": {\"catalog\": \"paper\", \"jobs\": 5,\n"
                        "               \"arrival\": {\"process\": \"poisson\", \"load\": 0.5},\n"
                        "               \"jobs\": 50},\n"
                        "  \"strategies\": [\"eight\"], \"seeds\": 1\n"
                        "}\n";
  for (const char* cmd : {"validate", "simulate"}) {
    DYNAMIC_SECTION(cmd) {
      const CliResult r = run_cli(std::string(cmd) + " --config " + shell_quote(cfg));
      CHECK(r.code == 2);
      // Line 5, column 16: the second "jobs".
      CHECK(r.err == "ringsched: error: " + cfg + ":5:16: workload.jobs: key given twice (first at line 3)\n");
    }
  }
}

TEST_CASE("sim::cli: a config's trace that climbs out of its folder, or is not a trace, exits 2 without quoting it",
          "[sim][cli][hostile]") {
  TempDir dir;
  std::filesystem::create_directories(dir.path() / "cfg");
  std::ofstream(dir / "secret.txt") << "TOPSECRET-first-line\nmore\n";
  auto config = [&](const std::string& file) {
    const std::string cfg = dir / "cfg/c.json";
    std::ofstream(cfg) << R"({"cluster": {"nodes": 16, "gpus_per_node": 4},
      "workload": {"catalog": "pollux", "trace": {"format": "pollux", "file": ")"
                       << file << R"("}}, "strategies": ["eight"], "seeds": 1})";
    return run_cli("validate --config " + shell_quote(cfg));
  };
  const CliResult up = config("../secret.txt");
  CHECK(up.code == 2);
  CHECK_THAT(up.err, Contains(": workload.trace.file: '../secret.txt' climbs above its folder"));
  CHECK_THAT(up.err, Contains("write an absolute path"));
  // Named absolutely it is read, and refused as no trace: the file and what was missing, not its first line.
  const CliResult abs = config(dir / "secret.txt");
  CHECK(abs.code == 2);
  CHECK_THAT(abs.err, Contains("secret.txt:1: missing column 'name' (the header has 1 column, none of that name)"));
  CHECK(abs.err.find("TOPSECRET") == std::string::npos);
}

TEST_CASE("sim::cli: table3 --pollux-dir is the user's folder: a relative one with .. is not refused as a config's",
          "[sim][cli]") {
  // The flag's folder goes into the built-in held-out config; made absolute first, the ".." rule for a config's own
  // relative names does not apply (the folder here does not exist: the error is about that, exit 2 before any run).
  const CliResult r = run_cli("table3 --eval held-out --seeds 1 --pollux-dir ../nonexistent-ringsched-xyz");
  CHECK(r.code == 2);
  CHECK_THAT(r.err, Contains("nonexistent-ringsched-xyz/traces/cifar10: no such directory"));
  CHECK(r.err.find("climbs above") == std::string::npos);
}
