// sim/cluster/topology_config.cpp — parsing and validating cluster.topology (two_level, fat_tree, graph, hosts_csv) and
// cluster.placement.
#include "sim/cluster/topology_config.h"

#include <functional>
#include <optional>
#include <stdexcept>

#include "sim/cluster/hosts_topology.h"
#include "sim/cluster/placement.h"
#include "workloads/io/input_path.h"

namespace ringsched {
namespace {

// Caps beyond which a link class is absurd input (a typo or a unit slip): 100,000 GB/s (100 TB/s, over 50x an NVLink 5
// GPU's 1.8 TB/s) and a latency of 1 s (10^6 us).
constexpr double kMaxLinkGbS = 1e5;
constexpr double kMaxLinkLatencyUs = 1e6;

std::string topology_json_text(const JsonReader& r) {
  return r.value().dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

// A link's bandwidth_gb_s (> 0, at most kMaxLinkGbS) in bytes/s.
double parse_link_bandwidth(const JsonReader& bw) {
  if (!(bw.as_number() > 0.0)) bw.fail("link bandwidth must be > 0 GB/s, got " + topology_json_text(bw));
  if (!(bw.as_positive() <= kMaxLinkGbS)) {
    bw.fail("link bandwidth must be <= 100000 GB/s (100 TB/s; more is absurd), got " + topology_json_text(bw));
  }
  return bw.as_positive() * 1e9;
}

// A link's latency_us (>= 0, at most kMaxLinkLatencyUs; absent = 0) in seconds.
double parse_link_latency(const JsonReader& r) {
  const double us = r.non_negative_or("latency_us", 0.0);
  if (us > kMaxLinkLatencyUs) {
    r.at("latency_us")
        .fail("link latency must be <= 1000000 us (1 s; more is absurd), got " +
              topology_json_text(r.at("latency_us")));
  }
  return us * 1e-6;
}

// {"bandwidth_gb_s": GB/s (1e9 bytes/s), "latency_us": microseconds}
LinkClass parse_link(const JsonReader& r) {
  r.expect_object({"bandwidth_gb_s", "latency_us"});
  LinkClass l;
  l.bandwidth = parse_link_bandwidth(r.at("bandwidth_gb_s"));
  l.latency = parse_link_latency(r);
  return l;
}

std::shared_ptr<const Topology> build(const JsonReader& r, const std::function<Topology()>& make) {
  try {
    return std::make_shared<const Topology>(make());
  } catch (const std::invalid_argument& e) {
    r.fail(e.what());
  }
}

TopologySpec::Node parse_graph_node(const JsonReader& nr, int gpus_per_node, const LinkClass& intra) {
  TopologySpec::Node n;
  if (nr.is_string()) {
    n.name = nr.as_string();
    n.gpus = gpus_per_node;
    n.intra = intra;
  } else {
    nr.expect_object({"name", "gpus", "intra_node"});
    n.name = nr.at("name").as_string();
    n.gpus = static_cast<int>(nr.integer_in_or("gpus", -1'000'000, 1'000'000, gpus_per_node));
    if (n.gpus <= 0) nr.at("gpus").fail("node '" + n.name + "' has no GPUs (gpus must be >= 1)");
    if (n.gpus != gpus_per_node) {
      nr.at("gpus").fail("every node must have cluster.gpus_per_node (" + std::to_string(gpus_per_node) +
                         ") GPUs; heterogeneous nodes are not supported");
    }
    n.intra = nr.has("intra_node") ? parse_link(nr.at("intra_node")) : intra;
  }
  if (n.name.empty()) nr.fail("node name must not be empty");
  return n;
}

// Links must join known nodes or switches: an unknown endpoint names the link's path.
void check_link_ends(const JsonReader& links, const TopologySpec& spec) {
  const auto ls = links.elements();
  for (std::size_t i = 0; i < spec.links.size(); ++i) {
    for (const std::string* end : {&spec.links[i].a, &spec.links[i].b}) {
      bool known = false;
      for (const auto& n : spec.nodes)
        known = known || n.name == *end;
      for (const auto& s : spec.switches)
        known = known || s == *end;
      if (!known) ls[i].fail("names '" + *end + "', which is not a node or switch (a link joins nodes and switches)");
    }
  }
}

std::shared_ptr<const Topology> parse_graph(const JsonReader& r, int nodes, int gpus_per_node) {
  r.expect_object({"kind", "intra_node", "nodes", "switches", "links"});
  TopologySpec spec;
  const LinkClass intra = parse_link(r.at("intra_node"));
  const auto nodes_r = r.at("nodes");
  const auto node_list = nodes_r.non_empty_elements();
  if (static_cast<int>(node_list.size()) != nodes) {
    nodes_r.fail("lists " + std::to_string(node_list.size()) + " nodes but cluster.nodes is " + std::to_string(nodes));
  }
  for (const auto& nr : node_list)
    spec.nodes.push_back(parse_graph_node(nr, gpus_per_node, intra));
  if (auto sw = r.maybe("switches")) {
    for (const auto& s : sw->elements())
      spec.switches.push_back(s.as_string());
  }
  if (auto links = r.maybe("links")) {
    for (const auto& lr : links->elements()) {
      lr.expect_object({"a", "b", "bandwidth_gb_s", "latency_us"});
      TopologySpec::Link l;
      l.a = lr.at("a").as_string();
      l.b = lr.at("b").as_string();
      l.link.bandwidth = parse_link_bandwidth(lr.at("bandwidth_gb_s"));
      l.link.latency = parse_link_latency(lr);
      spec.links.push_back(l);
    }
    check_link_ends(*links, spec);
  }
  return build(r, [&] { return Topology(spec); });
}

std::shared_ptr<const Topology> parse_fat_tree(const JsonReader& r, int nodes, int gpus_per_node) {
  r.expect_object({"kind", "nodes_per_leaf", "spines", "intra_node", "node_leaf", "leaf_spine"});
  const auto npl_r = r.at("nodes_per_leaf");
  const int npl = static_cast<int>(npl_r.as_integer_in(1, 1'000'000));
  if (nodes % npl != 0) {
    npl_r.fail("cluster.nodes (" + std::to_string(nodes) + ") must be a multiple of nodes_per_leaf (" +
               std::to_string(npl) + ")");
  }
  const int spines = static_cast<int>(r.integer_in_or("spines", 1, 100000, 1));
  const LinkClass intra = parse_link(r.at("intra_node"));
  const LinkClass nl = parse_link(r.at("node_leaf"));
  const LinkClass ls = parse_link(r.at("leaf_spine"));
  return build(r, [&] { return Topology::fat_tree(nodes, gpus_per_node, npl, spines, intra, nl, ls); });
}

// kind "hosts_csv": a host list with switch names (sim/cluster/hosts_topology.h). `file` resolves against the config's
// folder; `hosts` is "all" (cluster.nodes must equal the rows; the default) or "first" (the first cluster.nodes rows);
// `switch_names` ("per_parent" or "global") is required: the two readings of a name give different graphs.
std::shared_ptr<const Topology> parse_hosts_csv_topology(const JsonReader& r, int nodes, int gpus_per_node) {
  r.expect_object({"kind", "file", "switch_names", "hosts", "intra_node", "host_asw", "asw_psw", "psw_dsw"});
  const auto file_r = r.at("file");
  std::string path;
  try {
    path = resolve_input_path(file_r.as_string(), current_input_base_dir());
  } catch (const InputError& e) {
    file_r.fail(e.what());
  }
  const auto names_r = r.at("switch_names");
  const std::string names = names_r.as_string();
  if (names != "per_parent" && names != "global") {
    names_r.fail("unknown switch_names '" + names + "' (valid: per_parent, global)");
  }
  const auto hosts_r = r.maybe("hosts");
  const std::string hosts = hosts_r ? hosts_r->as_string() : "all";
  if (hosts != "all" && hosts != "first") hosts_r->fail("unknown hosts '" + hosts + "' (valid: all, first)");
  HostsLinks links;
  links.intra = parse_link(r.at("intra_node"));
  links.host_asw = parse_link(r.at("host_asw"));
  links.asw_psw = parse_link(r.at("asw_psw"));
  const HostsTable table = read_hosts_csv(path);
  if (table.has_dsw) {
    links.psw_dsw = parse_link(r.at("psw_dsw"));
  } else if (r.has("psw_dsw")) {
    r.at("psw_dsw").fail("'" + path + "' has no DSW column, so there are no PSW-DSW links");
  }
  const std::size_t rows = table.hosts.size();
  const auto n = static_cast<std::size_t>(nodes);
  if (hosts == "all" && n != rows) {
    r.fail("'" + path + "' lists " + std::to_string(rows) + " hosts but cluster.nodes is " + std::to_string(nodes) +
           " (set \"hosts\": \"first\" to use its first cluster.nodes hosts)");
  }
  if (n > rows) {
    r.fail("cluster.nodes (" + std::to_string(nodes) + ") is more than the " + std::to_string(rows) + " hosts of '" +
           path + "'");
  }
  const SwitchNames sn = names == "global" ? SwitchNames::kGlobal : SwitchNames::kPerParent;
  return build(r, [&] { return Topology(hosts_topology_spec(table, n, gpus_per_node, sn, links)); });
}

}  // namespace

std::shared_ptr<const Topology> parse_topology(const JsonReader& r, int nodes, int gpus_per_node) {
  const std::string kind = r.at("kind").as_string();
  if (kind == "two_level") {
    r.expect_object({"kind", "intra_node", "inter_node"});
    const LinkClass intra = parse_link(r.at("intra_node"));
    const LinkClass inter = parse_link(r.at("inter_node"));
    return build(r, [&] { return Topology::two_level(nodes, gpus_per_node, intra, inter); });
  }
  if (kind == "fat_tree") return parse_fat_tree(r, nodes, gpus_per_node);
  if (kind == "graph") return parse_graph(r, nodes, gpus_per_node);
  if (kind == "hosts_csv") return parse_hosts_csv_topology(r, nodes, gpus_per_node);
  r.at("kind").fail("unknown topology kind '" + kind + "' (valid: two_level, fat_tree, graph, hosts_csv)");
}

PlacementConfig parse_placement(const JsonReader& r) {
  PlacementConfig p;
  const JsonReader* name_r = &r;
  std::optional<JsonReader> pol;
  if (r.is_string()) {
    p.policy = r.as_string();
  } else {
    r.expect_object({"policy", "defragment"});
    pol = r.at("policy");
    name_r = &*pol;
    p.policy = pol->as_string();
    p.defragment = r.bool_or("defragment", false);
  }
  try {
    (void)make_placement_policy(p.policy);
  } catch (const std::invalid_argument&) {
    name_r->fail("unknown placement policy '" + p.policy + "' (valid: " + join_names(placement_policy_names()) + ")");
  }
  return p;
}

}  // namespace ringsched
