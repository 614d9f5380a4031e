// strategies/gavel/gavel_allocation.cpp — Gavel's max-min fairness programs, stated for CLP.
#include "strategies/gavel/gavel_allocation.h"

#include <algorithm>
#include <cstdio>
#include <iterator>
#include <memory>
#include <stdexcept>
#include <string>
#include <utility>

#include "strategies/gavel/lp.h"

namespace ringsched {

std::string unsolved_program_message(const std::string& who, double now, const std::vector<std::string>& jobs,
                                     const std::string& status) {
  std::string list;
  for (std::size_t i = 0; i < jobs.size() && i < 20; ++i)
    list += (i == 0 ? "" : ", ") + jobs[i];
  if (jobs.size() > 20) list += ", ... (" + std::to_string(jobs.size()) + " jobs)";
  char when[64];
  std::snprintf(when, sizeof when, "%.0f", now);
  return who + ": the allocation program of the round at t = " + when + " s over jobs " + list + " was not solved (" +
         status + ")";
}

void check_gavel_problem(const GavelProblem& p) {
  const std::size_t m = p.throughput.size();
  if (p.scale_factor.size() != m || p.priority_weight.size() != m) {
    throw std::invalid_argument("gavel allocation: one scale factor and priority weight per job");
  }
  for (const auto& row : p.throughput) {
    if (row.size() != p.workers.size()) throw std::invalid_argument("gavel allocation: one throughput per GPU type");
  }
}

namespace {

// x[i][k] >= 0 for every job and type: the variables' indices.
std::vector<std::vector<int>> add_allocation_variables(models::LinearProgram& lp, std::size_t m, std::size_t n) {
  std::vector<std::vector<int>> var(m, std::vector<int>(n, -1));
  for (std::size_t i = 0; i < m; ++i)
    for (std::size_t k = 0; k < n; ++k)
      var[i][k] = lp.add_variable(0.0, models::kLpInfinity, 0.0);
  return var;
}

// Per type: sum_i s[i] x[i][k] <= N[k] (and the variables of jobs that have left, `ghosts`, with their s).
void add_capacity_rows(models::LinearProgram& lp, const GavelProblem& p, const std::vector<std::vector<int>>& var,
                       const std::vector<std::vector<int>>& ghosts = {}, const std::vector<int>& ghost_sf = {}) {
  for (std::size_t k = 0; k < p.workers.size(); ++k) {
    std::vector<std::pair<int, double>> capacity;
    for (std::size_t i = 0; i < var.size(); ++i)
      capacity.emplace_back(var[i][k], static_cast<double>(p.scale_factor[i]));
    for (std::size_t g = 0; g < ghosts.size(); ++g)
      capacity.emplace_back(ghosts[g][k], static_cast<double>(ghost_sf[g]));
    lp.add_row(capacity, -models::kLpInfinity, static_cast<double>(p.workers[k]));
  }
}

// Job i's time budget, sum_k x[i][k] <= 1; returns the terms of its rate, sum_k T[i][k] x[i][k].
std::vector<std::pair<int, double>> add_budget_row(models::LinearProgram& lp, const GavelProblem& p,
                                                   const std::vector<std::vector<int>>& var, std::size_t i) {
  std::vector<std::pair<int, double>> budget;
  std::vector<std::pair<int, double>> rate;
  for (std::size_t k = 0; k < p.workers.size(); ++k) {
    budget.emplace_back(var[i][k], 1.0);
    rate.emplace_back(var[i][k], p.throughput[i][k]);
  }
  lp.add_row(budget, -models::kLpInfinity, 1.0);
  return rate;
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

// GavelProblem::centre for the policies whose answer is any allocation that gives each job at least a rate: the
// interior point of {budget and capacity rows, sum_k T[i][k] x[i][k] >= need[i] for need[i] > 0} that CLP's barrier
// reaches with a zero objective (near its analytic centre), as ECOS answers Gavel's feasibility programs. Replaces
// out.x and says true when the barrier finds one; leaves `out` alone otherwise (the vertex stays the answer).
bool centre_of_rates(const GavelProblem& p, const std::vector<double>& need, GavelAllocation& out) {
  const std::size_t m = p.throughput.size();
  const std::size_t n = p.workers.size();
  models::LinearProgram lp;
  const auto var = add_allocation_variables(lp, m, n);
  for (std::size_t i = 0; i < m; ++i) {
    const auto rate = add_budget_row(lp, p, var, i);
    if (need[i] > 0.0) lp.add_row(rate, need[i], models::kLpInfinity);
  }
  add_capacity_rows(lp, p, var);
  GavelAllocation centre;
  if (!read_allocation(lp.solve_centre(), var, centre)) return false;
  out.x = std::move(centre.x);
  return true;
}

}  // namespace

namespace {

// A program's layout by job: its variables [col_start, col_start + col_count) and rows likewise; the rest shared. A
// ghost is a job of the last program that has left: kept in this one (its variables fixed at 0), so that the last
// basis fits, and forgotten after.
struct JobLayout {
  int col_start = 0, col_count = 0, row_start = 0, row_count = 0;
  int id = 0;
  bool ghost = false;
};

// The starting basis from `warm`: each job's part when it has one of the same shape, else its variables at their
// lower bound and its rows' slacks basic; the shared part likewise (free variables nonbasic at 0).
models::LpBasis warm_basis(const GavelWarmStart& warm, const std::vector<JobLayout>& layout, int columns, int rows) {
  models::LpBasis b;
  b.columns.assign(static_cast<std::size_t>(columns), 3);  // at lower bound
  b.rows.assign(static_cast<std::size_t>(rows), 1);        // basic slack
  std::vector<char> mine_col(static_cast<std::size_t>(columns), 0);
  std::vector<char> mine_row(static_cast<std::size_t>(rows), 0);
  for (const JobLayout& l : layout) {
    for (int c = 0; c < l.col_count; ++c)
      mine_col[static_cast<std::size_t>(l.col_start + c)] = 1;
    for (int r = 0; r < l.row_count; ++r)
      mine_row[static_cast<std::size_t>(l.row_start + r)] = 1;
    const auto it = warm.jobs.find(l.id);
    if (it == warm.jobs.end() || static_cast<int>(it->second.columns.size()) != l.col_count ||
        static_cast<int>(it->second.rows.size()) != l.row_count) {
      continue;
    }
    std::copy(it->second.columns.begin(), it->second.columns.end(), b.columns.begin() + l.col_start);
    std::copy(it->second.rows.begin(), it->second.rows.end(), b.rows.begin() + l.row_start);
  }
  std::size_t sc = 0;
  for (int c = 0; c < columns; ++c) {
    if (mine_col[static_cast<std::size_t>(c)]) continue;
    b.columns[static_cast<std::size_t>(c)] = sc < warm.shared.columns.size() ? warm.shared.columns[sc] : 0;
    ++sc;
  }
  std::size_t sr = 0;
  for (int r = 0; r < rows; ++r) {
    if (mine_row[static_cast<std::size_t>(r)]) continue;
    if (sr < warm.shared.rows.size()) b.rows[static_cast<std::size_t>(r)] = warm.shared.rows[sr];
    ++sr;
  }
  return b;
}

// Keeps the solved basis by job id for the next program (not the ghosts'); with `columns_of` (finish-time
// fairness) also each job's throughputs and scale factor, for it to come back as a ghost.
void keep_basis(GavelWarmStart& w, const std::vector<JobLayout>& layout, const models::LpBasis& b,
                const GavelProblem* columns_of = nullptr) {
  w.shared = {};
  if (b.columns.empty()) {
    w.jobs.clear();
    return;
  }
  // The parts of jobs still present are overwritten in place (no allocation), the others dropped.
  std::vector<int> kept;
  for (const JobLayout& l : layout)
    if (!l.ghost) kept.push_back(l.id);
  std::sort(kept.begin(), kept.end());
  for (auto it = w.jobs.begin(); it != w.jobs.end();)
    it = std::binary_search(kept.begin(), kept.end(), it->first) ? std::next(it) : w.jobs.erase(it);
  std::vector<char> mine_col(b.columns.size(), 0);
  std::vector<char> mine_row(b.rows.size(), 0);
  for (std::size_t i = 0; i < layout.size(); ++i) {
    const JobLayout& l = layout[i];
    for (int c = 0; c < l.col_count; ++c)
      mine_col[static_cast<std::size_t>(l.col_start + c)] = 1;
    for (int r = 0; r < l.row_count; ++r)
      mine_row[static_cast<std::size_t>(l.row_start + r)] = 1;
    if (l.ghost) continue;
    GavelWarmStart::Part& part = w.jobs[l.id];
    part.columns.assign(b.columns.begin() + l.col_start, b.columns.begin() + l.col_start + l.col_count);
    part.rows.assign(b.rows.begin() + l.row_start, b.rows.begin() + l.row_start + l.row_count);
    if (columns_of != nullptr) {
      part.throughput = columns_of->throughput[i];
      part.scale_factor = columns_of->scale_factor[i];
    } else {
      part.throughput.clear();
      part.scale_factor = 0;
    }
  }
  for (std::size_t c = 0; c < b.columns.size(); ++c)
    if (!mine_col[c]) w.shared.columns.push_back(b.columns[c]);
  for (std::size_t r = 0; r < b.rows.size(); ++r)
    if (!mine_row[r]) w.shared.rows.push_back(b.rows[r]);
}

}  // namespace

GavelAllocation max_min_fairness(const GavelProblem& p, bool perf) {
  check_gavel_problem(p);
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
  int last_level = t;
  const bool warm = p.warm != nullptr && p.ids.size() == m;
  std::vector<JobLayout> layout(m);
  std::vector<std::pair<int, double>> terms;
  std::vector<std::pair<int, double>> budget;
  for (std::size_t i = 0; i < m; ++i) {
    layout[i].col_start = var[i][0];
    layout[i].col_count = static_cast<int>(n);
    if (warm) layout[i].id = p.ids[i];
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
    terms.clear();
    for (std::size_t k = 0; k < n; ++k)
      terms.emplace_back(var[i][k], tput(k) * p.scale_factor[i] / (p.priority_weight[i] * proportional));
    // With the centre, each job has its own copy of t, chained equal to the last one's (t_prev - t_i = 0): the
    // same program and central path, but no column in every row, so the barrier's normal equations stay sparse.
    int level = t;
    if (p.centre && bounded) {
      level = lp.add_variable(-models::kLpInfinity, models::kLpInfinity, 0.0);
      lp.add_row({{last_level, 1.0}, {level, -1.0}}, 0.0, 0.0);
    }
    last_level = level;
    terms.emplace_back(level, -1.0);
    lp.add_row(terms, 0.0, models::kLpInfinity);  // sum_k c x - t >= 0
    bounded = true;
    budget.clear();
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
  if (p.centre) {
    read_allocation(lp.solve_centre(), var, out);
    return out;
  }
  if (warm) lp.start_from(warm_basis(*p.warm, layout, lp.variables(), lp.rows()));
  const models::LpSolution sol = lp.solve();
  read_allocation(sol, var, out);
  if (warm) keep_basis(*p.warm, layout, sol.basis);
  return out;
}

std::vector<double> isolated_throughputs(const GavelProblem& p) {
  check_gavel_problem(p);
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

// Finish-time fairness at level r: job i (with steps left, on some type) needs the rate d_i(r) = R[i] / (r Q[i] -
// S[i]) (Q: isolated time, S: time since arrival) for rho_i <= r. One program per allocation, kept loaded across
// levels (only the rate rows' lower bounds depend on r, so each level starts from the last one's basis): minimise s
// subject to sum_k T[i][k] x[i][k] + c[i] s >= d_i(r) for those jobs and the base rows, with c[i] = P[i] (the job's
// throughput on a capacity-proportional share, fixed for good), so s is the shortfall of the job worst off in units
// of its share. Its optimum F(r) is <= 0 iff level r is feasible, and F is convex and decreasing in r (the d_i are,
// and F is nondecreasing and convex in them).
class FtfLevels {
 public:
  FtfLevels(const GavelProblem& p, const std::vector<double>& since_start, const std::vector<double>& remaining,
            const std::vector<double>& isolated_time)
      : since_(since_start), remaining_(remaining), isolated_(isolated_time) {
    const std::size_t m = p.throughput.size();
    const std::size_t n = p.workers.size();
    models::LinearProgram lp;
    var_ = add_allocation_variables(lp, m, n);
    shortfall_ = lp.add_variable(-models::kLpInfinity, models::kLpInfinity, 1.0);
    rate_row_.assign(m, -1);
    layout_.resize(m);
    double total_workers = 0.0;
    for (int w : p.workers)
      total_workers += w;
    const auto share = [&](const std::vector<double>& tput) {  // c[i] = P[i]
      double proportional = 0.0;
      for (std::size_t k = 0; k < n; ++k)
        proportional += tput[k] * p.workers[k] / total_workers;
      return proportional;
    };
    const bool warm = p.warm != nullptr && p.ids.size() == m;
    double floor = 0.0;  // s >= floor at every level: no job can get more than max_k T[i][k]
    for (std::size_t i = 0; i < m; ++i) {
      layout_[i] = {var_[i].empty() ? 0 : var_[i][0], static_cast<int>(n), lp.rows(), 1, warm ? p.ids[i] : 0, false};
      std::vector<std::pair<int, double>> rate;
      std::vector<std::pair<int, double>> budget;
      bool runs = false;
      for (std::size_t k = 0; k < n; ++k) {
        rate.emplace_back(var_[i][k], p.throughput[i][k]);
        budget.emplace_back(var_[i][k], 1.0);
        runs = runs || p.throughput[i][k] > 0.0;
      }
      lp.add_row(budget, -models::kLpInfinity, 1.0);
      if (!(remaining[i] > 0.0) || !runs) continue;
      const double c = share(p.throughput[i]);
      rate.emplace_back(shortfall_, c);
      rate_row_[i] = lp.add_row(rate, 0.0, models::kLpInfinity);
      layout_[i].row_count = 2;
      rated_.push_back(i);
      floor = std::min(floor, -*std::max_element(p.throughput[i].begin(), p.throughput[i].end()) / c);
    }
    // The last program's jobs that have left, as ghosts: their variables fixed at 0 and their rate rows' lower
    // bounds below anything c s can reach, so that they never bind. Only bounds differ from the last program, so
    // its basis stays dual feasible: the dual simplex has only bounds to repair (a few pivots per job that came or
    // left), not the thousand pivots of a start from scratch at 10x scale.
    std::vector<std::vector<int>> ghost_var;
    std::vector<int> ghost_sf;
    if (warm) {
      std::vector<int> present(p.ids);
      std::sort(present.begin(), present.end());
      for (const auto& [id, part] : p.warm->jobs) {
        if (part.rows.size() != 2 || part.throughput.size() != n ||
            std::binary_search(present.begin(), present.end(), id)) {
          continue;
        }
        std::vector<int> v(n);
        std::vector<std::pair<int, double>> rate;
        std::vector<std::pair<int, double>> budget;
        for (std::size_t k = 0; k < n; ++k) {
          v[k] = lp.add_variable(0.0, 0.0, 0.0);
          rate.emplace_back(v[k], part.throughput[k]);
          budget.emplace_back(v[k], 1.0);
        }
        layout_.push_back({v.empty() ? 0 : v[0], static_cast<int>(n), lp.rows(), 2, id, true});
        lp.add_row(budget, -models::kLpInfinity, 1.0);
        const double c = share(part.throughput);
        rate.emplace_back(shortfall_, c);
        lp.add_row(rate, c * (2.0 * floor - 1.0), models::kLpInfinity);
        ghost_var.push_back(std::move(v));
        ghost_sf.push_back(part.scale_factor);
      }
    }
    add_capacity_rows(lp, p, var_, ghost_var, ghost_sf);
    if (warm) {
      warm_ = &p;
      lp.start_from(warm_basis(*p.warm, layout_, lp.variables(), lp.rows()));
    }
    if (!rated_.empty()) session_ = std::make_unique<models::LpSession>(lp);
  }

  // Keeps the last solve's basis by job id (GavelProblem::warm), for the next allocation's first program.
  void keep(const models::LpSolution& last) const {
    if (warm_ != nullptr) keep_basis(*warm_->warm, layout_, last.basis, warm_);
  }

  // Jobs with a rate row: steps left, and some type to run on (for any other, rho does not depend on x).
  [[nodiscard]] const std::vector<std::size_t>& rated() const { return rated_; }
  // d_i(r), the rate job i needs for rho_i <= r (r above every S[i] / Q[i]).
  [[nodiscard]] double need(std::size_t i, double r) const { return remaining_[i] / (r * isolated_[i] - since_[i]); }
  // rho_i at rate u.
  [[nodiscard]] double rho(std::size_t i, double u) const { return (since_[i] + remaining_[i] / u) / isolated_[i]; }

  // The program at level r: F(r) (objective), x, and the rate rows' duals.
  models::LpSolution at(double r) {
    for (std::size_t i : rated_)
      session_->set_row_bounds(rate_row_[i], need(i, r), models::kLpInfinity);
    return session_->solve();
  }
  [[nodiscard]] const std::vector<std::vector<int>>& var() const { return var_; }
  [[nodiscard]] int rate_row(std::size_t i) const { return rate_row_[i]; }

 private:
  const std::vector<double>& since_;
  const std::vector<double>& remaining_;
  const std::vector<double>& isolated_;
  std::vector<std::vector<int>> var_;
  int shortfall_ = -1;
  std::vector<int> rate_row_;
  std::vector<std::size_t> rated_;
  std::vector<JobLayout> layout_;
  const GavelProblem* warm_ = nullptr;
  std::unique_ptr<models::LpSession> session_;
};

// A lower bound on the optimal level from the program at level r (optimum F, rate rows' duals y >= 0): the duals
// stay feasible at every level, so F(r') >= F(r) + sum_i y_i (d_i(r') - d_i(r)) =: g(r'), the tangent of the convex
// F; every r' with g(r') > 0 is infeasible. g is convex and decreasing; its root is found by Newton's method from
// the left, each step staying left of it. -infinity when no rate row binds (nothing learned), +infinity when g
// stays positive (no level is feasible).
double tangent_root(const FtfLevels& levels, double r, double f, const std::vector<std::pair<std::size_t, double>>& y,
                    const std::vector<double>& since_start, const std::vector<double>& remaining,
                    const std::vector<double>& isolated_time) {
  if (y.empty()) return -models::kLpInfinity;
  double pole = 0.0;  // g -> +infinity as r' falls to the largest S[i] / Q[i] with y_i > 0
  double offset = f;  // g(r') = sum_i y_i d_i(r') + offset, offset = F - sum_i y_i d_i(r)
  for (const auto& [i, yi] : y) {
    pole = std::max(pole, since_start[i] / isolated_time[i]);
    offset -= yi * levels.need(i, r);
  }
  if (!(offset < 0.0)) return models::kLpInfinity;
  const auto g = [&](double at, double& slope) {
    double value = offset;
    slope = 0.0;
    for (const auto& [i, yi] : y) {
      const double gap = at * isolated_time[i] - since_start[i];
      value += yi * remaining[i] / gap;
      slope -= yi * remaining[i] * isolated_time[i] / (gap * gap);
    }
    return value;
  };
  double slope = 0.0;
  double left = r;
  for (int i = 0; i < 200 && !(g(left, slope) > 0.0); ++i)  // a start left of the root: halve towards the pole
    left = pole + 0.5 * (left - pole);
  if (!(g(left, slope) > 0.0)) return pole;
  for (int i = 0; i < 100; ++i) {
    const double value = g(left, slope);
    if (!(value > 0.0) || !(slope < 0.0)) break;
    const double next = left - value / slope;
    if (!(next > left * (1.0 + 1e-15))) break;
    left = next;
  }
  return left;
}

// Finish-time fairness without contention: no job's rho can be below what it gets on the type where it runs fastest
// alone (all of its time there, or as much as the type's GPUs allow: u_i = max_k T[i][k] min(1, N[k] / s[i])), so
// the largest of these, L, bounds the optimum from below. When every job can have d_i(L) on that type (its first
// such type) within every type's GPUs, that allocation reaches L: it is optimal and no program is needed (at 10x
// scale nearly every allocation, up to 48 jobs/h: the optimum is set by one job that can do no better alone). Fills
// `out` and says true then; false when a type would be oversubscribed.
bool uncontended_ftf(const GavelProblem& p, const std::vector<double>& since_start,
                     const std::vector<double>& remaining, const std::vector<double>& isolated_time, double floor,
                     GavelAllocation& out) {
  const std::size_t m = p.throughput.size();
  const std::size_t n = p.workers.size();
  std::vector<std::size_t> best_type(m, n);
  std::vector<double> best_rate(m, 0.0);
  double level = floor;
  for (std::size_t i = 0; i < m; ++i) {
    if (!(remaining[i] > 0.0)) continue;
    for (std::size_t k = 0; k < n; ++k) {
      const double u = p.throughput[i][k] * std::min(1.0, p.workers[k] / static_cast<double>(p.scale_factor[i]));
      if (u > best_rate[i]) {
        best_rate[i] = u;
        best_type[i] = k;
      }
    }
    if (best_type[i] == n) continue;  // runs nowhere: its rho does not depend on x
    level = std::max(level, (since_start[i] + remaining[i] / best_rate[i]) / isolated_time[i]);
  }
  out.x.assign(m, std::vector<double>(n, 0.0));
  std::vector<double> used(n, 0.0);
  double worst = floor;
  for (std::size_t i = 0; i < m; ++i) {
    const std::size_t k = best_type[i];
    if (k == n) continue;
    const double slack = level * isolated_time[i] - since_start[i];
    if (!(slack > 0.0)) return false;
    const double x = std::min(1.0, std::min(best_rate[i], remaining[i] / slack) / p.throughput[i][k]);
    out.x[i][k] = x;
    used[k] += p.scale_factor[i] * x;
    worst = std::max(worst, (since_start[i] + remaining[i] / (p.throughput[i][k] * x)) / isolated_time[i]);
  }
  for (std::size_t k = 0; k < n; ++k)
    if (used[k] > p.workers[k]) return false;
  out.optimal = true;
  out.status = "optimal";
  out.objective = worst;
  return true;
}

// GavelProblem::centre for finish-time fairness: the allocations that keep every job's rho within the level found
// (out.objective), i.e. give each job with steps left that runs somewhere d_i(level): the interior point near their
// centre replaces out.x (kept when the barrier finds none).
void ftf_centre(const GavelProblem& p, const std::vector<double>& since_start, const std::vector<double>& remaining,
                const std::vector<double>& isolated_time, GavelAllocation& out) {
  std::vector<double> need(p.throughput.size(), 0.0);
  for (std::size_t i = 0; i < need.size(); ++i) {
    const bool runs = std::any_of(p.throughput[i].begin(), p.throughput[i].end(), [](double t) { return t > 0.0; });
    const double slack = out.objective * isolated_time[i] - since_start[i];
    if (remaining[i] > 0.0 && runs && slack > 0.0) need[i] = remaining[i] / slack;
  }
  centre_of_rates(p, need, out);
}

}  // namespace

GavelAllocation finish_time_fairness(const GavelProblem& p, const std::vector<double>& since_start,
                                     const std::vector<double>& remaining, const std::vector<double>& isolated_time,
                                     double guess, double tolerance) {
  check_gavel_problem(p);
  const std::size_t m = p.throughput.size();
  const std::size_t n = p.workers.size();
  if (since_start.size() != m || remaining.size() != m || isolated_time.size() != m) {
    throw std::invalid_argument("gavel allocation: one start time, remaining work and isolated time per job");
  }
  double lo = 0.0;  // rho >= since_start / isolated_time whatever the allocation
  for (std::size_t i = 0; i < m; ++i) {
    if (!(isolated_time[i] > 0.0)) throw std::invalid_argument("gavel allocation: a non-positive isolated time");
    lo = std::max(lo, since_start[i] / isolated_time[i]);
  }
  GavelAllocation best;
  if (uncontended_ftf(p, since_start, remaining, isolated_time, lo, best)) {
    if (p.centre) ftf_centre(p, since_start, remaining, isolated_time, best);
    return best;
  }
  double r = guess > lo ? guess : std::max(1.0, 2.0 * lo);
  FtfLevels levels(p, since_start, remaining, isolated_time);
  best = GavelAllocation{};
  best.x.assign(m, std::vector<double>(n, 0.0));
  double hi = models::kLpInfinity;  // the best allocation's own max rho
  std::vector<std::pair<std::size_t, double>> y;
  models::LpSolution s;
  for (int iteration = 0; iteration < 50; ++iteration) {
    s = levels.at(r);
    if (!s.optimal) {
      best.optimal = false;
      best.status = s.status;
      return best;
    }
    // The allocation's own max rho (clipped as Gavel clips): an upper bound, the answer when within tolerance.
    GavelAllocation at;
    read_allocation(s, levels.var(), at);
    double worst = lo;
    for (std::size_t i : levels.rated()) {
      double u = 0.0;
      for (std::size_t k = 0; k < n; ++k)
        u += p.throughput[i][k] * at.x[i][k];
      worst = std::max(worst, u > 0.0 ? levels.rho(i, u) : models::kLpInfinity);
    }
    if (worst < hi) {
      hi = worst;
      best = std::move(at);
    }
    y.clear();
    for (std::size_t i : levels.rated()) {
      const double yi = s.duals[static_cast<std::size_t>(levels.rate_row(i))];
      if (yi > 0.0) y.emplace_back(i, yi);
    }
    const double root = tangent_root(levels, r, s.objective, y, since_start, remaining, isolated_time);
    if (root == models::kLpInfinity) break;  // no level is feasible
    const double previous_lo = lo;
    lo = std::max(lo, root);
    if (hi < models::kLpInfinity && hi - lo <= tolerance * hi) break;
    // Newton's step: the tangent's root, unless it gained nothing (then halve the bracket, or look higher).
    if (lo > previous_lo && lo != r) {
      r = lo;
    } else {
      r = hi < models::kLpInfinity ? 0.5 * (lo + hi) : 2.0 * std::max(r, lo);
    }
  }
  levels.keep(s);
  if (!(hi < models::kLpInfinity)) {
    best.optimal = false;
    best.status = "no level of finish-time fairness is feasible";
    return best;
  }
  best.objective = hi;
  if (p.centre) ftf_centre(p, since_start, remaining, isolated_time, best);
  return best;
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
  check_gavel_problem(p);
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
    auto rate = add_budget_row(lp, p, var, i);
    if (!(remaining[i] > 0.0)) continue;
    rate.emplace_back(z, -remaining[i]);
    lp.add_row(rate, 0.0, models::kLpInfinity);  // sum_k T x - R z >= 0
  }
  add_capacity_rows(lp, p, var);
  if (!solve_allocation(lp, var, out)) return out;
  out.objective = gavel_makespan_search(1.0 / out.objective);
  if (p.centre) {  // Gavel's last feasible midpoint's program (no objective): its interior point
    std::vector<double> need(m, 0.0);
    for (std::size_t i = 0; i < m; ++i)
      need[i] = remaining[i] > 0.0 ? remaining[i] / out.objective : 0.0;
    centre_of_rates(p, need, out);
  }
  return out;
}

}  // namespace ringsched
