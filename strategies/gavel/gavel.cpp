// strategies/gavel/gavel.cpp — Gavel's (OSDI'20) round-based mechanism with its policies: `gavel_fifo`,
// `gavel_fifo_perf`, `max_min_fairness` (LAS), `max_min_fairness_perf` (Gavel's heterogeneity-aware LAS),
// `finish_time_fairness_perf`, `min_total_duration_perf`, their throughput-agnostic `finish_time_fairness` and
// `min_total_duration`, `max_sum_throughput_perf`, `isolated`, `allox` and Shockwave's `gandiva_fair`
// (gavel_policies_more.h). Run with
// scheduler.interval_s = the round (360 s) on a cluster with GPU pools; configs label them with Gavel's names. Each
// rule with its source in Gavel's scheduler/scheduler.py: docs/fidelity.md "Gavel".
#include <algorithm>
#include <map>
#include <stdexcept>
#include <unordered_map>

#include <boost/random/uniform_int_distribution.hpp>

#include "models/input_error.h"
#include "strategies/gavel/gavel_allocation.h"
#include "strategies/gavel/gavel_policies_more.h"
#include "strategies/registry.h"
#include "workloads/rng.h"

namespace ringsched {
namespace {

enum class GavelPolicy {
  kFifo,
  kFifoPerf,
  kLas,
  kLasPerf,
  kFtfPerf,
  kMakespanPerf,
  kFtf,          // finish_time_fairness: the reference type's throughput on every type
  kMakespan,     // min_total_duration: likewise
  kMaxSumPerf,   // max_sum_throughput_perf
  kIsolated,     // isolated
  kAllox,        // allox
  kGandivaFair,  // gandiva_fair (Shockwave's GandivaFairProportional)
};

struct JobState {
  std::vector<double> alloc;        // time fraction per pool (empty: not in the allocation)
  std::vector<double> time_so_far;  // seconds received per pool since the last reset (seeded with half a round)
  std::vector<double> deficit;
  // Finish-time fairness (finish_time_fairness.py): time the job would have needed alone so far, and the remaining
  // steps and isolated throughput at the previous allocation (-1 before the first).
  double cumulative_isolated = 0.0;
  double remaining_prev = -1.0;
  double isolated_prev = 0.0;
  std::vector<double> tput;  // believed throughput per pool at the job's scale factor
  int scale_factor = 1;      // GPUs it runs on
  int id = 0;
  bool tput_kept = false;  // `tput` holds for good (the belief never changes)
};

class GavelRound final : public Strategy {
 public:
  GavelRound(GavelPolicy policy, std::string name, double round_s, double reset_s, std::uint64_t seed, bool centre)
      : policy_(policy),
        centre_(centre),
        name_(std::move(name)),
        round_s_(round_s),
        reset_s_(reset_s),
        shuffle_(make_rng(seed, Stream::kGavelJobs, 1)),
        fifo_rng_(make_rng(seed, Stream::kGavelJobs, 2)) {}
  [[nodiscard]] std::string name() const override { return name_; }
  // The agnostic policies' reference type (Gavel's 'v100'); AlloX's alpha (allox_alpha=...: the share of the
  // waiting jobs it matches, at least as many as free GPUs).
  void options(std::string reference_type, double alpha) {
    reference_type_ = std::move(reference_type);
    alpha_ = alpha;
  }

  Decision decide(const Snapshot& s) override {
    if (s.pools.empty()) throw std::logic_error(name_ + " needs a cluster with GPU pools (cluster.pools)");
    account(s);
    fill_throughputs(s);
    if (need_update_ && (s.now - last_reset_ >= reset_s_ || last_reset_ == 0.0)) reset(s);
    return schedule(s);
  }
  void on_finish(int job_id) override {
    jobs_.erase(job_id);
    need_update_ = true;
  }

