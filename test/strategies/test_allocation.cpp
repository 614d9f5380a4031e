// test/strategies/test_allocation.cpp — the Eq. 6 doubling heuristic and the unit-step greedy on hand-built
// snapshots (a fake Belief), including the 8 -> 9 versus 8 -> 16 example on the binary-blocks all-reduce model.
#include <catch2/catch.hpp>

#include <cmath>
#include <functional>
#include <memory>
#include <vector>

#include "models/step_time_model.h"
#include "strategies/common/allocation.h"
#include "strategies/registry.h"
#include "test/strategies/scene.h"

using namespace ringsched;

namespace {

// The all-reduce example: fixed global batch m = 1000 samples, compute 0.001 s per sample (C = 1 s per step on one
// GPU), binary-blocks all-reduce of N = 1e7 bytes at beta = 1e-9 s/byte (N beta = 0.01 s), alpha = gamma = 0.
// Halving/doubling on p = 2^k costs 2 (p-1)/p N beta; each smaller block b of p = 2^k1 + 2^k2 + ... adds 2 N beta / b.
//   step(1) = 1                                   step(8)  = 0.125 + 0.0175            = 0.1425
//   step(2) = 0.5 + 0.01 = 0.51                   step(9)  = 0.111111 + 0.0175 + 0.02  = 0.148611  (> step(8))
//   step(3) = 0.333333 + 0.01 + 0.02 = 0.363333   step(16) = 0.0625 + 0.01875          = 0.08125   (< step(8))
//   step(4) = 0.25 + 0.015 = 0.265
//   step(5) = 0.2 + 0.015 + 0.02 = 0.235
//   step(6) = 0.166667 + 0.015 + 0.01 = 0.191667
//   step(7) = 0.142857 + 0.015 + 0.01 + 0.02 = 0.187857
// Every unit step up to 8 helps, 8 -> 9 hurts, and 8 -> 16 helps.
models::StepTimeModelPtr bb_model() {
  models::AllreduceStepSpec s;
  s.compute_per_sample_s = 0.001;
  s.algo = models::AllreduceAlgo::kBinaryBlocks;
  s.intra_node.beta = 1e-9;
  s.gradient_bytes = 1e7;
  return std::make_shared<models::AllreduceStepTime>(s);
}

}  // namespace

TEST_CASE("strategies::doubling_allocation: hand-worked two-job example", "[strategies][doubling]") {
  // A scales perfectly (f = w), B saturates at 2 GPUs (f = min(w, 2)); both believe 100 samples remain.
  // Start 1 + 1 (budget 6). Gains: A 1->2 (100 - 50)/1 = 50, B 1->2 50: tie, earlier job A -> A = 2 (budget 5).
  // Then B 1->2: 50 > A 2->4: (50 - 25)/2 = 12.5 -> B = 2 (budget 4); B 2->4 gains (50 - 50)/2 = 0: B is done.
  // A 2->4: 12.5 -> A = 4 (budget 2); A 4->8 gains (25 - 12.5)/4 = 3.125 but needs 4 GPUs > 2: stop. 2 GPUs idle.
  test::FnScene sc;
  sc.add([](int w) { return static_cast<double>(w); }, 100.0, 1, 64);
  sc.add([](int w) { return static_cast<double>(std::min(w, 2)); }, 100.0, 1, 64);
  const Snapshot& s = sc.make(8);
  CHECK(doubling_allocation(s, test::all_jobs(s), 8) == std::vector<int>{4, 2});
  // Unit-step greedy on the same jobs: A gains 50, 16.7, 8.3, 5, ... per GPU, B gains 50 then 0.
  // Order: A->2 (tie, earlier), B->2, A->3 (16.7), A->4 (8.3), A->5 (5), A->6 (3.3): budget 8 used up.
  CHECK(unit_greedy_allocation(s, test::all_jobs(s), 8) == std::vector<int>{6, 2});
}

