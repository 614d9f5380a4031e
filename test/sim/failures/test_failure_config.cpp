// test/sim/failures/test_failure_config.cpp — the cluster.failures key and failure traces: defaults, every option, and
// each bad input failing with the file and JSON path (or the trace's file:line) of the offending value.
#include <catch2/catch.hpp>

#include <cstdio>
#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

#include "sim/cluster/cluster_config.h"
#include "sim/cluster/failures/failure_config.h"
#include "test/input_error_of.h"

using namespace ringsched;

namespace {

fail::FailureOptions failcfg_parse(const nlohmann::json& j, int switch_levels = 0) {
  return fail::parse_failures(JsonReader(j, "cfg.json", "cluster.failures"), 8, switch_levels);
}

std::string failcfg_error(const nlohmann::json& j, int switch_levels = 0) {
  return test::error_of([&] { (void)failcfg_parse(j, switch_levels); });
}

std::string failcfg_cluster_error(const nlohmann::json& j) {
  return test::error_of([&] { (void)parse_cluster(JsonReader(j, "cfg.json", "cluster")); });
}

}  // namespace

TEST_CASE("failures::FailureConfig: node MTBF alone is exponential with the documented repair time", "[failures]") {
  const fail::FailureOptions o = failcfg_parse({{"node_mtbf_h", 2000}});
  CHECK(o.node_mtbf_s == 2000.0 * 3600.0);
  CHECK_FALSE(o.weibull);
  CHECK(o.repair_s == fail::kDefaultRepairH * 3600.0);
  CHECK(o.switch_mtbf_s == 0.0);
  CHECK(o.trace.empty());
  CHECK_FALSE(o.checkpoint.enabled);
  CHECK(o.node_rate() == Approx(1.0 / (2000.0 * 3600.0)));
}

TEST_CASE("failures::FailureConfig: every option is read", "[failures]") {
  const fail::FailureOptions o = failcfg_parse({{"node_mtbf_h", 100},
                                                {"distribution", "weibull"},
                                                {"shape", 0.7},
                                                {"repair_h", 0.5},
                                                {"switch_mtbf_h", 5000},
                                                {"switch_level", 1},
                                                {"checkpoint", {{"interval_s", 600}, {"cost_s", 30}}}},
                                               2);
  CHECK(o.weibull);
  CHECK(o.shape == 0.7);
  CHECK(o.repair_s == 1800.0);
  CHECK(o.switch_mtbf_s == 5000.0 * 3600.0);
  CHECK(o.switch_level == 1);
  CHECK(o.checkpoint.enabled);
  CHECK_FALSE(o.checkpoint.young_daly);
  CHECK(o.checkpoint.interval_s == 600.0);
  CHECK(o.checkpoint.cost_s == 30.0);
  const fail::FailureOptions y =
      failcfg_parse({{"node_mtbf_h", 100}, {"checkpoint", {{"interval", "young_daly"}, {"cost_s", 30}}}});
  CHECK(y.checkpoint.young_daly);
}

TEST_CASE("failures::FailureConfig: bad values fail naming the JSON path", "[failures][input]") {
  CHECK_THAT(failcfg_error({{"node_mtbf_h", 0}}), Catch::Contains("cluster.failures.node_mtbf_h"));
  CHECK_THAT(failcfg_error({{"node_mtbf_h", -5}}), Catch::Contains("cluster.failures.node_mtbf_h"));
  CHECK_THAT(failcfg_error({{"node_mtbf_h", "x"}}), Catch::Contains("cluster.failures.node_mtbf_h"));
  CHECK_THAT(failcfg_error({{"node_mtbf_h", 10}, {"repair_h", 0}}), Catch::Contains("cluster.failures.repair_h"));
  CHECK_THAT(failcfg_error({{"node_mtbf_h", 10}, {"mtbf", 3}}), Catch::Contains("mtbf"));
  CHECK_THAT(failcfg_error(nlohmann::json::object()), Catch::Contains("no source of failures"));
  CHECK_THAT(failcfg_error({{"node_mtbf_h", 10}, {"distribution", "gamma"}}),
             Catch::Contains("cluster.failures.distribution") && Catch::Contains("gamma"));
  CHECK_THAT(failcfg_error({{"node_mtbf_h", 10}, {"distribution", "weibull"}}), Catch::Contains("shape"));
  CHECK_THAT(failcfg_error({{"node_mtbf_h", 10}, {"shape", 2}}), Catch::Contains("cluster.failures.shape"));
  CHECK_THAT(failcfg_error({{"switch_mtbf_h", 10}}),
             Catch::Contains("cluster.failures.switch_mtbf_h") && Catch::Contains("topology"));
  CHECK_THAT(failcfg_error({{"switch_mtbf_h", 10}, {"switch_level", 3}}, 2),
             Catch::Contains("cluster.failures.switch_level"));
}

