// test/sim/cluster/test_network_links.cpp — the directed links of two-level, fat-tree and explicit topologies: counts,
// levels and their names, routes (same leaf, across leaves, three layers, never through another node), and ECMP
// choices that are deterministic and spread over the spines.
#include <catch2/catch.hpp>

#include <set>
#include <stdexcept>
#include <utility>
#include <vector>

#include "sim/cluster/network/link_set.h"

using namespace ringsched;
using ringsched::net::LinkSet;

namespace {

constexpr LinkClass kLinksIntra{300e9, 0.0};

// The graph vertex kinds along a route, as a string: n = node, s = switch.
std::string net_links_kinds(const Topology& t, const LinkSet& ls, const std::vector<int>& route) {
  std::string out;
  for (std::size_t i = 0; i < route.size(); ++i) {
    const auto& l = ls.links()[static_cast<std::size_t>(route[i])];
    if (i == 0) out += t.graph()[static_cast<std::size_t>(l.from)].kind == VertexKind::kNode ? "n" : "s";
    out += t.graph()[static_cast<std::size_t>(l.to)].kind == VertexKind::kNode ? "n" : "s";
    if (i > 0) CHECK(ls.links()[static_cast<std::size_t>(route[i - 1])].to == l.from);  // a connected path
  }
  return out;
}

std::vector<int> net_links_levels(const LinkSet& ls, const std::vector<int>& route) {
  std::vector<int> out;
  for (int id : route)
    out.push_back(ls.links()[static_cast<std::size_t>(id)].level);
  return out;
}

}  // namespace

TEST_CASE("cluster::LinkSet: a two-level cluster has two NIC links per node and routes through the switch",
          "[network]") {
  const Topology t = Topology::two_level(4, 8, kLinksIntra, {25e9, 1e-6});
  const LinkSet ls(t);
  REQUIRE(ls.links().size() == 8);
  for (const auto& l : ls.links()) {
    CHECK(l.level == 1);
    CHECK(l.capacity == 25e9);
  }
  CHECK(ls.level_names() == std::vector<std::string>{"nic"});
  const auto r = ls.route(0, 3, 0);
  REQUIRE(r.size() == 2);
  CHECK(net_links_kinds(t, ls, r) == "nsn");
  CHECK(t.graph()[static_cast<std::size_t>(ls.links()[static_cast<std::size_t>(r[0])].from)].node == 0);
  CHECK(t.graph()[static_cast<std::size_t>(ls.links()[static_cast<std::size_t>(r[1])].to)].node == 3);
  CHECK(ls.route(2, 2, 5).empty());
  const LinkSet one(Topology::two_level(1, 8, kLinksIntra, {25e9, 1e-6}));
  CHECK(one.links().empty());
  CHECK(one.level_names().empty());
}

TEST_CASE("cluster::LinkSet: a fat tree has NIC and leaf-spine levels, routes take 2 links in a leaf, 4 across",
          "[network]") {
  // 8 nodes, 4 per leaf (2 leaves), 2 spines: 8 node-leaf + 4 leaf-spine edges = 24 directed links.
  const Topology t = Topology::fat_tree(8, 2, 4, 2, kLinksIntra, {25e9, 0.0}, {50e9, 0.0});
  const LinkSet ls(t);
  REQUIRE(ls.links().size() == 24);
  int nic = 0, up = 0;
  for (const auto& l : ls.links()) {
    if (l.level == 1) {
      ++nic;
      CHECK(l.capacity == 25e9);
    } else {
      CHECK(l.level == 2);
      CHECK(l.capacity == 50e9);
      ++up;
    }
  }
  CHECK(nic == 16);
  CHECK(up == 8);
  CHECK(ls.level_names() == std::vector<std::string>{"nic", "level2"});
  const auto same = ls.route(0, 3, 7);
  CHECK(net_links_kinds(t, ls, same) == "nsn");
  CHECK(net_links_levels(ls, same) == std::vector<int>{1, 1});
  const auto across = ls.route(1, 6, 7);
  CHECK(net_links_kinds(t, ls, across) == "nsssn");
  CHECK(net_links_levels(ls, across) == std::vector<int>{1, 2, 2, 1});
}

