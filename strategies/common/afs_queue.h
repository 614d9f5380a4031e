// strategies/common/afs_queue.h — AFS-L (strategies/afs.cpp) kept incrementally for Strategy::decide_changes: the jobs
// in believed-length order across decisions, each job's chain keys per GPU count, and the GPU-by-GPU hand-out of
// Afs::decide replayed over that order with a chain stack, suffix maxima and a max tree, so that a GPU costs O(1) in
// the common cases instead of O(jobs).
#pragma once

#include <limits>
#include <map>
#include <set>
#include <utility>
#include <vector>

#include "strategies/strategy.h"

namespace ringsched {

// Why it decides what Afs::decide decides, count for count:
//
// decide gives every GPU (a waiting job's first step: its min GPUs) to the winner of a left fold over the jobs in
// (length, id) order (stable_sort of the arrival-ordered jobs): the first candidate wins; a later candidate b takes
// over from the current winner a when r_b = (T_b(next) - T_b(now)) / T_b(next) > g_a = (T_a(next) - T_a(now)) /
// T_a(now) (+inf for a waiting job). Every job starts each decision at 0 GPUs, so the counts are a function of the
// order, the believed speeds, min/max and the GPUs alone: this class recomputes them from scratch at each decision,
// with the same expressions on the same doubles, and only changes how the winner is found:
// - Keys. A job's candidacy, r and g at each count depend on its believed speeds alone, so they are computed once per
//   job (when its beliefs are fixed) or whenever its beliefs may have changed, in a table by state: waiting, then
//   min, min + 1, ... up to its end point (its first count that is not a candidate: max reached, or the next GPU does
//   not raise its believed throughput), with the expressions decide evaluates.
// - Order. A job's length (Q/f(1)) changes only while its progress or beliefs change, and the engine moves both only
//   for jobs that held GPUs or were changed by the last decision (it refreshes no one else). Jobs that held GPUs since
//   they were last keyed sit in `hot_` and are re-keyed and re-sorted at each decision; the others keep their key in
//   `cold_` (one ordered set per first step). Ties keep id order, as the stable sort does.
// - The frontier. All jobs start waiting, and a waiting candidate W that the fold reaches with a winner of g < 1 takes
//   over (r_W = 1) and ends the fold (g_W = inf); when the winner's g >= 1 nothing later can take over (every r <= 1).
//   So no job after the first waiting candidate (the frontier) can win: the hand-out only sees the jobs before it
//   (visited, in order, as positions) and the frontier itself. Waiting jobs the frontier passes because their first
//   step exceeds the free GPUs stay out: free GPUs only fall, so they never become candidates again.
// - The chain. The fold's successive winners form a stack whose g strictly increases; the next element is the first
//   later candidate with r above the current top's g. Giving the top (the winner) its GPU changes only its own state
//   (and the frontier), so the stack below it is still the fold of the positions before it: the top is popped, put
//   back if it still takes over from the element below, and the fold continues after it. "The first later position
//   with r > g" is answered by the next position, by suffix maxima of r where they are valid past the last change,
//   or by a max tree whose inner nodes bound their leaves from above (lowered by searches that find nothing under
//   them); all three answer exactly that question. A waiting frontier whose step no longer fits is dropped, as
//   decide skips it.
// - When every job's beliefs are fixed and the jobs' end points fit together, every job gets its end point whatever
//   the order (a job below its end point is always a candidate, and its next step always fits), so only arrivals
//   change.
class AfsQueue {
 public:
  Decision decide(const Snapshot& s);