TEST_CASE("failures::FailureConfig: a checkpoint cost not shorter than its interval fails", "[failures][input]") {
  CHECK_THAT(failcfg_error({{"node_mtbf_h", 10}, {"checkpoint", {{"interval_s", 60}, {"cost_s", 60}}}}),
             Catch::Contains("cluster.failures.checkpoint.cost_s") && Catch::Contains("not shorter"));
  CHECK_THAT(failcfg_error({{"node_mtbf_h", 10}, {"checkpoint", {{"cost_s", 6}}}}),
             Catch::Contains("cluster.failures.checkpoint"));
  CHECK_THAT(failcfg_error({{"node_mtbf_h", 10}, {"checkpoint", {{"interval", "daily"}, {"cost_s", 6}}}}),
             Catch::Contains("cluster.failures.checkpoint.interval"));
  CHECK_THAT(failcfg_error({{"node_mtbf_h", 10}, {"checkpoint", {{"interval", "young_daly"}, {"cost_s", 0}}}}),
             Catch::Contains("cluster.failures.checkpoint.cost_s"));
  CHECK_THAT(failcfg_error({{"node_mtbf_h", 10}, {"checkpoint", {{"interval_s", 60}, {"cost_s", -1}}}}),
             Catch::Contains("cluster.failures.checkpoint.cost_s"));
}

TEST_CASE("failures::FailureConfig: failures need placed nodes and an untyped cluster", "[failures][input]") {
  CHECK_THAT(failcfg_cluster_error({{"nodes", 2}, {"gpus_per_node", 8}, {"failures", {{"node_mtbf_h", 10}}}}),
             Catch::Contains("cluster.failures") && Catch::Contains("placement"));
  CHECK(failcfg_cluster_error(
            {{"nodes", 2}, {"gpus_per_node", 8}, {"placement", "packed"}, {"failures", {{"node_mtbf_h", 10}}}}) == "");
  const nlohmann::json pools = {{"pools", {{{"gpu_type", "v100"}, {"nodes", 2}, {"gpus_per_node", 4}}}},
                                {"placement", "packed"},
                                {"failures", {{"node_mtbf_h", 10}}}};
  CHECK_THAT(failcfg_cluster_error(pools), Catch::Contains("cluster.failures") && Catch::Contains("pools"));
}

TEST_CASE("failures::FailureTrace: rows are read in order", "[failures]") {
  const auto t = fail::parse_failure_trace("time_s,node,duration_s\n10,3,60\n10,0,5\n99.5,7,1\n", "f.csv", 8);
  REQUIRE(t.size() == 3);
  CHECK(t[0].time_s == 10.0);
  CHECK(t[0].node == 3);
  CHECK(t[0].duration_s == 60.0);
  CHECK(t[2].node == 7);
  CHECK(t[2].time_s == 99.5);
}

TEST_CASE("failures::FailureTrace: unknown nodes, unsorted times and bad columns fail naming file:line",
          "[failures][input]") {
  const auto err = [](const std::string& text) {
    return test::error_of([&] { (void)fail::parse_failure_trace(text, "f.csv", 8); });
  };
  CHECK_THAT(err("time_s,node,duration_s\n10,3,60\n11,8,5\n"), Catch::Contains("f.csv:3") && Catch::Contains("node"));
  CHECK_THAT(err("time_s,node,duration_s\n10,3,60\n9,1,5\n"), Catch::Contains("f.csv:3") && Catch::Contains("sorted"));
  CHECK_THAT(err("time_s,node,duration_s\n10,3,0\n"), Catch::Contains("f.csv:2") && Catch::Contains("duration_s"));
  CHECK_THAT(err("time_s,node,duration_s\n-1,3,5\n"), Catch::Contains("f.csv:2") && Catch::Contains("time_s"));
  CHECK_THAT(err("time_s,node\n1,3\n"), Catch::Contains("f.csv:1") && Catch::Contains("duration_s"));
  CHECK_THAT(err("time_s,node,duration_s,extra\n1,3,5,1\n"), Catch::Contains("f.csv:1"));
  CHECK_THAT(err("time_s,node,duration_s\n1,1.5,5\n"), Catch::Contains("f.csv:2"));
}

TEST_CASE("failures::FailureConfig: a trace file resolves and is read, a missing one fails naming the path",
          "[failures][input]") {
  const std::string path = "failcfg_trace_test.csv";
  {
    std::ofstream f(path);
    f << "time_s,node,duration_s\n5,1,10\n";
  }
  const fail::FailureOptions o = failcfg_parse({{"trace", path}});
  REQUIRE(o.trace.size() == 1);
  CHECK(o.trace[0].node == 1);
  std::remove(path.c_str());
  CHECK_THAT(failcfg_error({{"trace", "no_such_failure_trace.csv"}}), Catch::Contains("no_such_failure_trace.csv"));
}

TEST_CASE("failures::FailureConfig: validate's line names every source, the repair and the checkpoints", "[failures]") {
  const std::string d = fail::describe_failures(failcfg_parse(
      {{"node_mtbf_h", 1011.2}, {"repair_h", 4}, {"checkpoint", {{"interval", "young_daly"}, {"cost_s", 60}}}}));
  CHECK(d ==
        "nodes fail every 1011.2 h on average (exponential), repairs take 4 h, checkpoints at Young/Daly's "
        "interval costing 60 s; docs/failures.md");
  CHECK_THAT(fail::describe_failures(failcfg_parse({{"switch_mtbf_h", 50}}, 1)),
             Catch::Contains("switches of level 0 every 50 h") && Catch::Contains("no checkpoints"));
}
