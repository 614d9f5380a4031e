// test/sim/cluster/test_cluster_config.cpp — the `cluster` key: the untyped cluster and typed GPU pools, and the
// errors that name the JSON path.
#include <catch2/catch.hpp>

#include <string>

#include <nlohmann/json.hpp>

#include "models/input_error.h"
#include "sim/cluster/cluster_config.h"

using namespace ringsched;

namespace {

ClusterConfig parse(const std::string& text) {
  const nlohmann::json doc = nlohmann::json::parse(text);
  return parse_cluster(JsonReader(doc, "cfg.json", "cluster"));
}

std::string error_of(const std::string& text) {
  try {
    (void)parse(text);
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("sim::ClusterConfig: the untyped cluster is one pool of nodes x gpus_per_node", "[cluster]") {
  const ClusterConfig c = parse(R"({"nodes": 4, "gpus_per_node": 8})");
  CHECK_FALSE(c.typed());
  CHECK(c.total_gpus() == 32);
  const auto pools = c.effective_pools();
  REQUIRE(pools.size() == 1);
  CHECK(pools[0].gpu_type.empty());
  CHECK(pools[0].gpus() == 32);
  CHECK(c.pool_index("v100") == -1);
}

TEST_CASE("sim::ClusterConfig: typed pools add up, keep their order and are found by type", "[cluster]") {
  const ClusterConfig c = parse(R"({"pools": [{"gpu_type": "v100", "nodes": 36, "gpus_per_node": 1},
                                              {"gpu_type": "p100", "nodes": 9, "gpus_per_node": 4},
                                              {"gpu_type": "k80", "nodes": 2, "gpus_per_node": 8}]})");
  CHECK(c.typed());
  CHECK(c.total_gpus() == 36 + 36 + 16);
  CHECK(c.nodes == 47);
  CHECK(c.gpus_per_node == 8);  // the largest, for display
  CHECK(c.gpu_types() == std::vector<std::string>{"v100", "p100", "k80"});
  CHECK(c.pool_index("p100") == 1);
  CHECK(c.effective_pools()[2].gpus() == 16);
}

TEST_CASE("sim::ClusterConfig: bad pools fail naming the JSON path", "[cluster]") {
  using Catch::Contains;
  CHECK_THAT(error_of(R"({"pools": []})"), Contains("cfg.json: cluster.pools") && Contains("empty"));
  CHECK_THAT(error_of(R"({"pools": [{"gpu_type": "v100", "nodes": 1, "gpus_per_node": 1},
                                    {"gpu_type": "v100", "nodes": 2, "gpus_per_node": 1}]})"),
             Contains("cluster.pools[1].gpu_type") && Contains("twice"));
  CHECK_THAT(error_of(R"({"pools": [{"gpu_type": "", "nodes": 1, "gpus_per_node": 1}]})"),
             Contains("cluster.pools[0].gpu_type") && Contains("empty"));
  CHECK_THAT(error_of(R"({"pools": [{"gpu_type": "a", "nodes": 0, "gpus_per_node": 1}]})"),
             Contains("cluster.pools[0].nodes"));
  CHECK_THAT(error_of(R"({"pools": [{"gpu_type": "a", "nodes": 1, "gpus_per_node": 1, "gpus": 3}]})"),
             Contains("cluster.pools[0]") && Contains("gpus"));
  CHECK_THAT(error_of(R"({"pools": [{"gpu_type": "a", "nodes": 100000, "gpus_per_node": 1024}]})"),
             Contains("1,000,000"));
  CHECK_THAT(
      error_of(R"({"nodes": 2, "gpus_per_node": 1, "pools": [{"gpu_type": "a", "nodes": 1, "gpus_per_node": 1}]})"),
      Contains("cluster.nodes") && Contains("pools"));
  CHECK_THAT(error_of(R"({"pools": {"gpu_type": "a"}})"), Contains("cluster.pools"));
}
