// strategies/gavel_allocation.cpp — Gavel's max-min fairness programs, stated for CLP.
#include "strategies/gavel_allocation.h"

#include <algorithm>
#include <memory>
#include <stdexcept>
#include <utility>

#include "models/lp.h"

namespace ringsched {
namespace {

void check_sizes(const GavelProblem& p) {
  const std::size_t m = p.throughput.size();
  if (p.scale_factor.size() != m || p.priority_weight.size() != m) {
    throw std::invalid_argument("gavel allocation: one scale factor and priority weight per job");
  }
  for (const auto& row : p.throughput) {
    if (row.size() != p.workers.size()) throw std::invalid_argument("gavel allocation: one throughput per GPU type");
  }
}

// x[i][k] >= 0 for every job and type: the variables' indices.
std::vector<std::vector<int>> add_allocation_variables(models::LinearProgram& lp, std::size_t m, std::size_t n) {
  std::vector<std::vector<int>> var(m, std::vector<int>(n, -1));
  for (std::size_t i = 0; i < m; ++i)
    for (std::size_t k = 0; k < n; ++k)
      var[i][k] = lp.add_variable(0.0, models::kLpInfinity, 0.0);
  return var;
}

// Per type: sum_i s[i] x[i][k] <= N[k].
void add_capacity_rows(models::LinearProgram& lp, const GavelProblem& p, const std::vector<std::vector<int>>& var) {
  for (std::size_t k = 0; k < p.workers.size(); ++k) {
    std::vector<std::pair<int, double>> capacity;
    for (std::size_t i = 0; i < var.size(); ++i)
      capacity.emplace_back(var[i][k], static_cast<double>(p.scale_factor[i]));
    lp.add_row(capacity, -models::kLpInfinity, static_cast<double>(p.workers[k]));
  }
}

// Reads x back clipped to [0, 1], as Gavel does; false (with the solver's word) when not optimal.
bool read_allocation(const models::LpSolution& s, const std::vector<std::vector<int>>& var, GavelAllocation& out) {
  out.optimal = s.optimal;
  out.status = s.status;
  if (!s.optimal) return false;
  out.objective = s.objective;
  out.x.assign(var.size(), std::vector<double>(var.empty() ? 0 : var[0].size(), 0.0));
  for (std::size_t i = 0; i < var.size(); ++i)
    for (std::size_t k = 0; k < var[i].size(); ++k)
      out.x[i][k] = std::clamp(s.x[static_cast<std::size_t>(var[i][k])], 0.0, 1.0);
  return true;
}

bool solve_allocation(const models::LinearProgram& lp, const std::vector<std::vector<int>>& var, GavelAllocation& out) {
  return read_allocation(lp.solve(), var, out);
}

}  // namespace

namespace {

// A program's layout by job: its variables [col_start, col_start + col_count) and rows likewise; the rest shared.
struct JobLayout {
  int col_start = 0, col_count = 0, row_start = 0, row_count = 0;
};

// The starting basis from `warm`: each job's part when it has one of the same shape, else its variables at their
// lower bound and its rows' slacks basic; the shared part likewise (free variables nonbasic at 0).
models::LpBasis warm_basis(const GavelProblem& p, const std::vector<JobLayout>& layout, int columns, int rows) {
  models::LpBasis b;
  b.columns.assign(static_cast<std::size_t>(columns), 3);  // at lower bound
  b.rows.assign(static_cast<std::size_t>(rows), 1);        // basic slack
  std::vector<char> mine_col(static_cast<std::size_t>(columns), 0);
  std::vector<char> mine_row(static_cast<std::size_t>(rows), 0);
  for (std::size_t i = 0; i < layout.size(); ++i) {
    const JobLayout& l = layout[i];
    for (int c = 0; c < l.col_count; ++c)
      mine_col[static_cast<std::size_t>(l.col_start + c)] = 1;
    for (int r = 0; r < l.row_count; ++r)
      mine_row[static_cast<std::size_t>(l.row_start + r)] = 1;
    const auto it = p.warm->jobs.find(p.ids[i]);
    if (it == p.warm->jobs.end() || static_cast<int>(it->second.columns.size()) != l.col_count ||
        static_cast<int>(it->second.rows.size()) != l.row_count) {
      continue;
    }
    std::copy(it->second.columns.begin(), it->second.columns.end(), b.columns.begin() + l.col_start);
    std::copy(it->second.rows.begin(), it->second.rows.end(), b.rows.begin() + l.row_start);
  }
  std::size_t sc = 0;
  for (int c = 0; c < columns; ++c) {
    if (mine_col[static_cast<std::size_t>(c)]) continue;
    b.columns[static_cast<std::size_t>(c)] = sc < p.warm->shared.columns.size() ? p.warm->shared.columns[sc] : 0;
    ++sc;
  }
  std::size_t sr = 0;
  for (int r = 0; r < rows; ++r) {
    if (mine_row[static_cast<std::size_t>(r)]) continue;
    if (sr < p.warm->shared.rows.size()) b.rows[static_cast<std::size_t>(r)] = p.warm->shared.rows[sr];
    ++sr;
  }
  return b;
}

// Keeps the solved basis by job id for the next program.
void keep_basis(const GavelProblem& p, const std::vector<JobLayout>& layout, const models::LpBasis& b) {
  GavelWarmStart& w = *p.warm;
  w.jobs.clear();
  w.shared = {};
  if (b.columns.empty()) return;
  std::vector<char> mine_col(b.columns.size(), 0);
  std::vector<char> mine_row(b.rows.size(), 0);
  for (std::size_t i = 0; i < layout.size(); ++i) {
    const JobLayout& l = layout[i];
    GavelWarmStart::Part part;
    part.columns.assign(b.columns.begin() + l.col_start, b.columns.begin() + l.col_start + l.col_count);
    part.rows.assign(b.rows.begin() + l.row_start, b.rows.begin() + l.row_start + l.row_count);
    for (int c = 0; c < l.col_count; ++c)
      mine_col[static_cast<std::size_t>(l.col_start + c)] = 1;
    for (int r = 0; r < l.row_count; ++r)
      mine_row[static_cast<std::size_t>(l.row_start + r)] = 1;
    w.jobs[p.ids[i]] = std::move(part);
  }
  for (std::size_t c = 0; c < b.columns.size(); ++c)
    if (!mine_col[c]) w.shared.columns.push_back(b.columns[c]);
  for (std::size_t r = 0; r < b.rows.size(); ++r)
    if (!mine_row[r]) w.shared.rows.push_back(b.rows[r]);
}

}  // namespace

GavelAllocation max_min_fairness(const GavelProblem& p, bool perf) {
  check_sizes(p);
  const std::size_t m = p.throughput.size();
  const std::size_t n = p.workers.size();
  GavelAllocation out;
  out.x.assign(m, std::vector<double>(n, 0.0));
  if (m == 0) {
    out.optimal = true;
    return out;
  }
  double total_workers = 0.0;
  for (int w : p.workers)
    total_workers += w;
  models::LinearProgram lp;
  const auto var = add_allocation_variables(lp, m, n);
  const int t = lp.add_variable(-models::kLpInfinity, models::kLpInfinity, 1.0);
  lp.maximise();
  bool bounded = false;
  const bool warm = p.warm != nullptr && p.ids.size() == m;
  std::vector<JobLayout> layout(m);
  for (std::size_t i = 0; i < m; ++i) {
    layout[i].col_start = var[i][0];
    layout[i].col_count = static_cast<int>(n);
    layout[i].row_start = lp.rows();
    const auto tput = [&](std::size_t k) { return perf ? p.throughput[i][k] : 1.0; };
    double proportional = 0.0;  // P[i]
    for (std::size_t k = 0; k < n; ++k)
      proportional += tput(k) * p.workers[k] / total_workers;
    if (!(proportional > 0.0)) {
      for (std::size_t k = 0; k < n; ++k)
        lp.add_row({{var[i][k], 1.0}}, 0.0, 0.0);  // runs nowhere: nothing
      layout[i].row_count = lp.rows() - layout[i].row_start;
      continue;
    }
    std::vector<std::pair<int, double>> terms;
    for (std::size_t k = 0; k < n; ++k)
      terms.emplace_back(var[i][k], tput(k) * p.scale_factor[i] / (p.priority_weight[i] * proportional));
    terms.emplace_back(t, -1.0);
    lp.add_row(terms, 0.0, models::kLpInfinity);  // sum_k c x - t >= 0
    bounded = true;
    std::vector<std::pair<int, double>> budget;
    for (std::size_t k = 0; k < n; ++k)
      budget.emplace_back(var[i][k], 1.0);
    lp.add_row(budget, -models::kLpInfinity, 1.0);
    layout[i].row_count = lp.rows() - layout[i].row_start;
  }
  if (!bounded) {  // no job enters the minimum (none runs anywhere): nothing to share
    out.optimal = true;
    return out;
  }
  add_capacity_rows(lp, p, var);
  if (warm) lp.start_from(warm_basis(p, layout, lp.variables(), lp.rows()));
  const models::LpSolution sol = lp.solve();
  read_allocation(sol, var, out);
  if (warm) keep_basis(p, layout, sol.basis);
  return out;
}

std::vector<double> isolated_throughputs(const GavelProblem& p) {
  check_sizes(p);
  const std::size_t m = p.throughput.size();
  double total = 0.0;
  for (int w : p.workers)
    total += w;
  std::vector<double> out(m, 0.0);
  for (std::size_t i = 0; i < m; ++i) {
    const double share = static_cast<double>(m) * p.scale_factor[i];
    const double scale = std::max(1.0, total / share);
    for (std::size_t k = 0; k < p.workers.size(); ++k)
      out[i] += p.throughput[i][k] * (p.workers[k] / share) / scale;
  }
  return out;
}

namespace {

// The feasibility programs of finish-time fairness, one per level r, kept loaded: only the rate rows' lower bounds
// depend on r, so each level is solved from the previous level's basis.
class FtfLevels {
 public:
  FtfLevels(const GavelProblem& p, const std::vector<double>& since_start, const std::vector<double>& remaining,
            const std::vector<double>& isolated_time)
      : since_(since_start), remaining_(remaining), isolated_(isolated_time) {
    const std::size_t m = p.throughput.size();
    const std::size_t n = p.workers.size();
    models::LinearProgram lp;
    var_ = add_allocation_variables(lp, m, n);
    rate_row_.assign(m, -1);
    for (std::size_t i = 0; i < m; ++i) {
      std::vector<std::pair<int, double>> rate;
      std::vector<std::pair<int, double>> budget;
      for (std::size_t k = 0; k < n; ++k) {
        rate.emplace_back(var_[i][k], p.throughput[i][k]);
        budget.emplace_back(var_[i][k], 1.0);
      }
      lp.add_row(budget, -models::kLpInfinity, 1.0);
      if (remaining[i] > 0.0) rate_row_[i] = lp.add_row(rate, 0.0, models::kLpInfinity);
    }
    add_capacity_rows(lp, p, var_);
    session_ = std::make_unique<models::LpSession>(lp);
  }

