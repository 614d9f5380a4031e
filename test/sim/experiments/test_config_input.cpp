// test/sim/experiments/test_config_input.cpp — experiment configs as people write them (issue 33): strategies as
// "name[beliefs]" (as --strategies and Python take them), and relative file names that stay in the config's (or
// catalog's) folder unless "allow_parent_paths" says otherwise.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <string>

#include "sim/experiments/config.h"
#include "sim/experiments/strategy_name.h"
#include "test/input_error_of.h"
#include "test/sim/cli_util.h"
#include "workloads/catalog.h"
#include "workloads/io/input_path.h"

using namespace ringsched;
using Catch::Matchers::Contains;
using Catch::Matchers::Equals;
using Catch::Matchers::StartsWith;
using ringsched::test::error_of;
using ringsched::test::TempDir;

namespace {

nlohmann::json config_with(const nlohmann::json& strategies) {
  nlohmann::json doc = nlohmann::json::parse(R"({
    "cluster": {"nodes": 2, "gpus_per_node": 8},
    "workload": {"catalog": "paper", "jobs": 5, "arrival": {"process": "poisson", "load": 0.5}},
    "seeds": 1
  })");
  doc["strategies"] = strategies;
  return doc;
}

// Three Pollux rows, all on the "pollux" catalog's classes and within a 64-GPU cluster.
const char* kTrace =
    "name,time,application,num_replicas,batch_size\n"
    "a,0,cifar10,2,256\n"
    "b,30,ncf,1,1024\n"
    "c,90,bert,4,32\n";

nlohmann::json trace_config(const std::string& file) {
  nlohmann::json doc = nlohmann::json::parse(R"({
    "cluster": {"nodes": 16, "gpus_per_node": 4},
    "workload": {"catalog": "pollux", "trace": {"format": "pollux"}},
    "strategies": ["eight"],
    "seeds": 1
  })");
  doc["workload"]["trace"]["file"] = file;
  return doc;
}

const std::string kHeldout = std::string(RINGSCHED_TEST_DIR) + "/fixtures/heldout";

nlohmann::json table_catalog(const std::string& csv) {
  return {{"name", "t"},
          {"classes",
           {{{"name", "x"},
             {"batch", {{"mode", "fixed_global"}, {"size", 256}}},
             {"model_size_mparams", 25},
             {"work", {{"samples", 1e6}}},
             {"gpus", {{"max", 16}}},
             {"speed", {{"kind", "table"}, {"csv", csv}}}}}}};
}

}  // namespace

TEST_CASE("sim::Experiment: a config's \"name[beliefs]\" strategy reads as --strategies reads it", "[sim][config]") {
  // Before: "cfg.json: strategies[0]: unknown strategy 'srtf[oracle]'", though the command line took it.
  const ExperimentConfig c = parse_experiment(config_with({"srtf[oracle]", "srtf", "eight"}), "cfg.json", "");
  REQUIRE(c.strategies.size() == 3);
  CHECK(c.strategies[0].name == "srtf");
  CHECK(c.strategies[0].beliefs == "oracle");
  CHECK(c.strategies[0].label == "srtf[oracle]");  // srtf's default is history: the label says which
  CHECK(c.strategies[1].beliefs == "history");
  CHECK(c.strategies[1].label == "srtf");
  // The same as the object form, and in an object's name too.
  const ExperimentConfig o = parse_experiment(
      config_with({{{"name", "srtf"}, {"beliefs", "oracle"}}, {{"name", "precompute[oracle]"}, {"label", "p"}}}),
      "cfg.json", "");
  CHECK(o.strategies[0].name == c.strategies[0].name);
  CHECK(o.strategies[0].beliefs == c.strategies[0].beliefs);
  CHECK(o.strategies[0].label == c.strategies[0].label);
  CHECK(o.strategies[1].name == "precompute");
  CHECK(o.strategies[1].beliefs == "oracle");
  CHECK(o.strategies[1].label == "p");
}

TEST_CASE("sim::Experiment: a malformed or unknown \"name[beliefs]\" in a config names its JSON path",
          "[sim][config][hostile]") {
  auto err = [](const nlohmann::json& strategies) {
    return error_of([&] { (void)parse_experiment(config_with(strategies), "cfg.json", ""); });
  };
  CHECK_THAT(err({"eight", "srtf[psychic]"}),
             StartsWith("cfg.json: strategies[1]: srtf[psychic]: unknown belief source 'psychic' (valid: "));
  CHECK_THAT(err(nlohmann::json::array({"nosuch[oracle]"})),
             StartsWith("cfg.json: strategies[0]: unknown strategy 'nosuch' (valid: "));
  CHECK_THAT(err(nlohmann::json::array({"srtf[oracle"})),
             Equals("cfg.json: strategies[0]: 'srtf[oracle': the belief source must close the name with one ']' (write "
                    "a strategy as name or name[beliefs], e.g. srtf or srtf[oracle])"));
  CHECK_THAT(err(nlohmann::json::array({"srtf[]"})),
             Contains("cfg.json: strategies[0]: 'srtf[]': no belief source between '[' and ']'"));
  CHECK_THAT(err(nlohmann::json::array({"[oracle]"})),
             Contains("cfg.json: strategies[0]: '[oracle]': no strategy before '['"));
  CHECK_THAT(err(nlohmann::json::array({""})), Contains("cfg.json: strategies[0]: '': empty strategy name"));
  // Given twice: in the name and in "beliefs".
  CHECK_THAT(err(nlohmann::json::array({{{"name", "srtf[oracle]"}, {"beliefs", "history"}}})),
             Equals("cfg.json: strategies[0].beliefs: the name already gives a belief source ('srtf[oracle]'); give "
                    "it in one place"));
  // "none" for a strategy that plans with beliefs is refused as in the object form.
  CHECK_THAT(err(nlohmann::json::array({"srtf[none]"})),
             Contains("cfg.json: strategies[0]: strategy 'srtf' plans with beliefs"));
}

