// test/strategies/test_gavel_centre.cpp — the centre of the optimal face (GavelProblem::centre, lp_point "centre"):
// where many allocations are optimal, Gavel's interior-point solver (ECOS) returns one inside the optimal face, not a
// vertex. Hand-worked instances whose faces are segments, so the centre is known by symmetry.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include "models/input_error.h"
#include "sim/experiments/config.h"
#include "strategies/gavel/gavel_allocation.h"
#include "strategies/gavel/lp.h"

using namespace ringsched;

namespace {

// Two 1-GPU jobs on two types of one GPU each, throughputs 1 everywhere (LAS): t* = 1, and the optimal face is the
// segment job 0 = (a, 1 - a), job 1 = (1 - a, a), a in [0, 1] (each job all its time, the two GPUs never shared):
// the vertices are a = 0 and a = 1, the centre a = 1/2 by symmetry.
GavelProblem two_swappable_jobs() {
  GavelProblem p;
  p.throughput = {{1.0, 1.0}, {1.0, 1.0}};
  p.scale_factor = {1, 1};
  p.priority_weight = {1.0, 1.0};
  p.workers = {1, 1};
  return p;
}

// Gavel's own test case (tests/policies_tests.py): types (v100, p100, k80), job 0 at 2, 1, 0.5 steps/s, job 1 at 3, 2,
// 1; N = 1, 2, 3; s = w = 1; with the centre.
GavelProblem gavel_test_case() {
  GavelProblem g;
  g.throughput = {{2.0, 1.0, 0.5}, {3.0, 2.0, 1.0}};
  g.scale_factor = {1, 1};
  g.priority_weight = {1.0, 1.0};
  g.workers = {1, 2, 3};
  g.centre = true;
  return g;
}

}  // namespace

TEST_CASE("models::LinearProgram: the barrier's point lies inside the optimal face, the simplex's on a vertex",
          "[models][lp]") {
  // max x + y subject to x + y <= 1, x, y >= 0: every point of the segment x + y = 1 is optimal; its centre is
  // (1/2, 1/2), its vertices (1, 0) and (0, 1).
  models::LinearProgram lp;
  const int x = lp.add_variable(0.0, models::kLpInfinity, 1.0);
  const int y = lp.add_variable(0.0, models::kLpInfinity, 1.0);
  lp.add_row({{x, 1.0}, {y, 1.0}}, -models::kLpInfinity, 1.0);
  lp.maximise();
  const models::LpSolution vertex = lp.solve();
  REQUIRE(vertex.optimal);
  CHECK(std::min(vertex.x[0], vertex.x[1]) == Approx(0.0).margin(1e-12));
  const models::LpSolution centre = lp.solve_centre();
  REQUIRE(centre.optimal);
  CHECK(centre.objective == Approx(1.0).epsilon(1e-7));
  CHECK(centre.x[0] == Approx(0.5).margin(1e-6));
  CHECK(centre.x[1] == Approx(0.5).margin(1e-6));
  CHECK(centre.basis.columns.empty());  // no vertex, no basis
  // Infeasible and unbounded programs say so, as the simplex does.
  models::LinearProgram bad;
  const int z = bad.add_variable(0.0, models::kLpInfinity, 1.0);
  bad.add_row({{z, 1.0}}, 2.0, models::kLpInfinity);
  bad.add_row({{z, 1.0}}, -models::kLpInfinity, 1.0);
  const models::LpSolution infeasible = bad.solve_centre();
  CHECK_FALSE(infeasible.optimal);
  CHECK(infeasible.vertex_fallback);  // CLP's barrier stops at a point outside the bounds: the simplex decides
  CHECK(infeasible.status == "infeasible");
  CHECK_FALSE(centre.vertex_fallback);
}

TEST_CASE("strategies::GavelAllocation: with the centre, LAS splits a job's time evenly where any split is optimal",
          "[gavel]") {
  GavelProblem p = two_swappable_jobs();
  const GavelAllocation vertex = max_min_fairness(p, false);
  REQUIRE(vertex.optimal);
  CHECK(vertex.objective == Approx(1.0));
  CHECK(std::min(vertex.x[0][0], vertex.x[0][1]) == Approx(0.0).margin(1e-9));  // all on one type
  p.centre = true;
  const GavelAllocation centre = max_min_fairness(p, false);
  REQUIRE(centre.optimal);
  CHECK(centre.objective == Approx(1.0).epsilon(1e-7));
  for (const auto& row : centre.x)
    for (const double v : row)
      CHECK(v == Approx(0.5).margin(1e-5));
  // Where the optimum is unique (Gavel's own test case: t* = 48/31, job 0 = (13/31, 18/31, 0)), the centre is it.
  GavelProblem g = gavel_test_case();
  const GavelAllocation unique = max_min_fairness(g, true);
  REQUIRE(unique.optimal);
  CHECK(unique.objective == Approx(48.0 / 31.0).epsilon(1e-7));
  CHECK(unique.x[0][0] == Approx(13.0 / 31.0).margin(1e-6));
  CHECK(unique.x[0][1] == Approx(18.0 / 31.0).margin(1e-6));
  CHECK(unique.x[1][0] == Approx(18.0 / 31.0).margin(1e-6));
  CHECK(unique.x[1][2] == Approx(0.0).margin(1e-6));
}

