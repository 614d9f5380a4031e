// test/sim/cluster/test_network_state.cpp — jobs sharing links, hand-computed: a lone job keeps its speed exactly,
// two jobs on the same leaf-spine links under "always" and "expected" activity, overlap, priority by GPU
// intensity, what update() returns and recomputes, the flows of the two all-reduce forms, and link utilisation.
#include <catch2/catch.hpp>

#include <cmath>
#include <numeric>
#include <stdexcept>
#include <vector>

#include "sim/cluster/network/job_flows.h"
#include "sim/cluster/network/network_state.h"
#include "sim/cluster/network/priority.h"

using namespace ringsched;
using ringsched::net::gpu_intensity;
using ringsched::net::gpu_intensity_weights;
using ringsched::net::job_flows;
using ringsched::net::JobComm;
using ringsched::net::JobFlows;
using ringsched::net::LinkSet;
using ringsched::net::NetworkOptions;
using ringsched::net::NetworkState;

namespace {

constexpr double kNetC = 10e9;  // leaf-spine bytes/s; node-leaf is 2C, so the spine links are the bottleneck

// 2 leaves x 2 nodes x 8 GPUs under 1 spine: nodes 0, 1 under leaf 0, nodes 2, 3 under leaf 1.
Topology net_state_tree(int nodes = 4) {
  return Topology::fat_tree(nodes, 8, 2, 1, {300e9, 0.0}, {2 * kNetC, 0.0}, {kNetC, 0.0});
}

// A job on all 8 GPUs of each given node; gradient C bytes (one second alone over a spine link when N = 2).
JobComm net_state_job(std::vector<int> nodes, double iteration_s, double gradient = kNetC) {
  JobComm j;
  for (int n : nodes) {
    for (int k = 0; k < 8; ++k)
      j.gpus.push_back(n * 8 + k);
  }
  j.gradient_bytes = gradient;
  j.iteration_s = iteration_s;
  return j;
}

NetworkOptions net_state_opts(const std::string& activity, double overlap = 0.0) {
  NetworkOptions o;
  o.contention = true;
  o.activity = activity;
  o.overlap = overlap;
  return o;
}

}  // namespace

TEST_CASE("cluster::NetworkState: a lone job keeps slowdown exactly 1", "[network]") {
  for (const char* activity : {"always", "expected"}) {
    NetworkState st(net_state_tree(), net_state_opts(activity));
    st.set_job(1, net_state_job({0, 2}, 4.0));
    st.set_job(2, net_state_job({1}, 3.0));  // one node: no inter-node flow at all
    CHECK(st.update().empty());
    CHECK(st.slowdown(1) == 1.0);
    CHECK(st.slowdown(2) == 1.0);
    CHECK_FALSE(st.on_shared_link(1));
    CHECK(st.slowdown(99) == 1.0);
  }
}

TEST_CASE("cluster::NetworkState: two jobs always on share the spine links equally", "[network]") {
  // A on nodes 0, 2 (T = 4 s), B on nodes 1, 3 (T = 2 s): both rings cross leaf0 -> spine -> leaf1 and back. Each hop
  // carries 2 (2 - 1) / 2 x C = C bytes: 1 s alone at C; shared at C / 2: 2 s, extra 1 s. A: (4 + 1) / 4 = 1.25;
  // B: (2 + 1) / 2 = 1.5. With overlap 0.5 half the extra hides: A 1.125, B 1.25.
  NetworkState st(net_state_tree(), net_state_opts("always"));
  st.set_job(10, net_state_job({0, 2}, 4.0));
  CHECK(st.update().empty());
  st.set_job(20, net_state_job({1, 3}, 2.0));
  CHECK(st.update() == std::vector<int>{10, 20});
  CHECK(st.slowdown(10) == Approx(1.25));
  CHECK(st.slowdown(20) == Approx(1.5));
  CHECK(st.on_shared_link(10));
  CHECK(st.on_shared_link(20));
  CHECK(st.comm_alone_s(10) == Approx(1.0));
  CHECK(st.comm_shared_s(10) == Approx(2.0));
  CHECK(st.comm_alone_s(99) == 0.0);
  NetworkState half(net_state_tree(), net_state_opts("always", 0.5));
  half.set_job(10, net_state_job({0, 2}, 4.0));
  half.set_job(20, net_state_job({1, 3}, 2.0));
  CHECK(half.update() == std::vector<int>{10, 20});
  CHECK(half.slowdown(10) == Approx(1.125));
  CHECK(half.slowdown(20) == Approx(1.25));
}

