// test/sim/cluster/test_hosts_topology.cpp — the host-list topology (sim/cluster/hosts_topology.h, `"kind":
// "hosts_csv"`): a hand-written 6-host list to its graph under both readings of switch names, every bad row's message,
// the config form's checks, and the shipped Lingjun topo.csv (workloads/data/lingjun/).
#include <catch2/catch.hpp>

#include <string>

#include "sim/cluster/hosts_topology.h"
#include "sim/cluster/topology.h"
#include "sim/experiments/builtin_configs.h"
#include "sim/experiments/config.h"
#include "test/input_error_of.h"
#include "workloads/io/json_reader.h"

using namespace ringsched;

namespace {

constexpr double kHostsGb = 1e9;
constexpr double kHostsUs = 1e-6;

// intra 100 GB/s 1 us; host-ASW 50 GB/s 2 us; ASW-PSW 25 GB/s 3 us; PSW-DSW 10 GB/s 4 us.
HostsLinks hosts_test_links() {
  HostsLinks l;
  l.intra = {100 * kHostsGb, 1 * kHostsUs};
  l.host_asw = {50 * kHostsGb, 2 * kHostsUs};
  l.asw_psw = {25 * kHostsGb, 3 * kHostsUs};
  l.psw_dsw = {10 * kHostsGb, 4 * kHostsUs};
  return l;
}

int hosts_switch_count(const Topology& t) {
  int n = 0;
  for (auto [v, end] = boost::vertices(t.graph()); v != end; ++v)
    n += t.graph()[*v].kind == VertexKind::kSwitch ? 1 : 0;
  return n;
}

const std::string kSixHosts = std::string(RINGSCHED_TEST_DIR) + "/fixtures/hosts/six-hosts.csv";
const std::string kLingjunTopo = std::string(RINGSCHED_TEST_DIR) + "/../workloads/data/lingjun/topo.csv";

std::string hosts_csv_error(const std::string& text) {
  return test::error_of([&] { (void)parse_hosts_csv(text, "h.csv"); });
}

nlohmann::json hosts_link_json(double gb_s, double us) {
  return {{"bandwidth_gb_s", gb_s}, {"latency_us", us}};
}

// The table3 config on `nodes` x 8 GPUs with a hosts_csv topology over `file` (absolute), per_parent names.
nlohmann::json hosts_config(const std::string& file, int nodes) {
  nlohmann::json d = parse_json_text(table3_config_text(), "t.json");
  d["cluster"] = {{"nodes", nodes},
                  {"gpus_per_node", 8},
                  {"topology",
                   {{"kind", "hosts_csv"},
                    {"file", file},
                    {"switch_names", "per_parent"},
                    {"intra_node", hosts_link_json(100, 1)},
                    {"host_asw", hosts_link_json(50, 2)},
                    {"asw_psw", hosts_link_json(25, 3)},
                    {"psw_dsw", hosts_link_json(10, 4)}}},
                  {"placement", "topology"}};
  return d;
}

std::string hosts_config_error(const nlohmann::json& doc, const std::string& base_dir = "") {
  return test::error_of([&] { (void)parse_experiment(doc, "t.json", base_dir); });
}

}  // namespace

