// sim/engine/engine.cpp — the event loop: time, events, job runtime state (progress, restarts, beliefs' observations)
// and decisions. Everything about the cluster (pools, nodes, placement, true speed) is the ClusterRuntime's
// (sim/cluster/cluster_runtime.h); what makes a decision valid is sim/engine/decision_check.h.
#include "sim/engine/engine.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iterator>
#include <limits>
#include <stdexcept>

#include <boost/random/normal_distribution.hpp>

#include "models/input_error.h"
#include "sim/cluster/cluster_runtime.h"
#include "sim/engine/belief_scoring.h"
#include "sim/engine/decision_check.h"
#include "sim/engine/engine_helpers.h"
#include "sim/engine/event_queue.h"
#include "sim/engine/goodput_job.h"
#include "sim/engine/job_runtime.h"
#include "sim/engine/public_facts.h"
#include "sim/engine/rounds.h"
#include "sim/engine/run_guard.h"
#include "workloads/io/number_text.h"
#include "workloads/rng.h"

namespace ringsched {

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
using namespace engine_detail;  // NOLINT(google-build-using-namespace): the engine's own private records

class Engine final : public Probe, public JobViews {
 public:
  Engine(const Workload& w, Strategy& s, const BeliefSource& b, const EngineConfig& c, const EngineChecker& chk)
      : wl_(w),
        strat_(s),
        cfg_(c),
        checker_(chk),
        measure_rng_(make_rng(c.seed, Stream::kMeasurement)),
        cluster_(c.cluster, w.catalog->classes, w.jobs, c.seed),
        book_(c.cluster.failures, w.jobs.size()),
        scorer_(c.score_beliefs ? w.jobs.size() : 0, c.cluster.gpus_per_node),
        guard_(c.progress, c.stop, s.name()) {
    const std::size_t n = w.jobs.size();
    rt_.resize(n);
    pub_.resize(n);
    beliefs_.resize(n);
    result_.jobs.resize(n);
    BeliefContext ctx{w.catalog.get(), c.cluster.gpus_per_node};
    for (const GpuPool& p : c.cluster.pools)
      ctx.gpus_per_node_by_type.emplace_back(p.gpu_type, p.gpus_per_node);
    for (std::size_t i = 0; i < n; ++i)
      init_job(static_cast<int>(i), b, ctx);
    if (c.scheduler.interval_s > 0.0 && n > 0) push({rounds_.next(), EvKind::kTick, -1, 0, 0});
    if (n > 0) push_health();
    if (n > 0) result_.first_arrival = w.jobs.front().arrival;
    if (cluster_.typed()) result_.pool_gpu_seconds.assign(cluster_.pool_count(), 0.0);
    // Typed clusters take dense decisions (each assignment names its pool), so incremental strategies decide densely
    // there; so they do when jobs are placed on concrete GPUs, except with VCs (VC-aware strategies name the nodes).
    incremental_ =
        (s.incremental() && !cluster_.placed() && !c.dense_snapshots && !cluster_.typed()) || !cluster_.vcs().empty();
    if (incremental_) {
      by_id_.resize(n);
      view_stamp_.assign(n, ~std::uint64_t{0});
    }
  }

  RunResult run() {
    while (!heap_.empty()) {
      const double t = heap_.top().time;
      if (t < now_) throw std::logic_error("engine: time went backwards");
      now_ = t;
      bool decide = false;
      while (!heap_.empty() && heap_.top().time == t) {
        const Event e = heap_.top();
        heap_.pop();
        ++result_.events_processed;
        decide |= handle(e);
        guard_.after_event(result_.events_processed, finished_);
      }
      if (decide && active_count_ > 0) run_strategy();
      if (decide && round_based()) {
        // Round-based scheduling ticks on while jobs remain: a strategy that never runs the jobs left would tick to
        // the horizon.
        guard_.round_decided(finished_ + active_count_ == static_cast<int>(rt_.size()), active_count_,
                             !holders_.empty());
      }
      if (checker_) check();
      if (heap_.empty() && active_count_ > 0) {
        throw std::logic_error("strategy '" + strat_.name() + "' left " + std::to_string(active_count_) +
                               " job(s) waiting with nothing running and no wake-up");
      }
    }
    guard_.finish(result_.events_processed, finished_);
    if (cluster_.placed()) result_.add_placement(cluster_.placement_totals());
    if (cluster_.contention()) result_.add_contention(cluster_.contention_totals());
    if (book_.on()) result_.add_failures(book_.stats(), cluster_.failure_sizes());
    return std::move(result_);
  }

