// test/strategies/test_gavel_allocation.cpp — Gavel's max-min programs on the example of its own tests
// (tests/policies_tests.py test_max_min_fairness_with_perf), solved by hand: t* = 48/31 with a unique allocation.
#include <catch2/catch.hpp>

#include <stdexcept>

#include "strategies/gavel_allocation.h"

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
  // A guess to bracket first (the previous optimum) changes the search, not the answer: near, below and above it.
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