TEST_CASE("cluster::HostsTopology: six hosts, switch names local to their parent", "[topology][hosts]") {
  // h1 h2 under D1/P1/S1, h3 under D1/P1/S2, h4 h5 under D1/P2/S1 (another ToR than P1's S1), h6 under D1/P2/S3.
  const HostsTable t = read_hosts_csv(kSixHosts);
  REQUIRE(t.hosts.size() == 6);
  CHECK(t.has_dsw);
  CHECK(t.hosts[3].host == "h4");
  CHECK(t.hosts[3].line == 5);
  CHECK(t.hosts[3].psw == "P2");
  const TopologySpec spec = hosts_topology_spec(t, 6, 8, SwitchNames::kPerParent, hosts_test_links());
  // Switches: D1; D1/P1, D1/P2; D1/P1/S1, D1/P1/S2, D1/P2/S1, D1/P2/S3 = 7. Links: 6 host + 4 ASW-PSW + 2 PSW-DSW.
  CHECK(spec.switches.size() == 7);
  CHECK(spec.links.size() == 12);
  const Topology topo(spec);
  CHECK(topo.nodes() == 6);
  CHECK(topo.gpus() == 48);
  CHECK(topo.node_name(5) == "h6");
  CHECK(hosts_switch_count(topo) == 7);
  CHECK(boost::num_edges(topo.graph()) == 48 + 12);
  // Same ASW: host-ASW-host, 50 GB/s, 2 + 2 us.
  CHECK(topo.node_path(0, 1).bandwidth == Approx(50 * kHostsGb));
  CHECK(topo.node_path(0, 1).latency == Approx(4 * kHostsUs));
  // Same PSW, other ASW: min(50, 25) = 25 GB/s, 2 + 3 + 3 + 2 = 10 us.
  CHECK(topo.node_path(0, 2).bandwidth == Approx(25 * kHostsGb));
  CHECK(topo.node_path(0, 2).latency == Approx(10 * kHostsUs));
  // Other PSW (h1 and h4 both under an 'S1', but not the same one): 10 GB/s, 2 + 3 + 4 + 4 + 3 + 2 = 18 us.
  CHECK(topo.node_path(0, 3).bandwidth == Approx(10 * kHostsGb));
  CHECK(topo.node_path(0, 3).latency == Approx(18 * kHostsUs));
  CHECK(topo.node_path(3, 4).bandwidth == Approx(50 * kHostsGb));
  // A ring over a GPU of h1 and one of h4 crosses the DSW; GPU paths add the intra links (1 + 18 + 1 us).
  CHECK(topo.ring({0, 24}).bandwidth == Approx(10 * kHostsGb));
  CHECK(topo.ring({0, 24}).alpha == Approx(20 * kHostsUs));
  // The first 3 hosts only: D1, D1/P1, D1/P1/S1, D1/P1/S2; links 3 + 2 + 1.
  const TopologySpec first3 = hosts_topology_spec(t, 3, 8, SwitchNames::kPerParent, hosts_test_links());
  CHECK(first3.nodes.size() == 3);
  CHECK(first3.switches.size() == 4);
  CHECK(first3.links.size() == 6);
}

TEST_CASE("cluster::HostsTopology: global switch names join hosts under one name", "[topology][hosts]") {
  // Global: S1 is one switch under P1 and P2. Switches D1, P1, P2, S1, S2, S3 = 6; links 6 + 4 + 2 = 12.
  const HostsTable t = read_hosts_csv(kSixHosts);
  const TopologySpec spec = hosts_topology_spec(t, 6, 8, SwitchNames::kGlobal, hosts_test_links());
  CHECK(spec.switches.size() == 6);
  CHECK(spec.links.size() == 12);
  const Topology topo(spec);
  CHECK(hosts_switch_count(topo) == 6);
  // h1 and h4 now share ASW S1: 50 GB/s, 4 us.
  CHECK(topo.node_path(0, 3).bandwidth == Approx(50 * kHostsGb));
  CHECK(topo.node_path(0, 3).latency == Approx(4 * kHostsUs));
  // h3 (S2 under P1) to h6 (S3 under P2): through S1 (two ASW-PSW hops, 25 GB/s) rather than the DSW (10 GB/s).
  CHECK(topo.node_path(2, 5).bandwidth == Approx(25 * kHostsGb));
}

TEST_CASE("cluster::HostsTopology: a two-level host list has no DSW", "[topology][hosts]") {
  const HostsTable t = parse_hosts_csv("ip,PSW,ASW,rack\na,P,S1,r1\nb,P,S2,r2\n", "two.csv");
  CHECK_FALSE(t.has_dsw);
  const TopologySpec spec = hosts_topology_spec(t, 2, 4, SwitchNames::kPerParent, hosts_test_links());
  CHECK(spec.switches.size() == 3);  // P, P/S1, P/S2
  CHECK(spec.links.size() == 4);
  const Topology topo(spec);
  CHECK(topo.node_path(0, 1).bandwidth == Approx(25 * kHostsGb));
}

