// test/strategies/test_lp.cpp — the LP wrapper over CLP: small programs solved by hand, infeasible and unbounded ones,
// and bad input.
#include <catch2/catch.hpp>

#include <cmath>
#include <stdexcept>

#include "strategies/gavel/lp.h"

using namespace ringsched::models;

TEST_CASE("models::LinearProgram: a two-variable program solved by hand", "[models][lp]") {
  // maximise 3x + 2y s.t. x + y <= 4, x + 3y <= 6, 0 <= x <= 3, y >= 0: vertex (3, 1), objective 11.
  LinearProgram lp;
  const int x = lp.add_variable(0.0, 3.0, 3.0);
  const int y = lp.add_variable(0.0, kLpInfinity, 2.0);
  lp.add_row({{x, 1.0}, {y, 1.0}}, -kLpInfinity, 4.0);
  lp.add_row({{x, 1.0}, {y, 3.0}}, -kLpInfinity, 6.0);
  lp.maximise();
  const LpSolution s = lp.solve();
  REQUIRE(s.optimal);
  CHECK(s.status == "optimal");
  CHECK(s.objective == Approx(11.0));
  CHECK(s.x[0] == Approx(3.0));
  CHECK(s.x[1] == Approx(1.0));
}

TEST_CASE("models::LinearProgram: minimisation, equality rows and an unused variable", "[models][lp]") {
  // minimise x + 2y + 0z s.t. x + y = 3, x - y >= -1, x <= 1: x = 1, y = 2, objective 5.
  LinearProgram lp;
  const int x = lp.add_variable(-kLpInfinity, 1.0, 1.0);
  const int y = lp.add_variable(0.0, kLpInfinity, 2.0);
  (void)lp.add_variable(0.0, 1.0, 0.0);
  lp.add_row({{x, 1.0}, {y, 1.0}}, 3.0, 3.0);
  lp.add_row({{x, 1.0}, {y, -1.0}}, -1.0, kLpInfinity);
  const LpSolution s = lp.solve();
  REQUIRE(s.optimal);
  CHECK(s.objective == Approx(5.0));
  CHECK(s.x.size() == 3);
  CHECK(s.x[0] == Approx(1.0));
  CHECK(s.x[1] == Approx(2.0));
}

TEST_CASE("models::LinearProgram: infeasible and unbounded programs say so, bad input throws", "[models][lp]") {
  LinearProgram infeasible;
  const int a = infeasible.add_variable(0.0, 1.0, 1.0);
  infeasible.add_row({{a, 1.0}}, 2.0, kLpInfinity);
  const LpSolution i = infeasible.solve();
  CHECK_FALSE(i.optimal);
  CHECK(i.status == "infeasible");
  CHECK(i.x.empty());
  LinearProgram unbounded;
  (void)unbounded.add_variable(0.0, kLpInfinity, 1.0);
  unbounded.maximise();
  const LpSolution u = unbounded.solve();
  CHECK_FALSE(u.optimal);
  CHECK(u.status == "unbounded");
  LinearProgram bad;
  CHECK_THROWS_AS(bad.add_row({{0, 1.0}}, 0.0, 1.0), std::invalid_argument);
  CHECK_THROWS_AS(bad.add_variable(0.0, NAN, 1.0), std::invalid_argument);
}

