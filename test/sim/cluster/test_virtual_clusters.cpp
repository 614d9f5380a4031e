// test/sim/cluster/test_virtual_clusters.cpp — cluster.virtual_clusters: the VC table (inline, the Helios artifact's
// `vc,node num` CSV, HeliosData's GPUs per VC per day), contiguous node ranges in table order, the placement key, and
// the errors that name the JSON path or the file and line.
#include <catch2/catch.hpp>

#include <string>

#include <nlohmann/json.hpp>

#include "models/input_error.h"
#include "sim/cluster/cluster_config.h"
#include "test/sim/cli_util.h"

using namespace ringsched;
using Catch::Contains;

namespace {

ClusterConfig vc_cluster_parse(const std::string& text) {
  const nlohmann::json doc = nlohmann::json::parse(text);
  return parse_cluster(JsonReader(doc, "cfg.json", "cluster"));
}

std::string vc_cluster_error(const std::string& text) {
  try {
    (void)vc_cluster_parse(text);
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

// A cluster of `nodes` x 4 GPUs with virtual_clusters `vcs` (JSON text).
std::string vc_cluster_text(const std::string& vcs, int nodes = 4) {
  return R"({"nodes": )" + std::to_string(nodes) + R"(, "gpus_per_node": 4, "virtual_clusters": )" + vcs + "}";
}

}  // namespace

TEST_CASE("sim::VirtualClusters: an inline table gives contiguous node ranges in table order", "[cluster][vc]") {
  const ClusterConfig c =
      vc_cluster_parse(vc_cluster_text(R"({"table": [{"name": "a", "nodes": 1}, {"name": "b", "nodes": 2}]})"));
  REQUIRE(c.virtual_clusters);
  CHECK(c.virtual_clusters->placement == "consolidate");
  CHECK(c.placement == "packed");  // the engine tracks concrete GPUs
  const auto infos = c.virtual_clusters->infos(c.gpus_per_node);
  REQUIRE(infos.size() == 2);
  CHECK(infos[0].name == "a");
  CHECK(infos[0].first_node == 0);
  CHECK(infos[0].nodes == 1);
  CHECK(infos[0].gpus == 4);
  CHECK(infos[1].name == "b");
  CHECK(infos[1].first_node == 1);
  CHECK(infos[1].nodes == 2);
  CHECK(infos[1].gpus == 8);
  CHECK(c.virtual_clusters->index_of("b") == 1);
  CHECK(c.virtual_clusters->index_of("c") == -1);
  const ClusterConfig r =
      vc_cluster_parse(vc_cluster_text(R"({"table": [{"name": "a", "nodes": 4}], "placement": "random"})"));
  CHECK(r.virtual_clusters->placement == "random");
  // Without the key: no VCs, no placement.
  const ClusterConfig none = vc_cluster_parse(R"({"nodes": 4, "gpus_per_node": 4})");
  CHECK_FALSE(none.virtual_clusters);
  CHECK(none.placement.empty());
}

TEST_CASE("sim::VirtualClusters: files of nodes per VC and of GPUs per VC per day", "[cluster][vc]") {
  test::TempDir dir;
  test::write_whole_file(dir / "vc.csv", "vc,node num\nx1,2\ny2,1\n");
  test::write_whole_file(dir / "gpus.csv",
                         "date,vcA,vcB,vcC,total\n2020-09-01,8,0,4,12\n2020-09-02,4,8,4,16\n2020-09-03,6,0,0,6\n");
  const ClusterConfig a = vc_cluster_parse(vc_cluster_text(R"({"file": ")" + (dir / "vc.csv") + R"("})"));
  REQUIRE(a.virtual_clusters->table.size() == 2);
  CHECK(a.virtual_clusters->table[0].name == "x1");
  CHECK(a.virtual_clusters->table[0].nodes == 2);
  CHECK(a.virtual_clusters->table[1].name == "y2");
  CHECK(a.virtual_clusters->table[1].nodes == 1);
  // The day's row; a VC with no GPUs that day is left out; `total` is not a VC.
  const ClusterConfig b =
      vc_cluster_parse(vc_cluster_text(R"({"file": ")" + (dir / "gpus.csv") + R"(", "date": "2020-09-01"})"));
  REQUIRE(b.virtual_clusters->table.size() == 2);
  CHECK(b.virtual_clusters->table[0].name == "vcA");
  CHECK(b.virtual_clusters->table[0].nodes == 2);
  CHECK(b.virtual_clusters->table[1].name == "vcC");
  CHECK(b.virtual_clusters->table[1].nodes == 1);
  // A job of a VC with no GPUs that day is refused saying so.
  CHECK(b.virtual_clusters->refusal("vcB") ==
        "virtual cluster 'vcB' has no GPUs on 2020-09-01 in " + (dir / "gpus.csv"));
  CHECK(b.virtual_clusters->refusal("vcZ") ==
        "virtual cluster 'vcZ' is not in cluster.virtual_clusters (" + (dir / "gpus.csv") + ": vcA, vcC)");
  CHECK(b.virtual_clusters->refusal("") == "names no virtual cluster; a cluster with cluster.virtual_clusters (" +
                                               (dir / "gpus.csv") + ": vcA, vcC) runs only jobs of its VCs");
  const ClusterConfig d =
      vc_cluster_parse(vc_cluster_text(R"({"file": ")" + (dir / "gpus.csv") + R"(", "date": "2020-09-02"})"));
  CHECK(d.virtual_clusters->table.size() == 3);
  CHECK(d.virtual_clusters->total_nodes() == 4);

  const std::string gpus = dir / "gpus.csv";
  CHECK_THAT(vc_cluster_error(vc_cluster_text(R"({"file": ")" + gpus + R"(", "date": "2020-10-01"})")),
             Contains("cluster.virtual_clusters.date: date '2020-10-01' is not in '" + gpus + "'"));
  CHECK_THAT(vc_cluster_error(vc_cluster_text(R"({"file": ")" + gpus + R"("})")),
             Contains("cluster.virtual_clusters.file: '" + gpus + "' lists GPUs per VC per day: give \"date\""));
  CHECK_THAT(vc_cluster_error(vc_cluster_text(R"({"file": ")" + gpus + R"(", "date": "2020-09-03"})")),
             Contains(gpus + ":4: column 'vcA': 6 GPUs is not a whole number of nodes of cluster.gpus_per_node 4"));
  CHECK_THAT(vc_cluster_error(vc_cluster_text(R"({"file": ")" + (dir / "vc.csv") + R"(", "date": "2020-09-01"})")),
             Contains("cluster.virtual_clusters.date: only with a file of GPUs per day"));
  CHECK_THAT(vc_cluster_error(vc_cluster_text(R"({"file": ")" + (dir / "missing.csv") + R"("})")),
             Contains("cluster.virtual_clusters.file: ") && Contains("missing.csv"));
  test::write_whole_file(dir / "bad.csv", "vc,node num\nx1,2\nx1,1\n");
  CHECK_THAT(vc_cluster_error(vc_cluster_text(R"({"file": ")" + (dir / "bad.csv") + R"("})")),
             Contains(dir / "bad.csv" + ":3: VC 'x1' appears twice"));
  test::write_whole_file(dir / "zero.csv", "vc,node num\nx1,0\n");
  CHECK_THAT(vc_cluster_error(vc_cluster_text(R"({"file": ")" + (dir / "zero.csv") + R"("})")),
             Contains(dir / "zero.csv" + ":2: column 'node num'"));
  test::write_whole_file(dir / "big.csv", "vc,node num\nx1,3\nx2,2\n");
  CHECK_THAT(vc_cluster_error(vc_cluster_text(R"({"file": ")" + (dir / "big.csv") + R"("})")),
             Contains("cluster.virtual_clusters.file: the VCs hold 5 nodes, more than cluster.nodes (4)"));
}

TEST_CASE("sim::VirtualClusters: bad tables name the JSON path", "[cluster][vc]") {
  const auto err = [](const std::string& vcs) { return vc_cluster_error(vc_cluster_text(vcs)); };
  CHECK_THAT(err(R"({"table": [{"name": "a", "nodes": 1}], "colour": 1})"),
             Contains("cfg.json: cluster.virtual_clusters") && Contains("colour"));
  CHECK_THAT(err(R"({"table": [{"name": "a", "nodes": 1, "gpus": 4}]})"),
             Contains("cluster.virtual_clusters.table[0]") && Contains("gpus"));
  CHECK_THAT(err(R"({"table": [{"name": "a", "nodes": 0}]})"), Contains("cluster.virtual_clusters.table[0].nodes"));
  CHECK_THAT(err(R"({"table": [{"name": "a", "nodes": -2}]})"), Contains("cluster.virtual_clusters.table[0].nodes"));
  CHECK_THAT(err(R"({"table": [{"name": "a", "nodes": 1.5}]})"), Contains("cluster.virtual_clusters.table[0].nodes"));
  CHECK_THAT(err(R"({"table": [{"name": "a", "nodes": 1e9}]})"), Contains("cluster.virtual_clusters.table[0].nodes"));
  CHECK_THAT(err(R"({"table": [{"name": "a", "nodes": 1}, {"name": "a", "nodes": 1}]})"),
             Contains("cluster.virtual_clusters.table[1].name: VC 'a' appears twice"));
  CHECK_THAT(err(R"({"table": [{"name": "", "nodes": 1}]})"),
             Contains("cluster.virtual_clusters.table[0].name: empty VC name"));
  CHECK_THAT(err(R"({"table": [{"name": "a", "nodes": 3}, {"name": "b", "nodes": 2}]})"),
             Contains("cluster.virtual_clusters.table: the VCs hold 5 nodes, more than cluster.nodes (4)"));
  CHECK_THAT(err(R"({"table": []})"), Contains("cluster.virtual_clusters.table"));
  CHECK_THAT(err(R"({})"), Contains("cluster.virtual_clusters: give either \"table\" or \"file\""));
  CHECK_THAT(err(R"({"table": [{"name": "a", "nodes": 1}], "file": "x.csv"})"),
             Contains("cluster.virtual_clusters: give either \"table\" or \"file\""));
  CHECK_THAT(err(R"({"table": [{"name": "a", "nodes": 1}], "placement": "spread"})"),
             Contains("cluster.virtual_clusters.placement: unknown placement 'spread' (valid: consolidate, random)"));
  CHECK_THAT(err(R"({"table": [{"name": "a", "nodes": 1}], "date": "2020-01-01"})"),
             Contains("cluster.virtual_clusters.date: only with \"file\""));
  // Only on an untyped cluster whose nodes the VCs place themselves.
  CHECK_THAT(vc_cluster_error(R"({"nodes": 4, "gpus_per_node": 4, "placement": "spread",
                                  "virtual_clusters": {"table": [{"name": "a", "nodes": 1}]}})"),
             Contains("cluster.virtual_clusters: not with cluster.placement"));
  CHECK_THAT(vc_cluster_error(R"({"pools": [{"gpu_type": "v100", "nodes": 1, "gpus_per_node": 4}],
                                  "virtual_clusters": {"table": [{"name": "a", "nodes": 1}]}})"),
             Contains("cluster.virtual_clusters: not with \"pools\""));
}