TEST_CASE("cluster::LinkSet: ECMP picks the same spine for the same (u, v, salt) and spreads pairs over spines",
          "[network]") {
  const Topology t = Topology::fat_tree(16, 1, 4, 4, kLinksIntra, {25e9, 0.0}, {25e9, 0.0});
  const LinkSet ls(t);
  auto spine_of = [&](int u, int v, std::uint64_t salt) {
    const auto r = ls.route(u, v, salt);
    REQUIRE(r.size() == 4);
    return ls.links()[static_cast<std::size_t>(r[1])].to;  // leaf -> spine
  };
  std::set<int> by_salt, by_pair;
  for (std::uint64_t salt = 0; salt < 64; ++salt) {
    CHECK(spine_of(0, 5, salt) == spine_of(0, 5, salt));
    CHECK(ls.route(0, 5, salt) == LinkSet(t).route(0, 5, salt));  // a fresh LinkSet agrees: no hidden state
    by_salt.insert(spine_of(0, 5, salt));
  }
  for (int u = 0; u < 4; ++u) {
    for (int v = 4; v < 16; ++v)
      by_pair.insert(spine_of(u, v, 0));
  }
  CHECK(by_salt.size() == 4);
  CHECK(by_pair.size() == 4);
}

TEST_CASE("cluster::LinkSet: three switch layers give levels nic, level2, level3", "[network]") {
  TopologySpec s;
  s.nodes = {{"n0", 2, kLinksIntra}, {"n1", 2, kLinksIntra}};
  s.switches = {"tor0", "tor1", "agg0", "agg1", "core"};
  const LinkClass l{10e9, 0.0};
  s.links = {{"n0", "tor0", l},   {"n1", "tor1", l},   {"tor0", "agg0", l},
             {"tor1", "agg1", l}, {"agg0", "core", l}, {"agg1", "core", l}};
  const Topology t(s);
  const LinkSet ls(t);
  CHECK(ls.links().size() == 12);
  CHECK(ls.level_names() == std::vector<std::string>{"nic", "level2", "level3"});
  CHECK(net_links_levels(ls, ls.route(0, 1, 0)) == std::vector<int>{1, 2, 3, 3, 2, 1});
}

TEST_CASE("cluster::LinkSet: routes never pass through another node, unreachable pairs are refused", "[network]") {
  // a - b - c by direct node cables, no switch: a reaches b (one level-1 link) but not c.
  TopologySpec s;
  s.nodes = {{"a", 1, kLinksIntra}, {"b", 1, kLinksIntra}, {"c", 1, kLinksIntra}};
  s.links = {{"a", "b", {10e9, 0.0}}, {"b", "c", {10e9, 0.0}}};
  const Topology t(s);
  const LinkSet ls(t);
  CHECK(net_links_levels(ls, ls.route(0, 1, 0)) == std::vector<int>{1});
  CHECK_THROWS_AS(ls.route(0, 2, 0), std::invalid_argument);
  CHECK_THROWS_AS(ls.route(0, 3, 0), std::invalid_argument);
  CHECK(ls.unroutable_pair() == std::pair{0, 2});
}

TEST_CASE("cluster::LinkSet: unroutable_pair finds nodes that only meet through another node", "[network]") {
  CHECK_FALSE(LinkSet(Topology::fat_tree(8, 2, 4, 2, kLinksIntra, {25e9, 0.0}, {50e9, 0.0})).unroutable_pair());
  CHECK_FALSE(LinkSet(Topology::two_level(1, 8, kLinksIntra, {25e9, 0.0})).unroutable_pair());
  // Switch A holds nodes 0 and 1, switch B nodes 0 and 2: 1 and 2 meet only through node 0.
  TopologySpec s;
  s.nodes = {{"n0", 1, kLinksIntra}, {"n1", 1, kLinksIntra}, {"n2", 1, kLinksIntra}};
  s.switches = {"A", "B"};
  const LinkClass l{10e9, 0.0};
  s.links = {{"n0", "A", l}, {"n1", "A", l}, {"n0", "B", l}, {"n2", "B", l}};
  CHECK(LinkSet(Topology(s)).unroutable_pair() == std::pair{1, 2});
  s.links.push_back({"A", "B", l});  // a switch-switch link joins them
  CHECK_FALSE(LinkSet(Topology(s)).unroutable_pair());
  s.links.pop_back();
  s.links.push_back({"n1", "n2", l});  // or a direct cable
  CHECK_FALSE(LinkSet(Topology(s)).unroutable_pair());
}