  double measure_throughput(int job_id, double sigma) override {
    const std::size_t i = static_cast<std::size_t>(job_id);
    boost::random::normal_distribution<double> gauss(0.0, 1.0);
    const double z = gauss(measure_rng_);  // always drawn: keeps the stream aligned
    if (i >= rt_.size() || rt_[i].gpus <= 0) return 0.0;
    return true_rate(static_cast<int>(i)) * std::exp(sigma * z - 0.5 * sigma * sigma);
  }

  // Incremental strategies' views, built on first access in a decision (holders were advanced and observed then).
  [[nodiscard]] const JobView& view(int id) const override {
    const auto i = static_cast<std::size_t>(id);
    if (i >= by_id_.size() || !rt_[i].active) throw std::logic_error("strategy asked for the view of an inactive job");
    if (view_stamp_[i] != result_.decisions) {
      by_id_[i] = view_of(id);
      view_stamp_[i] = result_.decisions;
    }
    return by_id_[i];
  }

  // Holders were advanced before the decision and other jobs make no progress: the runtime's value is current.
  [[nodiscard]] double work_done(int id) const override {
    const auto i = static_cast<std::size_t>(id);
    if (i >= by_id_.size() || !rt_[i].active)
      throw std::logic_error("strategy asked for the progress of an inactive job");
    return rt_[i].work_done;
  }

 private:
  // Job `id`'s public facts, belief, work and result record; its arrival event.
  void init_job(int id, const BeliefSource& b, const BeliefContext& ctx) {
    const auto i = static_cast<std::size_t>(id);
    const JobTruth& t = wl_.jobs[i];
    if (t.id != id) throw std::logic_error("workload job ids must be 0..n-1 in order");
    const JobClass& cls = cls_of(id);
    pub_[i] = with_vc(public_facts(t, cls, cfg_.cluster.largest_pool_gpus()), t, cfg_.cluster);
    start_runtime(rt_[i], pub_[i], t, cls, strat_.adapts_batch(), cfg_.cluster.gpu_types());
    beliefs_[i] = b.make(pub_[i], ctx, b.needs_truth() ? &t : nullptr);
    rt_[i].observed = beliefs_[i] != nullptr && beliefs_[i]->observes();
    fill_result(result_.jobs[i], t, cls, rt_[i]);
    push({t.arrival, EvKind::kArrival, t.id, 0, 0});
  }

  const JobClass& cls_of(int id) const {
    return wl_.catalog->classes[static_cast<std::size_t>(wl_.jobs[static_cast<std::size_t>(id)].class_index)];
  }

  // The job's true speed on the GPUs it holds: its goodput model's, else the cluster runtime's (x its phase's factor).
  double true_rate(int id) const {
    const auto i = static_cast<std::size_t>(id);
    const double sf = wl_.jobs[i].speed_factor * phase_factor(rt_[i]);
    if (rt_[i].gp) return book_.scaled(id, rt_[i].gp->rate() * sf / cluster_.slowdown(id));
    return book_.scaled(id, cluster_.true_rate(id, cls_of(id), wl_.jobs[i].class_index, rt_[i].gpus, sf));
  }

  void push(Event e) {
    // Beyond the horizon (or NaN): absurd input (a work of 1e300 samples). Stop, naming the job.
    if (!(e.time <= kSimHorizonS)) {  // also NaN
      const auto i = static_cast<std::size_t>(e.job);
      if (e.job < 0) beyond_horizon(e.time, strat_.name(), nullptr, "", 0.0);
      beyond_horizon(e.time, strat_.name(), &wl_.jobs[i], cls_of(e.job).name, rt_[i].work);
    }
    e.seq = seq_++;
    result_.events_processed += heap_.push(e, rt_);  // stale events it dropped count as handled
  }

  void advance(int id) {
    Runtime& r = rt_[static_cast<std::size_t>(id)];
    const double dt = now_ - r.last_t;
    if (dt > 0.0) {
      if (r.state == JobState::kRunning) r.work_done = std::min(r.work, r.work_done + r.rate * dt);
      const double gs = static_cast<double>(r.gpus) * dt;
      r.attained += gs;  // also the job's gpu_seconds (the same sum), copied to its result when it finishes
      result_.allocated_gpu_seconds += gs;
      if (cluster_.typed()) result_.pool_gpu_seconds[static_cast<std::size_t>(cluster_.pool_of(id))] += gs;
    }
    r.last_t = now_;
  }