TEST_CASE("cluster::HostsTopology: bad rows name the file and line", "[topology][hosts]") {
  const std::string head = "ip,DSW,PSW,ASW\n";
  CHECK(hosts_csv_error("ip,DSW,PSW\nh1,D,P\n") ==
        "h.csv:1: missing column 'ASW' (the header has 3 columns; did you mean 'DSW'?)");
  CHECK(hosts_csv_error("host,ASW,PSW\nh1,S,P\n") ==
        "h.csv:1: missing column 'ip' (the header has 3 columns, none of that name)");
  CHECK(hosts_csv_error(head) == "h.csv:1: no host rows (one row per host: ip, ASW, PSW, DSW)");
  CHECK(hosts_csv_error(head + "h1,D,P,S1\nh2,D,,S1\n") == "h.csv:3: column 'PSW': empty switch name");
  CHECK(hosts_csv_error(head + ",D,P,S1\n") == "h.csv:2: column 'ip': empty host name");
  CHECK(hosts_csv_error(head + "h1,D,P,S1\nh2,D,P,S1\nh1,D,P,S2\n") ==
        "h.csv:4: host 'h1' is listed twice (first on line 2)");
  CHECK(hosts_csv_error(head + "h1,D,P,S1\nS1,D,P,S2\n") ==
        "h.csv:3: 'S1' is a host here but a switch (ASW) on line 2");
  CHECK(hosts_csv_error(head + "h1,D,P,S1\nh2,D,P,h1\n") ==
        "h.csv:3: 'h1' is a switch (ASW) here but a host on line 2");
  CHECK(hosts_csv_error(head + "h1,D,P,S1\nh2,D,S1,S2\n") ==
        "h.csv:3: switch 'S1' is a PSW here but an ASW on line 2 (a name at two levels would make a loop)");
  CHECK(hosts_csv_error(head + "h1,X,P,X\n") ==
        "h.csv:2: switch 'X' is a DSW here but an ASW on line 2 (a name at two levels would make a loop)");
  CHECK(hosts_csv_error(head + "h1,D,P\n").find("h.csv:2") == 0);  // a short row: the CSV reader's message
  CHECK(test::error_of([] { (void)read_hosts_csv("/nonexistent/topo.csv"); }).find("/nonexistent/topo.csv") !=
        std::string::npos);
}

TEST_CASE("cluster::HostsTopology: the config form builds the graph and refuses bad keys by JSON path",
          "[topology][hosts]") {
  const ExperimentConfig c = parse_experiment(hosts_config(kSixHosts, 6), "t.json", "");
  REQUIRE(c.cluster.topology != nullptr);
  CHECK(c.cluster.topology->nodes() == 6);
  CHECK(c.cluster.topology->node_path(0, 3).bandwidth == Approx(10 * kHostsGb));
  // Relative to the config's folder.
  auto rel = hosts_config("hosts/six-hosts.csv", 6);
  CHECK(parse_experiment(rel, "t.json", std::string(RINGSCHED_TEST_DIR) + "/fixtures").cluster.topology->nodes() == 6);
  rel["cluster"]["topology"]["file"] = "../six-hosts.csv";
  CHECK_THAT(hosts_config_error(rel, RINGSCHED_TEST_DIR), Catch::StartsWith("t.json: cluster.topology.file: '../"));
  // hosts "first": the first 4 rows.
  auto first = hosts_config(kSixHosts, 4);
  first["cluster"]["topology"]["hosts"] = "first";
  CHECK(parse_experiment(first, "t.json", "").cluster.topology->nodes() == 4);
  first["cluster"]["nodes"] = 7;
  CHECK(hosts_config_error(first) ==
        "t.json: cluster.topology: cluster.nodes (7) is more than the 6 hosts of '" + kSixHosts + "'");
  CHECK_THAT(hosts_config_error(hosts_config(kSixHosts, 4)),
             Catch::StartsWith("t.json: cluster.topology: '" + kSixHosts + "' lists 6 hosts but cluster.nodes is 4"));
  auto bad = hosts_config(kSixHosts, 6);
  bad["cluster"]["topology"]["asw_psw"]["bandwidth_gb_s"] = 0;
  CHECK(hosts_config_error(bad) ==
        "t.json: cluster.topology.asw_psw.bandwidth_gb_s: link bandwidth must be > 0 GB/s, got 0");
  bad["cluster"]["topology"]["asw_psw"]["bandwidth_gb_s"] = 2e5;
  CHECK(hosts_config_error(bad) ==
        "t.json: cluster.topology.asw_psw.bandwidth_gb_s: link bandwidth must be <= 100000 "
        "GB/s (100 TB/s; more is absurd), got 200000.0");
  bad = hosts_config(kSixHosts, 6);
  bad["cluster"]["topology"]["host_asw"]["latency_us"] = 2e6;
  CHECK_THAT(hosts_config_error(bad),
             Catch::StartsWith("t.json: cluster.topology.host_asw.latency_us: link latency must be <= 1000000 us"));
  bad = hosts_config(kSixHosts, 6);
  bad["cluster"]["topology"].erase("psw_dsw");
  CHECK_THAT(hosts_config_error(bad), Catch::StartsWith("t.json: cluster.topology") && Catch::Contains("psw_dsw"));
  bad = hosts_config(kSixHosts, 6);
  bad["cluster"]["topology"]["switch_names"] = "local";
  CHECK(hosts_config_error(bad) ==
        "t.json: cluster.topology.switch_names: unknown switch_names 'local' (valid: per_parent, global)");
  bad["cluster"]["topology"].erase("switch_names");
  CHECK_THAT(hosts_config_error(bad), Catch::Contains("switch_names"));
  bad = hosts_config(kSixHosts, 6);
  bad["cluster"]["topology"]["hosts"] = "some";
  CHECK(hosts_config_error(bad) == "t.json: cluster.topology.hosts: unknown hosts 'some' (valid: all, first)");
  // A bad row in the file names the file and line, not the config.
  bad = hosts_config(std::string(RINGSCHED_TEST_DIR) + "/fixtures/hosts/loop.csv", 2);
  CHECK(hosts_config_error(bad) == std::string(RINGSCHED_TEST_DIR) +
                                       "/fixtures/hosts/loop.csv:3: switch 'S1' is a PSW here but an ASW on line 2 (a "
                                       "name at two levels would make a loop)");
}

