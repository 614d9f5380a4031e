// test/sim/cluster/test_placement.cpp — placement policies (packed never spans more nodes than needed, checked against
// every subset of nodes; spread; topology keeps rings inside a leaf), the Placer's metrics and migrations, and the
// engine's speeds on placed rings: the 8 -> 9 GPU example on two 8-GPU nodes, packed versus spread.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <functional>
#include <memory>
#include <set>

#include <boost/random/mersenne_twister.hpp>
#include <boost/random/uniform_int_distribution.hpp>

#include "models/step_time_model.h"
#include "sim/cluster/placement.h"
#include "sim/engine/engine.h"
#include "strategies/registry.h"
#include "test/sim/scripted_strategy.h"

using namespace ringsched;

namespace {

constexpr double kGB = 1e9;
constexpr double kUs = 1e-6;

int nodes_spanned(const Topology& t, const std::vector<int>& gpus) {
  std::set<int> n;
  for (int g : gpus)
    n.insert(t.node_of(g));
  return static_cast<int>(n.size());
}

// Fewest nodes whose free GPUs hold `count`, by trying every subset.
int min_nodes_brute(const ClusterState& st, int count) {
  const int n = st.topology().nodes();
  int best = n + 1;
  for (int mask = 1; mask < (1 << n); ++mask) {
    int sum = 0;
    for (int u = 0; u < n; ++u)
      if ((mask >> u) & 1) sum += st.free_on(u);
    if (sum >= count) best = std::min(best, __builtin_popcount(static_cast<unsigned>(mask)));
  }
  return best;
}

// A ring all-reduce class: fixed global batch 1000, 0.001 s compute per sample, 1e8 gradient bytes.
std::shared_ptr<const Catalog> ring_catalog() {
  auto cat = std::make_shared<Catalog>();
  cat->name = "ring";
  JobClass c;
  c.name = "ring";
  c.batch_mode = BatchMode::kFixedGlobal;
  c.batch_size = 1000;
  c.min_gpus = 1;
  c.max_gpus = 64;
  models::AllreduceStepSpec spec;
  spec.compute_per_sample_s = 0.001;
  spec.algo = models::AllreduceAlgo::kRing;
  spec.intra_node = {1.0, 1.0, 0.0};  // ignored under a topology: alpha and beta come from the graph
  spec.gradient_bytes = 1e8;
  c.speed = std::make_shared<models::AllreduceStepTime>(spec);
  cat->classes.push_back(c);
  return cat;
}

Workload one_job(std::shared_ptr<const Catalog> cat, double work) {
  Workload w;
  w.catalog = std::move(cat);
  JobTruth j;
  j.id = 0;
  j.work_samples = work;
  j.name = "j";
  w.jobs = {j};
  return w;
}

double finish_on(int gpus, int nodes, const std::string& placement) {
  EngineConfig ec;
  ec.cluster.nodes = nodes;
  ec.cluster.gpus_per_node = 8;
  ec.cluster.topology =
      std::make_shared<const Topology>(Topology::two_level(nodes, 8, {100 * kGB, 1 * kUs}, {10 * kGB, 5 * kUs}));
  ec.cluster.placement = placement;
  test::ScriptedStrategy s([gpus](const Snapshot&) { return std::vector<int>{gpus}; });
  auto none = make_belief_source("none", "test");
  return simulate(one_job(ring_catalog(), 1e6), s, *none, ec).jobs[0].finish;
}

}  // namespace

TEST_CASE("sim::packed: never spans more nodes than needed, and fits one node best", "[placement]") {
  const auto topo = std::make_shared<const Topology>(Topology::two_level(6, 8, {kGB, 0.0}, {kGB, 0.0}));
  boost::random::mt19937 rng(7);
  auto packed = make_placement_policy("packed");
  for (int trial = 0; trial < 300; ++trial) {
    ClusterState st(topo);
    boost::random::uniform_int_distribution<int> used(0, 8);
    for (int u = 0; u < 6; ++u) {
      const int k = used(rng);
      for (int g = 0; g < k; ++g)
        st.assign(u * 8 + g, 99);
    }
    if (st.total_free() == 0) continue;
    boost::random::uniform_int_distribution<int> cnt(1, st.total_free());
    const int count = cnt(rng);
    const std::vector<int> got = packed->choose(st, count);
    REQUIRE(static_cast<int>(got.size()) == count);
    REQUIRE(std::set<int>(got.begin(), got.end()).size() == got.size());
    for (int g : got)
      REQUIRE(st.is_free(g));
    REQUIRE(nodes_spanned(*topo, got) == min_nodes_brute(st, count));
  }
  // Best fit: free 8, 3, 5 on nodes 0..2 (others full); 3 GPUs go to node 1, 4 GPUs to node 2.
  ClusterState st(topo);
  for (int g = 8; g < 13; ++g)
    st.assign(g, 1);
  for (int g = 16; g < 19; ++g)
    st.assign(g, 1);
  for (int g = 24; g < 48; ++g)
    st.assign(g, 1);
  CHECK(topo->node_of(packed->choose(st, 3)[0]) == 1);
  CHECK(topo->node_of(packed->choose(st, 4)[0]) == 2);
}