TEST_CASE("cluster::NetworkState: expected activity counts a competitor by its mean throughput", "[network]") {
  // As above, in units of C and seconds: A computes 3 s, B 1 s, each hop 1 unit of bytes. A's rate while it
  // communicates: r_A = 1 - m_B with m_B = 1 / (1 + 1 / r_B) B's mean (its bytes over its shared iteration), so
  // r_A = 1 / (1 + r_B); likewise r_B = 1 - r_A / (3 r_A + 1). Then 5 r_A^2 - r_A - 1 = 0: r_A = (1 + sqrt 21) / 10
  // = 0.558, r_B = 1 / r_A - 1 = 0.791 (both above the fair 1/2). Slowdowns (3 + 1 / r_A) / 4 and (1 + 1 / r_B) / 2.
  NetworkState st(net_state_tree(), net_state_opts("expected"));
  st.set_job(10, net_state_job({0, 2}, 4.0));
  st.set_job(20, net_state_job({1, 3}, 2.0));
  CHECK(st.update() == std::vector<int>{10, 20});
  const double ra = (1.0 + std::sqrt(21.0)) / 10.0;
  const double rb = 1.0 / ra - 1.0;
  CHECK(st.slowdown(10) == Approx((3.0 + 1.0 / ra) / 4.0).epsilon(1e-7));
  CHECK(st.slowdown(20) == Approx((1.0 + 1.0 / rb) / 2.0).epsilon(1e-7));
  CHECK(st.last_rounds() > 1);
  CHECK(st.last_rounds() < 50);
  // Less than "always" (1.25, 1.5): the competitor is not always there.
  CHECK(st.slowdown(10) < 1.25);
  CHECK(st.slowdown(20) < 1.5);
}

TEST_CASE("cluster::NetworkState: removing a competitor restores slowdown 1", "[network]") {
  NetworkState st(net_state_tree(), net_state_opts("expected"));
  st.set_job(10, net_state_job({0, 2}, 4.0));
  st.set_job(20, net_state_job({1, 3}, 2.0));
  st.update();
  REQUIRE(st.slowdown(10) > 1.0);
  st.remove_job(20);
  st.remove_job(77);  // unknown: ignored
  CHECK(st.update() == std::vector<int>{10});
  CHECK(st.slowdown(10) == 1.0);
  CHECK_FALSE(st.on_shared_link(10));
  CHECK(st.slowdown(20) == 1.0);
}

TEST_CASE("cluster::NetworkState: update() recomputes only the components touched", "[network]") {
  // 8 nodes, 4 leaves of 2, one spine. A (0, 2) and B (1, 3) share spine links; C (4, 5) and D (6, 7) stay inside
  // leaves 2 and 3 and share nothing with anyone.
  NetworkState st(net_state_tree(8), net_state_opts("always"));
  st.set_job(1, net_state_job({0, 2}, 4.0));
  st.set_job(2, net_state_job({1, 3}, 2.0));
  st.update();
  CHECK(st.recomputed() == 2);
  st.set_job(3, net_state_job({4, 5}, 2.0));
  CHECK(st.update().empty());
  CHECK(st.recomputed() == 3);  // only C
  st.set_job(4, net_state_job({6, 7}, 2.0));
  st.update();
  CHECK(st.recomputed() == 4);  // only D
  st.remove_job(3);
  CHECK(st.update().empty());
  CHECK(st.recomputed() == 4);                // C left nobody behind on its links
  st.set_job(4, net_state_job({6, 7}, 3.0));  // D resized in place: still alone
  CHECK(st.update().empty());
  CHECK(st.recomputed() == 5);
  const double a = st.slowdown(1);
  st.set_job(2, net_state_job({1, 3}, 2.0));  // B set again unchanged: A, B recomputed, nothing changed
  CHECK(st.update().empty());
  CHECK(st.recomputed() == 7);
  CHECK(st.slowdown(1) == a);
  CHECK(st.update().empty());  // nothing touched: nothing recomputed
  CHECK(st.recomputed() == 7);
}

