// test/strategies/test_gavel_allocation.cpp — Gavel's max-min programs on the example of its own tests
// (tests/policies_tests.py test_max_min_fairness_with_perf), solved by hand: t* = 48/31 with a unique allocation.
#include <catch2/catch.hpp>

#include <algorithm>
#include <random>
#include <stdexcept>

#include "strategies/gavel/gavel_allocation.h"
#include "strategies/gavel/lp.h"

using namespace ringsched;

namespace {

// Types in the order (v100, p100, k80); job 0: 2, 1, 0.5 steps/s; job 1: 3, 2, 1; N = 1, 2, 3; s = w = 1.
GavelProblem two_jobs() {
  GavelProblem p;
  p.throughput = {{2.0, 1.0, 0.5}, {3.0, 2.0, 1.0}};
  p.scale_factor = {1, 1};
  p.priority_weight = {1.0, 1.0};
  p.workers = {1, 2, 3};
  return p;
}

// A finish-time fairness instance: m jobs with random throughputs on three types of N[k] GPUs, time since arrival,
// remaining steps and isolated times as the strategy forms them (isolated_throughputs).
struct FtfCase {
  GavelProblem p;
  std::vector<double> since, remaining, isolated;
};

FtfCase random_ftf_case(std::mt19937& rng, std::size_t m, std::vector<int> workers, bool fresh = false) {
  std::uniform_real_distribution<double> u(0.0, 1.0);
  FtfCase c;
  c.p.workers = std::move(workers);
  for (std::size_t i = 0; i < m; ++i) {
    const double fast = 1.0 + 9.0 * u(rng);
    c.p.throughput.push_back({fast, fast * (0.3 + 0.5 * u(rng)), u(rng) < 0.2 ? 0.0 : fast * 0.2 * u(rng)});
    c.p.scale_factor.push_back(u(rng) < 0.8 ? 1 : 2);
    c.p.priority_weight.push_back(1.0);
    c.p.ids.push_back(static_cast<int>(i));
  }
  const std::vector<double> iso = isolated_throughputs(c.p);
  for (std::size_t i = 0; i < m; ++i) {
    c.since.push_back(u(rng) < 0.3 || fresh ? 0.0 : 5000.0 * u(rng));
    c.remaining.push_back(u(rng) < 0.1 ? 0.0 : 1000.0 + 20000.0 * u(rng));
    c.isolated.push_back(c.since[i] * (0.5 + u(rng)) + std::max(c.remaining[i], 1.0) / iso[i]);
  }
  return c;
}

// The optimum of a finish-time fairness instance the plain way: the smallest level r at which a feasibility program
// (every job's rate >= d_i(r)) has a solution, bisected to 1e-11.
double ftf_by_bisection(const FtfCase& c) {
  const std::size_t m = c.p.throughput.size();
  const std::size_t n = c.p.workers.size();
  const auto feasible = [&](double r) {
    models::LinearProgram lp;
    std::vector<std::vector<int>> x(m, std::vector<int>(n));
    for (auto& row : x)
      for (int& v : row)
        v = lp.add_variable(0.0, models::kLpInfinity, 0.0);
    for (std::size_t i = 0; i < m; ++i) {
      std::vector<std::pair<int, double>> budget, rate;
      for (std::size_t k = 0; k < n; ++k) {
        budget.emplace_back(x[i][k], 1.0);
        rate.emplace_back(x[i][k], c.p.throughput[i][k]);
      }
      lp.add_row(budget, -models::kLpInfinity, 1.0);
      const double slack = r * c.isolated[i] - c.since[i];
      if (slack < 0.0 || (slack == 0.0 && c.remaining[i] > 0.0)) return false;  // rho_i >= S[i] / Q[i] whatever x
      if (c.remaining[i] > 0.0) lp.add_row(rate, c.remaining[i] / slack, models::kLpInfinity);
    }
    for (std::size_t k = 0; k < n; ++k) {
      std::vector<std::pair<int, double>> capacity;
      for (std::size_t i = 0; i < m; ++i)
        capacity.emplace_back(x[i][k], c.p.scale_factor[i]);
      lp.add_row(capacity, -models::kLpInfinity, c.p.workers[k]);
    }
    return lp.solve().optimal;
  };
  double lo = 0.0;
  double hi = 1.0;
  while (!feasible(hi)) {
    lo = hi;
    hi *= 2.0;
  }
  while (hi - lo > 1e-11 * hi) {
    const double mid = 0.5 * (lo + hi);
    (feasible(mid) ? hi : lo) = mid;
  }
  return hi;
}

// An allocation's largest rho, and whether it keeps every budget and capacity (to 1e-7).
double ftf_worst(const FtfCase& c, const GavelAllocation& a, bool& within) {
  const std::size_t n = c.p.workers.size();
  double worst = 0.0;
  std::vector<double> used(n, 0.0);
  within = true;
  for (std::size_t i = 0; i < c.p.throughput.size(); ++i) {
    double u = 0.0;
    double time = 0.0;
    for (std::size_t k = 0; k < n; ++k) {
      u += c.p.throughput[i][k] * a.x[i][k];
      time += a.x[i][k];
      used[k] += c.p.scale_factor[i] * a.x[i][k];
    }
    within = within && time <= 1.0 + 1e-7;
    const double rho = (c.since[i] + (c.remaining[i] > 0.0 ? c.remaining[i] / u : 0.0)) / c.isolated[i];
    worst = std::max(worst, rho);
  }
  for (std::size_t k = 0; k < n; ++k)
    within = within && used[k] <= c.p.workers[k] * (1.0 + 1e-7);
  return worst;
}

}  // namespace