TEST_CASE("sim::spread: one GPU per node while nodes last", "[placement]") {
  const auto topo = std::make_shared<const Topology>(Topology::two_level(4, 8, {kGB, 0.0}, {kGB, 0.0}));
  ClusterState st(topo);
  CHECK(nodes_spanned(*topo, make_placement_policy("spread")->choose(st, 4)) == 4);
  CHECK(nodes_spanned(*topo, make_placement_policy("spread")->choose(st, 9)) == 4);
}

TEST_CASE("sim::topology placement: keeps a ring inside one leaf when a leaf can hold it", "[placement]") {
  // Fat tree: 4 nodes x 4 GPUs, 2 nodes per leaf. Free: node0 4, node1 1 (leaf 0 = 5), node2 3, node3 3 (leaf 1 = 6).
  const auto topo = std::make_shared<const Topology>(
      Topology::fat_tree(4, 4, 2, 1, {100 * kGB, kUs}, {25 * kGB, kUs}, {10 * kGB, kUs}));
  ClusterState st(topo);
  for (int g : {4, 5, 6, 8, 12})
    st.assign(g, 9);
  // packed: node0 (4) then the best fit for 2 among {node2: 3, node3: 3, node1: 1} = node3, across leaves.
  const auto p = make_placement_policy("packed")->choose(st, 6);
  CHECK(nodes_spanned(*topo, p) == 2);
  CHECK(topo->ring(p).bandwidth == Approx(10 * kGB));
  // topology: leaf 1 holds 6 -> nodes 2 and 3, 25 GB/s.
  const auto t = make_placement_policy("topology")->choose(st, 6);
  CHECK(nodes_spanned(*topo, t) == 2);
  CHECK(topo->ring(t).bandwidth == Approx(25 * kGB));
  for (int g : t)
    CHECK(topo->node_of(g) >= 2);
}

TEST_CASE("sim::Placer: fragmentation counts free GPUs on partly used nodes, migration moves to fewer nodes",
          "[placement]") {
  const auto topo = std::make_shared<const Topology>(Topology::two_level(2, 4, {kGB, 0.0}, {kGB, 0.0}));
  Placer p(topo, make_placement_policy("packed"), true);
  p.clock(0.0);
  p.place(1, 3);  // node 0 (tie: lower id)
  p.place(2, 3);  // node 1
  p.place(0, 2);  // one GPU left on each node
  CHECK(p.ring_of(0).nodes == 2);
  CHECK(p.state().fragmented_free() == 0);
  p.clock(10.0);
  p.release(1);  // node 0: 3 free of 4 -> fragmented
  CHECK(p.state().fragmented_free() == 3);
  CHECK(p.try_improve(0));  // job 0 fits node 0 now
  CHECK(p.ring_of(0).nodes == 1);
  CHECK_FALSE(p.try_improve(2));
  CHECK(p.totals().migrations == 1);
  p.clock(20.0);
  // 0..10: 3 jobs holding, spans 1 + 1 + 2; 10..20: jobs 0 and 2, spans 1 + 1; fragmented 0 then node0 2 + node1 1.
  CHECK(p.totals().holding_job_seconds == Approx(3 * 10 + 2 * 10));
  CHECK(p.totals().node_span_seconds == Approx(4 * 10 + 2 * 10));
  CHECK(p.totals().fragmented_gpu_seconds == Approx(3 * 10));
}

