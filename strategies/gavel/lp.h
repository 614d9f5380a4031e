// strategies/gavel/lp.h — linear programs for the scheduling policies that solve one (Gavel's), solved by COIN-OR CLP
// (Debian's coinor-libclp-dev; dual simplex). No hand-written simplex: this file only states the program and reads
// the answer back, and no CLP exception or output reaches the caller.
#pragma once

#include <limits>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace ringsched::models {

inline constexpr double kLpInfinity = std::numeric_limits<double>::infinity();

// A simplex basis: one status per variable and per row, CLP's codes (0 free, 1 basic, 2 at upper bound, 3 at lower
// bound, 4 superbasic, 5 fixed). A program solved from the basis of a similar one (warm start) needs fewer pivots;
// a basis that does not fit (wrong sizes) is ignored, one with the wrong number of basics is repaired by CLP.
struct LpBasis {
  std::vector<unsigned char> columns;
  std::vector<unsigned char> rows;
};

struct LpSolution {
  bool optimal = false;
  std::string status;  // "optimal", "infeasible", "unbounded", or the solver's reason
  double objective = 0.0;
  std::vector<double> x;  // one value per variable (empty unless optimal)
  // One dual value per row (empty unless optimal): the rate at which the optimum moves per unit the row's binding
  // bound moves (0 for a row that does not bind); for a minimisation, >= 0 on a binding lower bound.
  std::vector<double> duals;
  LpBasis basis;  // the optimal basis (empty unless optimal)
  // solve_centre only: CLP's barrier stopped short (not optimal, or its point outside a bound by more than 1e-6
  // relative), so this is the dual simplex's answer (a vertex, or its word that the program is infeasible/unbounded).
  bool vertex_fallback = false;
};

class LinearProgram {
 public:
  // A variable lower <= x <= upper (either may be +-kLpInfinity) with objective coefficient `objective`; returns
  // its index.
  int add_variable(double lower, double upper, double objective);
  // lower <= sum of coefficient x variable <= upper over (variable index, coefficient) pairs; returns the row's index.
  int add_row(const std::vector<std::pair<int, double>>& terms, double lower, double upper);
  void maximise() { maximise_ = true; }
  // Start the simplex from `basis` (LpBasis) instead of the all-slack basis; ignored unless its sizes match.
  void start_from(LpBasis basis) { start_ = std::move(basis); }
  [[nodiscard]] int variables() const { return static_cast<int>(lower_.size()); }
  [[nodiscard]] int rows() const { return static_cast<int>(row_lower_.size()); }
  // Solves from scratch. std::invalid_argument for a NaN coefficient or bound, or a term naming no variable.
  [[nodiscard]] LpSolution solve() const;
  // An optimal point in the relative interior of the optimal face (where many points are optimal, near its analytic
  // centre), as an interior-point solver such as ECOS returns it: CLP's primal-dual barrier (Mehrotra
  // predictor-corrector) run to its tolerance without crossover to a vertex. The basis is left empty (no warm start
  // from it) and the duals are the barrier's. Where the barrier stops short (rare: a point outside a bound), the dual
  // simplex answers instead (LpSolution::vertex_fallback). Same exceptions as solve().
  [[nodiscard]] LpSolution solve_centre() const;

 private:
  friend class LpSession;
  std::vector<double> lower_, upper_, objective_;
  std::vector<double> row_lower_, row_upper_;
  std::vector<int> term_row_, term_col_;
  std::vector<double> term_value_;
  bool maximise_ = false;
  LpBasis start_;
};

// A program kept loaded in CLP between solves, for a sequence of programs that differ only in row bounds (a
// bisection over a level): each solve starts from the previous optimal basis, which the dual simplex repairs in a
// few pivots when only right-hand sides changed. Same answers as LinearProgram::solve to CLP's tolerances.
class LpSession {
 public:
  explicit LpSession(const LinearProgram& lp);
  ~LpSession();
  LpSession(const LpSession&) = delete;
  LpSession& operator=(const LpSession&) = delete;
  // std::invalid_argument for a NaN bound or a row out of range.
  void set_row_bounds(int row, double lower, double upper);
  [[nodiscard]] LpSolution solve();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
  int rows_ = 0;
  int variables_ = 0;
};

}  // namespace ringsched::models