TEST_CASE("strategies::GavelAllocation: heterogeneity-aware max-min on Gavel's test case, by hand", "[gavel]") {
  // P0 = (2 + 2 + 1.5) / 6 = 11/12, P1 = (3 + 4 + 3) / 6 = 5/3, so c0 = (24/11, 12/11, 6/11), c1 = (9/5, 6/5, 3/5).
  // At job 0 = (13/31, 18/31, 0), job 1 = (18/31, 13/31, 0): (24 x 13 + 12 x 18) / (11 x 31) = 48/31 and
  // (9 x 18 + 6 x 13) / (5 x 31) = 48/31, the one V100 full, both jobs' time budgets full: t* = 48/31.
  const GavelAllocation a = max_min_fairness(two_jobs(), true);
  REQUIRE(a.optimal);
  CHECK(a.objective == Approx(48.0 / 31.0).epsilon(1e-9));
  CHECK(a.x[0][0] == Approx(13.0 / 31.0).epsilon(1e-9));
  CHECK(a.x[0][1] == Approx(18.0 / 31.0).epsilon(1e-9));
  CHECK(a.x[0][2] == Approx(0.0).margin(1e-9));
  CHECK(a.x[1][0] == Approx(18.0 / 31.0).epsilon(1e-9));
  CHECK(a.x[1][1] == Approx(13.0 / 31.0).epsilon(1e-9));
  CHECK(a.x[1][2] == Approx(0.0).margin(1e-9));
}

TEST_CASE("strategies::GavelAllocation: LAS ignores throughputs and evens out GPUs per weight", "[gavel]") {
  GavelProblem p = two_jobs();
  const GavelAllocation las = max_min_fairness(p, false);
  REQUIRE(las.optimal);
  CHECK(las.objective == Approx(1.0));  // each job can have a whole GPU (6 GPUs, 2 jobs)
  // Three 1-GPU jobs and one 4-GPU job of weight 1 on 4 GPUs of one type: every job gets the same s x time: t with
  // 3 t + 4 (t / 4) = 4 -> t = 1.
  GavelProblem q;
  q.throughput = {{1.0}, {1.0}, {1.0}, {1.0}};
  q.scale_factor = {1, 1, 1, 4};
  q.priority_weight = {1.0, 1.0, 1.0, 1.0};
  q.workers = {4};
  const GavelAllocation r = max_min_fairness(q, false);
  REQUIRE(r.optimal);
  CHECK(r.objective == Approx(1.0));
  CHECK(r.x[3][0] == Approx(0.25));  // 4 GPUs a quarter of the time: one GPU's worth
  // Weight 2 halves a job's value per unit of time: it gets twice the time for the same t.
  q.priority_weight = {1.0, 1.0, 1.0, 2.0};
  const GavelAllocation w2 = max_min_fairness(q, false);
  REQUIRE(w2.optimal);
  CHECK(w2.objective * 3.0 + 4.0 * (2.0 * w2.objective / 4.0) == Approx(4.0));  // 3 t + 4 x3 = 4, x3 = 2t / 4
  CHECK_THROWS_AS(max_min_fairness(GavelProblem{{{1.0}}, {1, 1}, {1.0}, {1}, {}, nullptr}, true),
                  std::invalid_argument);
}

