// bench/bench_placement.cpp — one placement decision (choose GPUs + the ring's parameters) on a 4,096-GPU two-level
// fat tree (512 nodes x 8 GPUs, 16 nodes per leaf, 4 spines), about half occupied in a fragmented pattern
// (target < 100 us per decision). Also the one-off cost of building the topology tables.
#include <benchmark/benchmark.h>

#include <memory>

#include "sim/cluster/placement.h"

using namespace ringsched;

namespace {

std::shared_ptr<const Topology> fat_tree_4096() {
  static const auto t =
      std::make_shared<const Topology>(Topology::fat_tree(512, 8, 16, 4, {300e9, 1e-6}, {25e9, 2e-6}, {12.5e9, 3e-6}));
  return t;
}

// Node u keeps (u * 5) % 9 GPUs busy: 0..8, so about half the cluster is taken, most nodes partly.
ClusterState half_full() {
  ClusterState st(fat_tree_4096());
  for (int u = 0; u < 512; ++u) {
    const int busy = (u * 5) % 9;
    for (int k = 0; k < busy; ++k)
      st.assign(u * 8 + k, 1);
  }
  return st;
}

void BM_Place(benchmark::State& state, const char* policy) {
  const ClusterState st = half_full();
  const auto p = make_placement_policy(policy);
  const int count = static_cast<int>(state.range(0));
  for (auto _ : state) {
    const std::vector<int> g = p->choose(st, count);
    benchmark::DoNotOptimize(fat_tree_4096()->ring(g));
  }
}

void BM_BuildFatTree(benchmark::State& state) {
  for (auto _ : state)
    benchmark::DoNotOptimize(Topology::fat_tree(512, 8, 16, 4, {300e9, 1e-6}, {25e9, 2e-6}, {12.5e9, 3e-6}));
}

}  // namespace

BENCHMARK_CAPTURE(BM_Place, packed, "packed")
    ->Arg(4)
    ->Arg(8)
    ->Arg(12)
    ->Arg(64)
    ->Arg(512)
    ->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(BM_Place, topology, "topology")
    ->Arg(4)
    ->Arg(8)
    ->Arg(12)
    ->Arg(64)
    ->Arg(512)
    ->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(BM_Place, spread, "spread")->Arg(8)->Arg(64)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_BuildFatTree)->Unit(benchmark::kMillisecond)->Iterations(1);

BENCHMARK_MAIN();
