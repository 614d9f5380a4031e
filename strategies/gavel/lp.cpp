// strategies/gavel/lp.cpp — a LinearProgram handed to CLP's dual simplex.
#include "strategies/gavel/lp.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include <ClpSimplex.hpp>
#include <ClpSolve.hpp>
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

int LinearProgram::add_row(const std::vector<std::pair<int, double>>& terms, double lower, double upper) {
  const int row = static_cast<int>(row_lower_.size());
  for (const auto& [col, value] : terms) {
    if (col < 0 || col >= variables()) throw std::invalid_argument("linear program: a term names no variable");
    term_row_.push_back(row);
    term_col_.push_back(col);
    term_value_.push_back(to_clp(value));
  }
  row_lower_.push_back(to_clp(lower));
  row_upper_.push_back(to_clp(upper));
  return row;
}

namespace {

// Loads the program into `model` (every row and column given explicitly: the matrix would size itself by the
// largest index present).
void load(ClpSimplex& model, const std::vector<int>& rows_of, const std::vector<int>& cols_of,
          const std::vector<double>& values, int rows, int variables, const std::vector<double>& lower,
          const std::vector<double>& upper, const std::vector<double>& objective, const std::vector<double>& row_lower,
          const std::vector<double>& row_upper, bool maximise) {
  // Column by column, each column's rows in the order the rows were added (ascending), explicit zeros left out: what
  // CoinPackedMatrix's triplet constructor builds from these triplets, without its sort. A row naming a variable
  // twice (which that constructor would handle its own way) goes through it instead.
  std::vector<CoinBigIndex> start(static_cast<std::size_t>(variables) + 1, 0);
  for (std::size_t e = 0; e < values.size(); ++e)
    if (values[e] != 0.0) ++start[static_cast<std::size_t>(cols_of[e]) + 1];
  for (std::size_t c = 0; c < static_cast<std::size_t>(variables); ++c)
    start[c + 1] += start[c];
  std::vector<int> index(static_cast<std::size_t>(start.back()));
  std::vector<double> element(index.size());
  std::vector<CoinBigIndex> next(start.begin(), start.end() - 1);
  bool repeated = false;
  for (std::size_t e = 0; e < values.size(); ++e) {
    if (values[e] == 0.0) continue;
    const auto c = static_cast<std::size_t>(cols_of[e]);
    const auto at = static_cast<std::size_t>(next[c]++);
    repeated = repeated || (at > static_cast<std::size_t>(start[c]) && index[at - 1] == rows_of[e]);
    index[at] = rows_of[e];
    element[at] = values[e];
  }
  std::vector<int> length(static_cast<std::size_t>(variables));
  for (std::size_t c = 0; c < length.size(); ++c)
    length[c] = static_cast<int>(start[c + 1] - start[c]);
  CoinPackedMatrix matrix = repeated ? CoinPackedMatrix(true, rows_of.data(), cols_of.data(), values.data(),
                                                        static_cast<CoinBigIndex>(values.size()))
                                     : CoinPackedMatrix(true, rows, variables, start.back(), element.data(),
                                                        index.data(), start.data(), length.data());
  matrix.setDimensions(rows, variables);
  model.setLogLevel(0);
  model.loadProblem(matrix, lower.data(), upper.data(), objective.data(), row_lower.data(), row_upper.data());
  model.setOptimizationDirection(maximise ? -1.0 : 1.0);
}

// Sets the starting basis when it fits the model.
void set_basis(ClpSimplex& model, const LpBasis& b, int rows, int variables) {
  if (static_cast<int>(b.columns.size()) != variables || static_cast<int>(b.rows.size()) != rows) return;
  model.createStatus();
  for (int j = 0; j < variables; ++j)
    model.setColumnStatus(j, static_cast<ClpSimplex::Status>(b.columns[static_cast<std::size_t>(j)] & 7));
  for (int i = 0; i < rows; ++i)
    model.setRowStatus(i, static_cast<ClpSimplex::Status>(b.rows[static_cast<std::size_t>(i)] & 7));
}

// Runs the dual simplex from the model's current basis and reads the answer.
LpSolution run_dual(ClpSimplex& model, int variables) {
  LpSolution out;
  try {
    model.dual();
    if (model.isProvenOptimal()) {
      out.optimal = true;
      out.status = "optimal";
      out.objective = model.objectiveValue();
      const double* x = model.getColSolution();
      out.x.assign(x, x + variables);
      const double* y = model.dualRowSolution();
      out.duals.assign(y, y + model.numberRows());
      out.basis.columns.resize(static_cast<std::size_t>(variables));
      for (int j = 0; j < variables; ++j)
        out.basis.columns[static_cast<std::size_t>(j)] = static_cast<unsigned char>(model.getColumnStatus(j));
      out.basis.rows.resize(static_cast<std::size_t>(model.numberRows()));
      for (int i = 0; i < model.numberRows(); ++i)
        out.basis.rows[static_cast<std::size_t>(i)] = static_cast<unsigned char>(model.getRowStatus(i));
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

// Whether the barrier's point keeps every variable and row within its bounds to 1e-6 (relative to the bound's size):
// CLP's barrier can stop with status 0 at a point of an infeasible program.
bool barrier_feasible(const ClpSimplex& model) {
  const auto within = [](double v, double lo, double hi) {
    const double tol = 1e-6;
    return v >= lo - tol * std::max(1.0, std::fabs(lo)) && v <= hi + tol * std::max(1.0, std::fabs(hi));
  };
  const double* x = model.getColSolution();
  for (int j = 0; j < model.numberColumns(); ++j)
    if (!within(x[j], model.getColLower()[j], model.getColUpper()[j])) return false;
  std::vector<double> activity(static_cast<std::size_t>(model.numberRows()), 0.0);
  model.matrix()->times(x, activity.data());
  for (int i = 0; i < model.numberRows(); ++i)
    if (!within(activity[static_cast<std::size_t>(i)], model.getRowLower()[i], model.getRowUpper()[i])) return false;
  return true;
}

}  // namespace

LpSolution LinearProgram::solve() const {
  try {
    static thread_local const ClpSimplex blank;
    ClpSimplex model(blank);
    load(model, term_row_, term_col_, term_value_, rows(), variables(), lower_, upper_, objective_, row_lower_,
         row_upper_, maximise_);
    set_basis(model, start_, rows(), variables());
    return run_dual(model, variables());
  } catch (const CoinError& e) {
    LpSolution out;
    out.status = "CLP error: " + e.message();
    return out;
  }
}

LpSolution LinearProgram::solve_centre() const {
  LpSolution out;
  try {
    static thread_local const ClpSimplex blank;
    ClpSimplex model(blank);
    load(model, term_row_, term_col_, term_value_, rows(), variables(), lower_, upper_, objective_, row_lower_,
         row_upper_, maximise_);
    ClpSolve options;
    options.setSolveType(ClpSolve::useBarrierNoCross);
    options.setPresolveType(ClpSolve::presolveOff);  // presolve would fix the free directions the centre spreads over
    model.initialSolve(options);
    // The barrier's status: 0 optimal; without crossover CLP reports no basis. Its point is taken only when it keeps
    // every bound (CLP's barrier can stop with status 0 short of feasibility); otherwise the dual simplex decides.
    if (model.status() == 0 && barrier_feasible(model)) {
      out.optimal = true;
      out.status = "optimal";
      out.objective = model.objectiveValue();
      const double* x = model.getColSolution();
      out.x.assign(x, x + variables());
      const double* y = model.dualRowSolution();
      out.duals.assign(y, y + model.numberRows());
      return out;
    }
  } catch (const CoinError&) {  // the simplex below decides
  } catch (const std::exception&) {
  }
  LpSolution vertex = solve();
  vertex.vertex_fallback = true;
  return vertex;
}

struct LpSession::Impl {
  ClpSimplex model;
};

LpSession::LpSession(const LinearProgram& lp)
    : impl_(std::make_unique<Impl>()), rows_(lp.rows()), variables_(lp.variables()) {
  try {
    load(impl_->model, lp.term_row_, lp.term_col_, lp.term_value_, lp.rows(), lp.variables(), lp.lower_, lp.upper_,
         lp.objective_, lp.row_lower_, lp.row_upper_, lp.maximise_);
    set_basis(impl_->model, lp.start_, lp.rows(), lp.variables());
  } catch (const CoinError& e) {
    throw std::runtime_error("linear program: CLP could not load it: " + e.message());
  }
}

LpSession::~LpSession() = default;

void LpSession::set_row_bounds(int row, double lower, double upper) {
  if (row < 0 || row >= rows_) throw std::invalid_argument("linear program: a row out of range");
  impl_->model.setRowBounds(row, to_clp(lower), to_clp(upper));
}

LpSolution LpSession::solve() {
  return run_dual(impl_->model, variables_);
}

}  // namespace ringsched::models
