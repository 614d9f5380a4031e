// test/models/test_fit.cpp — Eq. 5 and Eq. 1 fits: exact recovery, noise, cross-validation, input checks.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "models/fit.h"

using ringsched::models::cross_validate_eq5;
using ringsched::models::eq1_loss;
using ringsched::models::Eq1Coeffs;
using ringsched::models::Eq1Fit;
using ringsched::models::eq5_mape;
using ringsched::models::eq5_speed;
using ringsched::models::eq5_step_time;
using ringsched::models::Eq5Coeffs;
using ringsched::models::Eq5Fit;
using ringsched::models::fit_eq1;
using ringsched::models::fit_eq5;
using ringsched::models::LossPoint;
using ringsched::models::SpeedPoint;

namespace {

// A ResNet-like job: 2 ms/sample of compute, 5 ms latency per extra worker, 1e-9 s per parameter of bandwidth
// (25e6 parameters -> up to 25 ms), 20 ms fixed overhead per step.
const Eq5Coeffs kTrue5{2e-3, 5e-3, 1e-9, 2e-2};
constexpr double kModelSize = 25e6;

// w = 1..16 at global batches 64, 128, 256 (48 points), step times scaled by `noise(i)`.
template <typename Noise>
std::vector<SpeedPoint> eq5_points(Noise noise) {
  std::vector<SpeedPoint> pts;
  for (const double m : {64.0, 128.0, 256.0}) {
    for (int w = 1; w <= 16; ++w) {
      const double t = eq5_step_time(kTrue5, w, m, kModelSize);
      pts.push_back(SpeedPoint{w, (w + 7) / 8, m, t * noise()});
    }
  }
  return pts;
}

std::vector<SpeedPoint> exact_eq5_points() {
  return eq5_points([] { return 1.0; });
}

// Uniform multiplicative noise in [1 - level, 1 + level] on the step time.
std::vector<SpeedPoint> noisy_eq5_points(double level, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(-level, level);
  return eq5_points([&] { return 1.0 + u(rng); });
}

// Mean absolute percentage error of the fitted speeds against the noise-free truth, over w = 1..max_w, m = 128.
double error_vs_truth(const Eq5Coeffs& fitted, int max_w) {
  double sum = 0.0;
  for (int w = 1; w <= max_w; ++w) {
    const double truth = eq5_speed(kTrue5, w, 128, kModelSize);
    sum += std::abs(eq5_speed(fitted, w, 128, kModelSize) - truth) / truth;
  }
  return 100.0 * sum / max_w;
}

}  // namespace

TEST_CASE("models::fit_eq5: recovers known coefficients from exact points", "[models][fit]") {
  const Eq5Fit fit = fit_eq5(exact_eq5_points(), kModelSize);
  CHECK(fit.points == 48);
  CHECK(fit.coeffs.t0 == Approx(kTrue5.t0).epsilon(1e-6));
  CHECK(fit.coeffs.t1 == Approx(kTrue5.t1).epsilon(1e-6));
  CHECK(fit.coeffs.t2 == Approx(kTrue5.t2).epsilon(1e-6));
  CHECK(fit.coeffs.t3 == Approx(kTrue5.t3).epsilon(1e-6));
  CHECK(fit.r2 == Approx(1.0).epsilon(1e-9));
  CHECK(fit.mape == Approx(0.0).margin(1e-6));
}

TEST_CASE("models::fit_eq5: a zero true coefficient stays zero", "[models][fit]") {
  // No latency term: t1 = 0 must come back as (numerically) 0, never negative.
  const Eq5Coeffs truth{2e-3, 0.0, 1e-9, 2e-2};
  std::vector<SpeedPoint> pts;
  for (const double m : {64.0, 256.0}) {
    for (int w = 1; w <= 8; ++w)
      pts.push_back(SpeedPoint{w, 1, m, eq5_step_time(truth, w, m, kModelSize)});
  }
  const Eq5Fit fit = fit_eq5(pts, kModelSize);
  CHECK(fit.coeffs.t1 >= 0.0);
  CHECK(fit.coeffs.t1 == Approx(0.0).margin(1e-12));
  CHECK(fit.coeffs.t0 == Approx(truth.t0).epsilon(1e-6));
  CHECK(fit.mape == Approx(0.0).margin(1e-6));
}

