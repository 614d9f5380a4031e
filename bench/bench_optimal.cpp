// bench/bench_optimal.cpp — cost of one `optimal` decision (exact DP) against doubling and unit greedy, at 64 GPUs
// x 50 jobs (target < 5 ms) and 1,024 GPUs x 500 jobs. Jobs have Eq. 5-like believed speeds, max = all GPUs.
#include <benchmark/benchmark.h>

#include <memory>
#include <numeric>
#include <vector>

#include "strategies/common/allocation.h"
#include "strategies/optimal_allocation.h"

using namespace ringsched;

namespace {

class Eq5Belief final : public Belief {
 public:
  Eq5Belief(double t0, double t1, double t2, double work) : t0_(t0), t1_(t1), t2_(t2), work_(work) {}
  [[nodiscard]] double throughput(int w, int) const override {
    const double step = t0_ * 128.0 + t1_ * (w - 1) + t2_ * (w - 1) / w + 0.01;
    return 128.0 * w / step;
  }
  [[nodiscard]] double total_work() const override { return work_; }
  [[nodiscard]] std::string source() const override { return "bench"; }

 private:
  double t0_, t1_, t2_, work_;
};

struct Instance {
  std::vector<JobPublic> pubs;
  std::vector<std::unique_ptr<Belief>> beliefs;
  std::vector<JobView> views;
  Snapshot snap;
  std::vector<int> candidates;
  Instance(int jobs, int gpus) {
    pubs.resize(static_cast<std::size_t>(jobs));
    for (int j = 0; j < jobs; ++j) {
      auto& p = pubs[static_cast<std::size_t>(j)];
      p.id = j;
      p.cls.min_gpus = 1;
      p.cls.max_gpus = gpus;
      const double k = 1.0 + 0.1 * (j % 7);
      beliefs.push_back(std::make_unique<Eq5Belief>(0.0026 * k, 0.002 * k, 0.15 / k, 1e6 * (1 + j % 11)));
    }
    for (int j = 0; j < jobs; ++j) {
      JobView v;
      v.pub = &pubs[static_cast<std::size_t>(j)];
      v.belief = beliefs[static_cast<std::size_t>(j)].get();
      views.push_back(v);
    }
    snap.total_gpus = gpus;
    snap.gpus_per_node = 8;
    snap.jobs = views;
    candidates.resize(static_cast<std::size_t>(jobs));
    std::iota(candidates.begin(), candidates.end(), 0);
  }
};

void BM_Optimal(benchmark::State& st) {
  Instance in(static_cast<int>(st.range(0)), static_cast<int>(st.range(1)));
  for (auto _ : st)
    benchmark::DoNotOptimize(optimal_allocation(in.snap, in.candidates, in.snap.total_gpus));
}
void BM_Doubling(benchmark::State& st) {
  Instance in(static_cast<int>(st.range(0)), static_cast<int>(st.range(1)));
  for (auto _ : st)
    benchmark::DoNotOptimize(doubling_allocation(in.snap, in.candidates, in.snap.total_gpus));
}
void BM_UnitGreedy(benchmark::State& st) {
  Instance in(static_cast<int>(st.range(0)), static_cast<int>(st.range(1)));
  for (auto _ : st)
    benchmark::DoNotOptimize(unit_greedy_allocation(in.snap, in.candidates, in.snap.total_gpus));
}

}  // namespace

BENCHMARK(BM_Optimal)->Args({50, 64})->Args({500, 1024})->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_Doubling)->Args({50, 64})->Args({500, 1024})->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_UnitGreedy)->Args({50, 64})->Args({500, 1024})->Unit(benchmark::kMicrosecond);

BENCHMARK_MAIN();
