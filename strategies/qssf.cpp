// strategies/qssf.cpp — `qssf`: Helios' quasi-shortest-service-first (SC'21), rigid and non-preemptive: waiting jobs
// are served in order of their estimated service, estimated run time x GPUs, where the run time comes from a history
// estimator that learns from the jobs this run has finished (strategies/common/service_estimator.h: the mean run time
// of the finished jobs of the same user, job name and GPU count, falling back to coarser matches). As in the artifact a
// job gets its priority once, the first time it has to be ranked: at the first decision where it waits while some
// job that arrived before this decision waits too; jobs that all arrived since the last decision into an empty queue
// are ranked by GPU count (fewest first) without an estimate. Without `backfill` the head of the queue blocks the
// rest; on a typed cluster each job starts on its fastest pool with room. With virtual clusters
// (cluster.virtual_clusters) each VC queues its own jobs on its own nodes (strategies/common/vc_queues.h), a job ranked
// by its estimate when it arrives (one estimator learns from every VC's finished jobs).
#include <algorithm>
#include <cmath>
#include <vector>

#include "strategies/common/shortest_first.h"
#include "strategies/common/vc_queues.h"
#include "strategies/registry.h"

namespace ringsched {
namespace {

class Qssf final : public Strategy {
 public:
  Qssf(int fallback, bool backfill, bool oracle, double prior_s)
      : fallback_(fallback),
        backfill_(backfill),
        rank_(oracle, prior_s),
        vcs_([this](int id) { return vc_priority(id); },
             [fallback](const JobPublic& p) { return rigid_size(p, fallback); }, false, backfill) {}
  [[nodiscard]] std::string name() const override { return "qssf"; }

  Decision decide(const Snapshot& s) override {
    std::vector<int> order;
    bool any_old = false;  // a waiting job seen at an earlier decision: every waiting job is ranked
    for (std::size_t i = 0; i < s.jobs.size(); ++i) {
      const Job& j = job(s.jobs[i].pub->id);
      if (s.jobs[i].gpus > 0) continue;
      any_old |= j.seen;
      order.push_back(static_cast<int>(i));
    }
    for (int idx : order) {
      const JobView& v = s.jobs[static_cast<std::size_t>(idx)];
      Job& j = job(v.pub->id);
      j.seen = true;
      if (any_old && std::isnan(j.priority)) j.priority = rank_.priority(s, v, size(*v.pub));
    }
    std::sort(order.begin(), order.end(), [&](int a, int b) { return key(s, a, any_old) < key(s, b, any_old); });
    Decision d = ordered_fill(
        s, order, [this](const JobPublic& p) { return size(p); }, backfill_);
    for (int idx : order) {
      const auto k = static_cast<std::size_t>(idx);
      if (d.jobs[k].gpus > 0) rank_.started(*s.jobs[k].pub, d.jobs[k].gpus, s.now);
    }
    return d;
  }

  [[nodiscard]] bool incremental() const override { return true; }
  Decision decide_changes(const Snapshot& s) override;

  void on_finish_at(int job_id, double time) override { rank_.finished(job_id, time); }

 private:
  struct Job {
    double priority = std::nan("");  // estimated service once ranked
    bool seen = false;               // dense decide: seen at an earlier decision
  };
  Job& job(int id) {
    const auto i = static_cast<std::size_t>(id);
    if (jobs_.size() <= i) jobs_.resize(i + 1);
    return jobs_[i];
  }
  [[nodiscard]] int size(const JobPublic& p) const { return rigid_size(p, fallback_); }
  // On virtual clusters: the estimate when the job joins its VC's queue.
  double vc_priority(int id) {
    const Snapshot& s = vcs_.snapshot();
    const JobView& v = s.views->view(id);
    return rank_.priority(s, v, size(*v.pub));
  }
  Decision decide_vcs(const Snapshot& s) {
    Decision d = vcs_.decide(s);
    for (const Change& c : d.changes) {
      if (c.gpus > 0) rank_.started(*s.views->view(c.job).pub, c.gpus, s.now);
    }
    return d;
  }
  // Ranked: (estimated service, arrival, id); all new and unranked: (GPUs, arrival, id).
  [[nodiscard]] RankKey key(const Snapshot& s, int idx, bool ranked) const {
    const JobPublic& p = *s.jobs[static_cast<std::size_t>(idx)].pub;
    const double first = ranked ? jobs_[static_cast<std::size_t>(p.id)].priority : static_cast<double>(size(p));
    return {first, p.arrival, p.id};
  }

