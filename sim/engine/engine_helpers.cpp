// sim/engine/engine_helpers.cpp — pieces of the engine's loop kept out of engine.cpp (see the header).
#include "sim/engine/engine_helpers.h"

#include <stdexcept>

namespace ringsched::engine_detail {

ChangeContext change_context(const std::vector<Runtime>& rt, const std::vector<JobPublic>& pub,
                             const ClusterRuntime& cluster) {
  ChangeContext jobs;
  jobs.active = [&rt](int id) {
    return id >= 0 && static_cast<std::size_t>(id) < rt.size() && rt[static_cast<std::size_t>(id)].active;
  };
  jobs.pub = [&pub](int id) -> const JobPublic& { return pub[static_cast<std::size_t>(id)]; };
  jobs.held = [&rt](int id) { return rt[static_cast<std::size_t>(id)].gpus; };
  jobs.pool_of = [&cluster](int id) { return cluster.pool_of(id); };
  jobs.node_in_use = [&cluster](int node) { return cluster.node_in_use(node); };
  return jobs;
}

void place_changes(ClusterRuntime& cluster, double now, const std::vector<Change>& ch, const std::vector<Runtime>& rt,
                   std::vector<int>& moved) {
  cluster.place_changes(
      now, ch, [&rt](int id) { return rt[static_cast<std::size_t>(id)].gpus; }, moved);
}

EngineCheckView check_view(double now, int finished, const ClusterRuntime& cluster, const std::vector<int>& active,
                           const std::vector<Runtime>& rt, const FailureBook& book) {
  EngineCheckView v;
  v.now = now;
  v.total_gpus = cluster.total_gpus();
  v.finished = finished;
  for (int id : active) {
    const Runtime& r = rt[static_cast<std::size_t>(id)];
    v.gpus_in_use += r.gpus;
    v.active.push_back({id, r.gpus, r.state, r.work_done, r.work, book.lost_work(id), {}});
    if (!cluster.vcs().empty()) v.active.back().nodes = cluster.node_gpus(id);
  }
  for (std::size_t p = 0; cluster.typed() && p < cluster.pool_count(); ++p) {
    v.pool_gpus.push_back(cluster.pool_gpus(p));
    v.pool_gpus_in_use.push_back(cluster.pool_in_use(p));
  }
  return v;
}

void score_all_beliefs(BeliefScorer& scorer, BeliefScore& out, const Workload& wl, const std::vector<Runtime>& rt,
                       const std::vector<std::unique_ptr<Belief>>& beliefs, const std::vector<JobPublic>& pub) {
  for (std::size_t i = 0; i < rt.size(); ++i) {
    const Belief* b = beliefs[i].get();
    if (b == nullptr || !rt[i].active) continue;
    const JobTruth& t = wl.jobs[i];
    const JobClass& cls = wl.catalog->classes[static_cast<std::size_t>(t.class_index)];
    scorer.score(out, t.id, *b, cls, t.class_index, pub[i], t.speed_factor, rt[i].work, rt[i].observations);
  }
}

void no_speed_on_type(const std::string& strategy, const std::string& job, int gpus, const std::string& gpu_type) {
  throw std::logic_error("strategy '" + strategy + "' put job " + job + " on " + std::to_string(gpus) + " " + gpu_type +
                         " GPUs, where its class cannot run (throughput 0)");
}

}  // namespace ringsched::engine_detail