TEST_CASE("strategies::doubling_allocation: min and max GPUs, budget smaller than the queue",
          "[strategies][doubling]") {
  test::FnScene sc;
  // Perfect scaling, max 3: doubling goes 1 -> 2 -> min(4, 3) = 3.
  sc.add([](int w) { return static_cast<double>(w); }, 1000.0, 1, 3);
  // min 4: starts at 4, may double to 8.
  sc.add([](int w) { return static_cast<double>(w); }, 1000.0, 4, 8);
  // A third job that does not fit any more once the first two took 1 + 4 of 5 GPUs.
  sc.add([](int w) { return static_cast<double>(w); }, 1000.0, 1, 8);
  const Snapshot& s = sc.make(5);
  // Budget 5: job 0 gets 1, job 1 gets 4, job 2 gets 0 (arrival order); 0 left, nothing grows.
  CHECK(doubling_allocation(s, test::all_jobs(s), 5) == std::vector<int>{1, 4, 0});
  // Budget 16: starts 1, 4, 1 (10 left). Gains per GPU: job0 1->2: 500; job1 4->8: (250 - 125)/4 = 31.25;
  // job2 1->2: 500. job0 -> 2 (tie, earlier; 9 left), job2 -> 2 (8 left), job0 2->3: (500 - 333.3)/1 = 166.7 -> 3
  // (7 left, at max), job2 2->4: (500 - 250)/2 = 125 -> 4 (5 left), job2 4->8: (250 - 125)/4 = 31.25 ties job1's
  // 31.25: earlier candidate job1 -> 8 (1 left); job2 needs 4 > 1: stop.
  CHECK(doubling_allocation(s, test::all_jobs(s), 16) == std::vector<int>{3, 8, 4});
  // Candidates are a subset, in the order given.
  CHECK(doubling_allocation(s, {2}, 8) == std::vector<int>{8});
}

TEST_CASE("strategies::allocation: unit-step greedy stops at 8 where doubling reaches 16 (binary blocks)",
          "[strategies][doubling][optimus]") {
  const auto model = bb_model();
  // Hand values from the comment above bb_model().
  CHECK(model->step_seconds(8, 1, 1000.0) == Approx(0.1425).epsilon(1e-12));
  CHECK(model->step_seconds(9, 1, 1000.0) == Approx(0.1486111111).epsilon(1e-9));
  CHECK(model->step_seconds(16, 1, 1000.0) == Approx(0.08125).epsilon(1e-12));
  CHECK(model->step_seconds(7, 1, 1000.0) == Approx(0.1878571429).epsilon(1e-9));
  // Believed time t(w) = Q / f(w) with Q = 1000 steps of 1000 samples and f(w) = 1000 / step(w): t = 1000 step(w).
  //   t(8) = 142.5, t(9) = 148.61: unit gain 8 -> 9 = -6.1 < 0, so unit-step greedy stops at 8.
  //   Doubling gains per GPU: 1->2 (1000 - 510)/1 = 490; 2->4 (510 - 265)/2 = 122.5; 4->8 (265 - 142.5)/4 = 30.6;
  //   8->16 (142.5 - 81.25)/8 = 7.66 > 0, so doubling reaches 16; 16->32 needs 16 more GPUs than the 16 there are.
  test::FnScene sc;
  sc.add([model](int w) { return 1000.0 / model->step_seconds(w, 1, 1000.0); }, 1e6, 1, 64);
  const Snapshot& s = sc.make(16);
  CHECK(unit_greedy_allocation(s, test::all_jobs(s), 16) == std::vector<int>{8});
  CHECK(doubling_allocation(s, test::all_jobs(s), 16) == std::vector<int>{16});
  CHECK(believed_time(s.jobs[0], 8, 64) == Approx(142.5).epsilon(1e-9));
  CHECK(believed_time(s.jobs[0], 16, 64) == Approx(81.25).epsilon(1e-9));
  // The registered strategies behave the same: optimus = unit greedy, precompute = doubling.
  CHECK(test::strategy_named("optimus")->decide(s).gpus() == std::vector<int>{8});
  CHECK(test::strategy_named("precompute")->decide(s).gpus() == std::vector<int>{16});
}

