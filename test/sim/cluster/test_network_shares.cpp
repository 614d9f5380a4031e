// test/sim/cluster/test_network_shares.cpp — the "expected" fixed point on random, strongly coupled components
// (communication-bound jobs, up to 21 per component, priority weights): it settles or ends within a small residual,
// and every share stays positive and below the alone speed.
#include <catch2/catch.hpp>

#include <algorithm>
#include <random>
#include <vector>

#include "sim/cluster/network/shares.h"

using ringsched::net::alone_rate;
using ringsched::net::component_shares;
using ringsched::net::kMaxRounds;
using ringsched::net::ShareJob;

TEST_CASE("cluster::Shares: the expected fixed point settles on random coupled components", "[network]") {
  std::mt19937 rng(3602);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  int unsettled = 0;
  const int trials = 300;
  for (int t = 0; t < trials; ++t) {
    const int nl = 1 + static_cast<int>(rng() % 6);
    const int nj = 2 + static_cast<int>(rng() % 20);
    std::vector<double> cap(static_cast<std::size_t>(nl));
    for (auto& c : cap)
      c = 0.5 + u(rng);
    std::vector<ShareJob> jobs(static_cast<std::size_t>(nj));
    for (auto& j : jobs) {
      for (int l = 0; l < nl; ++l) {
        if (u(rng) < 0.5) j.links.push_back(l);
      }
      if (j.links.empty()) j.links.push_back(static_cast<int>(rng() % static_cast<unsigned>(nl)));
      j.flow_bytes = 0.01 + 3.0 * u(rng);
      j.alone_rate = alone_rate(cap, j.links);
      j.iteration_s = j.flow_bytes / j.alone_rate * (1.0 + 3.0 * u(rng) * u(rng));  // mostly communication
      j.weight = u(rng) < 0.3 ? 8.0 : 1.0;
    }
    const auto r = component_shares(cap, jobs, u(rng) < 0.5 ? 0.0 : 0.5, false);
    REQUIRE(r.jobs.size() == jobs.size());
    CHECK(r.rounds <= kMaxRounds);
    CHECK(r.residual < 1e-3);
    CHECK(r.settled == (r.residual <= 1e-9));
    if (!r.settled) ++unsettled;
    for (std::size_t k = 0; k < jobs.size(); ++k) {
      CHECK(r.jobs[k].slowdown >= 1.0);
      CHECK(r.jobs[k].rate <= jobs[k].alone_rate);
      CHECK(r.jobs[k].rate > 0.0);
      CHECK(r.jobs[k].mean_rate <= r.jobs[k].rate);
    }
  }
  CHECK(unsettled <= trials / 20);
}
