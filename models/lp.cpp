// models/lp.cpp — a LinearProgram handed to CLP's dual simplex.
#include "models/lp.h"

#include <cmath>
#include <stdexcept>

#include <ClpSimplex.hpp>
#include <CoinPackedMatrix.hpp>

namespace ringsched::models {
namespace {

double to_clp(double v) {
  if (std::isnan(v)) throw std::invalid_argument("linear program: a NaN bound or coefficient");
  if (v == kLpInfinity) return COIN_DBL_MAX;
  if (v == -kLpInfinity) return -COIN_DBL_MAX;
  return v;
}

}  // namespace

int LinearProgram::add_variable(double lower, double upper, double objective) {
  lower_.push_back(to_clp(lower));
  upper_.push_back(to_clp(upper));
  objective_.push_back(to_clp(objective));
  return static_cast<int>(lower_.size()) - 1;
}

void LinearProgram::add_row(const std::vector<std::pair<int, double>>& terms, double lower, double upper) {
  const int row = static_cast<int>(row_lower_.size());
  for (const auto& [col, value] : terms) {
    if (col < 0 || col >= variables()) throw std::invalid_argument("linear program: a term names no variable");
    term_row_.push_back(row);
    term_col_.push_back(col);
    term_value_.push_back(to_clp(value));
  }
  row_lower_.push_back(to_clp(lower));
  row_upper_.push_back(to_clp(upper));
}

LpSolution LinearProgram::solve() const {
  LpSolution out;
  try {
    CoinPackedMatrix matrix(true, term_row_.data(), term_col_.data(), term_value_.data(),
                            static_cast<CoinBigIndex>(term_value_.size()));
    // The matrix sizes itself by the largest index present: give it every row and column explicitly.
    matrix.setDimensions(rows(), variables());
    ClpSimplex model;
    model.setLogLevel(0);
    model.loadProblem(matrix, lower_.data(), upper_.data(), objective_.data(), row_lower_.data(), row_upper_.data());
    model.setOptimizationDirection(maximise_ ? -1.0 : 1.0);
    model.dual();
    if (model.isProvenOptimal()) {
      out.optimal = true;
      out.status = "optimal";
      out.objective = model.objectiveValue();
      const double* x = model.getColSolution();
      out.x.assign(x, x + variables());
    } else if (model.isProvenPrimalInfeasible()) {
      out.status = "infeasible";
    } else if (model.isProvenDualInfeasible()) {
      out.status = "unbounded";
    } else {
      out.status = "not solved (CLP status " + std::to_string(model.status()) + ")";
    }
  } catch (const CoinError& e) {
    out.status = "CLP error: " + e.message();
  } catch (const std::exception& e) {
    out.status = std::string("CLP error: ") + e.what();
  }
  return out;
}

}  // namespace ringsched::models