TEST_CASE("models::fit_eq5: 5% multiplicative noise keeps errors small", "[models][fit]") {
  // Step times are scaled by 1 + e, e ~ U[-0.05, 0.05]. Even the true coefficients then have speed errors
  // |1/(1+e) - 1| <= 5.3% (mean about 2.5%), and the fit minimises the same relative errors, so its in-sample MAPE
  // must be below 5%. With 48 points for 4 coefficients the noise largely averages out: predictions against the
  // noise-free truth should be within the noise level (5%) for w = 1..16 (interpolation), and extrapolating to
  // w = 32 should not blow up (within 2x the noise level).
  for (const std::uint64_t seed : {1u, 2u, 3u}) {
    INFO("seed " << seed);
    const Eq5Fit fit = fit_eq5(noisy_eq5_points(0.05, seed), kModelSize);
    CHECK(fit.mape < 5.0);
    CHECK(fit.r2 > 0.9);
    CHECK(error_vs_truth(fit.coeffs, 16) < 5.0);
    CHECK(error_vs_truth(fit.coeffs, 32) < 10.0);
  }
}

TEST_CASE("models::fit_eq5: errors grow with the noise level", "[models][fit]") {
  // Same seed, so the 5% perturbations are exactly 5x the 1% ones and (in the near-linear regime) the coefficient
  // errors scale about 5x too: 0 -> 1% -> 5%. The error against the truth stays below the noise level.
  const double e0 = error_vs_truth(fit_eq5(exact_eq5_points(), kModelSize).coeffs, 16);
  const double e1 = error_vs_truth(fit_eq5(noisy_eq5_points(0.01, 7), kModelSize).coeffs, 16);
  const double e5 = error_vs_truth(fit_eq5(noisy_eq5_points(0.05, 7), kModelSize).coeffs, 16);
  CHECK(e0 < 1e-6);
  CHECK(e1 < 1.0);
  CHECK(e5 < 5.0);
  CHECK(e0 < e1);
  CHECK(e1 < e5);
}

TEST_CASE("models::fit_eq5: a single point is fitted exactly", "[models][fit]") {
  const Eq5Fit fit = fit_eq5({SpeedPoint{4, 1, 128, 0.5}}, kModelSize);
  CHECK(eq5_step_time(fit.coeffs, 4, 128, kModelSize) == Approx(0.5));
  CHECK(fit.r2 == 1.0);
  CHECK(fit.mape == Approx(0.0).margin(1e-9));
}

TEST_CASE("models::fit_eq5: invalid input throws", "[models][fit]") {
  CHECK_THROWS_AS(fit_eq5({}, kModelSize), std::invalid_argument);
  CHECK_THROWS_WITH(fit_eq5({}, kModelSize), Catch::Contains("at least 1") && Catch::Contains("got 0"));
  CHECK_THROWS_AS(fit_eq5({SpeedPoint{2, 1, 128, 0.0}}, kModelSize), std::invalid_argument);
  CHECK_THROWS_AS(fit_eq5({SpeedPoint{0, 1, 128, 0.1}}, kModelSize), std::invalid_argument);
  CHECK_THROWS_AS(fit_eq5({SpeedPoint{2, 1, -1, 0.1}}, kModelSize), std::invalid_argument);
  CHECK_THROWS_AS(fit_eq5({SpeedPoint{2, 1, 128, 0.1}}, -1.0), std::invalid_argument);
}