TEST_CASE("models::LpSession: re-solves after row bounds change, through infeasible levels, as fresh solves do",
          "[models][lp]") {
  // maximise 3x + 2y s.t. x + y <= b, x + 3y <= 6, 0 <= x <= 3, y >= 0, for b = 4, 2, 10, then x + y >= 12
  // (infeasible: at most 3 + 2 = 5), then b = 4 again. By hand: b = 4: (3, 1), 11; b = 2: (2, 0), 6; b = 10: (3, 1),
  // 11 (the second row binds).
  LinearProgram lp;
  const int x = lp.add_variable(0.0, 3.0, 3.0);
  const int y = lp.add_variable(0.0, kLpInfinity, 2.0);
  const int row = lp.add_row({{x, 1.0}, {y, 1.0}}, -kLpInfinity, 4.0);
  CHECK(lp.add_row({{x, 1.0}, {y, 3.0}}, -kLpInfinity, 6.0) == row + 1);
  lp.maximise();
  LpSession session(lp);
  const auto solve_at = [&](double lower, double upper) {
    session.set_row_bounds(row, lower, upper);
    return session.solve();
  };
  LpSolution s = solve_at(-kLpInfinity, 4.0);
  REQUIRE(s.optimal);
  CHECK(s.objective == Approx(11.0));
  s = solve_at(-kLpInfinity, 2.0);
  REQUIRE(s.optimal);
  CHECK(s.objective == Approx(6.0));
  CHECK(s.x[0] == Approx(2.0));
  s = solve_at(-kLpInfinity, 10.0);
  REQUIRE(s.optimal);
  CHECK(s.objective == Approx(11.0));
  s = solve_at(12.0, kLpInfinity);
  CHECK_FALSE(s.optimal);
  CHECK(s.status == "infeasible");
  s = solve_at(-kLpInfinity, 4.0);
  REQUIRE(s.optimal);
  CHECK(s.x[0] == Approx(3.0));
  CHECK(s.x[1] == Approx(1.0));
  CHECK_THROWS_AS(session.set_row_bounds(2, 0.0, 1.0), std::invalid_argument);
  CHECK_THROWS_AS(session.set_row_bounds(row, std::nan(""), 1.0), std::invalid_argument);
}

TEST_CASE("models::LinearProgram: a variable named twice in a row counts twice, zero coefficients are no entries",
          "[models][lp]") {
  // maximise x + y s.t. x + x + 0 y <= 4, 0 x + y <= 3: x = 2, y = 3.
  LinearProgram lp;
  const int x = lp.add_variable(0.0, kLpInfinity, 1.0);
  const int y = lp.add_variable(0.0, kLpInfinity, 1.0);
  lp.add_row({{x, 1.0}, {x, 1.0}, {y, 0.0}}, -kLpInfinity, 4.0);
  lp.add_row({{x, 0.0}, {y, 1.0}}, -kLpInfinity, 3.0);
  lp.maximise();
  const LpSolution s = lp.solve();
  REQUIRE(s.optimal);
  CHECK(s.x[0] == Approx(2.0));
  CHECK(s.x[1] == Approx(3.0));
  CHECK(s.objective == Approx(5.0));
}

TEST_CASE("models::LinearProgram: duals are the optimum's rate of change per unit of a binding bound", "[models][lp]") {
  // minimise x + 2y s.t. x + y >= b (row 0), y - x <= 5 (row 1, slack), 0 <= x <= 2, y >= 0: x = 2, y = b - 2, so
  // the optimum 2 + 2 (b - 2) grows by 2 per unit of b; row 1 does not bind. Maximising -(x + 2y): the same point,
  // the optimum falls by 2 per unit of b. Checked against a re-solve at b + 1.
  for (const bool max : {false, true}) {
    const double sign = max ? -1.0 : 1.0;
    LinearProgram lp;
    const int x = lp.add_variable(0.0, 2.0, sign * 1.0);
    const int y = lp.add_variable(0.0, kLpInfinity, sign * 2.0);
    const int row = lp.add_row({{x, 1.0}, {y, 1.0}}, 3.0, kLpInfinity);
    lp.add_row({{y, 1.0}, {x, -1.0}}, -kLpInfinity, 5.0);
    if (max) lp.maximise();
    LpSession session(lp);
    const LpSolution at3 = session.solve();
    REQUIRE(at3.optimal);
    REQUIRE(at3.duals.size() == 2);
    CHECK(at3.objective == Approx(sign * 4.0));
    CHECK(at3.duals[0] == Approx(sign * 2.0));
    CHECK(at3.duals[1] == Approx(0.0).margin(1e-12));
    session.set_row_bounds(row, 4.0, kLpInfinity);
    const LpSolution at4 = session.solve();
    REQUIRE(at4.optimal);
    CHECK(at4.objective - at3.objective == Approx(at3.duals[0]));
  }
}
