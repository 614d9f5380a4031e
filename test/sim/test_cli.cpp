// test/sim/test_cli.cpp — the `ringsched` command line: every example config validates and simulates, bad input
// exits 2 with one line naming the file and JSON path and writes nothing, --help works for each subcommand, and
// the built-in table3 config equals workloads/examples/table3.json.
#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <functional>
#include <string>
#include <vector>

#include "cli_util.h"
#include "sim/belief_sources.h"
#include "sim/experiment.h"
#include "strategies/registry.h"
#include "workloads/json_reader.h"

using namespace ringsched;
using Catch::Matchers::Contains;
using Catch::Matchers::StartsWith;
using ringsched::test::CliResult;
using ringsched::test::run_cli;
using ringsched::test::shell_quote;
using ringsched::test::TempDir;

namespace {

const std::filesystem::path kExamples = std::filesystem::path(RINGSCHED_TEST_DIR) / ".." / "workloads" / "examples";

// Example configs: workloads/examples/*.json except sweep-*.json (those are sweep configs).
std::vector<std::filesystem::path> example_configs() {
  std::vector<std::filesystem::path> out;
  for (const auto& e : std::filesystem::directory_iterator(kExamples)) {
    const std::string name = e.path().filename().string();
    if (!e.is_regular_file() || e.path().extension() != ".json" || name.rfind("sweep-", 0) == 0) continue;
    out.push_back(e.path());
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::size_t lines(const std::string& s) {
  return static_cast<std::size_t>(std::count(s.begin(), s.end(), '\n'));
}

// A valid base config; each bad case replaces part of it.
nlohmann::json good_config() {
  return nlohmann::json::parse(R"({
    "cluster": {"nodes": 2, "gpus_per_node": 8},
    "workload": {"catalog": "paper", "jobs": 5, "arrival": {"process": "poisson", "load": 0.5}},
    "strategies": ["eight", "precompute"],
    "seeds": 1
  })");
}

struct BadCase {
  std::string name;
  std::string text;      // file content
  std::string expected;  // must appear in the message (after the file name)
};

std::vector<BadCase> bad_cases() {
  std::vector<BadCase> cases;
  auto with = [&](const std::string& name, const std::function<void(nlohmann::json&)>& edit,
                  const std::string& expected) {
    nlohmann::json j = good_config();
    edit(j);
    cases.push_back({name, j.dump(2), expected});
  };
  cases.push_back(
      {"malformed", "{\n  \"cluster\": {\"nodes\": 2,, \"gpus_per_node\": 8}\n}\n", ":2:26: malformed JSON"});
  cases.push_back({"not-an-object", "[1, 2]", ": (top level): must be an object, got array"});
  with(
      "unknown-top-key", [](auto& j) { j["sedes"] = 3; }, ": sedes: unknown key (valid keys here: description, ");
  with(
      "unknown-nested-key", [](auto& j) { j["cluster"]["gpu_per_node"] = 8; },
      ": cluster.gpu_per_node: unknown key (valid keys here: nodes, gpus_per_node");
  with(
      "wrong-type-jobs", [](auto& j) { j["workload"]["jobs"] = "ten"; },
      ": workload.jobs: must be an integer, got string \"ten\"");
  with(
      "wrong-type-workload", [](auto& j) { j["workload"] = 3; }, ": workload: must be an object, got number");
  with(
      "zero-jobs", [](auto& j) { j["workload"]["jobs"] = 0; },
      ": workload.jobs: must be between 1 and 10000000, got 0");
  with(
      "zero-nodes", [](auto& j) { j["cluster"]["nodes"] = 0; }, ": cluster.nodes: must be between 1 and 100000, got 0");
  with(
      "negative-seeds", [](auto& j) { j["seeds"] = -1; }, ": seeds: must be between 1 and 100000, got -1");
  with(
      "negative-load", [](auto& j) { j["workload"]["arrival"]["load"] = -0.5; },
      ": workload.arrival.load: must be > 0, got -0.5");
  with(
      "zero-rate",
      [](auto& j) {
        j["workload"]["arrival"].erase("load");
        j["workload"]["arrival"]["rate_per_hour"] = 0;
      },
      ": workload.arrival.rate_per_hour: must be > 0, got 0");
  with(
      "zero-level-load",
      [](auto& j) {
        j["workload"]["arrival"].erase("load");
        j["levels"] = nlohmann::json::parse(R"([{"name": "a", "load": 0.5}, {"name": "b", "load": 0}])");
      },
      ": levels[1].load: must be > 0, got 0");
  with(
      "negative-restart",
      [](auto& j) {
        j["restart"] = {{"cost_s", -1}};
      },
      ": restart.cost_s: must be >= 0, got -1");
  with(
      "class-too-big",
      [](auto& j) {
        j["workload"]["catalog"] = nlohmann::json::parse(R"({"name": "big", "classes": [{"name": "huge",
      "batch": {"mode": "fixed_global", "size": 100}, "model_size_mparams": 1, "work": {"samples": 1000},
      "gpus": {"min": 32, "max": 64}, "speed": {"kind": "eq5", "t0": 0.01, "t1": 0, "t2": 0, "t3": 0}}]})");
      },
      ": workload.catalog: ");
  with(
      "unknown-strategy",
      [](auto& j) {
        j["strategies"] = {"eight", "fastest"};
      },
      ": strategies[1]: unknown strategy 'fastest' (valid: " + join_names(strategy_names()) + ")");
  with(
      "unknown-beliefs",
      [](auto& j) {
        j["strategies"] = {{{"name", "precompute"}, {"beliefs", "psychic"}}};
      },
      ": strategies[0].beliefs: unknown belief source 'psychic' (valid: " + join_names(belief_source_names()) + ")");
  with(
      "unknown-param",
      [](auto& j) {
        j["strategies"] = {{{"name", "eight"}, {"params", {{"gpu", 4}}}}};
      },
      ": strategies[0].params.gpu: unknown key (valid keys here: gpus, backfill)");
  with(
      "missing-catalog-file", [](auto& j) { j["workload"]["catalog"] = "no-such-catalog.json"; },
      ": workload.catalog: no-such-catalog.json: no such catalog file and not a built-in catalog");
  with(
      "unknown-speed-kind",
      [](auto& j) {
        j["workload"]["catalog"] = nlohmann::json::parse(R"({"name": "k", "classes": [{"name": "c",
      "batch": {"mode": "fixed_global", "size": 100}, "model_size_mparams": 1, "work": {"samples": 1000},
      "gpus": {"max": 4}, "speed": {"kind": "magic"}}]})");
      },
      ": workload.catalog.classes[0].speed.kind: unknown speed model kind 'magic'");
  with(
      "online-without-loss-curves",
      [](auto& j) {
        j["strategies"] = {{{"name", "optimus"}, {"beliefs", "online"}}};
      },
      ": strategies[0]: belief source 'online' needs a loss curve for every class; class 'resnet110-cifar10' of "
      "catalog 'paper' has none");
  // One eq5 class whose "convergence" is `conv`.
  const auto with_convergence = [](const std::string& conv) {
    return [conv](auto& j) {
      j["workload"]["catalog"] = nlohmann::json::parse(R"({"name": "k", "classes": [{"name": "c",
      "batch": {"mode": "fixed_global", "size": 100}, "model_size_mparams": 1, "work": {"samples": 1000},
      "gpus": {"max": 4}, "speed": {"kind": "eq5", "t0": 0.01, "t1": 0, "t2": 0, "t3": 0}}]})");
      j["workload"]["catalog"]["classes"][0]["convergence"] = nlohmann::json::parse(conv);
    };
  };
  with("convergence-not-increasing",
       with_convergence(R"({"points": [[0, 2.0], [500, 1.0], [500, 0.9]], "interval_samples": 100})"),
       ": workload.catalog.classes[0].convergence.points: point 2 does not increase k");
  with("convergence-interval-too-big",
       with_convergence(R"({"points": [[0, 2.0], [1000, 1.0]], "interval_samples": 5000})"),
       ": workload.catalog.classes[0].convergence.interval_samples: must be <= work.samples");
  with("convergence-unknown-key", with_convergence(R"({"points": [[0, 2.0], [1000, 1.0]], "every": 5})"),
       ": workload.catalog.classes[0].convergence.every: unknown key (valid keys here: points, interval_samples)");
  with(
      "negative-loss-sigma", [](auto& j) { j["workload"]["loss_sigma"] = -0.1; },
      ": workload.loss_sigma: must be >= 0, got -0.1");
  return cases;
}

