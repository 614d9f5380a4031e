// strategies/exploratory.cpp — `exploratory`: a new job first runs `phase_s` (default 150 s = 2.5 min) at each of
// 1, 2, 4, 8 GPUs while holding a reservation of 8 (progress counts; each change costs a restart), its noisy
// measured speeds are fitted with Eq. 5 (NNLS), and then it joins the doubling heuristic with that fitted speed
// and the remaining work of its belief source (history by default). Exploration has priority: with reclaim on
// (default) it takes GPUs from running jobs; with reclaim off it waits for free GPUs. On GPU pools a job explores
// every type in turn and the explored jobs share the pools by the typed doubling heuristic (decide_typed).
#include <algorithm>
#include <map>
#include <numeric>
#include <set>
#include <utility>

#include "models/fit.h"
#include "strategies/common/allocation.h"
#include "strategies/common/incremental_greedy.h"
#include "strategies/registry.h"

namespace ringsched {
namespace {

class ExploredBelief final : public Belief {
 public:
  ExploredBelief(models::Eq5Coeffs c, const JobPublic& pub) : c_(c), pub_(pub) {}
  void set_work_source(const Belief* b) { work_ = b; }
  [[nodiscard]] double throughput(int w, int /*nodes*/) const override {
    const double m = pub_.cls.batch_mode == BatchMode::kFixedGlobal ? pub_.cls.batch_size
                                                                    : pub_.cls.batch_size * static_cast<double>(w);
    const double t = models::eq5_step_time(c_, static_cast<double>(w), m, pub_.cls.model_size_mparams);
    return t > 0.0 ? m / t : 0.0;
  }
  [[nodiscard]] double total_work() const override { return work_ ? work_->total_work() : 1.0; }
  [[nodiscard]] std::string source() const override { return "exploration"; }
  // The fitted speed never changes; the work is the job's belief's.
  [[nodiscard]] bool fixed() const override { return work_ != nullptr && work_->fixed(); }
  [[nodiscard]] bool observes() const override { return false; }

 private:
  models::Eq5Coeffs c_;
  JobPublic pub_;
  const Belief* work_ = nullptr;
};

// Eq. 5 fitted per GPU type (typed clusters): the speeds a job measured on each type's pool; a type it could not run
// on (fewer GPUs than its min) runs it at 0. throughput() answers for the fastest type.
class TypedExploredBelief final : public Belief {
 public:
  TypedExploredBelief(std::map<std::string, models::Eq5Coeffs> fits, const JobPublic& pub, const Belief* work)
      : fits_(std::move(fits)), pub_(pub), work_(work) {}
  void set_work_source(const Belief* b) { work_ = b; }
  [[nodiscard]] double throughput(int w, int nodes) const override {
    double best = 0.0;
    for (const auto& [type, c] : fits_)
      best = std::max(best, throughput_on(type, w, nodes));
    return best;
  }
  [[nodiscard]] double throughput_on(const std::string& type, int w, int /*nodes*/) const override {
    const auto it = fits_.find(type);
    if (it == fits_.end()) return 0.0;
    const double m = pub_.cls.batch_mode == BatchMode::kFixedGlobal ? pub_.cls.batch_size
                                                                    : pub_.cls.batch_size * static_cast<double>(w);
    const double t = models::eq5_step_time(it->second, static_cast<double>(w), m, pub_.cls.model_size_mparams);
    return t > 0.0 ? m / t : 0.0;
  }
  [[nodiscard]] double total_work() const override { return work_ != nullptr ? work_->total_work() : 1.0; }
  [[nodiscard]] std::string source() const override { return "exploration"; }
  [[nodiscard]] bool observes() const override { return false; }

