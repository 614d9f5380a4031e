// strategies/pollux/pollux.cpp — `pollux`: Pollux (Qiao et al., OSDI'21), the goodput-maximising scheduler with
// batch-size adaptation, as its artifact's simulator runs it (pollux.py): every round each job's speedup comes from the
// goodput model its AdaptDL agent fitted to its own measurements (`agent` beliefs), relative to its goodput at a fair
// share; the allocation maximises the p = -1 power mean of the scaled speedups with a restart penalty
// (strategies/pollux/pollux_problem.h), and jobs adapt their batch to what they get (Strategy::adapts_batch). A job may
// grow to at most twice the GPUs it has measured itself on (and 64, and its largest batch / smallest per-GPU batch).
// Needs a placement policy in the cluster config (it places jobs on nodes itself). On GPU pools: decide_typed (for
// goodput-model jobs with tables per GPU type, each type's goodput from the fit the job's agent made on that type).
#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>
#include <stdexcept>

#include "models/goodput.h"
#include "strategies/pollux/pollux_problem.h"
#include "strategies/registry.h"

namespace ringsched {
namespace {

// A job's goodput at (nodes, replicas) under the model it reported, memoised until the report changes.
class SpeedupCache {
 public:
  double goodput(const models::GoodputReport& rep, int nodes, int replicas) {
    if (!same(rep)) {
      last_ = rep;
      memo_.clear();
    }
    // The model tells one node from several and nothing more (models::predict_network_time): one entry for all
    // multi-node placements of a replica count.
    const long key = static_cast<long>(std::min(nodes, 2)) * 4096 + replicas;
    const auto it = memo_.find(key);
    if (it != memo_.end()) return it->second;
    models::GoodputModel m{rep.perf, rep.grad, rep.init_batch, rep.max_batch, rep.min_local_bsz, rep.max_local_bsz};
    models::BatchConfig cfg;
    const double g = m.optimize(nodes, replicas, cfg);
    memo_.emplace(key, g);
    return g;
  }

 private:
  [[nodiscard]] bool same(const models::GoodputReport& r) const {
    return r.fitted == last_.fitted && r.perf.as_array() == last_.perf.as_array() && r.grad.sqr == last_.grad.sqr &&
           r.grad.var == last_.grad.var && r.init_batch == last_.init_batch && r.max_batch == last_.max_batch &&
           r.min_local_bsz == last_.min_local_bsz && r.max_local_bsz == last_.max_local_bsz;
  }
  models::GoodputReport last_;
  std::map<long, double> memo_;
};

// Where each job's GPUs are, node by node: the engine's placement when it places jobs; else (no placement policy:
// the engine packs GPU counts) a packing of the current counts on the least loaded nodes, in snapshot order.
// Counts packed on the least loaded of `nodes` nodes of `gpus_per_node` GPUs, in order.
std::vector<std::vector<int>> pack_counts(const std::vector<int>& counts, int nodes, int gpus_per_node) {
  std::vector<std::vector<int>> out;
  out.reserve(counts.size());
  std::vector<int> free(static_cast<std::size_t>(nodes), gpus_per_node);
  for (const int count : counts) {
    std::vector<int> mine(static_cast<std::size_t>(nodes), 0);
    int left = count;
    while (left > 0) {
      const auto it = std::max_element(free.begin(), free.end());
      if (*it == 0) break;
      const int take = std::min(left, *it);
      mine[static_cast<std::size_t>(it - free.begin())] += take;
      *it -= take;
      left -= take;
    }
    out.push_back(std::move(mine));
  }
  return out;
}

std::vector<std::vector<int>> current_placements(const Snapshot& s, int nodes) {
  if (s.cluster != nullptr) {
    std::vector<std::vector<int>> out;
    out.reserve(s.jobs.size());
    for (const JobView& v : s.jobs)
      out.push_back(s.cluster->node_gpus(v.pub->id));
    return out;
  }
  std::vector<int> counts;
  counts.reserve(s.jobs.size());
  for (const JobView& v : s.jobs)
    counts.push_back(v.gpus);
  return pack_counts(counts, nodes, s.gpus_per_node);
}

class Pollux final : public Strategy {
 public:
  Pollux(std::map<std::string, int> class_max, double restart_penalty_s, double round_s)
      : class_max_(std::move(class_max)), restart_penalty_s_(restart_penalty_s), round_s_(round_s) {}
  [[nodiscard]] std::string name() const override { return "pollux"; }
  [[nodiscard]] bool adapts_batch() const override { return true; }
  void on_finish(int job_id) override { cache_.erase(job_id); }

