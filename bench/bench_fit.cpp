// bench/bench_fit.cpp — timings of the model fits: NNLS (50x4), fit_eq5 (40 points), fit_eq1 (100 points, and 30
// points on the online grid).
#include <benchmark/benchmark.h>

#include <random>
#include <vector>

#include "models/fit.h"
#include "models/nnls.h"

namespace {

using ringsched::models::Eq1Coeffs;
using ringsched::models::Eq5Coeffs;
using ringsched::models::LossPoint;
using ringsched::models::SpeedPoint;

void BM_Nnls50x4(benchmark::State& state) {
  std::mt19937_64 rng(1);
  std::normal_distribution<double> normal(0.0, 1.0);
  Eigen::MatrixXd a(50, 4);
  Eigen::VectorXd b(50);
  for (Eigen::Index i = 0; i < 50; ++i) {
    for (Eigen::Index j = 0; j < 4; ++j)
      a(i, j) = normal(rng);
    b[i] = normal(rng);
  }
  for (auto _ : state) {
    benchmark::DoNotOptimize(ringsched::models::nnls(a, b));
  }
}
BENCHMARK(BM_Nnls50x4);

void BM_FitEq5_40Points(benchmark::State& state) {
  const Eq5Coeffs truth{2e-3, 5e-3, 1e-9, 2e-2};
  const double model_size = 25e6;
  std::mt19937_64 rng(2);
  std::uniform_real_distribution<double> noise(0.95, 1.05);
  std::vector<SpeedPoint> pts;
  for (const double m : {64.0, 128.0, 256.0, 512.0}) {
    for (int w = 1; w <= 10; ++w) {
      pts.push_back(SpeedPoint{w, 1, m, ringsched::models::eq5_step_time(truth, w, m, model_size) * noise(rng)});
    }
  }
  for (auto _ : state) {
    benchmark::DoNotOptimize(ringsched::models::fit_eq5(pts, model_size));
  }
}
BENCHMARK(BM_FitEq5_40Points);

std::vector<LossPoint> eq1_points(int n) {
  const Eq1Coeffs truth{0.01, 0.5, 0.3};
  std::mt19937_64 rng(3);
  std::uniform_real_distribution<double> noise(0.99, 1.01);
  std::vector<LossPoint> pts;
  for (int i = 0; i < n; ++i) {
    const double k = 10.0 * i;
    pts.push_back(LossPoint{k, ringsched::models::eq1_loss(truth, k) * noise(rng)});
  }
  return pts;
}

void BM_FitEq1_100Points(benchmark::State& state) {
  const auto pts = eq1_points(100);
  for (auto _ : state) {
    benchmark::DoNotOptimize(ringsched::models::fit_eq1(pts));
  }
}
BENCHMARK(BM_FitEq1_100Points);

// One refit of an `online` belief: 30 losses, the coarser grid it uses (40 candidates per round).
void BM_FitEq1Online_30Points(benchmark::State& state) {
  const auto pts = eq1_points(30);
  for (auto _ : state) {
    benchmark::DoNotOptimize(ringsched::models::fit_eq1(pts, 40));
  }
}
BENCHMARK(BM_FitEq1Online_30Points);

}  // namespace

BENCHMARK_MAIN();