TEST_CASE("strategies::GavelAllocation: finish-time fairness on Gavel's test case, two calls, by hand", "[gavel]") {
  const GavelProblem p = two_jobs();
  // Isolated throughputs: s = 1, m = 2: each job an equal half of every type scaled to at most one unit of time,
  // N / 6 of each: I = (11/12, 5/3), the same as P.
  const auto iso = isolated_throughputs(p);
  CHECK(iso[0] == Approx(11.0 / 12.0));
  CHECK(iso[1] == Approx(5.0 / 3.0));
  // First call: nothing elapsed, remaining 300 and 500 steps: rho_i = I_i / u_i, optimum 31/48 (the max-min one).
  const GavelAllocation first = finish_time_fairness(p, {0.0, 0.0}, {300.0, 500.0}, {300.0 / iso[0], 500.0 / iso[1]});
  REQUIRE(first.optimal);
  CHECK(first.objective == Approx(31.0 / 48.0).epsilon(1e-6));  // CLP's feasibility tolerance: ~1e-7
  // Second call, remaining 200 and 300: isolated times 100 / (11/12) + 200 / (11/12) and 200 / (5/3) + 300 / (5/3);
  // optimum 29/72 at job 0 (15/29, 14/29, 0), job 1 (14/29, 15/29, 0).
  const GavelAllocation second = finish_time_fairness(p, {0.0, 0.0}, {200.0, 300.0}, {300.0 / iso[0], 500.0 / iso[1]});
  REQUIRE(second.optimal);
  CHECK(second.objective == Approx(29.0 / 72.0).epsilon(1e-6));
  CHECK(second.x[0][0] == Approx(15.0 / 29.0).epsilon(1e-6));
  CHECK(second.x[0][1] == Approx(14.0 / 29.0).epsilon(1e-6));
  CHECK(second.x[1][0] == Approx(14.0 / 29.0).epsilon(1e-6));
  CHECK(second.x[1][1] == Approx(15.0 / 29.0).epsilon(1e-6));
  // Time already spent raises the floor: a job 1,000 s in with an isolated time of 500 s has rho >= 2.
  const GavelAllocation late = finish_time_fairness(p, {1000.0, 0.0}, {10.0, 10.0}, {500.0, 500.0});
  REQUIRE(late.optimal);
  CHECK(late.objective >= 2.0);
  CHECK_THROWS_AS(finish_time_fairness(p, {0.0}, {1.0, 1.0}, {1.0, 1.0}), std::invalid_argument);
  // A guess to start from (the previous optimum) changes the search, not the answer: at, below and above it.
  for (const double guess : {29.0 / 72.0, 0.3, 0.41, 5.0}) {
    const GavelAllocation g =
        finish_time_fairness(p, {0.0, 0.0}, {200.0, 300.0}, {300.0 / iso[0], 500.0 / iso[1]}, guess);
    REQUIRE(g.optimal);
    CHECK(g.objective == Approx(29.0 / 72.0).epsilon(1e-6));
    CHECK(g.x[0][0] == Approx(15.0 / 29.0).epsilon(1e-6));
  }
}

