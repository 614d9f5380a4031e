// test/sim/experiments/test_fidelity_config.cpp — the config keys of the Pollux artifact's setting
// (workloads/examples/pollux-artifact.json): the goodput catalog and class key, scheduler.interval_s,
// restart.on_first_start, the most_free placement and the optimus / tiresias / pollux parameters; each bad value is
// refused with the config file and JSON path (and a trace's file:line), exit code 2 from the command line.
#include <catch2/catch.hpp>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <string>

#include "sim/experiments/config.h"
#include "test/input_error_of.h"
#include "test/sim/cli_util.h"
#include "workloads/goodput_app.h"
#include "workloads/io/json_reader.h"

using namespace ringsched;
using Catch::Matchers::Contains;
using ringsched::test::error_of;
using ringsched::test::run_cli;
using ringsched::test::shell_quote;
using ringsched::test::TempDir;

namespace {

const std::string kRoot = std::string(RINGSCHED_TEST_DIR) + "/..";
const std::string kExample = "workloads/examples/pollux-artifact.json";

nlohmann::json artifact() {
  return read_json_file(kRoot + "/" + kExample);
}

std::string parse_error(const nlohmann::json& doc) {
  return error_of([&] { (void)parse_experiment(doc, "a.json", kRoot + "/workloads/examples"); });
}

}  // namespace

TEST_CASE("sim::Experiment: the pollux-artifact example parses as the artifact's setting", "[sim][fidelity]") {
  const ExperimentConfig c = parse_experiment(artifact(), kExample, kRoot + "/workloads/examples");
  CHECK(c.cluster.nodes == 16);
  CHECK(c.cluster.gpus_per_node == 4);
  CHECK(c.cluster.placement == "most_free");
  CHECK(c.scheduler.interval_s == 60.0);
  CHECK(c.restart.cost_s == 30.0);
  CHECK(c.restart.on_first_start);
  CHECK(c.workload.catalog->name == "pollux-goodput");
  REQUIRE(c.workload.trace);
  CHECK(c.workload.trace->jobs.size() == 160);
  REQUIRE(c.strategies.size() == 3);
  CHECK(c.strategies[0].label == "optimus");
  CHECK(c.strategies[1].label == "tiresias");
  CHECK(c.strategies[2].label == "pollux");
  CHECK(c.strategies[2].beliefs == "agent");
  for (const auto& cls : c.workload.catalog->classes) {
    REQUIRE(cls.goodput);
    CHECK(cls.adaptive_batch == (cls.name != "ncf"));  // the artifact keeps ncf's batch fixed
  }
}

TEST_CASE("sim::Experiment: bad values of the artifact's keys name the JSON path", "[sim][fidelity][bad-input]") {
  nlohmann::json d = artifact();
  d["scheduler"]["interval_s"] = -60;
  CHECK_THAT(parse_error(d), Contains("a.json: scheduler.interval_s") && Contains(">= 0"));
  d["scheduler"]["interval_s"] = 1e6;
  CHECK_THAT(parse_error(d), Contains("a.json: scheduler.interval_s: must be <= 86400"));
  d["scheduler"]["interval_s"] = "60";
  CHECK_THAT(parse_error(d), Contains("a.json: scheduler.interval_s"));
  d = artifact();
  d["scheduler"]["every"] = 60;
  CHECK_THAT(parse_error(d), Contains("a.json: scheduler") && Contains("every"));
  d = artifact();
  d["restart"]["on_first_start"] = "yes";
  CHECK_THAT(parse_error(d), Contains("a.json: restart.on_first_start"));
  d = artifact();
  d["cluster"]["placement"] = "least_free";
  CHECK_THAT(parse_error(d), Contains("a.json: cluster.placement") && Contains("most_free"));
  d = artifact();
  d["strategies"][0]["params"]["class_max_gpus"] = {{"nfc", 1}};
  CHECK_THAT(parse_error(d), Contains("a.json: strategies[0].params.class_max_gpus.nfc: no class 'nfc'") &&
                                 Contains("classes: cifar10"));
  d = artifact();
  d["strategies"][0]["params"]["class_max_gpus"] = {{"ncf", 0}};
  CHECK_THAT(parse_error(d), Contains("a.json: strategies[0].params.class_max_gpus.ncf"));
  d = artifact();
  d["strategies"][0]["params"]["placement_order"] = "random";
  CHECK_THAT(parse_error(d), Contains("a.json: strategies[0].params.placement_order: unknown value 'random'"));
  d = artifact();
  d["strategies"][1]["params"]["queue_order"] = "lifo";
  CHECK_THAT(parse_error(d), Contains("a.json: strategies[1].params.queue_order: unknown value 'lifo'"));
  d = artifact();
  d["strategies"][2]["params"]["restart_penalty_s"] = 0;
  CHECK_THAT(parse_error(d), Contains("a.json: strategies[2].params.restart_penalty_s"));
  d = artifact();
  d["strategies"][2]["params"]["round_s"] = -1;
  CHECK_THAT(parse_error(d), Contains("a.json: strategies[2].params.round_s"));
  d = artifact();
  d["strategies"][2]["params"]["generations"] = 100;
  CHECK_THAT(parse_error(d), Contains("a.json: strategies[2].params") && Contains("generations"));
  d = artifact();
  d["workload"]["pollux_dir"] = "/nonexistent";
  CHECK_THAT(parse_error(d), Contains("a.json: workload.catalog") && Contains("/nonexistent"));
}