 private:
  [[nodiscard]] bool fifo() const { return policy_ == GavelPolicy::kFifo || policy_ == GavelPolicy::kFifoPerf; }
  // Gavel's policy name has "Perf" (the scheduler then keeps the type order; the agnostic ones shuffle it). AlloX's
  // is "AlloX_Perf"; `isolated`'s "Isolated", the agnostic ones' "MinTotalDuration" and "FinishTimeFairness".
  [[nodiscard]] bool perf() const {
    return policy_ != GavelPolicy::kFifo && policy_ != GavelPolicy::kLas && policy_ != GavelPolicy::kFtf &&
           policy_ != GavelPolicy::kMakespan && policy_ != GavelPolicy::kIsolated &&
           policy_ != GavelPolicy::kGandivaFair;
  }

  // Each snapshot job's believed throughput on each pool at its scale factor (JobState::tput), read once per decision
  // (the round walks every job on every type), or once for good when its belief never changes (Belief::fixed).
  void fill_throughputs(const Snapshot& s) {
    const std::size_t n = s.pools.size();
    for (std::size_t i = 0; i < s.jobs.size(); ++i) {
      const JobView& j = s.jobs[i];
      if (j.belief == nullptr) throw std::logic_error("Gavel's policies plan with throughputs: give them beliefs");
      JobState& st = *state_[i];
      if (!st.tput_kept) {
        const int sf = std::max(1, j.pub->requested_gpus);
        st.scale_factor = sf;
        const bool had = st.tput.size() == n;  // read before: a change asks for a new allocation (below)
        bool changed = false;
        st.tput.resize(n);
        for (std::size_t k = 0; k < n; ++k) {
          const PoolInfo& p = s.pools[k];
          const double v = j.belief->throughput_on(p.gpu_type, sf, (sf + p.gpus_per_node - 1) / p.gpus_per_node);
          changed = changed || (had && v != st.tput[k]);
          st.tput[k] = v;
        }
        st.tput_kept = j.belief->fixed();
        // A job whose true throughput changed (an epoch-scheduled job at a new batch size) asks for a new allocation,
        // as Shockwave's simulator does after a batch change (scheduler.py _done_callback: _need_to_update_allocation).
        if (changed && j.belief->source() == "oracle") need_update_ = true;
      }
    }
  }

  // Time received in the round that ended now (Gavel's _done_callback: once per job, not per GPU); new jobs.
  void account(const Snapshot& s) {
    const double elapsed = s.now - last_call_;
    for (const auto& [id, pool] : ran_) {
      worker_time_[pool] += elapsed;
      if (auto it = jobs_.find(id); it != jobs_.end()) it->second.time_so_far[pool] += elapsed;
    }
    ran_.clear();
    last_call_ = s.now;
    if (worker_time_.empty()) worker_time_.assign(s.pools.size(), 0.0);
    state_.resize(s.jobs.size());
    for (std::size_t i = 0; i < s.jobs.size(); ++i) {
      const auto [it, added] = jobs_.try_emplace(s.jobs[i].pub->id);
      state_[i] = &it->second;
      if (!added) continue;
      it->second.id = s.jobs[i].pub->id;
      it->second.time_so_far.assign(s.pools.size(), round_s_ / 2.0);
      it->second.deficit.assign(s.pools.size(), 0.0);
      need_update_ = true;
    }
  }

  // _reset_time_run_so_far, then a new allocation (_compute_allocation).
  void reset(const Snapshot& s) {
    const double elapsed = s.now - last_reset_;
    std::fill(worker_time_.begin(), worker_time_.end(), 0.0);
    for (auto& [id, st] : jobs_) {
      for (std::size_t k = 0; k < s.pools.size(); ++k) {
        const double a = st.alloc.empty() ? 0.0 : st.alloc[k];
        st.deficit[k] += a * elapsed - (st.time_so_far[k] - round_s_ / 2.0);
        st.time_so_far[k] = round_s_ / 2.0;
        worker_time_[k] += round_s_ / 2.0;
      }
    }
    last_reset_ = s.now;
    need_update_ = false;
    if (fifo()) {
      allocate_fifo(s);
    } else if (policy_ == GavelPolicy::kFtfPerf || policy_ == GavelPolicy::kFtf) {
      allocate_ftf(s);
    } else if (policy_ == GavelPolicy::kMakespanPerf || policy_ == GavelPolicy::kMakespan) {
      allocate_makespan(s);
    } else if (policy_ == GavelPolicy::kMaxSumPerf || policy_ == GavelPolicy::kIsolated) {
      set_allocation(
          s, policy_ == GavelPolicy::kIsolated ? isolated_allocation(problem(s)) : max_sum_throughput(problem(s)));
    } else if (policy_ == GavelPolicy::kGandivaFair) {
      set_allocation(s, gandiva_fair_allocation(problem(s)));
    } else if (policy_ == GavelPolicy::kAllox) {
      allocate_allox(s);
    } else {
      allocate_las(s);
    }
  }