  Decision decide(const Snapshot& s) override {
    if (!s.pools.empty()) return decide_typed(s);
    const std::size_t n_jobs = s.jobs.size();
    Decision d = empty_decision(s);
    if (n_jobs == 0) return d;
    const int nodes = s.cluster != nullptr ? s.cluster->nodes() : std::max(1, s.total_gpus / s.gpus_per_node);
    const std::vector<std::vector<int>> now = current_placements(s, nodes);
    const std::vector<std::size_t> order = priority_order(s);
    const double fair_replicas = std::ceil(static_cast<double>(s.total_gpus) / static_cast<double>(n_jobs));
    std::vector<PolluxJobInput> in;
    in.reserve(n_jobs);
    for (std::size_t idx : order)
      in.push_back(input_for(s, s.jobs[idx], now[idx], static_cast<int>(fair_replicas)));
    const PolluxProblem problem(std::move(in), nodes, s.gpus_per_node);
    const PolluxProblem::State state = problem.solve();
    for (std::size_t k = 0; k < n_jobs; ++k)
      d.jobs[order[k]].gpus = std::accumulate(state[k].begin(), state[k].end(), 0);
    // Pollux re-optimises every round: under event-driven scheduling it asks to be called again after a round (a job
    // that just arrived has a restart factor of 0 and may get GPUs only then). Round-based engines ignore this.
    d.wakeup_at = s.now + round_s_;
    if (s.cluster != nullptr) {
      // With a placement policy the engine puts each job on the nodes chosen here.
      for (std::size_t k = 0; k < n_jobs; ++k)
        d.jobs[order[k]].nodes = state[k];
    }
    return d;
  }

 private:
  // Priority: least attained service first, then arrival (pollux.py sorts its jobs this way).
  static std::vector<std::size_t> priority_order(const Snapshot& s) {
    std::vector<std::size_t> order(s.jobs.size());
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
      if (s.jobs[a].attained_gpu_seconds != s.jobs[b].attained_gpu_seconds) {
        return s.jobs[a].attained_gpu_seconds < s.jobs[b].attained_gpu_seconds;
      }
      return s.jobs[a].pub->arrival < s.jobs[b].pub->arrival;
    });
    return order;
  }

  // On GPU pools (ringsched's extension; Pollux has one GPU type): a job holding GPUs stays on its pool; the others,
  // in priority order, each go to the pool where its believed throughput at the share it would get there (the
  // pool's GPUs over its jobs, counting itself) is highest. Then Pollux's problem is solved on each pool's nodes
  // for its jobs, speedups from the beliefs' throughput on the pool's type relative to the pool's fair share. A
  // goodput job's belief (`agent`) answers per type from the fit its agent made on that type (Pollux's linear
  // assumption from the class's speed there before it ran there), and its GPUs on a type are capped as input_for
  // caps them, by what it profiled on that type.
  Decision decide_typed(const Snapshot& s) {
    const std::size_t n_jobs = s.jobs.size();
    Decision d = empty_decision(s);
    if (n_jobs == 0) return d;
    const std::vector<std::size_t> order = priority_order(s);
    std::vector<int> pool_of(n_jobs, -1);
    std::vector<int> members(s.pools.size(), 0);
    for (std::size_t i = 0; i < n_jobs; ++i) {
      if (s.jobs[i].gpus <= 0) continue;
      pool_of[i] = s.jobs[i].pool;
      ++members[static_cast<std::size_t>(s.jobs[i].pool)];
    }
    for (std::size_t i : order) {
      if (pool_of[i] >= 0) continue;
      const JobView& v = s.jobs[i];
      if (v.belief == nullptr) throw std::logic_error("pollux on GPU pools plans with beliefs: give it beliefs");
      int best = -1;
      double best_rate = -1.0;
      for (std::size_t k = 0; k < s.pools.size(); ++k) {
        const PoolInfo& p = s.pools[k];
        const int share = std::clamp(p.gpus / (members[k] + 1), std::max(1, v.pub->cls.min_gpus),
                                     std::max(1, std::min(v.pub->cls.max_gpus, p.gpus)));
        const double rate = v.belief->throughput_on(p.gpu_type, share, packed_nodes(share, p.gpus_per_node));
        if (rate > best_rate) {
          best = static_cast<int>(k);
          best_rate = rate;
        }
      }
      pool_of[i] = best;
      ++members[static_cast<std::size_t>(best)];
    }
    for (std::size_t k = 0; k < s.pools.size(); ++k) {
      const PoolInfo& p = s.pools[k];
      std::vector<std::size_t> mine;
      std::vector<int> counts;
      for (std::size_t i : order) {
        if (pool_of[i] != static_cast<int>(k)) continue;
        mine.push_back(i);
        counts.push_back(s.jobs[i].gpus > 0 && s.jobs[i].pool == static_cast<int>(k) ? s.jobs[i].gpus : 0);
      }
      if (mine.empty()) continue;
      const int nodes = std::max(1, p.gpus / p.gpus_per_node);
      const std::vector<std::vector<int>> now = pack_counts(counts, nodes, p.gpus_per_node);
      const double fair = std::ceil(static_cast<double>(p.gpus) / static_cast<double>(mine.size()));
      std::vector<PolluxJobInput> in;
      in.reserve(mine.size());
      for (std::size_t m = 0; m < mine.size(); ++m)
        in.push_back(typed_input(s, s.jobs[mine[m]], now[m], static_cast<int>(fair), p));
      const PolluxProblem problem(std::move(in), nodes, p.gpus_per_node);
      const PolluxProblem::State state = problem.solve();
      for (std::size_t m = 0; m < mine.size(); ++m) {
        d.jobs[mine[m]].gpus = std::accumulate(state[m].begin(), state[m].end(), 0);
        d.jobs[mine[m]].pool = static_cast<int>(k);
      }
    }
    d.wakeup_at = s.now + round_s_;
    return d;
  }