TEST_CASE("strategies::GavelAllocation: with the centre, min total duration and finish-time fairness stay optimal",
          "[gavel]") {
  // Min total duration on two swappable jobs with 100 steps each: each can have a whole GPU, rate 1 -> T* = 100 s;
  // Gavel's search stops at its first feasible midpoint within 5% (the same as with the vertex), and any allocation
  // giving each job 100 / T is as good: the centre of {x: rates >= 100 / T} is again the even split.
  GavelProblem p = two_swappable_jobs();
  const GavelAllocation vertex = min_total_duration(p, {100.0, 100.0});
  p.centre = true;
  const GavelAllocation centre = min_total_duration(p, {100.0, 100.0});
  REQUIRE(centre.optimal);
  CHECK(centre.objective == Approx(vertex.objective).epsilon(1e-12));
  for (std::size_t i = 0; i < 2; ++i) {
    CHECK(centre.x[i][0] + centre.x[i][1] >= 100.0 / centre.objective - 1e-7);  // feasible at Gavel's horizon
    CHECK(centre.x[i][0] == Approx(centre.x[i][1]).margin(1e-5));               // even: the face is symmetric
  }
  // Finish-time fairness, Gavel's second test call (optimum 29/72 with a unique allocation): the centre is it.
  GavelProblem g = gavel_test_case();
  const auto iso = isolated_throughputs(g);
  const GavelAllocation ftf = finish_time_fairness(g, {0.0, 0.0}, {200.0, 300.0}, {300.0 / iso[0], 500.0 / iso[1]});
  REQUIRE(ftf.optimal);
  CHECK(ftf.objective == Approx(29.0 / 72.0).epsilon(1e-6));
  CHECK(ftf.x[0][0] == Approx(15.0 / 29.0).margin(1e-5));
  CHECK(ftf.x[1][1] == Approx(15.0 / 29.0).margin(1e-5));
  // Uncontended (no program needed for the level): the two swappable jobs alone reach rho = 1/2 at most; the
  // allocations that do are the segment above, and the centre is the even split.
  GavelProblem q = two_swappable_jobs();
  q.centre = true;
  const auto iso_q = isolated_throughputs(q);  // each job an equal half of each type: 1 step/s
  const GavelAllocation even =
      finish_time_fairness(q, {0.0, 0.0}, {100.0, 100.0}, {100.0 / iso_q[0], 100.0 / iso_q[1]});
  REQUIRE(even.optimal);
  CHECK(even.x[0][0] == Approx(0.5).margin(1e-5));
  CHECK(even.x[1][1] == Approx(0.5).margin(1e-5));
}

TEST_CASE("strategies::Gavel: lp_point is centre by default, vertex on request, anything else refused", "[gavel]") {
  const auto config = [](const std::string& point) {
    nlohmann::json doc = nlohmann::json::parse(R"({
      "cluster": {"pools": [{"gpu_type": "v100", "nodes": 2, "gpus_per_node": 1}]},
      "workload": {"catalog": "gavel", "jobs": 2, "arrival": {"process": "gavel", "rate_per_hour": 1}},
      "scheduler": {"interval_s": 360}})");
    doc["strategies"] = nlohmann::json::array({{{"name", "max_min_fairness"}, {"params", {{"lp_point", point}}}}});
    return doc;
  };
  CHECK_NOTHROW(parse_experiment(config("vertex"), "g.json", ""));
  CHECK_NOTHROW(parse_experiment(config("centre"), "g.json", ""));
  try {
    (void)parse_experiment(config("center"), "g.json", "");
    FAIL("lp_point \"center\" was accepted");
  } catch (const InputError& e) {
    const std::string what = e.what();
    CHECK(what.find("lp_point") != std::string::npos);
    CHECK(what.find("\"vertex\" or \"centre\"") != std::string::npos);
  }
}