  [[nodiscard]] GavelProblem problem(const Snapshot& s) const {
    GavelProblem p;
    for (const PoolInfo& pool : s.pools)
      p.workers.push_back(pool.gpus);
    for (std::size_t i = 0; i < s.jobs.size(); ++i)
      p.throughput.push_back(tput(i));
    for (const JobView& j : s.jobs) {
      p.scale_factor.push_back(std::max(1, j.pub->requested_gpus));
      p.priority_weight.push_back(j.pub->priority_weight);
      p.ids.push_back(j.pub->id);
    }
    p.centre = centre_;
    if (policy_ == GavelPolicy::kFtf || policy_ == GavelPolicy::kMakespan) return agnostic(s, p);
    return p;
  }

  // The throughput-agnostic policies' problem: the reference type's throughput on every type (Gavel's 'v100').
  [[nodiscard]] GavelProblem agnostic(const Snapshot& s, const GavelProblem& p) const {
    for (std::size_t k = 0; k < s.pools.size(); ++k)
      if (s.pools[k].gpu_type == reference_type_) return with_reference_throughputs(p, k);
    throw InputError(name_ + ": no GPU pool of type '" + reference_type_ +
                     "' (param reference_type: the type whose throughput the throughput-agnostic policy plans with)");
  }

  void set_allocation(const Snapshot& s, const GavelAllocation& a) {
    if (!a.optimal) unsolved(s, a.status);
    for (std::size_t i = 0; i < s.jobs.size(); ++i)
      state_[i]->alloc = a.x[i];
  }

  // AlloX (allox.py): single-GPU jobs only, each kept on its type once it heads a GPU's queue.
  void allocate_allox(const Snapshot& s) {
    std::vector<double> since(s.jobs.size());
    std::vector<double> remaining(s.jobs.size());
    for (std::size_t i = 0; i < s.jobs.size(); ++i) {
      const JobPublic& j = *s.jobs[i].pub;
      if (std::max(1, j.requested_gpus) != 1) {
        throw InputError(name_ + ": job " + j.name + " asks for " + std::to_string(j.requested_gpus) +
                         " GPUs; AlloX (allox.py) runs only single-GPU jobs");
      }
      since[i] = s.now - j.arrival;
      remaining[i] = believed_remaining(s.jobs[i]);
    }
    set_allocation(s, allox_allocation(problem(s), since, remaining, allox_, alpha_));
  }

  void allocate_las(const Snapshot& s) {
    GavelProblem p = problem(s);
    p.warm = &warm_;  // the last allocation's basis: the same optimum value, fewer pivots
    const GavelAllocation a = max_min_fairness(p, perf());
    if (!a.optimal) unsolved(s, a.status);
    for (std::size_t i = 0; i < s.jobs.size(); ++i)
      state_[i]->alloc = a.x[i];
  }

  // Finish-time fairness: remaining steps (the belief's remaining work: steps for the gavel catalog), time since
  // arrival, and the isolated time so far plus what remains at the isolated rate.
  void allocate_ftf(const Snapshot& s) {
    GavelProblem p = problem(s);
    p.warm = &warm_;  // the last program's basis (a program is rarely needed: see finish_time_fairness)
    const std::vector<double> iso = isolated_throughputs(p);
    std::vector<double> since(s.jobs.size());
    std::vector<double> remaining(s.jobs.size());
    std::vector<double> isolated_time(s.jobs.size());
    for (std::size_t i = 0; i < s.jobs.size(); ++i) {
      JobState& st = *state_[i];
      since[i] = s.now - s.jobs[i].pub->arrival;
      remaining[i] = believed_remaining(s.jobs[i]);
      if (st.remaining_prev >= 0.0 && st.isolated_prev > 0.0) {
        st.cumulative_isolated += (st.remaining_prev - remaining[i]) / st.isolated_prev;
      }
      st.remaining_prev = remaining[i];
      st.isolated_prev = iso[i];
      isolated_time[i] = iso[i] > 0.0 ? st.cumulative_isolated + remaining[i] / iso[i] : 1e300;
    }
    const GavelAllocation a = finish_time_fairness(p, since, remaining, isolated_time, ftf_last_);
    ftf_last_ = a.optimal ? a.objective : 0.0;
    if (!a.optimal) unsolved(s, a.status);
    for (std::size_t i = 0; i < s.jobs.size(); ++i)
      state_[i]->alloc = a.x[i];
  }

