// bench/bench_network.cpp — link contention bookkeeping under churn (issue 36's speed target: 5,000 jobs on >= 2,000
// GPUs in < 60 s CPU) on a 256-node x 8-GPU two-level fat tree (2,048 GPUs; 16 nodes per leaf, 16 leaves, 8 spines,
// 25 GB/s NICs, 25 GB/s leaf-spine links: 2:1 oversubscribed), and on 1,024 nodes (64 leaves) for the growth. Jobs of
// 1-64 GPUs (small ones most often; a job of more than 8 GPUs takes whole nodes anywhere, so its ring crosses spines)
// start and stop; every event is one set_job or remove_job and one update(). BM_Churn: one stop + one start at a steady
// number of running jobs. BM_FiveThousandJobs: 5,000 jobs through a cluster holding up to `running` of them at once
// (10,000 updates). Cost: each update re-solves the touched components only (counter recomputed: jobs re-solved);
// "always" is one max-min per component, "expected" one small max-min per job of the component per fixed-point round.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <deque>
#include <iterator>
#include <map>
#include <memory>
#include <random>
#include <vector>

#include "sim/cluster/network/network_state.h"

using namespace ringsched;
using ringsched::net::JobComm;
using ringsched::net::NetworkOptions;
using ringsched::net::NetworkState;

namespace {

constexpr int kGpusPerNode = 8;

const Topology& bench_tree(int nodes) {
  static std::map<int, Topology> trees;
  auto it = trees.find(nodes);
  if (it == trees.end()) {
    it = trees.emplace(nodes, Topology::fat_tree(nodes, kGpusPerNode, 16, 8, {300e9, 1e-6}, {25e9, 2e-6}, {25e9, 3e-6}))
             .first;
  }
  return it->second;
}

// The running jobs and the free GPUs of every node.
class Churn {
 public:
  Churn(const char* activity, unsigned seed, int nodes = 256)
      : rng_(seed), nodes_(nodes), free_(static_cast<std::size_t>(nodes), kGpusPerNode) {
    NetworkOptions o;
    o.contention = true;
    o.activity = activity;
    state_ = std::make_unique<NetworkState>(bench_tree(nodes), o);
  }

  // Start one job if it fits (true when it did).
  bool start() {
    static const int sizes[] = {1, 1, 2, 4, 4, 8, 8, 16, 32, 64};
    const int size = sizes[rng_() % std::size(sizes)];
    std::vector<int> gpus = size <= kGpusPerNode ? part_of_node(size) : whole_nodes(size / kGpusPerNode);
    if (gpus.empty()) return false;
    std::uniform_real_distribution<double> u(0.0, 1.0);
    JobComm j{gpus, 1e8 + 2e9 * u(rng_), 0.2 + 2.0 * u(rng_)};  // 25M-500M fp32 parameters; 0.2-2.2 s
    const int id = next_id_++;
    state_->set_job(id, j);
    state_->update();
    note_rounds();
    running_.push_back({id, std::move(gpus)});
    return true;
  }

  // Stop the oldest or a random running job.
  void stop() {
    const std::size_t k = rng_() % 2 == 0 ? 0 : rng_() % running_.size();
    for (int g : running_[k].second)
      ++free_[static_cast<std::size_t>(g / kGpusPerNode)];
    state_->remove_job(running_[k].first);
    state_->update();
    note_rounds();
    running_.erase(running_.begin() + static_cast<std::ptrdiff_t>(k));
  }

  [[nodiscard]] std::size_t running() const { return running_.size(); }
  // The most fixed-point rounds any update needed, and how many updates stopped at kMaxRounds unsettled.
  [[nodiscard]] int max_rounds() const { return max_rounds_; }
  [[nodiscard]] int unsettled() const { return static_cast<int>(state_->unsettled()); }
  [[nodiscard]] const NetworkState& state() const { return *state_; }

 private:
  void note_rounds() { max_rounds_ = std::max(max_rounds_, state_->last_rounds()); }