 private:
  // A job's chain keys: state 0 is waiting (step: its first count), state i >= 1 holds first + i - 1 GPUs (step 1).
  // States 0 .. n-1 are candidates (state n, if reached, is its end point), with r and g at kg[2i], kg[2i + 1].
  struct Keys {
    std::vector<double> kg;
    int n = 0;
  };
  struct Job {
    const Belief* belief = nullptr;
    Keys keys;
    double len = 0.0;   // believed length (remaining / f(1)) as last keyed
    double work = 0.0;  // total_work() as last read
    double f1 = 0.0;    // throughput(1, 1) as last read
    int first = 1;      // first step: max(1, min_gpus)
    int max = 0;
    int end = 0;  // end point (0: never a candidate; above the cluster's GPUs: still growing there)
    bool active = false;
    bool fixed = false;
    bool hot = false;   // in hot_
    bool cold = false;  // in cold_ (by first step, under `len`)
  };
  using Key = std::pair<double, int>;  // (length, id)
  // The first chain states of a job, copied next to its entry in hot_ (read in order, without a trip to its table).
  static constexpr int kInline = 4;
  // A job in hot_, with what re-keying and the hand-out read of it (no trip to its Job in the common case).
  struct Hot {
    double len = 0.0;
    int id = 0;
    int first = 1;
    double work = 0.0;
    double f1 = 0.0;
    const double* kg = nullptr;
    int n = 0;
    int pos = -1;  // its position in the current hand-out, -1 when not visited
    bool fixed = true;
    double head[2 * kInline] = {};  // kg of states 0 .. min(n, kInline) - 1
    void keep(const Job& j);        // takes the job's keys
  };
  struct Pos {
    const double* head = nullptr;  // states below kInline
    const double* kg = nullptr;    // all states
    int n = 0;
    int state = 0;
    int first = 1;
    int id = 0;
    double leaf = 0.0;  // r in this state when a candidate that can take over (NaN never does), else -inf
    double gain = 0.0;  // g in this state (candidates)
    [[nodiscard]] bool cand() const { return state < n; }
    [[nodiscard]] int step() const { return state == 0 ? first : 1; }
    [[nodiscard]] int gpus() const { return state == 0 ? 0 : first + state - 1; }
    // Reads r and g of the current state from the job's keys.
    void enter() {
      if (!cand()) {
        leaf = -std::numeric_limits<double>::infinity();
        return;
      }
      const double* at = (state < kInline ? head : kg) + 2 * state;
      leaf = at[0] == at[0] ? at[0] : -std::numeric_limits<double>::infinity();
      gain = at[1];
    }
  };
  struct Link {
    int pos;
    double gain;
  };
  struct ColdCursor {
    int first;
    std::set<Key>::const_iterator at;
    std::set<Key>::const_iterator end;
  };

  Job& job(int id) { return jobs_[static_cast<std::size_t>(id)]; }
  [[nodiscard]] const Job& job(int id) const { return jobs_[static_cast<std::size_t>(id)]; }
  void refresh(Job& j, int total) const;
  static double length(double work, double f1, double work_done);
  void admit(const JobView& v, int total);
  void forget(int id);
  void set(Decision& d, int id, int gpus);
  void rekey_hot(const Snapshot& s, int total);

  // The hand-out.
  void reset_hand_out(int total);
  void hand_out(int total);
  bool next_frontier();
  void append(const double* head, const double* kg, int n, int first, int id, int hot_index);
  void set_leaf(int at);
  void build_tree();
  // The first position at or after `from` that takes over from a winner of gain `thr` (a candidate with r > thr), or
  // -1: the next position itself, else suffix maxima or the tree (first_above_far).
  [[nodiscard]] int first_above(int from, double thr) {
    const int m = static_cast<int>(pos_.size());
    if (from >= m || !(thr < std::numeric_limits<double>::infinity())) return -1;
    if (pos_[static_cast<std::size_t>(from)].leaf > thr) return from;
    return from + 1 < m ? first_above_far(from + 1, thr) : -1;
  }
  [[nodiscard]] int first_above_far(int q, double thr);
  int tree_first(int node, int lo, int hi, int from, double thr);
  void extend(int from);

  std::vector<Job> jobs_;                  // by id
  std::vector<int> held_;                  // by id: GPUs as last decided
  std::vector<Hot> hot_;                   // jobs whose key may be stale, by (length, id) after rekey_hot
  int hot_count_ = 0;                      // jobs with Job::hot (hot_ may also hold finished jobs' entries)
  std::map<int, std::set<Key>> cold_;      // by first step: waiting jobs with a kept key
  std::vector<int> active_;                // active ids (unordered), for the end-point case
  std::vector<std::size_t> active_index_;  // by id: index in active_
  long sum_ends_ = 0;                      // over active jobs with fixed beliefs
  int not_fixed_ = 0;                      // active jobs whose beliefs learn
  bool at_ends_ = false;                   // the last decision left every job at its end point
  int gpus_per_node_ = 1;

  // The hand-out (valid during hand_out; positions in visiting order, which is (length, id) order).
  std::vector<Pos> pos_;
  std::vector<int> pos_hot_;  // by position: index in hot_, or -1 (a cold job)
  std::vector<Link> stack_;   // the fold's winners so far, gain increasing
  int free_ = 0;
  int frontier_ = -1;  // position of the waiting frontier, -1 when none
  std::size_t hot_next_ = 0;
  std::vector<ColdCursor> cold_next_;
  int first_cand_ = 0;          // no position before it is a candidate
  std::vector<double> tree_;    // max tree over the positions' leaves; inner nodes bound their leaves from above
  int tree_n_ = 0;              // leaves
  int tree_built_ = 0;          // positions whose leaves are in the tree
  int tree_used_ = 0;           // positions the last hand-out put in the tree (reset to -inf at the next)
  std::vector<double> suffix_;  // suffix_[p] = max leaf over [p, positions) for p >= suffix_from_
  int suffix_from_ = 0;
  int suffix_work_ = 0;  // rebuild steps this hand-out (kept linear in the positions)
};

}  // namespace ringsched