TEST_CASE("strategies::GavelAllocation: min total duration on Gavel's test case, by hand", "[gavel]") {
  const GavelProblem p = two_jobs();
  // Remaining 300 and 500 steps: in T seconds job 0 needs 300 / T steps/s and job 1 500 / T. With job 0 on the one
  // V100 a of the time, its best rate is 2a + 1 (1 - a) = 1 + a (P100 the rest) and job 1's 3 (1 - a) + 2a = 3 - a:
  // the two sum to 4 >= 800 / T, so T* = 200 s (a = 1/2: 1.5 and 2.5 steps/s). Gavel's bisection from [100, 1e6]
  // stops at the first feasible midpoint within 5%: 206.80084228515625 (17 midpoints).
  const GavelAllocation a = min_total_duration(p, {300.0, 500.0});
  REQUIRE(a.optimal);
  CHECK(a.objective == Approx(206.80084228515625).epsilon(1e-12));
  CHECK(p.throughput[0][0] * a.x[0][0] + p.throughput[0][1] * a.x[0][1] + p.throughput[0][2] * a.x[0][2] >=
        Approx(1.5).epsilon(1e-7));
  CHECK(p.throughput[1][0] * a.x[1][0] + p.throughput[1][1] * a.x[1][1] + p.throughput[1][2] * a.x[1][2] >=
        Approx(2.5).epsilon(1e-7));
  CHECK(a.x[0][0] + a.x[1][0] <= 1.0 + 1e-9);
  // The search never goes below ~100 s: an optimum of 50 s stops at 103.81..., and a wider one widens the window.
  CHECK(gavel_makespan_search(50.0) == Approx(103.81431579589844).epsilon(1e-12));
  CHECK(gavel_makespan_search(5e6) >= 5e6);
  CHECK(gavel_makespan_search(5e6) <= 5e6 * 1.05);
  // Nothing left: nothing allocated. A job with steps left that runs nowhere: not optimal, with a reason.
  const GavelAllocation none = min_total_duration(p, {0.0, 0.0});
  REQUIRE(none.optimal);
  CHECK(none.x[0][0] == 0.0);
  GavelProblem stuck = p;
  stuck.throughput[1] = {0.0, 0.0, 0.0};
  const GavelAllocation bad = min_total_duration(stuck, {300.0, 500.0});
  CHECK_FALSE(bad.optimal);
  CHECK(bad.status.find("runs on no GPU type") != std::string::npos);
  CHECK_THROWS_AS(min_total_duration(p, {1.0}), std::invalid_argument);
}

TEST_CASE("strategies::GavelAllocation: a job that runs on no type gets nothing, also when it is the only job",
          "[gavel]") {
  GavelProblem p = two_jobs();
  p.throughput[1] = {0.0, 0.0, 0.0};
  // Job 1 is left out of the minimum; job 0 alone: the LP's t* is its best normalised throughput.
  const GavelAllocation a = max_min_fairness(p, true);
  REQUIRE(a.optimal);
  CHECK(a.x[1] == std::vector<double>{0.0, 0.0, 0.0});
  CHECK(a.objective > 0.0);
  // Alone, it leaves nothing to maximise (the program would be unbounded): nothing is allocated.
  GavelProblem lone;
  lone.throughput = {{0.0, 0.0, 0.0}};
  lone.scale_factor = {2};
  lone.priority_weight = {1.0};
  lone.workers = {1, 2, 3};
  const GavelAllocation b = max_min_fairness(lone, true);
  REQUIRE(b.optimal);
  CHECK(b.x[0] == std::vector<double>{0.0, 0.0, 0.0});
}

TEST_CASE("strategies::GavelAllocation: a warm start keeps the basis by job id and reaches the same optimum",
          "[gavel]") {
  // Gavel's three-type test case with a third job; then job 0 leaves and job 9 arrives.
  GavelProblem p = two_jobs();
  p.throughput.push_back({1.0, 1.0, 1.0});
  p.scale_factor.push_back(1);
  p.priority_weight.push_back(1.0);
  p.ids = {0, 1, 2};
  GavelWarmStart warm;
  p.warm = &warm;
  const GavelAllocation first = max_min_fairness(p, true);
  REQUIRE(first.optimal);
  REQUIRE(warm.jobs.size() == 3);
  CHECK(warm.jobs.at(1).columns.size() == 3);  // its x on each type
  CHECK(warm.jobs.at(1).rows.size() == 2);     // its max-min row and its time budget
  CHECK(warm.shared.columns.size() == 1);      // t
  CHECK(warm.shared.rows.size() == 3);         // one capacity row per type
  GavelProblem q = p;
  q.throughput = {p.throughput[1], p.throughput[2], {4.0, 1.0, 0.5}};
  q.ids = {1, 2, 9};
  GavelProblem cold = q;
  cold.warm = nullptr;
  const GavelAllocation a = max_min_fairness(q, true);
  const GavelAllocation b = max_min_fairness(cold, true);
  REQUIRE(a.optimal);
  REQUIRE(b.optimal);
  CHECK(a.objective == Approx(b.objective).epsilon(1e-9));
  CHECK(warm.jobs.count(0) == 0);  // the departed job's part is gone
  CHECK(warm.jobs.count(9) == 1);
}