TEST_CASE("strategies::believed_time: remaining work is at least one sample, zero GPUs is infinite",
          "[strategies][doubling]") {
  test::FnScene sc;
  sc.add([](int w) { return 10.0 * w; }, 100.0, 1, 8);
  const Snapshot& s = sc.make(8);
  JobView v = s.jobs[0];
  CHECK(believed_time(v, 2, 8) == Approx(5.0));  // 100 / 20
  v.work_done = 60.0;
  CHECK(believed_time(v, 2, 8) == Approx(2.0));  // 40 / 20
  v.work_done = 500.0;                           // more than believed: 1 sample left
  CHECK(believed_time(v, 2, 8) == Approx(0.05));
  CHECK(std::isinf(believed_time(v, 0, 8)));
}

namespace {

// Speed per GPU type, linear in w: `rate` samples/s per GPU of each type.
class TypedBelief final : public Belief {
 public:
  TypedBelief(double fast, double slow, double work) : fast_(fast), slow_(slow), work_(work) {}
  [[nodiscard]] double throughput(int w, int /*nodes*/) const override { return fast_ * w; }
  [[nodiscard]] double throughput_on(const std::string& type, int w, int /*nodes*/) const override {
    return (type == "fast" ? fast_ : slow_) * w;
  }
  [[nodiscard]] double total_work() const override { return work_; }
  [[nodiscard]] std::string source() const override { return "typed"; }

 private:
  double fast_, slow_, work_;
};

}  // namespace

TEST_CASE("strategies::typed_greedy_allocation: type and count from beliefs per type, moving a job to grow",
          "[strategies][pools]") {
  // Pools: fast 2 GPUs, slow 4. Both jobs 1,000 samples, at most 4 GPUs; A runs 10 w on fast and 5 w on slow, B 10 w
  // on fast and 8 w on slow.
  // Entry (1 GPU each, the soonest pool): A fast (100 s vs 200 s), B fast (100 s vs 125 s); fast is full.
  // Growth: A to 2 on slow takes 100 s, no gain; B to 2 on slow takes 62.5 s: gain 37.5 per added GPU, so B moves,
  // freeing a fast GPU. Then A 1 -> 2 on fast: 100 -> 50 s, gain 50; B 2 -> 4 on slow: 62.5 -> 31.25 s, gain 15.6.
  // Both happen: A 2 on fast, B 4 on slow. Unit steps (optimus) reach the same: B 2 -> 3 -> 4 gains 20.8 and 10.4.
  std::vector<JobPublic> pubs(2);
  std::vector<TypedBelief> beliefs = {TypedBelief(10.0, 5.0, 1000.0), TypedBelief(10.0, 8.0, 1000.0)};
  std::vector<JobView> views(2);
  for (std::size_t i = 0; i < 2; ++i) {
    pubs[i].id = static_cast<int>(i);
    pubs[i].cls.min_gpus = 1;
    pubs[i].cls.max_gpus = 4;
    views[i].pub = &pubs[i];
    views[i].belief = &beliefs[i];
  }
  const std::vector<PoolInfo> pools = {{"fast", 2, 2}, {"slow", 4, 4}};
  Snapshot s;
  s.total_gpus = 6;
  s.jobs = views;
  s.pools = pools;
  for (const bool unit : {false, true}) {
    const Decision d = typed_greedy_allocation(s, {0, 1}, unit);
    CHECK(d.gpus() == std::vector<int>{2, 4});
    CHECK(d.jobs[0].pool == 0);
    CHECK(d.jobs[1].pool == 1);
  }
  // Only the candidates get GPUs; a job that fits nowhere gets none.
  const Decision one = typed_greedy_allocation(s, {1}, false);
  CHECK(one.gpus() == std::vector<int>{0, 4});  // B alone: 1 fast, then 4 on slow (31.25 s) beats 2 on fast (50 s)
  CHECK(one.jobs[1].pool == 1);
  const std::vector<PoolInfo> tiny = {{"fast", 1, 1}};
  s.pools = tiny;
  const Decision full = typed_greedy_allocation(s, {0, 1}, false);
  CHECK(full.gpus() == std::vector<int>{1, 0});
}