  // The job's next phase end: its completion, or the end of its epoch or phase (goodput, epoch-scheduled jobs).
  void schedule_completion(int id) {
    Runtime& r = rt_[static_cast<std::size_t>(id)];
    const double target = phase_end(r);
    const double remaining = std::max(0.0, target - r.work_done);
    push({now_ + remaining / r.rate, EvKind::kCompletion, id, r.version, 0});
  }

  // The job runs from now on (a start or a restart that ended): rate and next phase end.
  void begin_running(int id) {
    Runtime& r = rt_[static_cast<std::size_t>(id)];
    r.state = JobState::kRunning;
    start_phase(r);
    if (book_.on()) book_.running(id, now_, r.work_done, r.gpus, cluster_.nodes_spanned(id, r.gpus));
    r.rate = true_rate(id);
    if (cluster_.typed() && !(r.rate > 0.0))
      no_speed_on_type(strat_.name(), pub_[static_cast<std::size_t>(id)].name, r.gpus,
                       cluster_.gpu_type(cluster_.pool_of(id)));
    schedule_completion(id);
    const Belief* belief = beliefs_[static_cast<std::size_t>(id)].get();
    if (!r.gp && belief != nullptr && belief->wants_step_observations()) {
      r.step_pending = true;
      r.step_since = now_;
    }
  }

  // A goodput (epoch-scheduled) job reached the end of its epoch (phase) before its completion: the next, new rate.
  void end_epoch(int id) {
    Runtime& r = rt_[static_cast<std::size_t>(id)];
    r.work_done = phase_end(r);
    if (r.gp) r.gp->next_epoch();
    ++r.version;
    begin_running(id);
  }

  // Round-based scheduling: adaptive goodput jobs re-choose their batch with their latest fit (as the artifact does
  // after every interval), then the strategy decides; the next tick follows while jobs remain (with none active, at
  // the first round at or after the next arrival: the rounds between decide nothing).
  void tick() {
    for (int id : holders_) {
      Runtime& r = rt_[static_cast<std::size_t>(id)];
      if (!r.gp || r.state != JobState::kRunning) continue;
      advance(id);
      if (!r.gp->retune()) continue;
      ++r.version;
      begin_running(id);
    }
    if (finished_ == static_cast<int>(rt_.size())) return;
    const bool idle = active_count_ == 0 && !cfg_.scheduler.walk_idle_rounds;
    const double next_arrival = idle ? wl_.jobs[static_cast<std::size_t>(finished_)].arrival : 0.0;
    push({idle ? rounds_.next_at_or_after(next_arrival) : rounds_.next(), EvKind::kTick, -1, 0, 0});
  }

  void log(int id, int from, int to, AllocKind kind) {
    if (cfg_.record_events) result_.events.push_back({now_, id, from, to, kind, cluster_.pool_of(id)});
  }

  // Returns whether the strategy is asked after this batch of simultaneous events.
  bool handle(const Event& e) {
    Runtime& r = rt_[static_cast<std::size_t>(std::max(e.job, 0))];
    switch (e.kind) {
      case EvKind::kArrival:
        arrive(e.job);
        return !round_based();
      case EvKind::kWakeup:
        return e.version == wake_version_ && !round_based();
      case EvKind::kTick:
        tick();
        return true;
      case EvKind::kHealth:
        return health();
      case EvKind::kRestartEnd:
        if (e.version != r.version || r.done) return false;
        advance(e.job);
        begin_running(e.job);
        return false;
      case EvKind::kCompletion:
        if (e.version != r.version || r.done) return false;
        advance(e.job);
        if (phase_end(r) < r.work) {
          end_epoch(e.job);
          return false;
        }
        finish(e.job);
        return !round_based();
    }
    return false;
  }

  // Nodes failed or came back (cluster.failures): jobs on a failed node go back to their last checkpoint and wait.
  bool health() {
    if (finished_ == static_cast<int>(rt_.size())) return false;  // after the last job: the clocks stay at its end
    for (int id : cluster_.health_step(now_)) {
      Runtime& r = rt_[static_cast<std::size_t>(id)];
      advance(id);
      r.work_done = book_.fail(id, now_, r.work_done, r.gpus, cluster_.evicted_with_notice(id));
      change(id, 0, cluster_.pool_of(id));
      if (cfg_.record_events) result_.events.back().kind = AllocKind::kFail;
    }
    rerate(cluster_.settle(now_));
    push_health();
    return !round_based();
  }