  int fallback_;
  bool backfill_;
  QssfRank rank_;
  std::vector<Job> jobs_;   // dense decide's state, by job id
  RankedQueues queues_;     // incremental: ranked waiting jobs
  std::vector<int> fresh_;  // incremental: waiting jobs not ranked yet
  bool fresh_old_ = false;  // some of fresh_ arrived before the current decision
  VcQueues vcs_;            // cluster.virtual_clusters: one queue per VC
};

// The same decisions as decide(): the ranked jobs wait in queues_; jobs not ranked yet in fresh_, which holds only
// the last decision's arrivals that did not start when the queue was otherwise empty.
Decision Qssf::decide_changes(const Snapshot& s) {
  if (!s.vcs.empty()) return decide_vcs(s);
  fresh_.insert(fresh_.end(), s.arrived.begin(), s.arrived.end());
  Decision d;
  const int free = s.total_gpus - s.gpus_in_use;
  if (!queues_.empty() || fresh_old_) {
    for (int id : fresh_) {
      const JobView& v = s.views->view(id);
      const int gpus = size(*v.pub);
      queues_.push(id, gpus, rank_.priority(s, v, gpus), v.pub->arrival);
    }
    fresh_.clear();
    d.changes = queues_.take(free, backfill_);
  } else {
    // Only this decision's arrivals wait: by (GPUs, arrival, id); ids follow arrival order.
    std::vector<std::pair<int, int>> by_size;
    for (int id : fresh_)
      by_size.emplace_back(size(*s.views->view(id).pub), id);
    std::sort(by_size.begin(), by_size.end());
    int left = free;
    fresh_.clear();
    bool blocked = false;
    for (const auto& [gpus, id] : by_size) {
      if (!blocked && gpus <= left) {
        d.changes.push_back({id, gpus, 0});
        left -= gpus;
      } else {
        blocked = !backfill_;
        fresh_.push_back(id);
      }
    }
    std::sort(fresh_.begin(), fresh_.end());
  }
  fresh_old_ = !fresh_.empty();
  for (const Change& c : d.changes)
    rank_.started(*s.views->view(c.job).pub, c.gpus, s.now);
  return d;
}

}  // namespace

StrategyInfo qssf_strategy_info() {
  StrategyInfo info;
  info.name = "qssf";
  info.description =
      "Quasi-shortest-service-first (Helios, SC'21), rigid and non-preemptive: each job runs at the GPU count its "
      "trace row asked for (jobs without a request: `gpus`) and keeps it to the end; waiting jobs start in order of "
      "their estimated service, estimated run time x GPUs (fewest GPU-seconds first), ties by arrival. The run time "
      "is learnt from the jobs this run has finished (from start to end): the mean over those of the same user, job "
      "name and GPU count; else same user and name; else same name; else same user; else all; before any has "
      "finished, `prior_s`. Names match exactly (the artifact also takes close names, difflib cutoff 0.6; not "
      "reproduced); traces without users skip the user levels. A job is ranked once, when it first waits behind "
      "another (the artifact's rule; new jobs into an empty queue go by GPU count). Params: gpus (int, default 8), "
      "backfill (bool, default false: the head of the queue blocks the rest, as in the artifact), estimator "
      "(\"history\", the default, or \"oracle\": believed duration x GPUs, needs beliefs, e.g. qssf[oracle]), "
      "prior_s (seconds >= 0, default 3600). On GPU pools each job starts on the pool with room where its belief "
      "says it runs fastest (the first without beliefs). With virtual clusters (cluster.virtual_clusters) each VC "
      "runs its own queue on its own nodes, each job ranked by its estimate when it arrives "
      "(docs/virtual_clusters.md).";
  info.default_beliefs = "none";
  info.params = {"gpus", "backfill", "estimator", "prior_s"};
  info.gpu_types = true;
  info.virtual_clusters = true;
  info.plans_with_beliefs = [](const JsonReader& p) { return p.string_or("estimator", "history") == "oracle"; };
  info.make = [](const JsonReader& p) -> std::unique_ptr<Strategy> {
    const std::string estimator = p.string_or("estimator", "history");
    if (estimator != "history" && estimator != "oracle") {
      p.at("estimator").fail("unknown value '" + estimator + "' (valid: history, oracle)");
    }
    return std::make_unique<Qssf>(static_cast<int>(p.integer_in_or("gpus", 1, 1 << 20, 8)),
                                  p.bool_or("backfill", false), estimator == "oracle",
                                  p.non_negative_or("prior_s", 3600.0));
  };
  return info;
}
const StrategyRegistrar qssf_registrar{qssf_strategy_info};

}  // namespace ringsched