 private:
  std::map<std::string, models::Eq5Coeffs> fits_;
  JobPublic pub_;
  const Belief* work_;
};

// A job's exploration on a typed cluster: phases (pool, GPUs) over every pool that can hold its min GPUs, each
// width on each; `entered` false while it waits for room for its reservation on the pool of its phase.
struct TypedExploreState {
  std::vector<std::pair<int, int>> phases;
  int phase = -1;  // -1 not started, 0..phases-1 exploring, phases.size() done
  bool entered = false;
  double phase_end = 0.0;
  std::map<std::string, std::vector<models::SpeedPoint>> points;  // by GPU type
  std::unique_ptr<TypedExploredBelief> fitted;
};

struct ExploreState {
  int phase = -1;  // -1 not started, 0..n-1 exploring at widths[phase], n = done
  double phase_end = 0.0;
  std::vector<models::SpeedPoint> points;
  std::unique_ptr<ExploredBelief> fitted;
};

// The explored jobs' views for the incremental greedy: the engine's, with the fitted belief in place of the job's.
class ExploredViews final : public JobViews {
 public:
  void reset(const JobViews* base, const std::vector<ExploreState>* states) {
    base_ = base;
    states_ = states;
    ++stamp_;
  }
  [[nodiscard]] const JobView& view(int id) const override {
    const auto i = static_cast<std::size_t>(id);
    if (views_.size() <= i) {
      views_.resize(i + 1);
      stamps_.resize(i + 1, 0);
    }
    if (stamps_[i] != stamp_) {
      views_[i] = base_->view(id);
      views_[i].belief = (*states_)[i].fitted.get();
      stamps_[i] = stamp_;
    }
    return views_[i];
  }
  [[nodiscard]] double work_done(int id) const override { return base_->work_done(id); }

 private:
  const JobViews* base_ = nullptr;
  const std::vector<ExploreState>* states_ = nullptr;
  std::uint64_t stamp_ = 0;
  mutable std::vector<JobView> views_;
  mutable std::vector<std::uint64_t> stamps_;
};

class Exploratory final : public Strategy {
 public:
  Exploratory(std::vector<int> widths, double phase_s, bool reclaim, double sigma)
      : widths_(std::move(widths)), phase_s_(phase_s), reclaim_(reclaim), sigma_(sigma) {}

  [[nodiscard]] std::string name() const override { return "exploratory"; }
  void on_finish(int job_id) override {
    state_.erase(job_id);
    typed_.erase(job_id);
  }
  [[nodiscard]] bool incremental() const override { return true; }
  Decision decide_changes(const Snapshot& s) override;

  Decision decide(const Snapshot& s) override {
    if (!s.pools.empty()) return decide_typed(s);
    const int n = static_cast<int>(widths_.size());
    const double eps = 1e-9;
    // 1. Phase ends: measure, move on, fit after the last width.
    for (const auto& j : s.jobs) {
      auto& st = state_[j.pub->id];
      if (st.phase >= 0 && st.phase < n && st.phase_end <= s.now + eps) end_phase(st, j, s);
    }
    // 2. Allocation: exploring jobs first (arrival order), then doubling over explored jobs.
    Decision d = empty_decision(s);
    int budget = s.total_gpus;
    int free_now = s.total_gpus;
    for (const auto& j : s.jobs)
      free_now -= j.gpus;
    std::vector<int> explored;
    // Every exploring job's reservation first, then waiting jobs start in arrival order while theirs fits what is
    // left (the reservations never exceed the GPUs, whatever the arrival order).
    for (const auto& j : s.jobs) {
      const auto& st = state_[j.pub->id];
      if (st.phase >= 0 && st.phase < n) budget -= reservation(*j.pub);
    }
    for (std::size_t i = 0; i < s.jobs.size(); ++i) {
      const auto& j = s.jobs[i];
      auto& st = state_[j.pub->id];
      const int reserve = reservation(*j.pub);
      if (st.phase >= 0 && st.phase < n) {
        d.jobs[i].gpus = phase_width(*j.pub, st.phase);
      } else if (st.phase < 0) {
        const bool room = reclaim_ ? reserve <= budget : reserve <= std::min(budget, free_now);
        if (room) {
          st.phase = 0;
          st.phase_end = s.now + phase_s_;
          budget -= reserve;
          free_now -= reserve;
          d.jobs[i].gpus = phase_width(*j.pub, 0);
        }
      } else {
        explored.push_back(static_cast<int>(i));
      }
    }
    if (budget > 0 && !explored.empty()) {
      views_.assign(s.jobs.begin(), s.jobs.end());
      for (int idx : explored) {
        auto& st = state_[s.jobs[static_cast<std::size_t>(idx)].pub->id];
        st.fitted->set_work_source(s.jobs[static_cast<std::size_t>(idx)].belief);
        views_[static_cast<std::size_t>(idx)].belief = st.fitted.get();
      }
      Snapshot sub = s;
      sub.jobs = views_;
      const auto alloc = doubling_allocation(sub, explored, budget);
      for (std::size_t k = 0; k < explored.size(); ++k)
        d.jobs[static_cast<std::size_t>(explored[k])].gpus = alloc[k];
    }
    for (const auto& j : s.jobs) {
      const auto& st = state_[j.pub->id];
      if (st.phase >= 0 && st.phase < n) d.wakeup_at = std::min(d.wakeup_at, st.phase_end);
    }
    return d;
  }