  void push_health() {
    const double t = cluster_.next_health_change();
    if (t <= kSimHorizonS && finished_ < static_cast<int>(rt_.size())) push({t, EvKind::kHealth, -1, 0, 0});
  }

  void arrive(int id) {
    Runtime& r = rt_[static_cast<std::size_t>(id)];
    r.active = true;
    r.last_t = now_;
    ++active_count_;
    if (incremental_) {
      observe(id);
      arrived_.push_back(id);
      if (checker_) active_.push_back(id);
    } else {
      active_.push_back(id);
      views_.push_back(make_view(id));
    }
  }

  void finish(int id) {
    Runtime& r = rt_[static_cast<std::size_t>(id)];
    r.work_done = r.work;
    JobResult& res = result_.jobs[static_cast<std::size_t>(id)];
    res.finish = now_;
    res.gpu_seconds = r.attained;
    result_.last_finish = std::max(result_.last_finish, now_);
    log(id, r.gpus, 0, AllocKind::kFinish);
    book_.stop(id, now_);
    if (cluster_.placed()) {
      cluster_.clock(now_);
      cluster_.release(id);
    }
    cluster_.hold(id, r.gpus, 0, cluster_.pool_of(id));
    r.gpus = 0;
    rerate(cluster_.settle(now_));
    r.done = true;
    r.active = false;
    ++finished_;
    --active_count_;
    holders_.erase(std::find(holders_.begin(), holders_.end(), id));
    if (incremental_) {
      finished_ids_.push_back(id);
      if (checker_) active_.erase(active_.begin() + static_cast<std::ptrdiff_t>(position(id)));
    } else {
      const std::size_t pos = position(id);
      active_.erase(active_.begin() + static_cast<std::ptrdiff_t>(pos));
      views_.erase(views_.begin() + static_cast<std::ptrdiff_t>(pos));
    }
    strat_.on_finish_at(id, now_);
  }

  // The job's belief sees its progress (and goodput report) as of now.
  void observe(int id) {
    Runtime& r = rt_[static_cast<std::size_t>(id)];
    if (!r.observed) return;
    Belief* belief = beliefs_[static_cast<std::size_t>(id)].get();
    belief->observe_progress(r.work_done);
    if (r.gp && belief->wants_goodput_report()) {
      belief->observe_goodput(r.gp->report());
      ++r.observations;
    }
    if (r.step_pending && now_ > r.step_since) {
      // One measured step of the stretch the job has run since step_since.
      r.step_pending = false;
      const StepObservation o{r.gpus, cluster_.nodes_spanned(id, r.gpus), global_batch(cls_of(id), r.gpus), r.rate,
                              cluster_.gpu_type(cluster_.pool_of(id))};
      belief->observe_step(measured(o, cfg_.seed, id, r.steps_reported++, cfg_.step_measurement_sigma));
      ++r.observations;
    }
  }

  JobView make_view(int id) {
    observe(id);
    return view_of(id);
  }

  [[nodiscard]] JobView view_of(int id) const {
    const auto i = static_cast<std::size_t>(id);
    return engine_detail::view_of(rt_[i], &pub_[i], beliefs_[i].get(), result_.jobs[i].first_start,
                                  cluster_.pool_of(id));
  }

  // Index of an active job in active_ / views_ (active_ is in id order: ids follow arrival order).
  std::size_t position(int id) const {
    const auto it = std::lower_bound(active_.begin(), active_.end(), id);
    return static_cast<std::size_t>(it - active_.begin());
  }

  void refresh_view(int id) {
    advance(id);
    if (incremental_) {
      if (rt_[static_cast<std::size_t>(id)].observed) observe(id);  // (no call per holder when beliefs observe nothing)
    } else {
      views_[position(id)] = make_view(id);
    }
  }