TEST_CASE("cluster::HostsTopology: the shipped Lingjun topo.csv", "[topology][hosts]") {
  // Counted with the shell (workloads/data/lingjun/topo.csv, header ip,DSW,PSW,ASW):
  //   tail -n +2 topo.csv | wc -l                              -> 847 hosts (cut -d, -f1 | sort -u: 847 distinct)
  //   tail -n +2 topo.csv | cut -d, -f2 | sort -u | wc -l      -> 1 DSW (G6)
  //   tail -n +2 topo.csv | cut -d, -f3 | sort -u | wc -l      -> 3 PSWs (P8, P10, P12)
  //   tail -n +2 topo.csv | cut -d, -f4 | sort -u | wc -l      -> 48 ASW names (S1..S48)
  //   tail -n +2 topo.csv | cut -d, -f3,4 | sort -u | wc -l    -> 119 (PSW, ASW) pairs, at most 8 hosts each
  // per_parent: 1 + 3 + 119 = 123 switches; global: 1 + 3 + 48 = 52. Links either way: 847 + 119 + 3 = 969.
  const HostsTable t = read_hosts_csv(kLingjunTopo);
  REQUIRE(t.hosts.size() == 847);
  CHECK(t.has_dsw);
  const TopologySpec scoped = hosts_topology_spec(t, 847, 8, SwitchNames::kPerParent, hosts_test_links());
  CHECK(scoped.switches.size() == 123);
  CHECK(scoped.links.size() == 969);
  const Topology full(scoped);  // the whole fabric builds (its widest-path tables over 847 x 847 host pairs)
  CHECK(full.nodes() == 847);
  CHECK(full.gpus() == 847 * 8);
  CHECK(hosts_switch_count(full) == 123);
  CHECK(boost::num_edges(full.graph()) == 847 * 8 + 969);
  CHECK(full.levels().size() == 3);  // under one ASW, one PSW, the DSW
  const TopologySpec global = hosts_topology_spec(t, 847, 8, SwitchNames::kGlobal, hosts_test_links());
  CHECK(global.switches.size() == 52);
  CHECK(global.links.size() == 969);
  // The first 16 hosts through the config form. Rows 0..5 (lines 2..7): G6 over P10/S14, P12/S2, P10/S34, P10/S6,
  // P8/S3, P10/S14.
  auto doc = hosts_config(kLingjunTopo, 16);
  doc["cluster"]["topology"]["hosts"] = "first";
  const ExperimentConfig c = parse_experiment(doc, "t.json", "");
  const Topology& topo = *c.cluster.topology;
  CHECK(topo.nodes() == 16);
  CHECK(topo.node_name(0) == "0c9d9de1b19e7f39b08f49ddfa26744ae26d3adf8bd59af1b16e203b6fa5fe4b");
  CHECK(topo.node_path(0, 5).bandwidth == Approx(50 * kHostsGb));  // the same ToR
  CHECK(topo.node_path(0, 2).bandwidth == Approx(25 * kHostsGb));  // the same PSW
  CHECK(topo.node_path(0, 3).bandwidth == Approx(25 * kHostsGb));
  CHECK(topo.node_path(0, 1).bandwidth == Approx(10 * kHostsGb));  // another PSW: through the DSW
  CHECK(topo.node_path(0, 4).bandwidth == Approx(10 * kHostsGb));
}