  // A job's input on one pool: the belief's throughput on the pool's type, relative to its fair share there.
  PolluxJobInput typed_input(const Snapshot& s, const JobView& v, std::vector<int> base, int fair_replicas,
                             const PoolInfo& pool) const {
    PolluxJobInput j;
    j.base = std::move(base);
    int most = std::min({v.pub->cls.max_gpus, 64, pool.gpus});
    const auto cap = class_max_.find(v.pub->cls.name);
    if (cap != class_max_.end()) most = std::min(most, cap->second);
    j.min_replicas = std::max(1, v.pub->cls.min_gpus);
    j.max_replicas = std::max(most, j.min_replicas);
    const double age = s.now - v.pub->arrival;
    j.restart_factor = std::max(age - v.restarts * restart_penalty_s_, 0.0) / (age + restart_penalty_s_);
    const Belief* b = v.belief;
    const std::string type = pool.gpu_type;
    const double f = static_cast<double>(fair_replicas);
    const models::GoodputReport* rep = b->goodput_report();
    if (rep != nullptr) {
      // A goodput job (on pools its class has tables per type): Pollux's caps (twice the GPUs it profiled, its largest
      // batch over its smallest per-GPU batch) from what it profiled on this type, as input_for applies them on one
      // type; one GPU on a type it has not run on yet.
      const models::GoodputTypeFit* fit = rep->on(type);
      const int profiled = fit != nullptr ? fit->max_profiled_replicas : 0;
      int grow = std::max(2 * profiled, 1);
      if (fit != nullptr && fit->fitted) grow = std::min(grow, static_cast<int>(rep->max_batch / fit->min_local_bsz));
      j.max_replicas = std::max(std::min(j.max_replicas, grow), j.min_replicas);
      j.node_classes = fit != nullptr && fit->fitted ? 2 : 1;
    }
    const double base_rate = b->throughput_on(type, fair_replicas, packed_nodes(fair_replicas, pool.gpus_per_node));
    j.speedup = [b, type, base_rate, f](int k, int r) {
      return base_rate > 0.0 ? b->throughput_on(type, r, k) / base_rate : static_cast<double>(r) / f;
    };
    return j;
  }

