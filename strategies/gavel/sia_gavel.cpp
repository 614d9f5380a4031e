// strategies/gavel/sia_gavel.cpp — Gavel as Sia's (SOSP'23) simulator runs it on goodput jobs (`sia_gavel`): its
// adapter of Gavel's round mechanism (siasosp23/artifacts, sia-simulator/gavel.py GavelPolicy, with the policy its
// config names, simulator_config.py gavel_default_policy = max_sum_throughput_perf). Each rule with its source in the
// module comment of SiaGavel; docs/fidelity.md "Gavel on goodput jobs as Sia runs it".
#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <unordered_map>

#include "strategies/gavel/gavel_allocation.h"
#include "strategies/gavel/lp.h"
#include "strategies/gavel/sia_gavel.h"
#include "strategies/registry.h"

namespace ringsched {

// Throughput Sia's adapter offers Gavel for a job whose scale factor does not fit a type (gavel.py predict_throughput:
// "Cannot run job ... on cluster", returns 1e-1).
constexpr double kSiaGavelNoFitThroughput = 0.1;

std::vector<double> sia_gavel_max_sum_throughput(const std::vector<std::vector<double>>& tput,
                                                 const std::vector<int>& scale_factor, const std::vector<int>& workers,
                                                 bool centre) {
  models::LinearProgram lp;
  lp.maximise();
  const std::size_t m = tput.size();
  const std::size_t n = workers.size();
  for (std::size_t i = 0; i < m; ++i)
    for (std::size_t k = 0; k < n; ++k)
      lp.add_variable(0.0, models::kLpInfinity, tput[i][k]);
  const auto var = [n](std::size_t i, std::size_t k) { return static_cast<int>(i * n + k); };
  for (std::size_t k = 0; k < n; ++k) {  // sum_j sf_j x_jk <= workers_k
    std::vector<std::pair<int, double>> terms;
    for (std::size_t i = 0; i < m; ++i)
      terms.emplace_back(var(i, k), static_cast<double>(scale_factor[i]));
    lp.add_row(terms, -models::kLpInfinity, static_cast<double>(workers[k]));
  }
  for (std::size_t i = 0; i < m; ++i) {  // sum_k x_jk <= 1
    std::vector<std::pair<int, double>> terms;
    for (std::size_t k = 0; k < n; ++k)
      terms.emplace_back(var(i, k), 1.0);
    lp.add_row(terms, -models::kLpInfinity, 1.0);
  }
  const models::LpSolution sol = centre ? lp.solve_centre() : lp.solve();
  if (!sol.optimal) throw std::runtime_error(sol.status);
  std::vector<double> x(m * n, 0.0);
  for (std::size_t v = 0; v < x.size(); ++v)  // x.value.round(decimals=5).clip(0, 1)
    x[v] = std::clamp(std::round(sol.x[v] * 1e5) / 1e5, 0.0, 1.0);
  return x;
}

std::vector<SiaGavelPick> sia_gavel_queue(const std::vector<double>& alloc, const std::vector<double>& job_time,
                                          const std::vector<double>& cluster_time, const std::vector<int>& scale_factor,
                                          std::vector<int> workers_left) {
  const std::size_t n = workers_left.size();
  const std::size_t m = scale_factor.size();
  struct Key {
    std::size_t job, pool;
    double priority, alloc;
  };
  std::vector<Key> keys;
  keys.reserve(m * n);
  for (std::size_t k = 0; k < n; ++k) {  // per_cluster_entries, type-major as gavel.py builds them
    for (std::size_t i = 0; i < m; ++i) {
      const double a = alloc[i * n + k];
      const double fraction = cluster_time[k] == 0.0 ? 0.0 : job_time[i * n + k] / cluster_time[k];
      double priority = a * 1e9;  // new jobs: 1e9 x allocation instead of infinity
      if (a != 0.0 && fraction > 0.0) priority = a / fraction;
      keys.push_back({i, k, priority, a});
    }
  }
  // sort(key=(priority, deficit = 0, allocation), reverse=True): stable, ties keep the type-major order.
  std::stable_sort(keys.begin(), keys.end(), [](const Key& x, const Key& y) {
    if (x.priority != y.priority) return x.priority > y.priority;
    return x.alloc > y.alloc;
  });
  std::vector<SiaGavelPick> picks;
  std::vector<char> taken(m, 0);
  for (const Key& e : keys) {
    if (workers_left[e.pool] == 0 || taken[e.job] != 0) continue;
    const int sf = scale_factor[e.job];
    if (sf > workers_left[e.pool]) continue;
    workers_left[e.pool] -= sf;
    taken[e.job] = 1;
    picks.push_back({e.job, e.pool});
  }
  return picks;
}

namespace {

// Sia's adapter (gavel.py), round by round (the engine calls it at every multiple of scheduler.interval_s, as
// Cluster.step does after stepping the jobs for one interval):
// - a job's scale factor is the GPUs its workload row asks for (num_replicas; Cluster.get_gavel_job_info), its batch
//   fixed at the row's batch_size (bsz tuning disabled for Gavel);
// - its throughput on a type is the job's optimiser steps per second there at that batch on the type's packed
//   placement, times the job's calibration factor (predict_throughput): the `oracle` belief of a goodput job gives
//   exactly that (its speed factor carries goodput.slowdown); 0.1 on a type with fewer GPUs than its scale factor;
// - the allocation is recomputed every round (update_priorities -> compute_allocations), no reset;
// - time received: every job starts with half a round on every type, and each type's total with half a round per
//   job that arrived (add_jobs); a job scheduled on a type adds a whole round to both (optimize) — per job, not per
//   GPU, and never reset, finished jobs' time staying in the type's total;
// - priorities and queue: sia_gavel_queue (no deficits, one queue over every type, jobs without allocation fill
//   what is left and run).
class SiaGavel final : public Strategy {
 public:
  SiaGavel(double round_s, bool centre) : round_s_(round_s), centre_(centre) {}
  [[nodiscard]] std::string name() const override { return "sia_gavel"; }