  // Makespan (min_total_duration.py): the remaining steps of every job finished as early as possible.
  void allocate_makespan(const Snapshot& s) {
    std::vector<double> remaining(s.jobs.size());
    for (std::size_t i = 0; i < s.jobs.size(); ++i)
      remaining[i] = believed_remaining(s.jobs[i]);
    const GavelAllocation a = min_total_duration(problem(s), remaining);
    if (!a.optimal) unsolved(s, a.status);
    for (std::size_t i = 0; i < s.jobs.size(); ++i)
      state_[i]->alloc = a.x[i];
  }

  // FIFO (fifo.py, FIFOPolicy.get_allocation). gavel_fifo (mode base) keeps each job's type once given; at the next
  // allocation a finished job's type goes to the head of the queue if it fits there (its GPUs counted against what
  // the jobs before it in id order hold), then jobs in arrival order take a type while any has a free GPU: the type
  // is the last by name among those with a free GPU (Gavel's code draws a random candidate but uses the loop's last
  // type, unchecked against the scale factor, so a type can be oversubscribed and its jobs wait), and when that type
  // is exactly full the randomly drawn candidate leaves the list. gavel_fifo_perf (mode perf) re-packs every time,
  // each job on the type of highest throughput among those with room (ties: first by name). Both stop at the first
  // job no type has room for; a job whose chosen type gives it throughput 0 is skipped.
  void allocate_fifo(const Snapshot& s) {
    std::vector<int> avail = pool_gpus(s);
    std::map<int, std::size_t> index;  // job id -> snapshot index
    for (std::size_t i = 0; i < s.jobs.size(); ++i)
      index[s.jobs[i].pub->id] = i;
    const auto sf = [&](std::size_t i) { return std::max(1, s.jobs[i].pub->requested_gpus); };
    if (policy_ == GavelPolicy::kFifoPerf) fifo_type_.clear();
    std::vector<std::size_t> queue;  // snapshot indices by job id (arrival order)
    for (const auto& [id, i] : index)
      if (fifo_type_.count(id) == 0) queue.push_back(i);
    std::size_t head = 0;
    std::vector<int> held;
    for (const auto& [id, k] : fifo_type_)
      held.push_back(id);
    for (int id : held) {
      const std::size_t k = fifo_type_.at(id);
      const auto it = index.find(id);
      if (it != index.end()) {
        avail[k] -= sf(it->second);
        continue;
      }
      if (head < queue.size()) {  // finished: its type to the queue's head if the head fits there
        const std::size_t h = queue[head];
        if (sf(h) <= avail[k] && tput(h)[k] > 0.0) {
          ++head;
          fifo_type_[s.jobs[h].pub->id] = k;
          avail[k] -= sf(h);
        }
      }
      fifo_type_.erase(id);
    }
    std::vector<std::size_t> types;  // pools with a free GPU, by type name
    for (std::size_t k = 0; k < avail.size(); ++k)
      if (avail[k] > 0) types.push_back(k);
    std::sort(types.begin(), types.end(),
              [&](std::size_t a, std::size_t b) { return s.pools[a].gpu_type < s.pools[b].gpu_type; });
    while (head < queue.size() && !types.empty()) {
      const std::size_t j = queue[head++];
      std::vector<std::size_t> cands;  // positions in `types` with room for the job
      for (std::size_t pos = 0; pos < types.size(); ++pos)
        if (avail[types[pos]] >= sf(j)) cands.push_back(pos);
      if (cands.empty()) break;
      std::size_t pick = 0;
      std::size_t k = 0;
      if (policy_ == GavelPolicy::kFifo) {
        boost::random::uniform_int_distribution<std::size_t> draw(0, cands.size() - 1);
        pick = draw(fifo_rng_);
        k = types.back();
      } else {
        double best = -1.0;
        for (std::size_t c = 0; c < cands.size(); ++c) {
          if (tput(j)[types[cands[c]]] > best) {
            best = tput(j)[types[cands[c]]];
            pick = c;
          }
        }
        k = types[cands[pick]];
      }
      if (!(tput(j)[k] > 0.0)) continue;
      fifo_type_[s.jobs[j].pub->id] = k;
      avail[k] -= sf(j);
      if (avail[k] == 0) types.erase(types.begin() + static_cast<std::ptrdiff_t>(cands[pick]));
    }
    for (std::size_t i = 0; i < s.jobs.size(); ++i) {
      std::vector<double> a(avail.size(), 0.0);
      if (auto it = fifo_type_.find(s.jobs[i].pub->id); it != fifo_type_.end()) a[it->second] = 1.0;
      state_[i]->alloc = a;
    }
  }