TEST_CASE("sim::parse_strategy_name: the one reader of name and name[beliefs]", "[sim][config]") {
  CHECK(parse_strategy_name("eight", "x").name == "eight");
  CHECK(parse_strategy_name("eight", "x").beliefs.empty());
  const StrategyName s = parse_strategy_name("tiresias[history]", "--strategies");
  CHECK(s.name == "tiresias");
  CHECK(s.beliefs == "history");
  CHECK_THAT(error_of([] { (void)parse_strategy_name("srtf]", "--strategies"); }),
             StartsWith("--strategies: 'srtf]': ']' without '['"));
  CHECK_THAT(error_of([] { (void)parse_strategy_name("srtf[oracle]x", "--strategies"); }),
             StartsWith("--strategies: 'srtf[oracle]x': the belief source must close the name"));
  CHECK_THAT(error_of([] { (void)parse_strategy_name("srtf[a[b]]", "--strategies"); }),
             StartsWith("--strategies: 'srtf[a[b]]': the belief source must close the name"));
}

TEST_CASE("sim::Experiment: a relative file name may not climb above the config's folder unless allowed",
          "[sim][config][hostile]") {
  TempDir dir;
  std::filesystem::create_directories(dir.path() / "configs" / "sub");
  std::ofstream(dir / "w.csv", std::ios::binary) << kTrace;
  std::ofstream(dir / "configs/sub/w.csv", std::ios::binary) << kTrace;
  const std::string base = dir / "configs";
  // Before: read whatever "../" reached.
  CHECK_THAT(error_of([&] { (void)parse_experiment(trace_config("../w.csv"), "cfg.json", base); }),
             Equals("cfg.json: workload.trace.file: '../w.csv' climbs above its folder " + base +
                    " through '..': write an absolute path, or set \"allow_parent_paths\": true at the top level of "
                    "the config (or catalog file) to let its relative paths leave its folder"));
  // "sub/../../w.csv" climbs as well; "sub/../sub/w.csv" stays inside.
  CHECK_THAT(error_of([&] { (void)parse_experiment(trace_config("sub/../../w.csv"), "cfg.json", base); }),
             Contains("cfg.json: workload.trace.file: 'sub/../../w.csv' climbs above its folder"));
  CHECK(parse_experiment(trace_config("sub/../sub/w.csv"), "cfg.json", base).workload.jobs == 3);
  // An absolute name is the user's choice; "allow_parent_paths" lets "../" through.
  CHECK(parse_experiment(trace_config(dir / "w.csv"), "cfg.json", base).workload.jobs == 3);
  nlohmann::json allowed = trace_config("../w.csv");
  allowed["allow_parent_paths"] = true;
  CHECK(parse_experiment(allowed, "cfg.json", base).workload.jobs == 3);
  // The catalog's name and a data folder go by the same rule.
  nlohmann::json cat = config_with(nlohmann::json::array({"eight"}));
  cat["workload"]["catalog"] = "../cat.json";
  CHECK_THAT(error_of([&] { (void)parse_experiment(cat, "cfg.json", base); }),
             StartsWith("cfg.json: workload.catalog: '../cat.json' climbs above its folder"));
  nlohmann::json pollux_dir = trace_config("sub/w.csv");
  pollux_dir["workload"]["pollux_dir"] = "../pollux";
  CHECK_THAT(error_of([&] { (void)parse_experiment(pollux_dir, "cfg.json", base); }),
             StartsWith("cfg.json: workload.pollux_dir: '../pollux' climbs above its folder"));
  // With an empty folder (a config in the working directory) the working directory is the limit.
  CHECK_THAT(error_of([&] { (void)parse_experiment(trace_config("../w.csv"), "cfg.json", ""); }),
             Contains("'../w.csv' climbs above the working directory through '..'"));
}

TEST_CASE("workloads::parse_catalog: a catalog's measured tables stay in its folder unless it allows more",
          "[workloads][catalog][hostile]") {
  const std::string sub = kHeldout + "/../heldout";  // the fixture's folder, named through its parent
  CHECK_THAT(error_of([&] { (void)parse_catalog(table_catalog("../heldout/own-table.csv"), "c.json", "", kHeldout); }),
             StartsWith("c.json: classes[0].speed.csv: '../heldout/own-table.csv' climbs above its folder"));
  nlohmann::json allowed = table_catalog("../heldout/own-table.csv");
  allowed["allow_parent_paths"] = true;
  const Catalog c = parse_catalog(allowed, "c.json", "", kHeldout);
  // own-table.csv: 4 GPUs on 1 node take 0.141 s a step.
  CHECK(c.classes[0].speed->step_seconds(4, 1, 256.0) == Approx(0.141));
  // A config that allows it lets the catalogs it names do so too (scopes nest); the scope ends with the config.
  {
    const ParentPathsAllowed scope(true);
    CHECK(parse_catalog(table_catalog("../heldout/own-table.csv"), "c.json", "", kHeldout).classes.size() == 1);
  }
  CHECK_THAT(error_of([&] { (void)resolve_input_path("../x", sub); }), Contains("climbs above"));
  CHECK(resolve_input_path("/abs/x.csv", sub) == "/abs/x.csv");
  CHECK(resolve_input_path("x.csv", "") == "x.csv");
  CHECK(resolve_input_path("a/../x.csv", "d") == "d/a/../x.csv");
}
