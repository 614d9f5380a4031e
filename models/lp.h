// models/lp.h — linear programs for the scheduling policies that solve one (Gavel's), solved by COIN-OR CLP
// (Debian's coinor-libclp-dev; dual simplex). No hand-written simplex: this file only states the program and reads
// the answer back, and no CLP exception or output reaches the caller.
#pragma once

#include <limits>
#include <string>
#include <utility>
#include <vector>

namespace ringsched::models {

inline constexpr double kLpInfinity = std::numeric_limits<double>::infinity();

struct LpSolution {
  bool optimal = false;
  std::string status;  // "optimal", "infeasible", "unbounded", or the solver's reason
  double objective = 0.0;
  std::vector<double> x;  // one value per variable (empty unless optimal)
};

class LinearProgram {
 public:
  // A variable lower <= x <= upper (either may be +-kLpInfinity) with objective coefficient `objective`; returns
  // its index.
  int add_variable(double lower, double upper, double objective);
  // lower <= sum of coefficient x variable <= upper over (variable index, coefficient) pairs.
  void add_row(const std::vector<std::pair<int, double>>& terms, double lower, double upper);
  void maximise() { maximise_ = true; }
  [[nodiscard]] int variables() const { return static_cast<int>(lower_.size()); }
  [[nodiscard]] int rows() const { return static_cast<int>(row_lower_.size()); }
  // Solves from scratch. std::invalid_argument for a NaN coefficient or bound, or a term naming no variable.
  [[nodiscard]] LpSolution solve() const;

 private:
  std::vector<double> lower_, upper_, objective_;
  std::vector<double> row_lower_, row_upper_;
  std::vector<int> term_row_, term_col_;
  std::vector<double> term_value_;
  bool maximise_ = false;
};

}  // namespace ringsched::models