TEST_CASE("models::eq5_mape: hand-computed percentage error", "[models][fit]") {
  // Measured step times 10% longer than the model: measured speed f/1.1, predicted f,
  // error |f - f/1.1| / (f/1.1) = 0.1 -> 10%. Times 25% shorter: measured 4f/3, error (4/3 - 1)/(4/3) = 25%.
  // Mean over the two points: 17.5%.
  const double t4 = eq5_step_time(kTrue5, 4, 128, kModelSize);
  const double t8 = eq5_step_time(kTrue5, 8, 128, kModelSize);
  CHECK(eq5_mape(kTrue5, {SpeedPoint{4, 1, 128, 1.1 * t4}}, kModelSize) == Approx(10.0));
  CHECK(eq5_mape(kTrue5, {SpeedPoint{4, 1, 128, 1.1 * t4}, SpeedPoint{8, 1, 128, 0.75 * t8}}, kModelSize) ==
        Approx(17.5));
  CHECK(std::isnan(eq5_mape(kTrue5, {}, kModelSize)));
}

TEST_CASE("models::cross_validate_eq5: exact data gives zero held-out error", "[models][fit]") {
  // Holding out any one w leaves 15 w values x 3 batch sizes, which pins t0..t3 down exactly.
  CHECK(cross_validate_eq5(exact_eq5_points(), kModelSize) == Approx(0.0).margin(1e-6));
}

TEST_CASE("models::cross_validate_eq5: noisy data gives a held-out error near the noise level", "[models][fit]") {
  // Held-out speeds carry their own noise (mean |1/(1+e) - 1| ~ 2.5% for 5%) plus the fit's error, so the CV MAPE is
  // at least in-sample-like and, with 45 training points per fold, well under 2x the noise level.
  const std::vector<SpeedPoint> pts = noisy_eq5_points(0.05, 11);
  const double cv = cross_validate_eq5(pts, kModelSize);
  CHECK(cv > 1.0);
  CHECK(cv < 10.0);
  CHECK(cv >= fit_eq5(pts, kModelSize).mape * 0.9);
}

TEST_CASE("models::cross_validate_eq5: fewer than two distinct w gives NaN", "[models][fit]") {
  CHECK(std::isnan(cross_validate_eq5({}, kModelSize)));
  const std::vector<SpeedPoint> one_w{SpeedPoint{4, 1, 64, 0.1}, SpeedPoint{4, 1, 128, 0.15}};
  CHECK(std::isnan(cross_validate_eq5(one_w, kModelSize)));
}

TEST_CASE("models::cross_validate_eq5: a held-out w off the model shows in the error", "[models][fit]") {
  // Exact data except w = 16, whose 3 step times are 10% too long. The fold that holds out w = 16 trains on exact data,
  // recovers the truth and predicts speed f where f/1.1 was measured: |f - f/1.1| / (f/1.1) = 10% on each of its 3
  // points. The other 45 held-out points add >= 0, so the CV MAPE over 48 points is >= 3 * 10 / 48 = 0.625%.
  std::vector<SpeedPoint> pts = exact_eq5_points();
  for (SpeedPoint& p : pts) {
    if (p.w == 16) p.step_seconds *= 1.1;
  }
  const double cv = cross_validate_eq5(pts, kModelSize);
  CHECK(cv >= 0.625 - 1e-9);
  CHECK(cv < 10.0);
}

namespace {

std::vector<LossPoint> eq1_points(const Eq1Coeffs& c, int count, double k_step) {
  std::vector<LossPoint> pts;
  for (int i = 0; i < count; ++i) {
    const double k = k_step * i;
    pts.push_back(LossPoint{k, eq1_loss(c, k)});
  }
  return pts;
}

}  // namespace

TEST_CASE("models::fit_eq1: recovers b0, b1, b2 from exact points", "[models][fit]") {
  // l(k) = 1/(0.01 k + 0.5) + 0.3 on k = 0, 10, ..., 1000: from 2.3 down to 0.395.
  const Eq1Coeffs truth{0.01, 0.5, 0.3};
  const Eq1Fit fit = fit_eq1(eq1_points(truth, 101, 10.0));
  CHECK(fit.points == 101);
  CHECK(fit.coeffs.b0 == Approx(truth.b0).epsilon(0.01));
  CHECK(fit.coeffs.b1 == Approx(truth.b1).epsilon(0.01));
  CHECK(fit.coeffs.b2 == Approx(truth.b2).epsilon(0.01));
  CHECK(fit.r2 == Approx(1.0).epsilon(1e-6));
  CHECK(fit.rmse < 1e-4);
}