  std::vector<int> part_of_node(int size) {
    for (int tries = 0; tries < 64; ++tries) {
      const int n = static_cast<int>(rng_() % static_cast<unsigned>(nodes_));
      int& f = free_[static_cast<std::size_t>(n)];
      if (f < size) continue;
      std::vector<int> g;
      for (int k = 0; k < size; ++k)
        g.push_back(n * kGpusPerNode + (kGpusPerNode - f) + k);  // the state reads only nodes and counts
      f -= size;
      return g;
    }
    return {};
  }

  std::vector<int> whole_nodes(int count) {
    std::vector<int> empty;
    for (int n = 0; n < nodes_; ++n) {
      if (free_[static_cast<std::size_t>(n)] == kGpusPerNode) empty.push_back(n);
    }
    if (static_cast<int>(empty.size()) < count) return {};
    std::shuffle(empty.begin(), empty.end(), rng_);
    std::vector<int> g;
    for (int i = 0; i < count; ++i) {
      const int n = empty[static_cast<std::size_t>(i)];
      free_[static_cast<std::size_t>(n)] = 0;
      for (int k = 0; k < kGpusPerNode; ++k)
        g.push_back(n * kGpusPerNode + k);
    }
    return g;
  }

  std::mt19937_64 rng_;
  int nodes_;
  std::vector<int> free_;
  std::unique_ptr<NetworkState> state_;
  std::deque<std::pair<int, std::vector<int>>> running_;
  int next_id_ = 0;
  int max_rounds_ = 0;
};

void BM_Churn(benchmark::State& state, const char* activity) {
  Churn c(activity, 1);
  const auto target = static_cast<std::size_t>(state.range(0));
  for (int tries = 0; c.running() < target && tries < 100000; ++tries)
    (void)c.start();
  const std::uint64_t before = c.state().recomputed();
  for (auto _ : state) {
    c.stop();
    while (!c.start()) {
    }
  }
  state.counters["running"] = static_cast<double>(c.running());
  // Jobs re-solved per stop + start (the touched components' sizes: the cost's driver).
  state.counters["recomputed_per_step"] =
      benchmark::Counter(static_cast<double>(c.state().recomputed() - before), benchmark::Counter::kAvgIterations);
}

void BM_FiveThousandJobs(benchmark::State& state, const char* activity) {
  const auto nodes = static_cast<int>(state.range(0));
  const auto cap = static_cast<std::size_t>(state.range(1));
  std::uint64_t recomputed = 0;
  int max_rounds = 0;
  int unsettled = 0;
  for (auto _ : state) {
    Churn c(activity, 2, nodes);
    int started = 0;
    while (started < 5000) {
      if (c.running() >= cap || !c.start()) {
        c.stop();
      } else {
        ++started;
      }
    }
    while (c.running() > 0)
      c.stop();
    recomputed = c.state().recomputed();
    max_rounds = c.max_rounds();
    unsettled = c.unsettled();
  }
  state.counters["recomputed"] = static_cast<double>(recomputed);
  state.counters["max_rounds"] = max_rounds;
  state.counters["unsettled"] = unsettled;
}

}  // namespace

BENCHMARK_CAPTURE(BM_Churn, expected, "expected")->Arg(50)->Arg(150)->Arg(300)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_Churn, always, "always")->Arg(50)->Arg(150)->Arg(300)->Unit(benchmark::kMillisecond);
// {nodes, running}: the 2,048-GPU cluster at three loads, and 4x the cluster at 4x the load (cost growth).
BENCHMARK_CAPTURE(BM_FiveThousandJobs, expected, "expected")
    ->Args({256, 50})
    ->Args({256, 150})
    ->Args({256, 300})
    ->Args({1024, 600})
    ->Iterations(1)
    ->Unit(benchmark::kSecond);
BENCHMARK_CAPTURE(BM_FiveThousandJobs, always, "always")
    ->Args({256, 150})
    ->Args({1024, 600})
    ->Iterations(1)
    ->Unit(benchmark::kSecond);

BENCHMARK_MAIN();
