// test/sim/cluster/test_network_max_min.cpp — weighted max-min fair rates: hand-computed small graphs (weights, caps,
// the parking lot, several bottlenecks, a link crossed twice) and the defining invariants on random instances.
#include <catch2/catch.hpp>

#include <algorithm>
#include <limits>
#include <random>
#include <stdexcept>
#include <vector>

#include "sim/cluster/network/max_min.h"

using ringsched::net::FlowSpec;
using ringsched::net::weighted_max_min;

TEST_CASE("cluster::MaxMin: two flows on one link split it by weight", "[network]") {
  const std::vector<double> cap = {10.0};
  const std::vector<FlowSpec> flows = {{{0}, 1.0}, {{0}, 3.0}};
  const auto r = weighted_max_min(cap, flows);
  CHECK(r[0] == Approx(2.5));
  CHECK(r[1] == Approx(7.5));
}

TEST_CASE("cluster::MaxMin: the parking lot gives the long flow its weighted share of every link", "[network]") {
  // Three links of capacity 1 in a row; f0 crosses all three, f1..f3 one each. Unweighted: every flow 1/2. With f0
  // of weight 2, every link fills at level 1/3: f0 = 2/3, the others 1/3.
  const std::vector<double> cap = {1.0, 1.0, 1.0};
  std::vector<FlowSpec> flows = {{{0, 1, 2}, 1.0}, {{0}, 1.0}, {{1}, 1.0}, {{2}, 1.0}};
  for (double r : weighted_max_min(cap, flows))
    CHECK(r == Approx(0.5));
  flows[0].weight = 2.0;
  const auto r = weighted_max_min(cap, flows);
  CHECK(r[0] == Approx(2.0 / 3.0));
  CHECK(r[1] == Approx(1.0 / 3.0));
  CHECK(r[2] == Approx(1.0 / 3.0));
  CHECK(r[3] == Approx(1.0 / 3.0));
}

TEST_CASE("cluster::MaxMin: a capped flow leaves the rest to the others", "[network]") {
  // Link 0 (10) carries A (cap 2), B and C; link 1 (3) carries C too. A stops at 2; C saturates link 1 at 3 (level
  // 3 < 4); B takes the rest of link 0: 10 - 2 - 3 = 5.
  const std::vector<double> cap = {10.0, 3.0};
  const std::vector<FlowSpec> flows = {{{0}, 1.0, 2.0}, {{0}, 1.0}, {{0, 1}, 1.0}};
  const auto r = weighted_max_min(cap, flows);
  CHECK(r[0] == Approx(2.0));
  CHECK(r[1] == Approx(5.0));
  CHECK(r[2] == Approx(3.0));
}

TEST_CASE("cluster::MaxMin: bottlenecks fill in order of their levels", "[network]") {
  // L0 = 10, L1 = 4, L2 = 6; A {L0, L1}, B {L1}, C {L0, L2}, D {L2}. L1 saturates first at level 2 (A = B = 2); then
  // L0 would reach level 8 (one flow, 8 left) but L2 saturates at 3 (C = D = 3). L0 carries 5 < 10.
  const std::vector<double> cap = {10.0, 4.0, 6.0};
  std::vector<FlowSpec> flows = {{{0, 1}, 1.0}, {{1}, 1.0}, {{0, 2}, 1.0}, {{2}, 1.0}};
  auto r = weighted_max_min(cap, flows);
  CHECK(r[0] == Approx(2.0));
  CHECK(r[1] == Approx(2.0));
  CHECK(r[2] == Approx(3.0));
  CHECK(r[3] == Approx(3.0));
  // D of weight 2: L2 fills at level 6 / 3 = 2 together with L1: A = B = C = 2, D = 4.
  flows[3].weight = 2.0;
  r = weighted_max_min(cap, flows);
  CHECK(r[0] == Approx(2.0));
  CHECK(r[1] == Approx(2.0));
  CHECK(r[2] == Approx(2.0));
  CHECK(r[3] == Approx(4.0));
}