TEST_CASE(
    "strategies::GavelAllocation: finish-time fairness reaches the bisection's optimum, with and without contention",
    "[gavel]") {
  // 30 random instances of 12 jobs: on 1 GPU per type (contended: Newton's method over programs) and on 40 (every
  // job can have what the job worst off needs on its fastest type: no program), each checked against a bisection over
  // feasibility programs, with the previous optimum as the guess or none.
  std::mt19937 rng(7);
  for (int trial = 0; trial < 30; ++trial) {
    for (const int gpus : {1, 40}) {
      const FtfCase c = random_ftf_case(rng, 12, {gpus, gpus, gpus});
      const double optimum = ftf_by_bisection(c);
      for (const double guess : {0.0, optimum * 1.3, optimum * 0.7}) {
        const GavelAllocation a = finish_time_fairness(c.p, c.since, c.remaining, c.isolated, guess);
        REQUIRE(a.optimal);
        CHECK(a.objective == Approx(optimum).epsilon(1e-6));
        bool within = false;
        CHECK(ftf_worst(c, a, within) <= a.objective * (1.0 + 1e-9));  // the allocation reaches what it says
        CHECK(within);
      }
    }
  }
}

TEST_CASE("strategies::GavelAllocation: finish-time fairness from the last program's basis, jobs gone and come",
          "[gavel]") {
  // A contended allocation (new jobs only, so that each needs its share), then the same jobs but two gone (kept as
  // ghosts, fixed at nothing) and one new: from the kept basis the same optimum as from scratch, and the kept basis
  // then names the jobs present only (the second allocation needed a program too).
  std::mt19937 rng(11);
  FtfCase c = random_ftf_case(rng, 10, {1, 1, 1}, true);
  GavelWarmStart warm;
  c.p.warm = &warm;
  const GavelAllocation first = finish_time_fairness(c.p, c.since, c.remaining, c.isolated);
  REQUIRE(first.optimal);
  REQUIRE(warm.jobs.size() == 10);
  CHECK(warm.jobs.at(3).throughput == c.p.throughput[3]);
  FtfCase d = random_ftf_case(rng, 9, {1, 1, 1}, true);
  for (std::size_t i = 0; i < 8; ++i) {  // jobs 2..9 stay (their columns as before), 0 and 1 leave, 10 arrives
    d.p.throughput[i] = c.p.throughput[i + 2];
    d.p.scale_factor[i] = c.p.scale_factor[i + 2];
    d.p.ids[i] = static_cast<int>(i + 2);
    d.remaining[i] = c.remaining[i + 2] * 0.9;
    d.since[i] = 1920.0;
    d.isolated[i] = c.isolated[i + 2] + 1920.0;
  }
  d.p.ids[8] = 10;
  const double optimum = ftf_by_bisection(d);
  const GavelAllocation cold = finish_time_fairness(d.p, d.since, d.remaining, d.isolated, first.objective);
  d.p.warm = &warm;
  const GavelAllocation again = finish_time_fairness(d.p, d.since, d.remaining, d.isolated, first.objective);
  REQUIRE(cold.optimal);
  REQUIRE(again.optimal);
  CHECK(cold.objective == Approx(optimum).epsilon(1e-6));
  CHECK(again.objective == Approx(optimum).epsilon(1e-6));
  bool within = false;
  CHECK(ftf_worst(d, again, within) <= again.objective * (1.0 + 1e-9));
  CHECK(within);
  CHECK(warm.jobs.size() == 9);
  CHECK(warm.jobs.count(0) == 0);
  CHECK(warm.jobs.count(10) == 1);
}