TEST_CASE("sim::engine: 8 GPUs in one node beat 9 over two nodes, 16 beat both (placed rings)", "[placement]") {
  // Hand-computed ring all-reduce steps (2(p-1) alpha + 2 (p-1)/p N beta, N = 1e8 bytes) plus 1 s / w compute:
  //   8 in node 0:  alpha 2 us,  beta 1e-11: 0.125 + 14 x 2e-6 + 1.75 x 1e-3 = 0.126778
  //   9 over 2:     alpha 12 us, beta 1e-10: 0.111111 + 16 x 12e-6 + (16/9) x 1e-2 = 0.129081
  //   16 over 2:    alpha 12 us, beta 1e-10: 0.0625 + 30 x 12e-6 + 1.875 x 1e-2 = 0.081610
  // The job runs 1e6 samples at 1000 samples per step: 1000 steps.
  const double s8 = 0.125 + 14 * 2e-6 + 2.0 * 7 / 8 * 1e8 * 1e-11;
  const double s9 = 1.0 / 9 + 16 * 12e-6 + 2.0 * 8 / 9 * 1e8 * 1e-10;
  const double s16 = 0.0625 + 30 * 12e-6 + 2.0 * 15 / 16 * 1e8 * 1e-10;
  CHECK(finish_on(8, 2, "packed") == Approx(1000 * s8));
  CHECK(finish_on(9, 2, "packed") == Approx(1000 * s9));
  CHECK(finish_on(16, 2, "packed") == Approx(1000 * s16));
  CHECK(s9 > s8);
  CHECK(s16 < s8);
  // Spread over 8 nodes: the 8-GPU ring crosses the network on every hop: 0.125 + 14 x 12e-6 + 1.75e-2.
  CHECK(finish_on(8, 8, "spread") == Approx(1000 * (0.125 + 14 * 12e-6 + 2.0 * 7 / 8 * 1e8 * 1e-10)));
  CHECK(finish_on(8, 8, "packed") == Approx(1000 * s8));
}

TEST_CASE("sim::engine: a defragmenting migration costs a restart and is counted", "[placement]") {
  // 2 nodes x 4 GPUs, perfect-scaling class (100 w samples/s). Jobs a (work 4000), b (work 600), c (work 6000) arrive
  // at 0 with 2, 3, 3 GPUs: b -> node 0, c -> node 1, a split over both. b ends at 600 / 300 = 2 s; then a moves
  // to node 0 (restart 1 s): a did 2 x 200 = 400 by t = 2, resumes at 3, ends at 3 + 3600 / 200 = 21.
  auto cat = std::make_shared<Catalog>();
  JobClass c;
  c.name = "lin";
  c.batch_mode = BatchMode::kFixedGlobal;
  c.batch_size = 100;
  c.max_gpus = 8;
  c.speed = std::make_shared<models::Eq5StepTime>(models::Eq5Coeffs{0.01, 0, 0, 0}, 1.0);
  cat->classes.push_back(c);
  Workload w;
  w.catalog = cat;
  const double work[3] = {4000, 600, 6000};
  for (int i = 0; i < 3; ++i) {
    JobTruth j;
    j.id = i;
    j.work_samples = work[i];
    j.name = std::string(1, static_cast<char>('a' + i));
    w.jobs.push_back(j);
  }
  test::ScriptedStrategy keep([](const Snapshot& s) {
    std::vector<int> g;
    for (const auto& j : s.jobs)
      g.push_back(j.pub->id == 0 ? 2 : 3);
    return g;
  });
  EngineConfig ec;
  ec.cluster.nodes = 2;
  ec.cluster.gpus_per_node = 4;
  ec.cluster.placement = "packed";
  ec.cluster.defragment = true;
  ec.restart.cost_s = 1.0;
  auto none = make_belief_source("none", "test");
  const RunResult r = simulate(w, keep, *none, ec);
  CHECK(r.migrations == 1);
  CHECK(r.jobs[0].restarts == 1);
  CHECK(r.jobs[0].finish == Approx(21.0));
  CHECK(r.jobs[1].finish == Approx(2.0));
  CHECK(r.jobs[2].finish == Approx(20.0));
  const bool logged = std::any_of(r.events.begin(), r.events.end(), [](const AllocationEvent& e) {
    return e.kind == AllocKind::kMigrate && e.job == 0 && e.from == 2 && e.to == 2 && std::abs(e.time - 2.0) < 1e-9;
  });
  CHECK(logged);
  ec.cluster.defragment = false;
  CHECK(simulate(w, keep, *none, ec).migrations == 0);
}
