// sim/engine/engine.cpp — event loop, job runtime state, restarts, and the measurement probe.
#include "sim/engine/engine.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iterator>
#include <limits>
#include <queue>
#include <stdexcept>

#include <boost/random/normal_distribution.hpp>

#include "models/input_error.h"
#include "sim/cluster/placement.h"
#include "sim/engine/goodput_job.h"
#include "sim/engine/rounds.h"
#include "workloads/number_text.h"
#include "workloads/rng.h"

namespace ringsched {

std::string to_string(AllocKind kind) {
  static const char* const kNames[] = {"start", "resize", "preempt", "resume", "finish", "migrate"};  // enum order
  const auto k = static_cast<std::size_t>(kind);
  return k < std::size(kNames) ? kNames[k] : "start";
}

JobPublic public_facts(const JobTruth& t, const JobClass& c, int total_gpus) {
  JobPublic p;
  p.id = t.id;
  p.name = t.name;
  p.arrival = t.arrival;
  p.requested_gpus = t.requested_gpus;
  p.cls = c;  // the class's public part (ClassFacts): its truth does not fit
  p.cls.max_gpus = std::min(c.max_gpus, total_gpus);
  if (!c.convergence) {
    p.cls.target_loss = 0.0;
    p.cls.loss_interval_samples = 0.0;
  }
  return p;
}

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
// The simulated clock's horizon: 1e12 s (about 31,700 years). Arrivals and event times beyond it (or NaN) come from
// absurd input (a work of 1e300 samples, a trace time in the far future) and stop the run with a message naming the
// job instead of looping or overflowing the clock.
constexpr double kMaxSimTime = kSimHorizonS;
constexpr int kMaxIdleRounds = 10000;

// A goodput job's public facts: the batch it was submitted with (0 when it adapts its batch), and at most as many
// GPUs as that batch (the application's largest, when adapting) has smallest per-GPU batches.
JobPublic goodput_public_facts(JobPublic p, const GoodputApp& app, double batch) {
  p.cls.batch_size = batch;
  const double cap = batch > 0.0 ? batch : app.max_batch_size();
  const int most = std::max(1, static_cast<int>(std::floor(cap / app.min_local_bsz() + 1e-9)));
  p.cls.max_gpus = std::max(p.cls.min_gpus, std::min(p.cls.max_gpus, most));
  return p;
}

// At equal times: completions (and epoch ends), restart ends, arrivals, wake-ups, then scheduling ticks.
enum class EvKind : std::uint8_t { kCompletion = 0, kRestartEnd = 1, kArrival = 2, kWakeup = 3, kTick = 4 };

struct Event {
  double time;
  EvKind kind;
  int job;
  std::uint32_t version;
  std::uint64_t seq;
  bool operator>(const Event& o) const {
    if (time != o.time) return time > o.time;
    if (kind != o.kind) return kind > o.kind;
    return seq > o.seq;
  }
};

struct Runtime {
  double work = 0.0;
  double work_done = 0.0;
  double last_t = 0.0;
  double rate = 0.0;
  int gpus = 0;
  int pool = 0;  // typed clusters: the pool it holds (or last held) GPUs in
  JobState state = JobState::kWaiting;
  double ready_at = 0.0;
  std::uint32_t version = 0;
  bool started = false;
  bool active = false;
  bool done = false;
  bool observed = false;  // its belief observes progress or runs (Belief::observes), read once
  double attained = 0.0;
  int restarts = 0;
  std::unique_ptr<GoodputJob> gp;  // the goodput model's state (null for other classes)
  // The stretch the job runs now, for beliefs that learn from its measured steps (`agent`): reported once, at the
  // first snapshot after it started running (allocations change only at decisions, so the job still runs it then).
  bool step_pending = false;
  std::uint32_t steps_reported = 0;
  std::uint32_t observations = 0;  // steps and goodput reports its belief received (belief scoring re-scores on change)
  double step_since = 0.0;
};

// A job's last belief score (EngineConfig::score_beliefs only): its APE as of `version` observations.
struct ScoreCache {
  std::uint32_t version = ~std::uint32_t{0};
  bool counted = false;
  double ape = 0.0;
  double ape16 = 0.0;
};

class Engine final : public Probe, public ClusterView, public JobViews {
 public:
  Engine(const Workload& w, Strategy& s, const BeliefSource& b, const EngineConfig& c, const EngineChecker& chk)
      : wl_(w), strat_(s), cfg_(c), checker_(chk), measure_rng_(make_rng(c.seed, Stream::kMeasurement)) {
    const std::size_t n = w.jobs.size();
    rt_.resize(n);
    pub_.resize(n);
    beliefs_.resize(n);
    if (c.score_beliefs) score_cache_.resize(n);
    result_.jobs.resize(n);
    BeliefContext ctx{w.catalog.get(), c.cluster.gpus_per_node};
    for (const GpuPool& p : c.cluster.pools)
      ctx.gpus_per_node_by_type.emplace_back(p.gpu_type, p.gpus_per_node);
    for (std::size_t i = 0; i < n; ++i) {
      const JobTruth& t = w.jobs[i];
      if (t.id != static_cast<int>(i)) throw std::logic_error("workload job ids must be 0..n-1 in order");
      if (!(t.arrival >= 0.0 && t.arrival <= kMaxSimTime)) {
        throw InputError("job '" + t.name + "': arrival time " + number_text(t.arrival) +
                         " s is not a time within the simulated horizon (0..1e12 s)");
      }
      const JobClass& cls = cls_of(static_cast<int>(i));
      pub_[i] = public_facts(t, cls, c.cluster.largest_pool_gpus());
      if (cls.goodput) {
        const bool adaptive = cls.adaptive_batch && s.adapts_batch();
        const double batch = t.batch_size > 0.0 ? t.batch_size : cls.batch_size;
        rt_[i].gp = std::make_unique<GoodputJob>(cls.goodput, batch, adaptive);
        pub_[i] = goodput_public_facts(pub_[i], *cls.goodput, adaptive ? 0.0 : batch);
      }
      const JobPublic& p = pub_[i];
      beliefs_[i] = b.make(p, ctx, b.needs_truth() ? &t : nullptr);
      rt_[i].observed = beliefs_[i] != nullptr && beliefs_[i]->observes();
      rt_[i].work = rt_[i].gp ? rt_[i].gp->total() : t.work_samples;
      if (!(rt_[i].work > 0.0 && std::isfinite(rt_[i].work))) {
        throw InputError("job '" + t.name + "': its work (" + number_text(rt_[i].work) +
                         ") is not a positive finite amount");
      }
      JobResult& r = result_.jobs[i];
      r.id = t.id;
      r.name = t.name;
      r.class_name = cls.name;
      r.arrival = t.arrival;
      r.work = rt_[i].work;
      push({t.arrival, EvKind::kArrival, t.id, 0, 0});
    }
    if (c.scheduler.interval_s > 0.0 && n > 0) push({rounds_.next(), EvKind::kTick, -1, 0, 0});
    if (n > 0) result_.first_arrival = w.jobs.front().arrival;
    const ClusterConfig& cl = c.cluster;
    const bool pool_topology =
        std::any_of(cl.pools.begin(), cl.pools.end(), [](const GpuPool& p) { return p.topology != nullptr; });
    if (cl.typed() && (!cl.placement.empty() || pool_topology)) {
      // One placer per pool, over the pool's own nodes (node indices in ClusterView run pool after pool), on the
      // pool's topology if it has one.
      int offset = 0;
      for (const GpuPool& p : cl.pools) {
        auto topo = p.topology ? p.topology
                               : std::make_shared<const Topology>(Topology::two_level(
                                     p.nodes, p.gpus_per_node, LinkClass{1.0, 0.0}, LinkClass{1.0, 0.0}));
        placers_.push_back(std::make_unique<Placer>(
            topo, make_placement_policy(cl.placement.empty() ? "packed" : cl.placement), cl.defragment));
        pool_ref_ring_.push_back(topo->reference_ring());
        node_offset_.push_back(offset);
        offset += p.nodes;
      }
    } else if (cl.topology || !cl.placement.empty()) {
      if (cl.typed()) throw std::logic_error("engine: GPU pools with a topology are not supported");
      auto topo = cl.topology ? cl.topology
                              : std::make_shared<const Topology>(Topology::two_level(
                                    cl.nodes, cl.gpus_per_node, LinkClass{1.0, 0.0}, LinkClass{1.0, 0.0}));
      if (topo->gpus() != c.total_gpus()) throw std::logic_error("engine: topology GPUs != nodes x gpus_per_node");
      placers_.push_back(std::make_unique<Placer>(
          topo, make_placement_policy(cl.placement.empty() ? "packed" : cl.placement), cl.defragment));
      node_offset_.push_back(0);
      ref_ring_ = topo->reference_ring();
    }
    if (cl.typed()) {
      for (const GpuPool& p : cl.pools)
        pools_.push_back({p.gpu_type, p.gpus(), p.gpus_per_node});
      pool_in_use_.assign(pools_.size(), 0);
      result_.pool_gpu_seconds.assign(pools_.size(), 0.0);
      for (std::size_t i = 0; i < n; ++i) {
        for (const GpuPool& p : cl.pools) {
          if (rt_[i].gp && goodput_on(cls_of(static_cast<int>(i)), p.gpu_type) == nullptr) {
            throw InputError("job '" + w.jobs[i].name + "': its goodput-model class has no tables for GPU type '" +
                             p.gpu_type + "' of cluster.pools (goodput.by_type)");
          }
        }
      }
    }
    // Typed clusters take dense decisions (Decision::pools), so incremental strategies decide densely there.
    incremental_ = s.incremental() && !placed() && !c.dense_snapshots && pools_.empty();
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
        if ((result_.events_processed & 0xFFFF) == 0) poll_every_65536_events();
      }
      if (decide && active_count_ > 0) run_strategy();
      if (decide && round_based()) check_idle_rounds();
      if (checker_) check();
      if (heap_.empty() && active_count_ > 0) {
        throw std::logic_error("strategy '" + strat_.name() + "' left " + std::to_string(active_count_) +
                               " job(s) waiting with nothing running and no wake-up");
      }
    }
    if (cfg_.progress) report_progress();
    for (const auto& placer : placers_) {
      const PlacementTotals& pt = placer->totals();
      result_.placed = true;
      result_.migrations += pt.migrations;
      result_.fragmented_gpu_seconds += pt.fragmented_gpu_seconds;
      result_.node_span_seconds += pt.node_span_seconds;
      result_.holding_job_seconds += pt.holding_job_seconds;
    }
    return std::move(result_);
  }

  // Round-based scheduling ticks on while jobs remain, so a strategy that never runs the jobs left would tick to
  // the horizon: after kMaxIdleRounds decisions in a row with every job arrived and none holding GPUs, stop.
  void check_idle_rounds() {
    const bool all_arrived = finished_ + active_count_ == static_cast<int>(rt_.size());
    idle_rounds_ = (all_arrived && active_count_ > 0 && holders_.empty()) ? idle_rounds_ + 1 : 0;
    if (idle_rounds_ >= kMaxIdleRounds) {
      throw std::logic_error("strategy '" + strat_.name() + "' left " + std::to_string(active_count_) +
                             " job(s) waiting for " + std::to_string(kMaxIdleRounds) +
                             " rounds with nothing running and no arrival to come (a job larger than any GPU pool, or "
                             "one whose throughput is 0 on every GPU type of the cluster?)");
    }
  }

  void poll_every_65536_events() {
    if (cfg_.progress) report_progress();
    if (cfg_.stop && cfg_.stop())
      throw std::runtime_error("stopped after " + std::to_string(result_.events_processed) +
                               " events: the experiment was stopped");
  }

  void report_progress() {
    cfg_.progress(result_.events_processed - reported_events_, finished_ - reported_finished_);
    reported_events_ = result_.events_processed;
    reported_finished_ = finished_;
  }

  [[nodiscard]] int nodes() const override { return cfg_.cluster.nodes; }
  [[nodiscard]] std::vector<int> node_gpus(int job_id) const override {
    if (!placed()) return std::vector<int>(static_cast<std::size_t>(cfg_.cluster.nodes), 0);
    if (pools_.empty()) return placers_[0]->node_counts(job_id);
    std::vector<int> all(static_cast<std::size_t>(cfg_.cluster.nodes), 0);
    const auto pool = static_cast<std::size_t>(rt_[static_cast<std::size_t>(job_id)].pool);
    const std::vector<int> mine = placers_[pool]->node_counts(job_id);
    std::copy(mine.begin(), mine.end(), all.begin() + node_offset_[pool]);
    return all;
  }

  double measure_throughput(int job_id, double sigma) override {
    const std::size_t i = static_cast<std::size_t>(job_id);
    boost::random::normal_distribution<double> gauss(0.0, 1.0);
    const double z = gauss(measure_rng_);  // always drawn: keeps the stream aligned
    if (i >= rt_.size() || rt_[i].gpus <= 0) return 0.0;
    return true_rate(static_cast<int>(i), rt_[i].gpus) * std::exp(sigma * z - 0.5 * sigma * sigma);
  }

 private:
  const JobClass& cls_of(int id) const {
    return wl_.catalog->classes[static_cast<std::size_t>(wl_.jobs[static_cast<std::size_t>(id)].class_index)];
  }
  double true_rate(int id, int w) const {
    const Runtime& r = rt_[static_cast<std::size_t>(id)];
    if (r.gp) return r.gp->rate() * wl_.jobs[static_cast<std::size_t>(id)].speed_factor;
    if (placed()) return placed_rate(id);
    if (!pools_.empty()) {
      const PoolInfo& p = pools_[static_cast<std::size_t>(r.pool)];
      return class_throughput_on(cls_of(id), p.gpu_type, w, packed_nodes(w, p.gpus_per_node),
                                 wl_.jobs[static_cast<std::size_t>(id)].speed_factor);
    }
    return class_throughput(cls_of(id), w, packed_nodes(w, cfg_.cluster.gpus_per_node),
                            wl_.jobs[static_cast<std::size_t>(id)].speed_factor);
  }
  // Speed on the job's current GPUs: ring parameters from the topology, or just the nodes spanned.
  double placed_rate(int id) const {
    const RingComm ring = placer_of(id).ring_of(id);
    const double sf = wl_.jobs[static_cast<std::size_t>(id)].speed_factor;
    if (cfg_.cluster.topology) return ring_throughput(cls_of(id), ring, ref_ring_, sf);
    if (!pools_.empty()) {
      const auto pool = static_cast<std::size_t>(rt_[static_cast<std::size_t>(id)].pool);
      const PoolInfo& p = pools_[pool];
      if (cfg_.cluster.pools[pool].topology) {
        return ring_throughput(cls_of(id), *speed_on(cls_of(id), p.gpu_type), ring, pool_ref_ring_[pool], sf);
      }
      return class_throughput_on(cls_of(id), p.gpu_type, ring.gpus, ring.nodes, sf);
    }
    return class_throughput(cls_of(id), ring.gpus, ring.nodes, sf);
  }
  void push(Event e) {
    if (!(e.time <= kMaxSimTime)) {  // also NaN
      if (e.job < 0)
        throw std::logic_error("strategy '" + strat_.name() + "' asked to be woken at " + number_text(e.time) + " s");
      const JobTruth& t = wl_.jobs[static_cast<std::size_t>(e.job)];
      throw InputError("job '" + t.name + "' (class " + cls_of(e.job).name + "): the simulated clock would reach " +
                       number_text(e.time) + " s, beyond the horizon of 1e12 s: its work (" +
                       number_text(rt_[static_cast<std::size_t>(e.job)].work) +
                       ") or its speed is absurd; check the class's work and batch or the trace's durations");
    }
    e.seq = seq_++;
    heap_.push(e);
  }

  void advance(int id) {
    Runtime& r = rt_[static_cast<std::size_t>(id)];
    const double dt = now_ - r.last_t;
    if (dt > 0.0) {
      if (r.state == JobState::kRunning) r.work_done = std::min(r.work, r.work_done + r.rate * dt);
      const double gs = static_cast<double>(r.gpus) * dt;
      r.attained += gs;  // also the job's gpu_seconds (the same sum), copied to its result when it finishes
      result_.allocated_gpu_seconds += gs;
      if (!pools_.empty()) result_.pool_gpu_seconds[static_cast<std::size_t>(r.pool)] += gs;
    }
    r.last_t = now_;
  }

  // The job's next phase end: its completion, or for a goodput job the end of its epoch (its rate changes there).
  void schedule_completion(int id) {
    Runtime& r = rt_[static_cast<std::size_t>(id)];
    const double target = r.gp ? std::min(r.work, r.gp->epoch_end()) : r.work;
    const double remaining = std::max(0.0, target - r.work_done);
    push({now_ + remaining / r.rate, EvKind::kCompletion, id, r.version, 0});
  }

  // The job runs from now on (a start or a restart that ended): rate and next phase end.
  void begin_running(int id) {
    Runtime& r = rt_[static_cast<std::size_t>(id)];
    r.state = JobState::kRunning;
    if (r.gp) r.gp->observe();
    r.rate = true_rate(id, r.gpus);
    if (!pools_.empty() && !(r.rate > 0.0)) {
      throw std::logic_error("strategy '" + strat_.name() + "' put job " + pub_[static_cast<std::size_t>(id)].name +
                             " on " + std::to_string(r.gpus) + " " + pools_[static_cast<std::size_t>(r.pool)].gpu_type +
                             " GPUs, where its class cannot run (throughput 0)");
    }
    schedule_completion(id);
    const Belief* belief = beliefs_[static_cast<std::size_t>(id)].get();
    if (!r.gp && belief != nullptr && belief->wants_step_observations()) {
      r.step_pending = true;
      r.step_since = now_;
    }
  }

  // A goodput job's GPUs per node, in allocation order: the placer's, else packed on nodes.
  std::vector<int> job_placement(int id, int w) const {
    if (placed()) return placer_of(id).placement_of(id);
    return packed_placement(w, gpus_per_node_of(id));
  }

  // A goodput job reached the end of its epoch before its completion: next epoch, new rate.
  void end_epoch(int id) {
    Runtime& r = rt_[static_cast<std::size_t>(id)];
    r.work_done = r.gp->epoch_end();
    r.gp->next_epoch();
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
    if (cfg_.record_events)
      result_.events.push_back({now_, id, from, to, kind, rt_[static_cast<std::size_t>(id)].pool});
  }

  bool handle(const Event& e) {
    Runtime& r = rt_[static_cast<std::size_t>(std::max(e.job, 0))];
    switch (e.kind) {
      case EvKind::kArrival:
        r.active = true;
        r.last_t = now_;
        ++active_count_;
        if (incremental_) {
          observe(e.job);
          arrived_.push_back(e.job);
          if (checker_) active_.push_back(e.job);
        } else {
          active_.push_back(e.job);
          views_.push_back(make_view(e.job));
        }
        return !round_based();
      case EvKind::kWakeup:
        return e.version == wake_version_ && !round_based();
      case EvKind::kTick:
        tick();
        return true;
      case EvKind::kRestartEnd:
        if (e.version != r.version || r.done) return false;
        advance(e.job);
        begin_running(e.job);
        return false;
      case EvKind::kCompletion: {
        if (e.version != r.version || r.done) return false;
        advance(e.job);
        if (r.gp && r.gp->epoch_end() < r.work) {
          end_epoch(e.job);
          return false;
        }
        r.work_done = r.work;
        JobResult& res = result_.jobs[static_cast<std::size_t>(e.job)];
        res.finish = now_;
        res.gpu_seconds = r.attained;
        result_.last_finish = std::max(result_.last_finish, now_);
        log(e.job, r.gpus, 0, AllocKind::kFinish);
        if (placed()) {
          placer_of(e.job).clock(now_);
          placer_of(e.job).release(e.job);
        }
        in_use_ -= r.gpus;
        if (!pools_.empty()) pool_in_use_[static_cast<std::size_t>(r.pool)] -= r.gpus;
        r.gpus = 0;
        r.done = true;
        r.active = false;
        ++finished_;
        --active_count_;
        holders_.erase(std::find(holders_.begin(), holders_.end(), e.job));
        if (incremental_) {
          finished_ids_.push_back(e.job);
          if (checker_) active_.erase(active_.begin() + static_cast<std::ptrdiff_t>(position(e.job)));
        } else {
          const std::size_t pos = position(e.job);
          active_.erase(active_.begin() + static_cast<std::ptrdiff_t>(pos));
          views_.erase(views_.begin() + static_cast<std::ptrdiff_t>(pos));
        }
        strat_.on_finish(e.job);
        return !round_based();
      }
    }
    return false;
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
      // One measured step of the stretch the job has run since step_since, with keyed lognormal noise.
      r.step_pending = false;
      const double sigma = cfg_.step_measurement_sigma;
      const double z = keyed_normal(cfg_.seed, Stream::kAgentSteps, static_cast<std::uint64_t>(id), r.steps_reported++);
      StepObservation o;
      o.gpus = r.gpus;
      o.nodes = placed() ? placer_of(id).ring_of(id).nodes : packed_nodes(r.gpus, gpus_per_node_of(id));
      o.global_batch = global_batch(cls_of(id), r.gpus);
      o.throughput = r.rate * std::exp(sigma * z - 0.5 * sigma * sigma);
      if (!pools_.empty()) o.gpu_type = pools_[static_cast<std::size_t>(r.pool)].gpu_type;
      belief->observe_step(o);
      ++r.observations;
    }
  }

  JobView make_view(int id) {
    observe(id);
    return view_of(id);
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

  [[nodiscard]] JobView view_of(int id) const {
    const Runtime& r = rt_[static_cast<std::size_t>(id)];
    JobView v;
    v.pub = &pub_[static_cast<std::size_t>(id)];
    v.belief = beliefs_[static_cast<std::size_t>(id)].get();
    v.gpus = r.gpus;
    v.state = r.state;
    v.started = r.started;
    v.work_done = r.work_done;
    v.ready_at = r.ready_at;
    v.attained_gpu_seconds = r.attained;
    v.first_start = r.started ? result_.jobs[static_cast<std::size_t>(id)].first_start : -1.0;
    v.restarts = r.restarts;
    v.pool = r.pool;
    return v;
  }

  // Index of an active job in active_ / views_ (active_ is in id order: ids follow arrival order).
  std::size_t position(int id) const {
    const auto it = std::lower_bound(active_.begin(), active_.end(), id);
    return static_cast<std::size_t>(it - active_.begin());
  }

  void refresh_view(int id) {
    advance(id);
    if (incremental_) {
      observe(id);
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
    s.total_gpus = cfg_.total_gpus();
    s.gpus_per_node = cfg_.cluster.gpus_per_node;
    s.probe = this;
    s.cluster = placed() ? this : nullptr;
    s.pools = pools_;
    ++result_.decisions;
    if (cfg_.score_beliefs) score_beliefs();
    if (incremental_) {
      s.views = this;
      s.arrived = arrived_;
      s.finished = finished_ids_;
      s.active_jobs = static_cast<std::size_t>(active_count_);
      s.gpus_in_use = in_use_;
      const Decision d = strat_.decide_changes(s);
      arrived_.clear();
      finished_ids_.clear();
      apply_changes(d);
      return;
    }
    s.jobs = views_;
    const Decision d = strat_.decide(s);
    apply(d);
  }

  // An incremental decision: only the listed jobs change, in job-id order (as apply() changes them in snapshot
  // order, which is id order), after the same checks.
  void apply_changes(const Decision& d) {
    auto who = [this] { return "strategy '" + strat_.name() + "'"; };
    if (!d.gpus.empty() || !d.place_order.empty() || !d.node_gpus.empty()) {
      throw std::logic_error(who() + " returned a dense decision from decide_changes");
    }
    std::vector<std::pair<int, int>> ch = d.changes;
    std::sort(ch.begin(), ch.end());
    long total = in_use_;
    for (std::size_t k = 0; k < ch.size(); ++k) {
      const auto [id, w] = ch[k];
      if (id < 0 || static_cast<std::size_t>(id) >= rt_.size() || !rt_[static_cast<std::size_t>(id)].active) {
        throw std::logic_error(who() + " changed job " + std::to_string(id) + ", which is not active");
      }
      if (k > 0 && ch[k - 1].first == id) {
        throw std::logic_error(who() + " changed job " + std::to_string(id) + " twice in one decision");
      }
      const JobPublic& p = pub_[static_cast<std::size_t>(id)];
      if (w < 0 || (w > 0 && (w < p.cls.min_gpus || w > p.cls.max_gpus))) {
        throw std::logic_error(who() + " gave job " + p.name + " " + std::to_string(w) + " GPUs (limits " +
                               std::to_string(p.cls.min_gpus) + ".." + std::to_string(p.cls.max_gpus) + ")");
      }
      total += w - rt_[static_cast<std::size_t>(id)].gpus;
    }
    if (total > cfg_.total_gpus()) {
      throw std::logic_error(who() + " allocated " + std::to_string(total) + " GPUs of " +
                             std::to_string(cfg_.total_gpus()));
    }
    for (const auto& [id, w] : ch)
      change(id, w);
    schedule_wakeup(d, who());
  }

  void schedule_wakeup(const Decision& d, const std::string& who) {
    ++wake_version_;
    if (d.wakeup_at < kInf) {
      if (!(d.wakeup_at > now_)) throw std::logic_error(who + " asked to be woken at a time not in the future");
      push({d.wakeup_at, EvKind::kWakeup, -1, wake_version_, 0});
    }
  }

  void apply(const Decision& d) {
    auto who = [this] { return "strategy '" + strat_.name() + "'"; };
    if (d.gpus.size() != active_.size()) {
      throw std::logic_error(who() + " returned " + std::to_string(d.gpus.size()) + " allocations for " +
                             std::to_string(active_.size()) + " jobs");
    }
    long total = 0;
    for (std::size_t k = 0; k < d.gpus.size(); ++k) {
      const int w = d.gpus[k];
      const JobPublic& p = pub_[static_cast<std::size_t>(active_[k])];
      if (w < 0 || (w > 0 && (w < p.cls.min_gpus || w > p.cls.max_gpus))) {
        throw std::logic_error(who() + " gave job " + p.name + " " + std::to_string(w) + " GPUs (limits " +
                               std::to_string(p.cls.min_gpus) + ".." + std::to_string(p.cls.max_gpus) + ")");
      }
      total += w;
    }
    if (total > cfg_.total_gpus()) {
      throw std::logic_error(who() + " allocated " + std::to_string(total) + " GPUs of " +
                             std::to_string(cfg_.total_gpus()));
    }
    check_node_gpus(d, who());
    check_pools(d, who());
    std::vector<int> relocated;
    if (placed()) place(d, relocated);
    for (std::size_t k = 0; k < d.gpus.size(); ++k)
      change(active_[k], d.gpus[k], pools_.empty() ? 0 : d.pools[k]);
    for (int id : relocated)
      relocate(id);
    if (placed() && placers_[0]->defragment()) {
      for (std::size_t k = 0; k < d.gpus.size(); ++k)
        if (rt_[static_cast<std::size_t>(active_[k])].state == JobState::kRunning) migrate(active_[k]);
    }
    schedule_wakeup(d, who());
  }

  // Typed clusters: one pool per job, each a pool of the cluster, no pool over its GPUs.
  void check_pools(const Decision& d, const std::string& who) const {
    if (pools_.empty()) {
      if (!d.pools.empty()) throw std::logic_error(who + " chose GPU pools on a cluster without cluster.pools");
      return;
    }
    if (d.pools.size() != d.gpus.size()) {
      throw std::logic_error(who +
                             " gave no GPU pool per job on a cluster with GPU types (Decision::pools): it does "
                             "not choose GPU types");
    }
    std::vector<long> used(pools_.size(), 0);
    for (std::size_t k = 0; k < d.gpus.size(); ++k) {
      if (d.gpus[k] == 0) continue;
      const int p = d.pools[k];
      if (p < 0 || static_cast<std::size_t>(p) >= pools_.size()) {
        throw std::logic_error(who + " put job " + pub_[static_cast<std::size_t>(active_[k])].name + " in pool " +
                               std::to_string(p) + " of " + std::to_string(pools_.size()));
      }
      used[static_cast<std::size_t>(p)] += d.gpus[k];
    }
    for (std::size_t p = 0; p < pools_.size(); ++p) {
      if (used[p] > pools_[p].gpus) {
        throw std::logic_error(who + " allocated " + std::to_string(used[p]) + " " + pools_[p].gpu_type + " GPUs of " +
                               std::to_string(pools_[p].gpus));
      }
    }
  }

  // Explicit placements must match the counts, one entry per node, and fit every node.
  void check_node_gpus(const Decision& d, const std::string& who) const {
    if (d.node_gpus.empty()) return;
    if (!placed()) throw std::logic_error(who + " placed jobs on nodes, but the engine has no placement policy");
    if (!pools_.empty())
      throw std::logic_error(who + " placed jobs on nodes: not supported on a cluster with GPU pools");
    if (d.node_gpus.size() != d.gpus.size()) throw std::logic_error(who + " gave node placements for some jobs only");
    std::vector<int> per_node(static_cast<std::size_t>(cfg_.cluster.nodes), 0);
    for (std::size_t k = 0; k < d.gpus.size(); ++k) {
      const auto& v = d.node_gpus[k];
      if (v.size() != per_node.size()) throw std::logic_error(who + " gave a placement of the wrong size");
      int sum = 0;
      for (std::size_t n = 0; n < v.size(); ++n) {
        if (v[n] < 0) throw std::logic_error(who + " placed a negative GPU count");
        sum += v[n];
        per_node[n] += v[n];
      }
      if (sum != d.gpus[k]) throw std::logic_error(who + " placed a job on other GPUs than it allocated");
    }
    for (int g : per_node) {
      if (g > cfg_.cluster.gpus_per_node) throw std::logic_error(who + " placed more GPUs on a node than it has");
    }
  }

  // Releases every job whose count (or, with explicit placements, whose GPUs per node) changes, then places them:
  // on the nodes the strategy named, else by the placement policy in the strategy's order or largest first (ties:
  // snapshot order). Jobs that keep their count but move are returned in `relocated`.
  void place(const Decision& d, std::vector<int>& relocated) {
    for (const auto& placer : placers_)
      placer->clock(now_);
    // The pool each job is placed in: the decision's on a typed cluster (one placer per pool), else the only one.
    const auto pool_of = [&](std::size_t k) {
      return pools_.empty() ? std::size_t{0} : static_cast<std::size_t>(d.pools[k]);
    };
    std::vector<std::size_t> moved;
    for (std::size_t k = 0; k < d.gpus.size(); ++k) {
      const int id = active_[k];
      const Runtime& r = rt_[static_cast<std::size_t>(id)];
      const bool count_changes = d.gpus[k] != r.gpus;
      const bool pool_changes =
          !pools_.empty() && d.gpus[k] > 0 && r.gpus > 0 && pool_of(k) != static_cast<std::size_t>(r.pool);
      const bool nodes_change =
          !d.node_gpus.empty() && !count_changes && placers_[0]->node_counts(id) != d.node_gpus[k];
      if (!count_changes && !nodes_change && !pool_changes) continue;
      placer_of(id).release(id);
      if (d.gpus[k] > 0) moved.push_back(k);
      if (nodes_change && d.gpus[k] > 0) relocated.push_back(id);
    }
    if (!d.node_gpus.empty()) {
      for (std::size_t k : moved)
        placers_[0]->place_on(active_[k], d.node_gpus[k]);
      return;
    }
    if (!d.place_order.empty()) {
      std::vector<std::size_t> rank(d.gpus.size(), d.gpus.size());
      for (std::size_t i = 0; i < d.place_order.size(); ++i) {
        const auto k = static_cast<std::size_t>(d.place_order[i]);
        if (k < rank.size()) rank[k] = std::min(rank[k], i);
      }
      std::stable_sort(moved.begin(), moved.end(), [&](std::size_t a, std::size_t b) { return rank[a] < rank[b]; });
    } else {
      std::stable_sort(moved.begin(), moved.end(), [&](std::size_t a, std::size_t b) { return d.gpus[a] > d.gpus[b]; });
    }
    for (std::size_t k : moved)
      placers_[pool_of(k)]->place(active_[k], d.gpus[k]);
  }

  // Same count on other GPUs, as the strategy placed it: a restart, logged as a migration.
  void relocate(int id) {
    Runtime& r = rt_[static_cast<std::size_t>(id)];
    advance(id);
    ++r.version;
    ++r.restarts;
    ++result_.jobs[static_cast<std::size_t>(id)].restarts;
    ++result_.migrations;
    if (r.gp) r.gp->reallocate(job_placement(id, r.gpus));
    log(id, r.gpus, r.gpus, AllocKind::kMigrate);
    begin_restart(id);
  }

  // Same count, better GPUs: a restart, logged and counted as a migration.
  void migrate(int id) {
    if (!placer_of(id).try_improve(id)) return;
    Runtime& r = rt_[static_cast<std::size_t>(id)];
    advance(id);
    ++r.version;
    ++r.restarts;
    ++result_.jobs[static_cast<std::size_t>(id)].restarts;
    if (r.gp) r.gp->reallocate(job_placement(id, r.gpus));
    log(id, r.gpus, r.gpus, AllocKind::kMigrate);
    begin_restart(id);
  }

  [[nodiscard]] bool placed() const { return !placers_.empty(); }
  // The placer of the job's pool (its last pool once it holds none; the only placer on an untyped cluster).
  [[nodiscard]] Placer& placer_of(int id) const {
    if (pools_.empty()) return *placers_[0];
    return *placers_[static_cast<std::size_t>(rt_[static_cast<std::size_t>(id)].pool)];
  }

  // GPUs per node of the pool the job holds (the cluster's on the untyped cluster).
  [[nodiscard]] int gpus_per_node_of(int id) const {
    if (pools_.empty()) return cfg_.cluster.gpus_per_node;
    return pools_[static_cast<std::size_t>(rt_[static_cast<std::size_t>(id)].pool)].gpus_per_node;
  }

  // `pool`: typed clusters only (0 otherwise); a job that keeps its count but moves pool restarts (a migration).
  void change(int id, int to, int pool = 0) {
    Runtime& r = rt_[static_cast<std::size_t>(id)];
    const int from = r.gpus;
    const bool moves_pool = !pools_.empty() && to > 0 && from > 0 && pool != r.pool;
    if (from == to && !moves_pool) return;
    advance(id);
    in_use_ += to - from;
    if (!pools_.empty()) {
      pool_in_use_[static_cast<std::size_t>(r.pool)] -= from;
      if (to > 0) r.pool = pool;
      pool_in_use_[static_cast<std::size_t>(r.pool)] += to;
      result_.jobs[static_cast<std::size_t>(id)].gpu_type = pools_[static_cast<std::size_t>(r.pool)].gpu_type;
    }
    dirty_.push_back(id);
    if (from == 0) holders_.push_back(id);
    if (to == 0) holders_.erase(std::find(holders_.begin(), holders_.end(), id));
    JobResult& res = result_.jobs[static_cast<std::size_t>(id)];
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
    if (r.gp && !pools_.empty())
      r.gp->use_app(goodput_on(cls_of(id), pools_[static_cast<std::size_t>(r.pool)].gpu_type));
    if (r.gp) r.gp->reallocate(job_placement(id, to));
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
    const double cost = cfg_.restart.cost_s + cfg_.restart.cost_per_gpu_s * static_cast<double>(r.gpus);
    if (cost > 0.0) {
      r.state = JobState::kRestarting;
      r.rate = 0.0;
      r.ready_at = now_ + cost;
      push({r.ready_at, EvKind::kRestartEnd, id, r.version, 0});
    } else {
      begin_running(id);
    }
  }

  // Every active job's belief against the truth, as of now (EngineConfig::score_beliefs). A belief is re-scored
  // only after it observed something new.
  void score_beliefs() {
    const auto score = [this](int id) {
      Runtime& r = rt_[static_cast<std::size_t>(id)];
      const Belief* b = beliefs_[static_cast<std::size_t>(id)].get();
      if (b == nullptr || !r.active) return;
      const JobPublic& p = pub_[static_cast<std::size_t>(id)];
      ScoreCache& sc = score_cache_[static_cast<std::size_t>(id)];
      if (sc.version != r.observations) {
        sc.version = r.observations;
        double sum = 0.0;
        double sum16 = 0.0;
        int n16 = 0;
        const double sf = wl_.jobs[static_cast<std::size_t>(id)].speed_factor;
        for (int w = 1; w <= p.cls.max_gpus; ++w) {
          const int nodes = packed_nodes(w, cfg_.cluster.gpus_per_node);
          const double truth = class_throughput(cls_of(id), w, nodes, sf);
          const double ape = truth > 0.0 ? std::abs(b->throughput(w, nodes) - truth) / truth : 0.0;
          sum += ape;
          if (w >= 16) {
            sum16 += ape;
            ++n16;
          }
        }
        sc.ape = p.cls.max_gpus > 0 ? sum / p.cls.max_gpus : 0.0;
        sc.ape16 = n16 > 0 ? sum16 / n16 : -1.0;
      }
      auto& cells = result_.belief_score.by_class;
      const auto k = static_cast<std::size_t>(wl_.jobs[static_cast<std::size_t>(id)].class_index);
      if (cells.size() <= k) cells.resize(k + 1);
      BeliefScore::Cell& bs = cells[k];
      if (!sc.counted) {
        sc.counted = true;
        ++bs.jobs;
      }
      bs.ape_sum += sc.ape;
      bs.work_ape_sum += std::abs(b->total_work() - r.work) / r.work;
      ++bs.job_decisions;
      if (sc.ape16 >= 0.0) {
        bs.ape16_sum += sc.ape16;
        ++bs.job_decisions16;
      }
    };
    for (std::size_t id = 0; id < rt_.size(); ++id)
      score(static_cast<int>(id));
  }

  void check() {
    EngineCheckView v;
    v.now = now_;
    v.total_gpus = cfg_.total_gpus();
    v.finished = finished_;
    for (int id : active_) {
      advance(id);
      const Runtime& r = rt_[static_cast<std::size_t>(id)];
      v.gpus_in_use += r.gpus;
      v.active.push_back({id, r.gpus, r.state, r.work_done, r.work});
    }
    for (std::size_t p = 0; p < pools_.size(); ++p) {
      v.pool_gpus.push_back(pools_[p].gpus);
      v.pool_gpus_in_use.push_back(pool_in_use_[p]);
    }
    checker_(v);
  }

  const Workload& wl_;
  Strategy& strat_;
  EngineConfig cfg_;
  EngineChecker checker_;
  Rng measure_rng_;
  std::vector<Runtime> rt_;
  std::vector<JobPublic> pub_;
  std::vector<std::unique_ptr<Belief>> beliefs_;
  std::vector<ScoreCache> score_cache_;            // by job id, only with EngineConfig::score_beliefs
  std::vector<int> active_;                        // dense mode; in incremental mode only kept for the checker
  int active_count_ = 0;                           // arrived, unfinished jobs
  int in_use_ = 0;                                 // GPUs held by active jobs
  int idle_rounds_ = 0;                            // round-based: decisions in a row with jobs left, none running
  std::vector<PoolInfo> pools_;                    // typed clusters: cluster.pools; empty on the untyped cluster
  std::vector<int> pool_in_use_;                   // typed clusters: GPUs held per pool
  bool incremental_ = false;                       // decide_changes with by_id_ instead of decide with views_
  std::vector<JobView> views_;                     // dense mode: parallel to active_
  mutable std::vector<JobView> by_id_;             // incremental mode: views by id, built on access
  mutable std::vector<std::uint64_t> view_stamp_;  // the decision each by_id_ entry was built in
  std::vector<int> arrived_;                       // incremental mode: arrivals since the last decision
  std::vector<int> finished_ids_;                  // incremental mode: completions since the last decision
  std::vector<int> holders_;                       // active jobs with GPUs > 0
  std::vector<int> dirty_;                         // jobs changed since the last snapshot
  std::priority_queue<Event, std::vector<Event>, std::greater<>> heap_;
  RunResult result_;
  double now_ = 0.0;
  std::uint64_t seq_ = 0;
  std::uint32_t wake_version_ = 0;
  int finished_ = 0;
  std::uint64_t reported_events_ = 0;  // progress already reported
  int reported_finished_ = 0;
  // Empty unless a topology or placement policy is configured: one placer, or one per pool on a typed cluster.
  std::vector<std::unique_ptr<Placer>> placers_;
  std::vector<int> node_offset_;                  // each placer's first node in ClusterView's numbering
  std::vector<RingComm> pool_ref_ring_;           // typed clusters with placers: each pool's reference ring
  RoundClock rounds_{cfg_.scheduler.interval_s};  // round-based scheduling: the start of the round ticking next
  [[nodiscard]] bool round_based() const { return cfg_.scheduler.interval_s > 0.0; }
  RingComm ref_ring_;
};

}  // namespace

RunResult simulate(const Workload& workload, Strategy& strategy, const BeliefSource& beliefs,
                   const EngineConfig& config, const EngineChecker& checker) {
  Engine e(workload, strategy, beliefs, config, checker);
  return e.run();
}

}  // namespace ringsched