  // The allocation at level r (optimal = false when no allocation reaches it).
  GavelAllocation at(double r) {
    GavelAllocation out;
    for (std::size_t i = 0; i < rate_row_.size(); ++i) {
      if (rate_row_[i] < 0) continue;
      const double slack = r * isolated_[i] - since_[i];
      if (!(slack > 0.0)) return out;  // even infinite speed finishes too late
      session_->set_row_bounds(rate_row_[i], remaining_[i] / slack, models::kLpInfinity);
    }
    if (read_allocation(session_->solve(), var_, out)) out.objective = r;
    return out;
  }

 private:
  const std::vector<double>& since_;
  const std::vector<double>& remaining_;
  const std::vector<double>& isolated_;
  std::vector<std::vector<int>> var_;
  std::vector<int> rate_row_;
  std::unique_ptr<models::LpSession> session_;
};

// Bisects (lo, hi], hi feasible with allocation `best`, to a relative `tolerance`.
GavelAllocation bisect_ftf(FtfLevels& levels, double lo, double hi, GavelAllocation best, double tolerance) {
  while (hi - lo > tolerance * hi) {
    const double mid = 0.5 * (lo + hi);
    GavelAllocation at = levels.at(mid);
    if (at.optimal) {
      hi = mid;
      best = std::move(at);
    } else {
      lo = mid;
    }
  }
  return best;
}

}  // namespace

GavelAllocation finish_time_fairness(const GavelProblem& p, const std::vector<double>& since_start,
                                     const std::vector<double>& remaining, const std::vector<double>& isolated_time,
                                     double guess, double tolerance) {
  check_sizes(p);
  const std::size_t m = p.throughput.size();
  if (since_start.size() != m || remaining.size() != m || isolated_time.size() != m) {
    throw std::invalid_argument("gavel allocation: one start time, remaining work and isolated time per job");
  }
  double lo = 0.0;  // rho >= since_start / isolated_time whatever the allocation
  for (std::size_t i = 0; i < m; ++i) {
    if (!(isolated_time[i] > 0.0)) throw std::invalid_argument("gavel allocation: a non-positive isolated time");
    lo = std::max(lo, since_start[i] / isolated_time[i]);
  }
  FtfLevels levels(p, since_start, remaining, isolated_time);
  double hi = std::max(1.0, 2.0 * lo);
  if (guess > lo) {  // bracket the previous optimum first: it moves little between allocations
    const double up = guess * 1.01;
    GavelAllocation at_up = levels.at(up);
    if (at_up.optimal) {
      const double down = std::max(lo, guess / 1.01);
      GavelAllocation at_down = levels.at(down);
      if (at_down.optimal) {
        hi = down;
        at_up = std::move(at_down);
      } else {
        lo = down;
        hi = up;
      }
      return bisect_ftf(levels, lo, hi, std::move(at_up), tolerance);
    }
    lo = up;
    hi = 2.0 * up;
  }
  GavelAllocation best = levels.at(hi);
  for (int i = 0; i < 200 && !best.optimal; ++i) {
    lo = hi;
    hi *= 2.0;
    best = levels.at(hi);
  }
  if (!best.optimal) {
    best.status = "no level of finish-time fairness is feasible (" + best.status + ")";
    return best;
  }
  return bisect_ftf(levels, lo, hi, std::move(best), tolerance);
}

double gavel_makespan_search(double t_star) {
  double lo = 100.0;
  double hi = 1e6;
  double last_hi = 1e6;
  double found = -1.0;
  while (found < 0.0 && last_hi < 1e300) {
    while (1.05 * lo < hi) {
      const double t = 0.5 * (lo + hi);
      if (t >= t_star) {
        found = t;
        hi = t;
      } else {
        lo = t;
      }
    }
    hi = last_hi * 10.0;
    lo = last_hi;
    last_hi *= 10.0;
  }
  return found;
}

GavelAllocation min_total_duration(const GavelProblem& p, const std::vector<double>& remaining) {
  check_sizes(p);
  const std::size_t m = p.throughput.size();
  const std::size_t n = p.workers.size();
  if (remaining.size() != m) throw std::invalid_argument("gavel allocation: one remaining work per job");
  GavelAllocation out;
  out.x.assign(m, std::vector<double>(n, 0.0));
  bool any = false;
  for (std::size_t i = 0; i < m; ++i) {
    if (!(remaining[i] > 0.0)) continue;
    any = true;
    if (std::none_of(p.throughput[i].begin(), p.throughput[i].end(), [](double t) { return t > 0.0; })) {
      out.status = "job " + std::to_string(i) + " has steps left and runs on no GPU type, so no horizon is feasible";
      return out;
    }
  }
  if (!any) {
    out.optimal = true;
    return out;
  }
  models::LinearProgram lp;
  const auto var = add_allocation_variables(lp, m, n);
  const int z = lp.add_variable(0.0, models::kLpInfinity, 1.0);
  lp.maximise();
  for (std::size_t i = 0; i < m; ++i) {
    std::vector<std::pair<int, double>> budget;
    std::vector<std::pair<int, double>> rate;
    for (std::size_t k = 0; k < n; ++k) {
      budget.emplace_back(var[i][k], 1.0);
      rate.emplace_back(var[i][k], p.throughput[i][k]);
    }
    lp.add_row(budget, -models::kLpInfinity, 1.0);
    if (!(remaining[i] > 0.0)) continue;
    rate.emplace_back(z, -remaining[i]);
    lp.add_row(rate, 0.0, models::kLpInfinity);  // sum_k T x - R z >= 0
  }
  add_capacity_rows(lp, p, var);
  if (!solve_allocation(lp, var, out)) return out;
  out.objective = gavel_makespan_search(1.0 / out.objective);
  return out;
}

}  // namespace ringsched
