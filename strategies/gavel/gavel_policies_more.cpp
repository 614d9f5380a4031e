// strategies/gavel/gavel_policies_more.cpp — max_sum_throughput_perf, isolated, AlloX and the throughput-agnostic
// problems (gavel_policies_more.h), stated for CLP.
#include "strategies/gavel/gavel_policies_more.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <stdexcept>
#include <utility>

#include "strategies/gavel/lp.h"

namespace ringsched {
namespace {

// AlloX's jobs to match: those without a whole type kept from the last call, longest-waiting first (ties: snapshot
// order, as Python's stable sort leaves Gavel's arrival order), and each type's GPUs not held by a kept job.
struct AlloxQueue {
  std::vector<std::size_t> jobs;
  std::vector<int> free;
};

AlloxQueue allox_queue(const GavelProblem& p, const std::vector<double>& since_start, const AlloxState& state,
                       double alpha, std::vector<std::vector<double>>& x) {
  const std::size_t n = p.workers.size();
  AlloxQueue q;
  q.free.assign(p.workers.begin(), p.workers.end());
  for (std::size_t i = 0; i < p.throughput.size(); ++i) {
    const auto it = state.previous.find(p.ids[i]);
    if (it != state.previous.end() && it->second.size() == n) {
      x[i] = it->second;  // Gavel copies every present job's last allocation
      if (std::accumulate(it->second.begin(), it->second.end(), 0.0) == 1.0) {
        for (std::size_t k = 0; k < n; ++k)
          q.free[k] -= it->second[k] == 1.0 ? 1 : 0;
        continue;
      }
    }
    q.jobs.push_back(i);
  }
  std::stable_sort(q.jobs.begin(), q.jobs.end(),
                   [&](std::size_t a, std::size_t b) { return since_start[a] > since_start[b]; });
  const int total_free = std::accumulate(q.free.begin(), q.free.end(), 0);
  const auto keep = static_cast<std::size_t>(
      std::max(static_cast<long>(alpha * static_cast<double>(q.jobs.size())), static_cast<long>(total_free)));
  if (q.jobs.size() > keep) q.jobs.resize(keep);
  for (int& f : q.free)
    f = std::max(0, f);
  return q;
}

}  // namespace

GavelAllocation max_sum_throughput(const GavelProblem& p) {
  check_gavel_problem(p);
  const std::size_t m = p.throughput.size();
  const std::size_t n = p.workers.size();
  GavelAllocation out;
  out.x.assign(m, std::vector<double>(n, 0.0));
  if (m == 0) {
    out.optimal = true;
    return out;
  }
  models::LinearProgram lp;
  std::vector<std::vector<int>> var(m, std::vector<int>(n, -1));
  for (std::size_t i = 0; i < m; ++i)
    for (std::size_t k = 0; k < n; ++k)
      var[i][k] = lp.add_variable(0.0, models::kLpInfinity, p.throughput[i][k]);
  lp.maximise();
  for (std::size_t i = 0; i < m; ++i) {
    std::vector<std::pair<int, double>> budget;
    for (std::size_t k = 0; k < n; ++k)
      budget.emplace_back(var[i][k], 1.0);
    lp.add_row(budget, -models::kLpInfinity, 1.0);
  }
  for (std::size_t k = 0; k < n; ++k) {
    std::vector<std::pair<int, double>> capacity;
    for (std::size_t i = 0; i < m; ++i)
      capacity.emplace_back(var[i][k], static_cast<double>(p.scale_factor[i]));
    lp.add_row(capacity, -models::kLpInfinity, static_cast<double>(p.workers[k]));
  }
  const models::LpSolution s = p.centre ? lp.solve_centre() : lp.solve();  // ECOS's interior point, or a vertex
  out.optimal = s.optimal;
  out.status = s.status;
  if (!s.optimal) return out;
  out.objective = s.objective;
  for (std::size_t i = 0; i < m; ++i)
    for (std::size_t k = 0; k < n; ++k)
      out.x[i][k] = std::clamp(s.x[static_cast<std::size_t>(var[i][k])], 0.0, 1.0);
  return out;
}

GavelAllocation isolated_allocation(const GavelProblem& p) {
  check_gavel_problem(p);
  const std::size_t m = p.throughput.size();
  const std::size_t n = p.workers.size();
  GavelAllocation out;
  out.optimal = true;
  out.status = "optimal";
  out.x.assign(m, std::vector<double>(n, 0.0));
  for (std::size_t i = 0; i < m; ++i) {
    double row = 0.0;
    for (std::size_t k = 0; k < n; ++k) {
      out.x[i][k] = p.workers[k] / (static_cast<double>(m) * p.scale_factor[i]);
      row += out.x[i][k];
    }
    for (std::size_t k = 0; k < n; ++k)
      out.x[i][k] /= std::max(1.0, row);
  }
  return out;
}

GavelAllocation gandiva_fair_allocation(const GavelProblem& p) {
  GavelProblem one_gpu = p;
  std::fill(one_gpu.scale_factor.begin(), one_gpu.scale_factor.end(), 1);
  return isolated_allocation(one_gpu);
}

GavelProblem with_reference_throughputs(const GavelProblem& p, std::size_t reference) {
  if (reference >= p.workers.size()) throw std::invalid_argument("gavel allocation: the reference type is no type");
  GavelProblem q = p;
  for (auto& row : q.throughput) {
    if (row.size() <= reference) throw std::invalid_argument("gavel allocation: one throughput per GPU type");
    std::fill(row.begin(), row.end(), row[reference]);
  }
  return q;
}

namespace {

// The matching of AlloX's queue `q` to (type, position) columns on CLP; each queue head gets 1.0 in `out.x`. False
// (with the solver's word) when CLP fails.
bool allox_match(const GavelProblem& p, const std::vector<double>& remaining, const AlloxQueue& q,
                 GavelAllocation& out) {
  const std::size_t n = p.workers.size();
  // Columns (type k, position pos from the end of a queue) for pos = 1..ceil(jobs / free[k]); y = 1: the job there.
  models::LinearProgram lp;
  std::vector<std::vector<std::vector<int>>> y(q.jobs.size(), std::vector<std::vector<int>>(n));
  std::vector<int> positions(n, 0);
  for (std::size_t k = 0; k < n; ++k)
    if (q.free[k] > 0) positions[k] = static_cast<int>((q.jobs.size() + q.free[k] - 1) / q.free[k]);
  for (std::size_t r = 0; r < q.jobs.size(); ++r) {
    const std::size_t i = q.jobs[r];
    std::vector<std::pair<int, double>> once;
    for (std::size_t k = 0; k < n; ++k) {
      const double t = p.throughput[i][k] == 0.0 ? 1e-10 : p.throughput[i][k];  // allox.py's stand-in for 0
      for (int pos = 1; pos <= positions[k]; ++pos) {
        y[r][k].push_back(lp.add_variable(0.0, 1.0, pos * remaining[i] / t));
        once.emplace_back(y[r][k].back(), 1.0);
      }
    }
    lp.add_row(once, 1.0, 1.0);
  }
  for (std::size_t k = 0; k < n; ++k) {
    for (int pos = 0; pos < positions[k]; ++pos) {
      std::vector<std::pair<int, double>> column;
      for (std::size_t r = 0; r < q.jobs.size(); ++r)
        column.emplace_back(y[r][k][static_cast<std::size_t>(pos)], 1.0);
      lp.add_row(column, -models::kLpInfinity, static_cast<double>(q.free[k]));
    }
  }
  const models::LpSolution s = lp.solve();
  out.status = s.status;
  if (!s.optimal) return false;
  out.objective = s.objective;
  // The jobs at each (type, position), in queue order; of those at position pos, count(pos) - count(pos + 1) head a
  // queue (the type's queues that end there).
  for (std::size_t k = 0; k < n; ++k) {
    std::vector<std::vector<std::size_t>> at(static_cast<std::size_t>(positions[k]) + 1);
    for (std::size_t r = 0; r < q.jobs.size(); ++r) {
      for (std::size_t pos = 0; pos < y[r][k].size(); ++pos)
        if (s.x[static_cast<std::size_t>(y[r][k][pos])] > 0.5) at[pos].push_back(r);
    }
    for (std::size_t pos = 0; pos + 1 < at.size(); ++pos) {
      const std::size_t heads = at[pos].size() - std::min(at[pos].size(), at[pos + 1].size());
      for (std::size_t h = 0; h < heads; ++h)
        out.x[q.jobs[at[pos][h]]][k] = 1.0;
    }
  }
  return true;
}

}  // namespace

GavelAllocation allox_allocation(const GavelProblem& p, const std::vector<double>& since_start,
                                 const std::vector<double>& remaining, AlloxState& state, double alpha) {
  check_gavel_problem(p);
  const std::size_t m = p.throughput.size();
  const std::size_t n = p.workers.size();
  if (p.ids.size() != m || since_start.size() != m || remaining.size() != m) {
    throw std::invalid_argument("allox: one id, time since arrival and remaining work per job");
  }
  for (int sf : p.scale_factor)
    if (sf != 1) throw std::invalid_argument("allox: every job must run on 1 GPU (AlloX's scale factors are 1)");
  GavelAllocation out;
  out.x.assign(m, std::vector<double>(n, 0.0));
  const AlloxQueue q = allox_queue(p, since_start, state, alpha, out.x);
  const bool any_free = std::any_of(q.free.begin(), q.free.end(), [](int f) { return f > 0; });
  if (!q.jobs.empty() && any_free && !allox_match(p, remaining, q, out)) return out;
  out.optimal = true;
  out.status = "optimal";
  state.previous.clear();
  for (std::size_t i = 0; i < m; ++i)
    state.previous[p.ids[i]] = out.x[i];
  return out;
}

}  // namespace ringsched