TEST_CASE("cluster::NetworkState: jobs sharing a node's NIC links contend there", "[network]") {
  // Two-level cluster, NIC C: A on nodes 0, 1 and B on nodes 1, 2 (other GPUs of node 1). Node 1's NIC links carry
  // a hop of each: always on, each gets C / 2 there.
  const Topology t = Topology::two_level(3, 8, {300e9, 0.0}, {kNetC, 0.0});
  NetworkState st(t, net_state_opts("always"));
  JobComm a = net_state_job({0}, 4.0);
  JobComm b = net_state_job({2}, 2.0);
  for (int k = 0; k < 4; ++k) {
    a.gpus.push_back(8 + k);
    b.gpus.push_back(12 + k);
  }
  st.set_job(1, a);
  st.set_job(2, b);
  CHECK(st.update() == std::vector<int>{1, 2});
  CHECK(st.slowdown(1) == Approx(1.25));
  CHECK(st.slowdown(2) == Approx(1.5));
}

TEST_CASE("cluster::NetworkState: GPU-intensity priority gives the intense job most of a shared link", "[network]") {
  // As "always on" above: A's intensity 16 GPUs x 3 s / 2C bytes beats B's 16 x 1 s / 2C: A gets weight 8, B 1.
  // A's rate 8C/9: extra 9/8 - 1 = 1/8 s, slowdown (4 + 1/8) / 4; B's rate C/9: extra 8 s, slowdown (2 + 8) / 2.
  NetworkOptions o = net_state_opts("always");
  o.priority = "gpu_intensity";
  NetworkState st(net_state_tree(), o);
  st.set_job(10, net_state_job({0, 2}, 4.0));
  st.set_job(20, net_state_job({1, 3}, 2.0));
  st.update();
  CHECK(st.slowdown(10) == Approx(4.125 / 4.0));
  CHECK(st.slowdown(20) == Approx(5.0));
  // Expected activity: A still gets 8/9 while both communicate (B's mean is above C/9), so A's mean is
  // 1 / (3 + 9/8) = 8/33 and B, when it communicates, gets the rest: 25/33 of C. B: (1 + 33/25) / 2 = 1.16.
  o.activity = "expected";
  NetworkState ex(net_state_tree(), o);
  ex.set_job(10, net_state_job({0, 2}, 4.0));
  ex.set_job(20, net_state_job({1, 3}, 2.0));
  ex.update();
  CHECK(ex.slowdown(10) == Approx(4.125 / 4.0).epsilon(1e-7));
  CHECK(ex.slowdown(20) == Approx(1.16).epsilon(1e-7));
}

TEST_CASE("cluster::Priority: intensities rank into at most 8 levels of weight 8^level", "[network]") {
  CHECK(gpu_intensity(16, 4.0, 1.0, 2e10) == Approx(16 * 3.0 / 2e10));
  CHECK(gpu_intensity(16, 1.0, 2.0, 2e10) == 0.0);  // communication longer than the iteration: no compute
  CHECK(std::isinf(gpu_intensity(8, 1.0, 0.0, 0.0)));
  CHECK(gpu_intensity_weights(std::vector<double>{5, 1, 5, 3}) == std::vector<double>{64, 1, 64, 8});
  CHECK(gpu_intensity_weights(std::vector<double>{2.5}) == std::vector<double>{1});
  std::vector<double> ten(10);
  std::iota(ten.begin(), ten.end(), 0.0);
  // Ranks 0..9 into 8 levels: floor(rank x 8 / 10) = 0 0 1 2 3 4 4 5 6 7.
  CHECK(gpu_intensity_weights(ten) == std::vector<double>{1, 1, 8, 64, 512, 4096, 4096, 32768, 262144, 2097152});
}