  // Snapshot job i's believed throughput per pool (fill_throughputs).
  [[nodiscard]] const std::vector<double>& tput(std::size_t i) const { return state_[i]->tput; }

  // One job in the queue of a type (schedule).
  struct Entry {
    std::size_t job;
    double priority, deficit, alloc;
  };
  Decision schedule(const Snapshot& s);
  // The order in which the types' queues are served: config order (perf policies) or shuffled.
  std::vector<std::size_t> type_order(std::size_t types);
  // Every job's keys on every type (keys_, eligible_, sf_, runs_, ids_), read from its state in one pass.
  void read_keys(const Snapshot& s);

  // A solver failure: the round and the jobs in the program, for the user to reproduce it.
  [[noreturn]] void unsolved(const Snapshot& s, const std::string& status) const {
    std::vector<std::string> jobs;
    for (const JobView& j : s.jobs)
      jobs.push_back(j.pub->name);
    throw std::runtime_error(unsolved_program_message(name_, s.now, jobs, status));
  }

  GavelPolicy policy_;
  bool centre_ = false;  // lp_point "centre": the LP policies return the optimal face's interior point
  std::string name_;
  double round_s_;
  double reset_s_;
  Rng shuffle_;
  Rng fifo_rng_;                          // gavel_fifo's candidate draw (FIFOPolicy's own random.Random(seed))
  std::string reference_type_ = "v100";   // finish_time_fairness, min_total_duration: the type planned with
  double alpha_ = 1.0;                    // allox
  AlloxState allox_;                      // allox: each job's last allocation
  std::map<int, std::size_t> fifo_type_;  // FIFO: each allocated job's pool (finished ones until the next allocation)
  GavelWarmStart warm_;                   // max-min, finish-time fairness: the last program's basis by job
  double ftf_last_ = 0.0;                 // finish-time fairness: the last optimum, bracketed first next time
  std::unordered_map<int, JobState> jobs_;
  std::vector<JobState*> state_;    // this decision's snapshot jobs' states (into jobs_), in snapshot order
  std::vector<Entry> keys_;         // schedule's keys per job and type (kept for their capacity)
  std::vector<char> eligible_;      // schedule: whether the job may take GPUs of the type at all
  std::vector<int> sf_;             // schedule: each job's GPUs
  std::vector<int> ids_;            // schedule: each job's id
  std::vector<char> runs_;          // schedule: whether the job has an allocation (else it holds GPUs idle)
  std::vector<Entry> queue_;        // schedule's heap of a type's queue
  std::vector<std::size_t> zeros_;  // schedule's jobs with keys (0, 0, 0) on that type, in snapshot order
  std::vector<double> worker_time_;
  std::vector<std::pair<int, std::size_t>> ran_;  // (job, pool) dispatched in the round that is running
  double last_call_ = 0.0;
  double last_reset_ = 0.0;
  bool need_update_ = false;
};

// _schedule_jobs_on_workers: priorities (allocation / share of the type's time received), one queue per type sorted
// by (priority, deficit, allocation), the queues in type order (shuffled each round unless the policy is a perf one),
// walked once; a job with no allocation still takes GPUs it then does not use (Gavel's quirk). Each queue is walked
// in that order (ties: snapshot order, as a stable sort leaves them) only until its type is full: the rest could take
// nothing. Jobs that could take nothing on a type whatever is left (no throughput there; under FIFO no priority) are
// left out of its queue; those whose three keys are all 0 (no allocation there, no deficit: most of them) need no
// sorting: they come in snapshot order after every job ahead of (0, 0, 0) and before the rest, which a heap orders.
std::vector<std::size_t> GavelRound::type_order(std::size_t n) {
  std::vector<std::size_t> order(n);
  for (std::size_t k = 0; k < n; ++k)
    order[k] = k;
  if (!perf()) {
    for (std::size_t k = n; k > 1; --k) {
      boost::random::uniform_int_distribution<std::size_t> pick(0, k - 1);
      std::swap(order[k - 1], order[pick(shuffle_)]);
    }
  }
  return order;
}

void GavelRound::read_keys(const Snapshot& s) {
  const std::size_t n = s.pools.size();
  keys_.resize(s.jobs.size() * n);
  eligible_.assign(s.jobs.size() * n, 0);
  sf_.resize(s.jobs.size());
  runs_.resize(s.jobs.size());
  ids_.resize(s.jobs.size());
  for (std::size_t i = 0; i < s.jobs.size(); ++i) {
    const JobState& st = *state_[i];
    sf_[i] = st.scale_factor;
    ids_[i] = st.id;
    runs_[i] = st.alloc.empty() ? 0 : 1;
    for (std::size_t k = 0; k < n; ++k) {
      if (st.tput[k] <= 0.0) continue;
      const double a = st.alloc.empty() ? 0.0 : st.alloc[k];
      const double fraction = worker_time_[k] > 0.0 ? st.time_so_far[k] / worker_time_[k] : 0.0;
      double priority = 0.0;
      if (a > 0.0 && st.tput[k] > 0.0) priority = fraction > 0.0 ? a / fraction : a * 1e9;
      if (fifo() && priority <= 0.0) continue;
      keys_[i * n + k] = {i, priority, st.deficit[k], a};
      eligible_[i * n + k] = 1;
    }
  }
}

Decision GavelRound::schedule(const Snapshot& s) {
  const std::size_t n = s.pools.size();
  const std::vector<std::size_t> order = type_order(n);
  std::vector<int> left = pool_gpus(s);
  // x after y in the queue: the heap's order, so that its top is the queue's head.
  const auto after = [](const Entry& x, const Entry& y) {
    if (x.priority != y.priority) return x.priority < y.priority;
    if (x.deficit != y.deficit) return x.deficit < y.deficit;
    if (x.alloc != y.alloc) return x.alloc < y.alloc;
    return x.job > y.job;
  };
  const Entry zero{0, 0.0, 0.0, 0.0};  // the keys of every job in zeros_ (no job in the heap has all three)
  read_keys(s);
  Decision d = empty_decision(s);
  std::vector<char> taken(s.jobs.size(), 0);
  std::vector<Entry>& heap = queue_;
  for (std::size_t k : order) {
    if (left[k] <= 0) continue;
    heap.clear();
    zeros_.clear();
    long demand = 0;                                   // GPUs the queue's jobs ask for together
    for (std::size_t i = 0; i < s.jobs.size(); ++i) {  // the jobs not yet taken (on a type earlier in the order)
      if (taken[i] != 0 || eligible_[i * n + k] == 0) continue;
      const Entry& e = keys_[i * n + k];
      demand += sf_[i];
      if (e.priority == 0.0 && e.deficit == 0.0 && e.alloc == 0.0) {
        zeros_.push_back(i);
      } else {
        heap.push_back(e);
      }
    }
    const auto take = [&](std::size_t i) {
      const int sf = sf_[i];
      if (sf > left[k]) return;
      left[k] -= sf;
      taken[i] = 1;
      if (runs_[i] == 0) return;  // holds the GPUs this round without running (no allocation)
      d.jobs[i].gpus = sf;
      d.jobs[i].pool = static_cast<int>(k);
      ran_.emplace_back(ids_[i], k);
    };
    if (demand <= left[k]) {  // every job in the queue fits: the order changes nothing, each takes its GPUs
      for (const Entry& e : heap)
        take(e.job);
      for (std::size_t i : zeros_)
        take(i);
      continue;
    }
    std::make_heap(heap.begin(), heap.end(), after);
    const auto pop = [&] {
      std::pop_heap(heap.begin(), heap.end(), after);
      const std::size_t i = heap.back().job;
      heap.pop_back();
      take(i);
    };
    while (!heap.empty() && left[k] > 0 && after(zero, heap.front()))
      pop();
    for (std::size_t z = 0; z < zeros_.size() && left[k] > 0; ++z)
      take(zeros_[z]);
    while (!heap.empty() && left[k] > 0)
      pop();
  }
  return d;
}

StrategyInfo gavel_info(const std::string& name, GavelPolicy policy, const std::string& what,
                        const std::vector<std::string>& extra = {}, bool agnostic = false) {
  StrategyInfo info;
  info.name = name;
  info.description =
      what +
      " Gavel's round mechanism: run with scheduler.interval_s = round_s on a cluster with GPU pools and "
      "oracle beliefs (Gavel's throughputs); jobs run rigid on their requested GPUs. Params: round_s "
      "(default 360), reset_s (default 1920: the allocation is recomputed at most this often, after "
      "arrivals or completions), seed (default 0: the type-order shuffle), lp_point (\"centre\", default: "
      "where many allocations are optimal, an interior point near the optimal face's centre, as Gavel's "
      "interior-point solver ECOS returns; \"vertex\": CLP's simplex vertex, warm-started, faster).";
  info.default_beliefs = "oracle";
  info.params = {"round_s", "reset_s", "seed", "lp_point"};
  info.params.insert(info.params.end(), extra.begin(), extra.end());
  info.gpu_types = true;
  info.needs_gpu_types = true;
  if (agnostic) {  // the reference type must be a pool's (a run would stop at its first allocation)
    info.check_pools = [](const JsonReader& p, const std::vector<std::string>& types) -> std::string {
      const std::string ref = p.string_or("reference_type", "v100");
      if (std::find(types.begin(), types.end(), ref) != types.end()) return "";
      return "no GPU pool of type '" + ref + "', the type whose throughput on every type the throughput-agnostic " +
             "policy plans with (params.reference_type; Gavel's is v100)";
    };
  }
  info.make = [name, policy](const JsonReader& p) -> std::unique_ptr<Strategy> {
    const std::string point = p.string_or("lp_point", "centre");
    if (point != "vertex" && point != "centre") {
      p.at("lp_point").fail("must be \"vertex\" or \"centre\", not \"" + point + "\"");
    }
    auto round = std::make_unique<GavelRound>(
        policy, name, p.positive_or("round_s", 360.0), p.non_negative_or("reset_s", 1920.0),
        static_cast<std::uint64_t>(p.integer_in_or("seed", 0, 1 << 30, 0)), point == "centre");
    const double alpha = p.positive_or("alpha", 1.0);
    if (alpha > 1.0) p.at("alpha").fail("must be in (0, 1] (the share of waiting jobs AlloX matches)");
    round->options(p.string_or("reference_type", "v100"), alpha);
    return round;
  };
  return info;
}

}  // namespace

StrategyInfo gavel_fifo_strategy_info() {
  return gavel_info("gavel_fifo", GavelPolicy::kFifo,
                    "Gavel's `fifo`: jobs in arrival order each get a whole GPU type with room (kept once given), "
                    "the last type by name first.");
}
const StrategyRegistrar gavel_fifo_registrar{gavel_fifo_strategy_info};
StrategyInfo gavel_fifo_perf_strategy_info() {
  return gavel_info("gavel_fifo_perf", GavelPolicy::kFifoPerf,
                    "Gavel's `fifo_perf`: jobs in arrival order each get the type with room of highest throughput.");
}
const StrategyRegistrar gavel_fifo_perf_registrar{gavel_fifo_perf_strategy_info};
StrategyInfo max_min_fairness_strategy_info() {
  return gavel_info("max_min_fairness", GavelPolicy::kLas,
                    "Gavel's `max_min_fairness` (LAS): time fractions per type that even out GPUs per job (an LP).");
}
const StrategyRegistrar max_min_fairness_registrar{max_min_fairness_strategy_info};
StrategyInfo finish_time_fairness_perf_strategy_info() {
  return gavel_info("finish_time_fairness_perf", GavelPolicy::kFtfPerf,
                    "Gavel's `finish_time_fairness_perf`: time fractions per type that minimise the largest ratio of "
                    "a job's finish time to its finish time alone on an equal share (LPs bisected).");
}
const StrategyRegistrar finish_time_fairness_perf_registrar{finish_time_fairness_perf_strategy_info};
StrategyInfo min_total_duration_perf_strategy_info() {
  return gavel_info("min_total_duration_perf", GavelPolicy::kMakespanPerf,
                    "Gavel's `min_total_duration_perf`: time fractions per type under which every job finishes "
                    "its remaining steps soonest (the makespan; an LP, Gavel's 5% search replayed).");
}
const StrategyRegistrar min_total_duration_perf_registrar{min_total_duration_perf_strategy_info};
StrategyInfo max_min_fairness_perf_strategy_info() {
  return gavel_info("max_min_fairness_perf", GavelPolicy::kLasPerf,
                    "Gavel's `max_min_fairness_perf`: time fractions per type that maximise the smallest throughput "
                    "relative to a capacity-proportional share (an LP).");
}
const StrategyRegistrar max_min_fairness_perf_registrar{max_min_fairness_perf_strategy_info};

StrategyInfo finish_time_fairness_strategy_info() {
  return gavel_info("finish_time_fairness", GavelPolicy::kFtf,
                    "Gavel's `finish_time_fairness` (Themis-like, throughput-agnostic): finish_time_fairness_perf "
                    "planned with each job's reference-type throughput on every type. Param reference_type "
                    "(default v100).",
                    {"reference_type"}, true);
}
const StrategyRegistrar finish_time_fairness_registrar{finish_time_fairness_strategy_info};
StrategyInfo min_total_duration_strategy_info() {
  return gavel_info("min_total_duration", GavelPolicy::kMakespan,
                    "Gavel's `min_total_duration` (throughput-agnostic makespan): min_total_duration_perf planned with "
                    "each job's reference-type throughput on every type. Param reference_type (default v100).",
                    {"reference_type"}, true);
}
const StrategyRegistrar min_total_duration_registrar{min_total_duration_strategy_info};
StrategyInfo max_sum_throughput_perf_strategy_info() {
  return gavel_info("max_sum_throughput_perf", GavelPolicy::kMaxSumPerf,
                    "Gavel's `max_sum_throughput_perf`: time fractions per type that maximise the cluster's total "
                    "throughput in steps/s (an LP).");
}
const StrategyRegistrar max_sum_throughput_perf_registrar{max_sum_throughput_perf_strategy_info};
StrategyInfo isolated_strategy_info() {
  return gavel_info("isolated", GavelPolicy::kIsolated,
                    "Gavel's `isolated`: every job an equal 1/m share of every type's GPUs (no program).");
}
const StrategyRegistrar isolated_registrar{isolated_strategy_info};
StrategyInfo allox_strategy_info() {
  return gavel_info("allox", GavelPolicy::kAllox,
                    "Gavel's `allox` (AlloX): waiting single-GPU jobs matched to free GPUs' queues at least total "
                    "completion time (an assignment LP); a queue's head keeps its GPU type until it ends. Param alpha "
                    "(default 1: the share of waiting jobs matched).",
                    {"alpha"});
}
const StrategyRegistrar allox_registrar{allox_strategy_info};
StrategyInfo gandiva_fair_strategy_info() {
  return gavel_info("gandiva_fair", GavelPolicy::kGandivaFair,
                    "Shockwave's `gandiva_fair` (GandivaFairProportional): every job an equal 1/m time share of "
                    "every type, whatever its GPUs (no program).");
}
const StrategyRegistrar gandiva_fair_registrar{gandiva_fair_strategy_info};

}  // namespace ringsched