  // The snapshot is kept between decisions: only jobs holding GPUs (their progress moves with time) and jobs whose
  // state changed since the last decision are refreshed, so a decision costs O(holders + changes), not O(queue).
  void run_strategy() {
    for (int id : holders_)
      refresh_view(id);
    for (int id : dirty_) {
      if (!rt_[static_cast<std::size_t>(id)].done) refresh_view(id);
    }
    dirty_.clear();
    Snapshot s;
    s.now = now_;
    s.gpus_per_node = cfg_.cluster.gpus_per_node;
    s.probe = this;
    cluster_.describe(s);
    ++result_.decisions;
    if (cfg_.score_beliefs) score_all_beliefs(scorer_, result_.belief_score, wl_, rt_, beliefs_, pub_);
    if (incremental_) {
      s.views = this;
      s.arrived = arrived_;
      s.finished = finished_ids_;
      s.active_jobs = static_cast<std::size_t>(active_count_);
      const Decision d = strat_.decide_changes(s);
      arrived_.clear();
      finished_ids_.clear();
      apply_changes(s, d);
      return;
    }
    s.jobs = views_;
    const Decision d = strat_.decide(s);
    apply(s, d);
  }

  [[nodiscard]] std::string who() const { return "strategy '" + strat_.name() + "'"; }

  // An incremental decision: only the listed jobs change, in job-id order (as apply() changes them in snapshot
  // order, which is id order), after the same checks; placed (with VCs) on the nodes they name.
  void apply_changes(const Snapshot& s, const Decision& d) {
    check_changes(s, d, change_context(rt_, pub_, cluster_), who());
    std::vector<Change> ch = d.changes;
    std::sort(ch.begin(), ch.end(), [](const Change& a, const Change& b) { return a.job < b.job; });
    std::vector<int> moved;
    if (cluster_.placed()) place_changes(cluster_, now_, ch, rt_, moved);
    for (const Change& c : ch)
      change(c.job, c.gpus, c.pool);
    for (int id : moved)
      restart_in_place(id, true);
    rerate(cluster_.settle(now_));
    schedule_wakeup(d);
  }

  void schedule_wakeup(const Decision& d) {
    ++wake_version_;
    if (d.wakeup_at < kInf) push({d.wakeup_at, EvKind::kWakeup, -1, wake_version_, 0});
  }

  void apply(const Snapshot& s, const Decision& d) {
    check_decision(s, d, who());
    std::vector<int> moved;
    if (cluster_.placed()) {
      std::vector<int> held(active_.size());
      for (std::size_t k = 0; k < active_.size(); ++k)
        held[k] = rt_[static_cast<std::size_t>(active_[k])].gpus;
      cluster_.clock(now_);
      cluster_.place(active_, held, d, moved);
    }
    for (std::size_t k = 0; k < d.jobs.size(); ++k)
      change(active_[k], d.jobs[k].gpus, d.jobs[k].pool);
    for (int id : moved)
      restart_in_place(id, true);
    if (cluster_.defragments()) {
      for (std::size_t k = 0; k < d.jobs.size(); ++k) {
        const int id = active_[k];
        if (rt_[static_cast<std::size_t>(id)].state == JobState::kRunning && cluster_.try_improve(id))
          restart_in_place(id, false);
      }
    }
    rerate(cluster_.settle(now_));
    schedule_wakeup(d);
  }

  // Jobs whose share of the links changed run on at their new speed (restarting ones take it when they run again).
  void rerate(const std::vector<int>& ids) {
    for (int id : ids) {
      Runtime& r = rt_[static_cast<std::size_t>(id)];
      if (r.state != JobState::kRunning || r.gpus == 0) continue;
      advance(id);
      ++r.version;
      r.rate = true_rate(id);
      schedule_completion(id);
    }
  }

  // Same count on other GPUs (the strategy moved it, `counted`, or the placer found better ones): a restart, logged
  // as a migration.
  void restart_in_place(int id, bool counted) {
    Runtime& r = rt_[static_cast<std::size_t>(id)];
    advance(id);
    book_.stop(id, now_);
    ++r.version;
    ++r.restarts;
    ++result_.jobs[static_cast<std::size_t>(id)].restarts;
    if (counted) ++result_.migrations;
    if (r.gp) r.gp->reallocate(cluster_.placement(id, r.gpus));
    log(id, r.gpus, r.gpus, AllocKind::kMigrate);
    begin_restart(id);
  }