void check_bad(const CliResult& r, const std::string& file, const std::string& expected, const TempDir& tmp) {
  INFO("stderr: " << r.err);
  CHECK(r.code == 2);
  CHECK(r.out.empty());
  CHECK(lines(r.err) == 1);
  CHECK_THAT(r.err, StartsWith("ringsched: error: " + file));
  CHECK_THAT(r.err, Contains(file + expected));
  CHECK_FALSE(std::filesystem::exists(tmp.path() / "out"));
}

}  // namespace

TEST_CASE("sim::cli: every example config validates and simulates", "[sim][cli][examples]") {
  const auto configs = example_configs();
  REQUIRE(configs.size() >= 2);
  for (const auto& cfg : configs) {
    DYNAMIC_SECTION(cfg.filename().string()) {
      const auto v = run_cli("validate --config " + shell_quote(cfg.string()));
      INFO(v.err);
      CHECK(v.code == 0);
      CHECK_THAT(v.out, Contains(": ok: "));
      TempDir tmp;
      const auto s = run_cli("simulate --config " + shell_quote(cfg.string()) +
                             " --seeds 1 --jobs 6 --threads 2 --out " + shell_quote(tmp / "out"));
      INFO(s.err);
      CHECK(s.code == 0);
      CHECK_THAT(s.out, Contains("| level | strategy |"));
      for (const char* f : {"summary.json", "jobs.csv", "events.csv", "table.md", "table.csv"})
        CHECK(std::filesystem::exists(tmp.path() / "out" / f));
    }
  }
}