TEST_CASE("cluster::MaxMin: a link listed twice carries the flow twice", "[network]") {
  // Link 0 (9): A crosses it with two hops, B with one: weights 2 + 1, level 3: A = 3 (using 6), B = 3.
  const std::vector<double> cap = {9.0, 100.0};
  const std::vector<FlowSpec> flows = {{{0, 1, 0}, 1.0}, {{0}, 1.0}};
  const auto r = weighted_max_min(cap, flows);
  CHECK(r[0] == Approx(3.0));
  CHECK(r[1] == Approx(3.0));
}

TEST_CASE("cluster::MaxMin: a flow without links gets its cap, even infinity", "[network]") {
  const std::vector<double> cap = {1.0};
  const std::vector<FlowSpec> flows = {{{}, 1.0, 7.0}, {{}, 1.0}, {{0}, 1.0}};
  const auto r = weighted_max_min(cap, flows);
  CHECK(r[0] == 7.0);
  CHECK(r[1] == std::numeric_limits<double>::infinity());
  CHECK(r[2] == Approx(1.0));
  CHECK(weighted_max_min(cap, std::vector<FlowSpec>{}).empty());
}

TEST_CASE("cluster::MaxMin: bad weights, caps, capacities and link indices are refused", "[network]") {
  const std::vector<double> cap = {1.0};
  CHECK_THROWS_AS(weighted_max_min(cap, std::vector<FlowSpec>{{{0}, 0.0}}), std::invalid_argument);
  CHECK_THROWS_AS(weighted_max_min(cap, std::vector<FlowSpec>{{{0}, 1.0, -1.0}}), std::invalid_argument);
  CHECK_THROWS_AS(weighted_max_min(cap, std::vector<FlowSpec>{{{1}, 1.0}}), std::invalid_argument);
  CHECK_THROWS_AS(weighted_max_min(std::vector<double>{-1.0}, std::vector<FlowSpec>{{{0}, 1.0}}),
                  std::invalid_argument);
}

TEST_CASE("cluster::MaxMin: random instances respect capacities and bottleneck every flow", "[network]") {
  std::mt19937 rng(36);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  for (int trial = 0; trial < 200; ++trial) {
    const int nl = 1 + static_cast<int>(rng() % 6);
    const int nf = 1 + static_cast<int>(rng() % 8);
    std::vector<double> cap;
    for (int l = 0; l < nl; ++l)
      cap.push_back(1.0 + 9.0 * unit(rng));
    std::vector<FlowSpec> flows(static_cast<std::size_t>(nf));
    for (auto& f : flows) {
      for (int l = 0; l < nl; ++l) {
        if (unit(rng) < 0.5) f.links.push_back(l);
      }
      if (f.links.empty()) f.links.push_back(static_cast<int>(rng() % static_cast<unsigned>(nl)));
      f.weight = 0.5 + 3.0 * unit(rng);
      if (unit(rng) < 0.3) f.cap = 3.0 * unit(rng);
    }
    const auto r = weighted_max_min(cap, flows);
    std::vector<double> load(static_cast<std::size_t>(nl), 0.0);
    std::vector<double> top(static_cast<std::size_t>(nl), 0.0);  // the largest rate / weight on each link
    for (std::size_t f = 0; f < flows.size(); ++f) {
      CHECK(r[f] >= 0.0);
      CHECK(r[f] <= flows[f].cap * (1 + 1e-9));
      for (int l : flows[f].links) {
        load[static_cast<std::size_t>(l)] += r[f];
        top[static_cast<std::size_t>(l)] = std::max(top[static_cast<std::size_t>(l)], r[f] / flows[f].weight);
      }
    }
    for (int l = 0; l < nl; ++l)
      CHECK(load[static_cast<std::size_t>(l)] <= cap[static_cast<std::size_t>(l)] * (1 + 1e-9));
    for (std::size_t f = 0; f < flows.size(); ++f) {
      bool bottlenecked = r[f] >= flows[f].cap * (1 - 1e-9);
      for (int l : flows[f].links) {
        const auto li = static_cast<std::size_t>(l);
        bottlenecked =
            bottlenecked || (load[li] >= cap[li] * (1 - 1e-9) && r[f] / flows[f].weight >= top[li] * (1 - 1e-9));
      }
      CHECK(bottlenecked);
    }
  }
}