  // The job goes to `to` GPUs in `pool` (typed clusters; 0 otherwise); a job that keeps its count but moves pool
  // restarts (a migration).
  void change(int id, int to, int pool) {
    Runtime& r = rt_[static_cast<std::size_t>(id)];
    const int from = r.gpus;
    const bool moves_pool = to > 0 && from > 0 && pool != cluster_.pool_of(id);
    if (from == to && !moves_pool) return;
    advance(id);
    book_.stop(id, now_);
    cluster_.hold(id, from, to, pool);
    JobResult& res = result_.jobs[static_cast<std::size_t>(id)];
    if (cluster_.typed()) res.gpu_type = cluster_.gpu_type(cluster_.pool_of(id));
    dirty_.push_back(id);
    if (from == 0) holders_.push_back(id);
    if (to == 0) holders_.erase(std::find(holders_.begin(), holders_.end(), id));
    ++r.version;
    r.gpus = to;
    res.max_gpus = std::max(res.max_gpus, to);
    if (to == 0) {
      r.state = JobState::kWaiting;
      r.rate = 0.0;
      if (r.gp) r.gp->reallocate({});
      log(id, from, 0, AllocKind::kPreempt);
      return;
    }
    if (r.gp && cluster_.typed()) r.gp->use_app(goodput_on(cls_of(id), cluster_.gpu_type(cluster_.pool_of(id))));
    if (r.gp) r.gp->reallocate(cluster_.placement(id, to));
    if (!r.started) {
      r.started = true;
      res.first_start = now_;
      log(id, from, to, AllocKind::kStart);
      if (cfg_.restart.on_first_start) {
        begin_restart(id);
      } else {
        begin_running(id);
      }
      return;
    }
    ++r.restarts;
    ++res.restarts;
    log(id, from, to, from == 0 ? AllocKind::kResume : (from == to ? AllocKind::kMigrate : AllocKind::kResize));
    begin_restart(id);
  }

  // A started job that changed GPUs pauses for the restart cost (holding its new GPUs), then runs again.
  void begin_restart(int id) {
    Runtime& r = rt_[static_cast<std::size_t>(id)];
    const double cost = cfg_.restart.of(cls_of(id).restart_cost_s, r.gpus);
    book_.restarting(id, now_, cost, r.gpus);
    if (cost > 0.0) {
      r.state = JobState::kRestarting;
      r.rate = 0.0;
      r.ready_at = now_ + cost;
      push({r.ready_at, EvKind::kRestartEnd, id, r.version, 0});
    } else {
      begin_running(id);
    }
  }

  void check() {
    for (int id : active_)
      advance(id);
    checker_(check_view(now_, finished_, cluster_, active_, rt_, book_));
  }

  [[nodiscard]] bool round_based() const { return cfg_.scheduler.interval_s > 0.0; }

  const Workload& wl_;
  Strategy& strat_;
  EngineConfig cfg_;
  EngineChecker checker_;
  Rng measure_rng_;
  ClusterRuntime cluster_;  // pools, nodes, placement, GPUs held, true speed
  FailureBook book_;        // cluster.failures: checkpoints, lost work and GPU time
  BeliefScorer scorer_;     // only with EngineConfig::score_beliefs
  RunGuard guard_;          // progress, stop requests, idle rounds
  std::vector<Runtime> rt_;
  std::vector<JobPublic> pub_;
  std::vector<std::unique_ptr<Belief>> beliefs_;
  std::vector<int> active_;                        // dense mode; in incremental mode only kept for the checker
  int active_count_ = 0;                           // arrived, unfinished jobs
  bool incremental_ = false;                       // decide_changes with by_id_ instead of decide with views_
  std::vector<JobView> views_;                     // dense mode: parallel to active_
  mutable std::vector<JobView> by_id_;             // incremental mode: views by id, built on access
  mutable std::vector<std::uint64_t> view_stamp_;  // the decision each by_id_ entry was built in
  std::vector<int> arrived_;                       // incremental mode: arrivals since the last decision
  std::vector<int> finished_ids_;                  // incremental mode: completions since the last decision
  std::vector<int> holders_;                       // active jobs with GPUs > 0
  std::vector<int> dirty_;                         // jobs changed since the last snapshot
  EventQueue heap_;  // the arrivals known at the start apart from the heap (event_queue.h)
  RunResult result_;
  double now_ = 0.0;
  std::uint64_t seq_ = 0;
  std::uint32_t wake_version_ = 0;
  int finished_ = 0;
  RoundClock rounds_{cfg_.scheduler.interval_s};  // round-based scheduling: the start of the round ticking next
};

}  // namespace

RunResult simulate(const Workload& workload, Strategy& strategy, const BeliefSource& beliefs,
                   const EngineConfig& config, const EngineChecker& checker) {
  Engine e(workload, strategy, beliefs, config, checker);
  return e.run();
}

}  // namespace ringsched