 private:
  // A phase ends: the job's speed at its GPUs is measured, and after the last phase Eq. 5 is fitted to what it
  // measured.
  void end_phase(ExploreState& st, const JobView& j, const Snapshot& s) const {
    const int w = j.gpus;
    const double thr = s.probe->measure_throughput(j.pub->id, sigma_);
    if (w > 0 && thr > 0.0) {
      const double m = j.pub->cls.batch_mode == BatchMode::kFixedGlobal
                           ? j.pub->cls.batch_size
                           : j.pub->cls.batch_size * static_cast<double>(w);
      st.points.push_back({w, packed_nodes(w, s.gpus_per_node), m, m / thr});
    }
    ++st.phase;
    st.phase_end = s.now + phase_s_;
    if (st.phase == static_cast<int>(widths_.size())) {
      models::Eq5Coeffs c;
      if (!st.points.empty()) c = models::fit_eq5(st.points, j.pub->cls.model_size_mparams).coeffs;
      st.fitted = std::make_unique<ExploredBelief>(c, *j.pub);
    }
  }
  int phase_width(const JobPublic& p, int phase) const {
    return std::clamp(widths_[static_cast<std::size_t>(phase)], p.cls.min_gpus, p.cls.max_gpus);
  }
  int reservation(const JobPublic& p) const {
    const int widest = *std::max_element(widths_.begin(), widths_.end());
    return std::clamp(widest, p.cls.min_gpus, p.cls.max_gpus);
  }

  // Typed clusters (decide_typed, below).
  Decision decide_typed(const Snapshot& s);
  void end_typed_phase(TypedExploreState& st, const JobView& j, const Snapshot& s) const;
  [[nodiscard]] std::vector<std::pair<int, int>> typed_phases(const Snapshot& s, const JobPublic& p) const;
  [[nodiscard]] int typed_reservation(const Snapshot& s, const JobPublic& p, int pool) const;
  std::map<int, TypedExploreState> typed_;

  std::vector<int> widths_;
  double phase_s_;
  bool reclaim_;
  double sigma_;
  std::map<int, ExploreState> state_;
  std::vector<JobView> views_;