TEST_CASE("models::fit_eq1: recovers a curve with b2 = 0 and one in samples", "[models][fit]") {
  const Eq1Coeffs no_floor{0.002, 0.25, 0.0};
  const Eq1Fit a = fit_eq1(eq1_points(no_floor, 50, 100.0));
  CHECK(a.coeffs.b0 == Approx(no_floor.b0).epsilon(0.01));
  CHECK(a.coeffs.b1 == Approx(no_floor.b1).epsilon(0.01));
  CHECK(a.coeffs.b2 == Approx(0.0).margin(0.01 * eq1_loss(no_floor, 4900)));
  // k in samples (millions), tiny b0: the column scaling in the fit has to cope.
  const Eq1Coeffs samples{2e-7, 0.4, 0.05};
  const Eq1Fit b = fit_eq1(eq1_points(samples, 60, 5e5));
  CHECK(b.coeffs.b0 == Approx(samples.b0).epsilon(0.01));
  CHECK(b.coeffs.b1 == Approx(samples.b1).epsilon(0.01));
  CHECK(b.coeffs.b2 == Approx(samples.b2).epsilon(0.01));
}

TEST_CASE("models::fit_eq1: three points are enough, fewer throw", "[models][fit]") {
  const Eq1Coeffs truth{0.01, 0.5, 0.3};
  const Eq1Fit fit = fit_eq1(eq1_points(truth, 3, 300.0));
  CHECK(fit.points == 3);
  CHECK(fit.rmse < 1e-4);
  CHECK_THROWS_AS(fit_eq1(eq1_points(truth, 2, 10.0)), std::invalid_argument);
  CHECK_THROWS_WITH(fit_eq1(eq1_points(truth, 2, 10.0)), Catch::Contains("at least 3") && Catch::Contains("got 2"));
  CHECK_THROWS_AS(fit_eq1({}), std::invalid_argument);
  CHECK_THROWS_AS(fit_eq1({LossPoint{0, 1.0}, LossPoint{1, 0.0}, LossPoint{2, 0.5}}), std::invalid_argument);
}

TEST_CASE("models::fit_eq1: noisy losses are fitted to the noise level", "[models][fit]") {
  // 1% multiplicative noise on losses between 2.3 and 0.395: residual RMSE should be about the noise scale
  // (0.01 * typical loss ~ 0.005), and the predicted final loss within a few percent.
  const Eq1Coeffs truth{0.01, 0.5, 0.3};
  std::mt19937_64 rng(5);
  std::uniform_real_distribution<double> u(-0.01, 0.01);
  std::vector<LossPoint> pts = eq1_points(truth, 101, 10.0);
  for (LossPoint& p : pts)
    p.loss *= 1.0 + u(rng);
  const Eq1Fit fit = fit_eq1(pts);
  CHECK(fit.rmse < 0.01);
  CHECK(fit.r2 > 0.99);
  CHECK(eq1_loss(fit.coeffs, 1000) == Approx(eq1_loss(truth, 1000)).epsilon(0.03));
}

TEST_CASE("models::coefficient_of_determination: hand-computed values and edge cases", "[fit]") {
  // actual 1, 2, 3 (mean 2, SS_tot = 2); predicted 1, 2, 4 gives SS_res = 1, so R^2 = 1 - 1/2 = 0.5.
  CHECK(ringsched::models::coefficient_of_determination({1.0, 2.0, 4.0}, {1.0, 2.0, 3.0}) == Approx(0.5));
  CHECK(ringsched::models::coefficient_of_determination({1.0, 2.0, 3.0}, {1.0, 2.0, 3.0}) == Approx(1.0));
  // Constant measurements: exact predictions score 1, anything else 0.
  CHECK(ringsched::models::coefficient_of_determination({5.0, 5.0}, {5.0, 5.0}) == 1.0);
  CHECK(ringsched::models::coefficient_of_determination({5.0, 6.0}, {5.0, 5.0}) == 0.0);
  CHECK_THROWS_AS(ringsched::models::coefficient_of_determination({1.0}, {1.0, 2.0}), std::invalid_argument);
}