TEST_CASE("sim::Experiment: a goodput class in a catalog object, and its bad values", "[sim][fidelity][bad-input]") {
  const std::string tiny = std::string(RINGSCHED_TEST_DIR) + "/fixtures/goodput/tiny";
  nlohmann::json d = artifact();
  d["workload"] =
      nlohmann::json::parse(R"({"catalog": {"name": "t", "classes": [
      {"name": "tiny", "gpus": {"max": 4}, "goodput": {"tables": ")" +
                            tiny + R"(", "max_epochs": 3}}]}, "jobs": 4, "arrival": {"process": "poisson"}})");
  d["levels"] = nlohmann::json::parse(R"([{"name": "light", "load": 0.3}])");
  d["strategies"] = nlohmann::json::array({"pollux", "optimus"});
  const ExperimentConfig c = parse_experiment(d, "a.json", kRoot);
  REQUIRE(c.workload.catalog->classes.size() == 1);
  CHECK(c.workload.catalog->classes[0].goodput->max_epochs() == 3);
  CHECK(c.workload.catalog->classes[0].batch_size == 8);  // the smallest validated batch
  auto cls = [&](const char* key, const nlohmann::json& v) {
    nlohmann::json e = d;
    e["workload"]["catalog"]["classes"][0]["goodput"][key] = v;
    return parse_error(e);
  };
  CHECK_THAT(cls("max_epochs", 0), Contains("workload.catalog.classes[0].goodput.max_epochs"));
  CHECK_THAT(cls("max_epochs", 9), Contains("max_epochs 9 exceeds the shortest validation run (3 epochs)"));
  CHECK_THAT(cls("max_batch_size", -8), Contains("goodput.max_batch_size"));
  CHECK_THAT(cls("min_local_bsz", std::nan("")), Contains("goodput.min_local_bsz"));
  CHECK_THAT(cls("tables", "/nonexistent"), Contains("goodput.tables") && Contains("no such directory"));
  CHECK_THAT(cls("epochs", 3), Contains("goodput") && Contains("epochs"));
  nlohmann::json e = d;
  e["workload"]["catalog"]["classes"][0]["gpus"]["max"] = 8;
  CHECK_THAT(parse_error(e), Contains("classes[0].gpus.max: the measured tables of class 'tiny' go up to 4 GPUs"));
  e = d;
  e["workload"]["catalog"]["classes"][0]["batch"] = {{"size", 64}};
  CHECK_THAT(parse_error(e), Contains("batch.size: must be within the validated batch sizes"));
}

TEST_CASE("sim::cli: a trace row outside the validated batch sizes exits 2 naming file:line",
          "[sim][cli][fidelity][bad-input]") {
  TempDir dir;
  const auto trace = dir.path() / "w.csv";
  std::ofstream(trace) << "name,time,application,num_replicas,batch_size\n"
                       << "cifar10-0,0,cifar10,1,128\n"
                       << "bert-1,10,bert,1,100000\n";
  nlohmann::json d = artifact();
  d["workload"]["trace"]["file"] = trace.string();
  const auto cfg = dir.path() / "c.json";
  std::ofstream(cfg) << d.dump(2);
  const auto r = run_cli("simulate --config " + shell_quote(cfg.string()));
  CHECK(r.code == 2);
  CHECK_THAT(r.err, Contains("w.csv:3: batch_size 100000 is outside bert's validated batch sizes"));
  CHECK(r.out.empty());
}