  PolluxJobInput input_for(const Snapshot& s, const JobView& v, std::vector<int> base, int fair_replicas) {
    PolluxJobInput j;
    j.base = std::move(base);
    const models::GoodputReport* rep = v.belief != nullptr ? v.belief->goodput_report() : nullptr;
    int most = v.pub->cls.max_gpus;
    if (rep != nullptr && rep->fitted) {
      most = std::min(most, std::max(2 * rep->max_profiled_replicas, 1));
      most = std::min(most, static_cast<int>(rep->max_batch / rep->min_local_bsz));
    } else if (rep != nullptr) {
      most = std::min(most, std::max(2 * rep->max_profiled_replicas, 1));
    }
    most = std::min(most, 64);
    const auto cap = class_max_.find(v.pub->cls.name);
    if (cap != class_max_.end()) most = std::min(most, cap->second);
    // The class's minimum wins over the caps above (a job that may not grow to its minimum could never run).
    j.min_replicas = std::max(1, v.pub->cls.min_gpus);
    j.max_replicas = std::max(std::min(most, v.pub->cls.max_gpus), j.min_replicas);
    const double age = s.now - v.pub->arrival;
    j.restart_factor = std::max(age - v.restarts * restart_penalty_s_, 0.0) / (age + restart_penalty_s_);
    const double f = static_cast<double>(fair_replicas);
    if (rep != nullptr && rep->fitted) {
      SpeedupCache& c = cache_[v.pub->id];
      const models::GoodputReport report = *rep;
      const double base_goodput = c.goodput(report, 1, fair_replicas);
      j.speedup = [&c, report, base_goodput](int k, int r) {
        return base_goodput > 0.0 ? c.goodput(report, k, r) / base_goodput : 0.0;
      };
      j.node_classes = 2;  // the goodput model tells one node from several and nothing more
    } else if (rep == nullptr && v.belief != nullptr) {
      // No goodput model (a job of another truth kind): the belief's throughput, relative to a fair share on one
      // node; Pollux then maximises throughput alone, without statistical efficiency.
      const Belief* b = v.belief;
      const double base_rate = b->throughput(fair_replicas, 1);
      j.speedup = [b, base_rate, f](int k, int r) {
        return base_rate > 0.0 ? b->throughput(r, k) / base_rate : static_cast<double>(r) / f;
      };
    } else {
      // Nothing measured yet: speedup linear in the GPUs (the artifact's jobs before their first profile).
      j.speedup = [f](int, int r) { return static_cast<double>(r) / f; };
      j.node_classes = 1;
    }
    return j;
  }

  std::map<std::string, int> class_max_;
  double restart_penalty_s_;
  double round_s_;
  std::map<int, SpeedupCache> cache_;
};

}  // namespace

StrategyInfo pollux_strategy_info() {
  StrategyInfo info;
  info.name = "pollux";
  info.description =
      "Pollux (OSDI'21): maximises the p = -1 power mean of each job's goodput speedup over its fair share, with a "
      "restart penalty; jobs adapt their batch size. Full behaviour needs goodput-model classes (beliefs: agent) and a "
      "cluster placement policy (it then places jobs on nodes itself; without one it decides GPU counts and the "
      "engine packs them); on other classes it maximises the beliefs' throughput alone. Params: class_max_gpus "
      "(object: class name -> most GPUs; the artifact gives ncf 1), restart_penalty_s (seconds charged per past "
      "restart in the restart factor, > 0, default 30 as the artifact), round_s (under event-driven scheduling, "
      "decide again at least this often, default 60; scheduler.interval_s makes rounds exact). On GPU pools "
      "(ringsched's extension) a running job keeps its pool, a waiting one goes where its believed throughput at "
      "that pool's fair share is highest, and the problem is solved per pool; goodput-model jobs (goodput.by_type) "
      "plan with their agent's fit on each type. docs/fidelity.md";
  info.default_beliefs = "agent";
  info.gpu_types = true;
  info.places_nodes = true;
  info.params = {"class_max_gpus", "restart_penalty_s", "round_s"};
  info.make = [](const JsonReader& p) -> std::unique_ptr<Strategy> {
    std::map<std::string, int> caps = class_max_gpus_param(p);
    double penalty = 30.0;
    if (auto r = p.maybe("restart_penalty_s")) {
      penalty = r->as_positive();
      if (penalty > 1e7) r->fail("must be <= 1e7 seconds");
    }
    double round = 60.0;
    if (auto r = p.maybe("round_s")) {
      round = r->as_positive();
      if (round > 1e7) r->fail("must be <= 1e7 seconds");
    }
    return std::make_unique<Pollux>(std::move(caps), penalty, round);
  };
  return info;
}
const StrategyRegistrar pollux_registrar{pollux_strategy_info};

}  // namespace ringsched