  // decide_changes (the same decisions kept incrementally; see its comment).
  ExploreState& st(int id) {
    if (inc_.size() <= static_cast<std::size_t>(id)) inc_.resize(static_cast<std::size_t>(id) + 1);
    return inc_[static_cast<std::size_t>(id)];
  }
  void add_reserve(int id, int r) {
    reserved_ += r;
    reserve_of_[static_cast<std::size_t>(id)] += r;
  }
  std::vector<ExploreState> inc_;                // by id
  std::vector<int> held_;                        // by id: GPUs as last decided
  std::set<std::pair<double, int>> exploring_;   // (phase end, id)
  std::set<int> waiting_;                        // active jobs not started
  std::vector<int> reserve_of_;                  // by id: its reserve while exploring, else 0
  long reserved_ = 0;                            // sum of reserve_of_
  IncrementalGreedy greedy_{GrowStep::kDouble};  // the explored jobs
  ExploredViews explored_views_;
  std::vector<int> newly_explored_;
  std::vector<int> explored_finished_;
  void set_held(Decision& d, int id, int gpus);
  void retire_and_admit(const Snapshot& s);
  void end_phases(Decision& d, const Snapshot& s);
  void start_waiting(Decision& d, const Snapshot& s);
  void explored_greedy(Decision& d, const Snapshot& s);
};

// On a typed cluster (Snapshot::pools) a job explores every GPU type: it runs phase_s at each width on each pool (in
// config order) that can hold its min GPUs, widths clamped to [min, min(max, the pool's GPUs)], holding its
// reservation (the widest such width) on the pool of its phase; moving to the next pool it waits, holding nothing,
// until its reservation fits there (what earlier exploring jobs' reservations leave, and without reclaim the free
// GPUs). Eq. 5 is then fitted per type, and the explored jobs share what the reservations leave on each pool by
// typed_greedy_allocation (doubling) on those fitted speeds.
std::vector<std::pair<int, int>> Exploratory::typed_phases(const Snapshot& s, const JobPublic& p) const {
  std::vector<std::pair<int, int>> out;
  for (std::size_t k = 0; k < s.pools.size(); ++k) {
    if (s.pools[k].gpus < p.cls.min_gpus) continue;
    const int most = std::min(p.cls.max_gpus, s.pools[k].gpus);
    for (int w : widths_)
      out.emplace_back(static_cast<int>(k), std::clamp(w, p.cls.min_gpus, most));
  }
  return out;
}

int Exploratory::typed_reservation(const Snapshot& s, const JobPublic& p, int pool) const {
  const int widest = *std::max_element(widths_.begin(), widths_.end());
  return std::clamp(widest, p.cls.min_gpus, std::min(p.cls.max_gpus, s.pools[static_cast<std::size_t>(pool)].gpus));
}

void Exploratory::end_typed_phase(TypedExploreState& st, const JobView& j, const Snapshot& s) const {
  const int w = j.gpus;
  const double thr = s.probe->measure_throughput(j.pub->id, sigma_);
  const PoolInfo& pool = s.pools[static_cast<std::size_t>(j.pool)];
  if (w > 0 && thr > 0.0) {
    const double m = j.pub->cls.batch_mode == BatchMode::kFixedGlobal ? j.pub->cls.batch_size
                                                                      : j.pub->cls.batch_size * static_cast<double>(w);
    st.points[pool.gpu_type].push_back({w, packed_nodes(w, pool.gpus_per_node), m, m / thr});
  }
  const int from = st.phases[static_cast<std::size_t>(st.phase)].first;
  ++st.phase;
  st.phase_end = s.now + phase_s_;
  if (st.phase < static_cast<int>(st.phases.size())) {
    st.entered = st.phases[static_cast<std::size_t>(st.phase)].first == from;  // a new pool: wait for room there
    return;
  }
  std::map<std::string, models::Eq5Coeffs> fits;
  for (const auto& [type, pts] : st.points)
    fits[type] = models::fit_eq5(pts, j.pub->cls.model_size_mparams).coeffs;
  st.fitted = std::make_unique<TypedExploredBelief>(std::move(fits), *j.pub, j.belief);
}

Decision Exploratory::decide_typed(const Snapshot& s) {
  const double eps = 1e-9;
  const auto exploring = [](const TypedExploreState& st) {
    return st.phase >= 0 && st.phase < static_cast<int>(st.phases.size());
  };
  for (const auto& j : s.jobs) {  // 1. phase ends (arrival order)
    auto& st = typed_[j.pub->id];
    if (exploring(st) && st.entered && st.phase_end <= s.now + eps) end_typed_phase(st, j, s);
  }
  // 2. Reservations: jobs in their pool keep theirs; then, in arrival order, jobs moving to a new pool and waiting
  // jobs (on the pool of their first phase) enter while their reservation fits what is left.
  Decision d = empty_decision(s);
  std::vector<int> budget = pool_gpus(s);
  std::vector<int> free_now = pool_gpus(s);
  for (const auto& j : s.jobs)
    free_now[static_cast<std::size_t>(j.pool)] -= j.gpus;
  const auto phase_of = [](const TypedExploreState& st) { return st.phases[static_cast<std::size_t>(st.phase)]; };
  for (const auto& j : s.jobs) {
    const auto& st = typed_[j.pub->id];
    if (exploring(st) && st.entered)
      budget[static_cast<std::size_t>(phase_of(st).first)] -= typed_reservation(s, *j.pub, phase_of(st).first);
  }
  std::vector<int> explored;
  for (std::size_t i = 0; i < s.jobs.size(); ++i) {
    const auto& j = s.jobs[i];
    auto& st = typed_[j.pub->id];
    if (st.phase < 0) {
      st.phases = typed_phases(s, *j.pub);
      st.phase = 0;
      st.entered = false;
    }
    if (!exploring(st)) {
      explored.push_back(static_cast<int>(i));
      continue;
    }
    const auto [pool, width] = phase_of(st);
    const auto k = static_cast<std::size_t>(pool);
    if (!st.entered) {
      const int reserve = typed_reservation(s, *j.pub, pool);
      if (reserve > (reclaim_ ? budget[k] : std::min(budget[k], free_now[k]))) continue;
      st.entered = true;
      st.phase_end = s.now + phase_s_;
      budget[k] -= reserve;
      free_now[k] -= reserve;
    }
    d.jobs[i].gpus = width;
    d.jobs[i].pool = pool;
    d.wakeup_at = std::min(d.wakeup_at, st.phase_end);
  }
  // 3. The explored jobs: doubling per type with what the reservations leave on each pool.
  if (explored.empty()) return d;
  views_.assign(s.jobs.begin(), s.jobs.end());
  for (int idx : explored) {
    auto& st = typed_[s.jobs[static_cast<std::size_t>(idx)].pub->id];
    st.fitted->set_work_source(s.jobs[static_cast<std::size_t>(idx)].belief);
    views_[static_cast<std::size_t>(idx)].belief = st.fitted.get();
  }
  std::vector<PoolInfo> left(s.pools.begin(), s.pools.end());
  for (std::size_t k = 0; k < left.size(); ++k)
    left[k].gpus = std::max(0, budget[k]);
  Snapshot sub = s;
  sub.jobs = views_;
  sub.pools = left;
  const Decision g = typed_greedy_allocation(sub, explored, false);
  for (int idx : explored)
    d.jobs[static_cast<std::size_t>(idx)] = g.jobs[static_cast<std::size_t>(idx)];
  return d;
}

// decide_changes decides what decide does, in its order, touching only what changes:
// 1. Phase ends come from the exploring jobs ordered by phase end, measured in id order (the measurement stream is
//    drawn in that order by decide).
// 2. decide starts waiting jobs in arrival order while their reservation fits what the exploring jobs' reservations
//    leave (and, without reclaim, the free GPUs). Only the jobs not yet started are visited.
// 3. The explored jobs get the doubling heuristic over them in arrival order with what the reservations leave, which
//    IncrementalGreedy keeps (their fitted beliefs are fixed when the job's belief is); jobs join it when their
//    exploration ends and leave it when they finish.
Decision Exploratory::decide_changes(const Snapshot& s) {
  retire_and_admit(s);
  Decision d;
  end_phases(d, s);
  start_waiting(d, s);
  explored_greedy(d, s);
  const int n = static_cast<int>(widths_.size());
  for (int id : explored_finished_)
    inc_[static_cast<std::size_t>(id)] = ExploreState{};
  for (int id : s.finished)
    if (st(id).phase < n) inc_[static_cast<std::size_t>(id)] = ExploreState{};
  if (!exploring_.empty()) d.wakeup_at = exploring_.begin()->first;
  return d;
}

void Exploratory::set_held(Decision& d, int id, int gpus) {
  int& h = held_[static_cast<std::size_t>(id)];
  if (h == gpus) return;
  h = gpus;
  d.changes.push_back({id, gpus});
}

// Finished jobs leave their structure (the explored ones leave the greedy in explored_greedy); arrivals wait.
void Exploratory::retire_and_admit(const Snapshot& s) {
  const int n = static_cast<int>(widths_.size());
  explored_finished_.clear();
  for (int id : s.finished) {
    ExploreState& e = st(id);
    if (e.phase >= 0 && e.phase < n) {
      exploring_.erase({e.phase_end, id});
      add_reserve(id, -reserve_of_[static_cast<std::size_t>(id)]);
    } else if (e.phase < 0) {
      waiting_.erase(id);
    } else {
      explored_finished_.push_back(id);
    }
    held_[static_cast<std::size_t>(id)] = 0;
  }
  for (int id : s.arrived) {
    const auto need = static_cast<std::size_t>(id) + 1;
    if (inc_.size() < need) inc_.resize(need);
    if (held_.size() < need) held_.resize(need, 0);
    if (reserve_of_.size() < need) reserve_of_.resize(need, 0);
    waiting_.insert(id);
  }
}

// 1. Phase ends, in id order; a job that measured its last width joins the explored jobs.
void Exploratory::end_phases(Decision& d, const Snapshot& s) {
  const int n = static_cast<int>(widths_.size());
  const double eps = 1e-9;
  std::vector<int> ending;
  for (auto it = exploring_.begin(); it != exploring_.end() && it->first <= s.now + eps; ++it)
    ending.push_back(it->second);
  std::sort(ending.begin(), ending.end());
  newly_explored_.clear();
  for (int id : ending) {
    ExploreState& e = st(id);
    exploring_.erase({e.phase_end, id});
    const JobView& j = s.views->view(id);
    end_phase(e, j, s);
    if (e.phase == n) {
      e.fitted->set_work_source(j.belief);
      add_reserve(id, -reserve_of_[static_cast<std::size_t>(id)]);
      newly_explored_.push_back(id);
    } else {
      exploring_.insert({e.phase_end, id});
    }
  }
  for (int id : ending) {
    const ExploreState& e = st(id);
    if (e.phase < n) set_held(d, id, phase_width(*s.views->view(id).pub, e.phase));
  }
}

// 2. Waiting jobs start in arrival order when their reservation fits.
void Exploratory::start_waiting(Decision& d, const Snapshot& s) {
  long started = 0;  // reservations of jobs started in this decision
  int free_now = s.total_gpus - s.gpus_in_use;
  std::vector<int> starting;
  for (int id : waiting_) {
    const long budget = s.total_gpus - reserved_ - started;
    if (budget <= 0) break;  // nothing later fits either
    const JobPublic& p = *s.views->view(id).pub;
    const int reserve = reservation(p);
    const bool room = reclaim_ ? reserve <= budget : reserve <= std::min<long>(budget, free_now);
    if (!room) continue;
    starting.push_back(id);
    started += reserve;
    free_now -= reserve;
  }
  for (int id : starting) {
    waiting_.erase(id);
    ExploreState& e = st(id);
    e.phase = 0;
    e.phase_end = s.now + phase_s_;
    exploring_.insert({e.phase_end, id});
    const JobPublic& p = *s.views->view(id).pub;
    add_reserve(id, reservation(p));
    set_held(d, id, phase_width(p, 0));
  }
}

// 3. The explored jobs: doubling with what the reservations leave.
void Exploratory::explored_greedy(Decision& d, const Snapshot& s) {
  const long budget = s.total_gpus - reserved_;
  Snapshot sub;
  sub.now = s.now;
  sub.total_gpus = static_cast<int>(std::max(0L, budget));
  sub.gpus_per_node = s.gpus_per_node;
  sub.probe = s.probe;
  explored_views_.reset(s.views, &inc_);
  sub.views = &explored_views_;
  sub.arrived = newly_explored_;
  sub.finished = explored_finished_;
  const Decision g = greedy_.decide(sub);
  // A job that leaves exploration holds its last width; the greedy starts it from 0, so its count is set here.
  std::vector<std::pair<int, int>> counts;
  counts.reserve(g.changes.size());
  for (const Change& c : g.changes)
    counts.emplace_back(c.job, c.gpus);
  std::sort(counts.begin(), counts.end());
  for (int id : newly_explored_) {
    const auto it = std::lower_bound(counts.begin(), counts.end(), std::make_pair(id, -1));
    if (it == counts.end() || it->first != id) set_held(d, id, 0);
  }
  for (const auto& [id, w] : counts)
    set_held(d, id, w);
}

}  // namespace

StrategyInfo exploratory_strategy_info() {
  StrategyInfo info;
  info.name = "exploratory";
  info.description =
      "A new job runs phase_s seconds at each of `widths` GPUs (holding the widest as a reservation), fits Eq. 5 to "
      "its noisy measured speeds, then joins the doubling heuristic. Params: widths (default [1,2,4,8]), phase_s "
      "(default 150), reclaim (default true: exploration takes GPUs from running jobs), measurement_sigma "
      "(lognormal noise on each measured speed, default 0.05). On GPU pools a job explores each width on each "
      "GPU type in turn (holding its reservation on that pool), fits Eq. 5 per type, then joins the doubling "
      "heuristic over types.";
  info.default_beliefs = "history";
  info.gpu_types = true;
  info.params = {"widths", "phase_s", "reclaim", "measurement_sigma"};
  info.make = [](const JsonReader& p) -> std::unique_ptr<Strategy> {
    std::vector<int> widths = {1, 2, 4, 8};
    if (auto wr = p.maybe("widths")) {
      widths.clear();
      for (const auto& e : wr->non_empty_elements())
        widths.push_back(static_cast<int>(e.as_integer_in(1, 1 << 20)));
    }
    const double phase_s = p.positive_or("phase_s", 150.0);
    const double sigma = p.non_negative_or("measurement_sigma", 0.05);
    if (sigma > 2.0) p.at("measurement_sigma").fail("must be <= 2");
    return std::make_unique<Exploratory>(widths, phase_s, p.bool_or("reclaim", true), sigma);
  };
  return info;
}
const StrategyRegistrar exploratory_registrar{exploratory_strategy_info};

}  // namespace ringsched