TEST_CASE("sim::cli: bad input exits 2 with one line naming the file and JSON path, and writes nothing",
          "[sim][cli][errors]") {
  for (const auto& bc : bad_cases()) {
    DYNAMIC_SECTION(bc.name) {
      TempDir tmp;
      const std::string file = tmp / (bc.name + ".json");
      std::ofstream(file) << bc.text;
      check_bad(run_cli("validate --config " + shell_quote(file)), file, bc.expected, tmp);
      // No --seeds/--jobs here: they would override the bad values under test.
      check_bad(run_cli("simulate --config " + shell_quote(file) + " --out " + shell_quote(tmp / "out")), file,
                bc.expected, tmp);
      check_bad(run_cli("table3 --config " + shell_quote(file) + " --out " + shell_quote(tmp / "out")), file,
                bc.expected, tmp);
    }
  }
  SECTION("missing config file") {
    TempDir tmp;
    const std::string file = tmp / "does-not-exist.json";
    check_bad(run_cli("validate --config " + shell_quote(file)), file, ": cannot open file", tmp);
    check_bad(run_cli("simulate --config " + shell_quote(file) + " --out " + shell_quote(tmp / "out")), file,
              ": cannot open file", tmp);
    check_bad(run_cli("table3 --config " + shell_quote(file) + " --out " + shell_quote(tmp / "out")), file,
              ": cannot open file", tmp);
  }
  SECTION("class needing more GPUs than the cluster names the class") {
    TempDir tmp;
    const std::string file = tmp / "big.json";
    for (const auto& bc : bad_cases())
      if (bc.name == "class-too-big") std::ofstream(file) << bc.text;
    const auto r = run_cli("validate --config " + shell_quote(file));
    CHECK(r.code == 2);
    CHECK_THAT(r.err, Contains("class 'huge': gpus.min = 32 exceeds the cluster's 16 GPUs"));
  }
}

TEST_CASE("sim::cli: --help exits 0 for the program and each subcommand", "[sim][cli]") {
  const auto top = run_cli("--help");
  CHECK(top.code == 0);
  CHECK_THAT(top.out, Contains("table3"));
  for (const char* sub : {"table3", "simulate", "validate", "strategies", "catalogs"}) {
    DYNAMIC_SECTION(sub) {
      const auto r = run_cli(std::string(sub) + " --help");
      CHECK(r.code == 0);
      CHECK_THAT(r.out, Contains(sub));
    }
  }
  // A bad flag is bad input too.
  CHECK(run_cli("simulate --config x.json --seeds 0").code == 2);
  CHECK(run_cli("no-such-command").code == 2);
}

TEST_CASE("sim::cli: the built-in table3 config equals workloads/examples/table3.json", "[sim][cli][examples]") {
  const nlohmann::json builtin = parse_json_text(table3_config_text(), "builtin:table3");
  const nlohmann::json file = read_json_file((kExamples / "table3.json").string());
  CHECK(builtin == file);
  // And both parse to the same experiment.
  const ExperimentConfig a = parse_experiment(builtin, "builtin:table3", "");
  CHECK(a.total_gpus() == 64);
  CHECK(a.levels.size() == 4);
  CHECK(a.seeds == 20);
  CHECK(a.jobs == 100);
}

TEST_CASE("sim::cli: table3 --strategies applies to the held-out block; online needs loss curves in-sample",
          "[sim][cli][online]") {
  const auto held =
      run_cli("table3 --eval held-out --strategies eight,optimus[online] --seeds 2 --jobs 12 --threads 1");
  INFO(held.err);
  CHECK(held.code == 0);
  CHECK_THAT(held.out, Contains("| contention | eight | optimus[online] |"));
  CHECK_THAT(held.out, Contains("| online@50% |"));
  const auto in_sample = run_cli("table3 --eval in-sample --strategies eight,optimus[online] --seeds 1 --jobs 4");
  CHECK(in_sample.code == 2);
  CHECK(in_sample.out.empty());
  CHECK_THAT(in_sample.err, Contains("belief source 'online' needs a loss curve for every class; class "
                                     "'resnet110-cifar10' of catalog 'paper' has none"));
  const auto bad = run_cli("table3 --eval held-out --strategies optimus[psychic] --seeds 1 --jobs 4");
  CHECK(bad.code == 2);
  CHECK_THAT(bad.err, Contains("unknown belief source 'psychic' (valid: exploration, history, none, online, oracle)"));
}