  Decision decide(const Snapshot& s) override {
    if (s.pools.empty()) throw std::logic_error("sia_gavel needs a cluster with GPU pools (cluster.pools)");
    const std::size_t n = s.pools.size();
    const std::size_t m = s.jobs.size();
    if (cluster_time_.empty()) cluster_time_.assign(n, 0.0);
    std::vector<std::vector<double>> tput(m, std::vector<double>(n, 0.0));
    std::vector<int> sf(m, 1);
    std::vector<int> workers(n, 0);
    std::vector<double> job_time(m * n, 0.0);
    for (std::size_t k = 0; k < n; ++k)
      workers[k] = s.pools[k].gpus;
    for (std::size_t i = 0; i < m; ++i) {
      const JobView& j = s.jobs[i];
      if (j.belief == nullptr) throw std::logic_error("sia_gavel plans with throughputs: give it beliefs");
      auto [it, added] = time_.try_emplace(j.pub->id);
      if (added) {
        it->second.assign(n, round_s_ / 2.0);
        for (std::size_t k = 0; k < n; ++k)
          cluster_time_[k] += round_s_ / 2.0;
      }
      sf[i] = std::max(1, j.pub->requested_gpus);
      for (std::size_t k = 0; k < n; ++k) {
        const PoolInfo& p = s.pools[k];
        const int nodes = (sf[i] + p.gpus_per_node - 1) / p.gpus_per_node;
        tput[i][k] = sf[i] > p.gpus ? kSiaGavelNoFitThroughput : j.belief->throughput_on(p.gpu_type, sf[i], nodes);
        job_time[i * n + k] = it->second[k];
      }
    }
    Decision d = empty_decision(s);
    if (m == 0) return d;
    std::vector<double> alloc;
    try {
      alloc = sia_gavel_max_sum_throughput(tput, sf, workers, centre_);
    } catch (const std::exception& e) {
      unsolved(s, e.what());
    }
    for (const SiaGavelPick& p : sia_gavel_queue(alloc, job_time, cluster_time_, sf, pool_gpus(s))) {
      d.jobs[p.job].gpus = sf[p.job];
      d.jobs[p.job].pool = static_cast<int>(p.pool);
      time_[s.jobs[p.job].pub->id][p.pool] += round_s_;
      cluster_time_[p.pool] += round_s_;
    }
    return d;
  }
  void on_finish(int job_id) override { time_.erase(job_id); }

 private:
  [[noreturn]] void unsolved(const Snapshot& s, const std::string& status) const {
    std::vector<std::string> jobs;
    for (const JobView& j : s.jobs)
      jobs.push_back(j.pub->name);
    throw std::runtime_error(unsolved_program_message("sia_gavel", s.now, jobs, status));
  }

  double round_s_;
  bool centre_;
  std::unordered_map<int, std::vector<double>> time_;  // job id -> seconds received per type (seeded)
  std::vector<double> cluster_time_;                   // per type: every job's seeds and rounds, never reset
};

}  // namespace

StrategyInfo sia_gavel_strategy_info() {
  StrategyInfo info;
  info.name = "sia_gavel";
  info.description =
      "Gavel's max_sum_throughput_perf as Sia's (SOSP'23) simulator runs it on goodput jobs: each round an LP "
      "maximises the sum of jobs' steps per second over time fractions per GPU type; priorities are allocation / "
      "share of the type's time received, one queue over all types, jobs without allocation fill what is left. "
      "Rigid jobs on their requested GPUs at their batch; oracle beliefs. Run with scheduler.interval_s = round_s "
      "on cluster.pools. Params: round_s (default 360), lp_point (\"centre\", default: the optimal face's interior "
      "point, as the ECOS solver Sia's adapter uses; \"vertex\": CLP's simplex vertex).";
  info.default_beliefs = "oracle";
  info.params = {"round_s", "lp_point"};
  info.gpu_types = true;
  info.needs_gpu_types = true;
  info.make = [](const JsonReader& p) -> std::unique_ptr<Strategy> {
    const std::string point = p.string_or("lp_point", "centre");
    if (point != "vertex" && point != "centre") {
      p.at("lp_point").fail("must be \"vertex\" or \"centre\", not \"" + point + "\"");
    }
    return std::make_unique<SiaGavel>(p.positive_or("round_s", 360.0), point == "centre");
  };
  return info;
}
const StrategyRegistrar sia_gavel_registrar{sia_gavel_strategy_info};

}  // namespace ringsched
