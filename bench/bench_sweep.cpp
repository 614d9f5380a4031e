// bench/bench_sweep.cpp — whole-sweep throughput: the 1,000-cell Table 3 sweep (bench/sweep-table3-1000.json,
// 16 runs of 100 jobs per cell) on 1 and 2 threads, output files included; counters cells/s and runs/s.
// Rank scaling (mpirun) is measured by bench/sweep_scaling.sh.
#include <benchmark/benchmark.h>

#include <filesystem>
#include <string>

#include "sim/sweeps/sweep.h"

namespace {

void BM_SweepTable3_1000Cells(benchmark::State& state) {
  const ringsched::SweepSpec spec =
      ringsched::load_sweep(std::string(RINGSCHED_SOURCE_DIR) + "/bench/sweep-table3-1000.json");
  const auto dir = std::filesystem::temp_directory_path() / "ringsched-bench-sweep";
  auto comm = ringsched::make_local_comm();
  std::size_t runs = 0;
  for (auto _ : state) {
    ringsched::SweepOptions o;
    o.out_dir = dir.string();
    o.threads = static_cast<int>(state.range(0));
    o.force = true;
    o.quiet = true;
    const auto outcome = ringsched::run_sweep(spec, o, *comm);
    runs += outcome.runs;
  }
  std::filesystem::remove_all(dir);
  state.counters["cells/s"] = benchmark::Counter(
      static_cast<double>(spec.size()) * static_cast<double>(state.iterations()), benchmark::Counter::kIsRate);
  state.counters["runs/s"] = benchmark::Counter(static_cast<double>(runs), benchmark::Counter::kIsRate);
}
BENCHMARK(BM_SweepTable3_1000Cells)
    ->ArgName("threads")
    ->Arg(1)
    ->Arg(2)
    ->Iterations(1)
    ->UseRealTime()
    ->Unit(benchmark::kSecond);

}  // namespace

BENCHMARK_MAIN();