TEST_CASE("cluster::JobFlows: hierarchical and flat rings make one flow per node hop", "[network]") {
  const Topology t = net_state_tree();
  const LinkSet ls(t);
  std::vector<int> gpu_node;
  for (int g = 0; g < t.gpus(); ++g)
    gpu_node.push_back(t.node_of(g));
  // 3 nodes (0, 1, 2), 4 GPUs each: hops 0 -> 1 (in leaf 0: 2 links), 1 -> 2 and 2 -> 0 (across: 4 links each).
  JobComm j;
  for (int n : {0, 1, 2}) {
    for (int k = 0; k < 4; ++k)
      j.gpus.push_back(n * 8 + k);
  }
  j.gradient_bytes = 3e9;
  j.iteration_s = 1.0;
  const JobFlows h = job_flows(ls, gpu_node, j, false, 5);
  CHECK(h.nodes == 3);
  REQUIRE(h.flows.size() == 3);
  CHECK(h.flows[0].size() == 2);
  CHECK(h.flows[1].size() == 4);
  CHECK(h.flows[2].size() == 4);
  CHECK(h.flow_bytes == Approx(2.0 * 2.0 / 3.0 * 3e9));
  const JobFlows r = job_flows(ls, gpu_node, j, true, 5);
  CHECK(r.flow_bytes == Approx(2.0 * 11.0 / 12.0 * 3e9));
  CHECK(r.links == h.links);
  j.gpus = {0, 1, 2};
  CHECK(job_flows(ls, gpu_node, j, false, 5).flows.empty());
  j.gpus = {0, 99};
  CHECK_THROWS_AS(job_flows(ls, gpu_node, j, false, 5), std::invalid_argument);
  j.gpus = {0, 8};
  j.iteration_s = 0.0;
  CHECK_THROWS_AS(job_flows(ls, gpu_node, j, false, 5), std::invalid_argument);
}

TEST_CASE("cluster::NetworkState: a bad job is refused and leaves the state unchanged", "[network]") {
  NetworkState st(net_state_tree(), net_state_opts("always"));
  st.set_job(1, net_state_job({0, 2}, 4.0));
  st.set_job(2, net_state_job({1, 3}, 2.0));
  st.update();
  const double before = st.slowdown(1);
  CHECK_THROWS_AS(st.set_job(2, net_state_job({1, 7}, 2.0)), std::invalid_argument);
  CHECK(st.update().empty());
  CHECK(st.slowdown(1) == before);
}

TEST_CASE("cluster::NetworkState: utilisation per level is bytes carried over capacity and time", "[network]") {
  // Two nodes on one switch, NIC C each way: 4 directed NIC links, 4C in all. A job on both nodes moves C bytes per
  // hop every 4 s: mean C/4 per hop, 2 hops x 2 links = 4 crossings: C carried, 1/4 of the capacity, for 10 s of
  // 20: 1/8.
  const Topology t = Topology::two_level(2, 8, {300e9, 0.0}, {kNetC, 0.0});
  NetworkState st(t, net_state_opts("always"));
  st.clock(0.0);
  st.set_job(1, net_state_job({0, 1}, 4.0));
  st.update();
  st.clock(10.0);
  st.remove_job(1);
  st.update();
  st.clock(20.0);
  const auto tot = st.totals();
  CHECK(tot.level == std::vector<std::string>{"nic"});
  REQUIRE(tot.utilisation.size() == 1);
  CHECK(tot.utilisation[0] == Approx(0.125));
}
