// test/sim/beliefs/test_online_belief.cpp — the `online` belief source: Eq. 1 refitted to the losses a job reports.
// Exact Eq. 1 curves give the hand-computed work; the prior is used until 3 losses, for unreachable targets and for
// jobs that report no loss; the cap and the floor; and the loss observer is keyed, stretched and reads truth only
// there.
#include <catch2/catch.hpp>

#include <cmath>
#include <memory>

#include "models/convergence.h"
#include "sim/beliefs/belief_sources.h"
#include "sim/engine/observers.h"
#include "workloads/catalog.h"

using namespace ringsched;

namespace {

// One class "c" with a prior work of 1000 samples and a constant speed.
std::shared_ptr<const Catalog> history_catalog() {
  auto cat = std::make_shared<Catalog>();
  JobClass c;
  c.name = "c";
  c.speed = std::make_shared<models::Eq5StepTime>(models::Eq5Coeffs{0.01, 0.0, 0.0, 0.0}, 1.0);
  c.batch_size = 10;
  c.work_samples = 1000.0;
  c.max_gpus = 8;
  cat->classes.push_back(c);
  return cat;
}

JobPublic job(double target, double interval) {
  JobPublic p;
  p.id = 7;
  p.cls.name = "c";
  p.cls.max_gpus = 8;
  p.cls.target_loss = target;
  p.cls.loss_interval_samples = interval;
  return p;
}

}  // namespace

TEST_CASE("sim::OnlineBelief: exact Eq. 1 losses give the hand-computed work", "[online]") {
  // l(k) = 1 / (0.01 k + 1) + 0.5; target 0.6 is reached at 1/(0.1) = 10 = 0.01 k + 1, k = 900.
  const models::Eq1Coeffs truth{0.01, 1.0, 0.5};
  int calls = 0;
  const auto source = make_online_source(
      [&](int id, int n) {
        ++calls;
        CHECK(id == 7);
        return models::eq1_loss(truth, 50.0 * n);
      },
      history_catalog());
  CHECK(source->name() == "online");
  CHECK_FALSE(source->needs_truth());
  const auto b = source->make(job(0.6, 50.0), BeliefContext{}, nullptr);
  REQUIRE(b);
  CHECK(b->total_work() == 1000.0);  // the prior before any loss
  b->observe_progress(149.0);        // losses at 50, 100: still the prior
  CHECK(calls == 2);
  CHECK(b->total_work() == 1000.0);
  b->observe_progress(150.0);  // third loss: first fit
  CHECK(calls == 3);
  CHECK(b->total_work() == Approx(900.0).epsilon(1e-3));
  b->observe_progress(150.0);  // no new evaluation: no new call
  CHECK(calls == 3);
  b->observe_progress(400.0);
  CHECK(calls == 8);
  CHECK(b->total_work() == Approx(900.0).epsilon(1e-3));
  // Speed is the history class's: Eq. 5 step = t0 m / w = 0.01 x 10 = 0.1 s for 10 samples on one GPU.
  CHECK(b->throughput(1, 1) == Approx(100.0));
}

TEST_CASE("sim::OnlineBelief: unreachable target, cap, floor and jobs without losses", "[online]") {
  // Flat losses at 2.0 never reach 1.0: the fit's asymptote is above the target, so the prior is kept.
  const auto flat = make_online_source([](int, int) { return 2.0; }, history_catalog());
  const auto b1 = flat->make(job(1.0, 10.0), BeliefContext{}, nullptr);
  b1->observe_progress(100.0);
  CHECK(b1->total_work() == 1000.0);
  // Past the prior: the floor is the work done plus half an interval.
  b1->observe_progress(5000.0);
  CHECK(b1->total_work() == Approx(5005.0));
  // A slowly falling exact curve reaching the target far beyond the prior: capped at 10 x the prior.
  const models::Eq1Coeffs slow{1e-6, 1.0, 0.0};  // target 0.5 at k = 1e6
  const auto capped =
      make_online_source([&](int, int n) { return models::eq1_loss(slow, 10.0 * n); }, history_catalog());
  const auto b2 = capped->make(job(0.5, 10.0), BeliefContext{}, nullptr);
  b2->observe_progress(100.0);
  CHECK(b2->total_work() == Approx(kOnlineCapFactor * 1000.0));
  // A job that reports no loss (interval 0) keeps the prior and never calls the observer.
  const auto none = make_online_source(
      [](int, int) -> double {
        FAIL("observer called for a job without losses");
        return 1.0;
      },
      history_catalog());
  const auto b3 = none->make(job(0.0, 0.0), BeliefContext{}, nullptr);
  b3->observe_progress(1e9);
  CHECK(b3->total_work() == 1000.0);
  // An unknown class gets no belief.
  JobPublic other = job(0.5, 10.0);
  other.cls.name = "unknown";
  CHECK(none->make(other, BeliefContext{}, nullptr) == nullptr);
}

TEST_CASE("sim::LossObserver: stretched to the job's work, keyed noise independent of call order", "[online]") {
  auto cat = std::make_shared<Catalog>();
  JobClass c;
  c.name = "c";
  c.work_samples = 100.0;
  c.loss_interval_samples = 10.0;
  c.convergence = std::make_shared<const LossCurve>(std::vector<models::LossPoint>{{0.0, 2.0}, {100.0, 1.0}});
  c.target_loss = 1.0;
  cat->classes.push_back(c);
  auto wl = std::make_shared<Workload>();
  wl->catalog = cat;
  wl->jobs.push_back(JobTruth{0, 0.0, 0, 200.0, 1.0, 0, "slow"});  // twice the class work
  wl->jobs.push_back(JobTruth{1, 0.0, 0, 100.0, 1.0, 0, "plain"});
  const auto exact = make_loss_observer(wl, 0.0, 5);
  // Job 0 needs 200 samples: after 100 it is half way along the class curve (class k = 50: loss 1.5).
  CHECK(exact(0, 10) == Approx(1.5));
  CHECK(exact(0, 20) == Approx(1.0));  // the target, at the job's own work
  CHECK(exact(1, 10) == Approx(1.0));
  const auto noisy = make_loss_observer(wl, 0.1, 5);
  const double a = noisy(0, 3);
  const double b = noisy(1, 4);
  CHECK(noisy(1, 4) == b);  // asked again, in another order: same numbers
  CHECK(noisy(0, 3) == a);
  CHECK(a != Approx(exact(0, 3)));
  CHECK(make_loss_observer(wl, 0.1, 6)(0, 3) != a);  // another seed, another draw
  JobClass no_curve = c;
  no_curve.convergence = nullptr;
  cat->classes[0] = no_curve;
  CHECK_THROWS_AS(exact(0, 1), std::logic_error);
}

TEST_CASE("sim::OnlineBelief: the floor follows progress between refits", "[online]") {
  // Exact curve reaching target 0.6 at k = 900 (as above), losses every 50 samples.
  const models::Eq1Coeffs truth{0.01, 1.0, 0.5};
  const auto source =
      make_online_source([&](int, int n) { return models::eq1_loss(truth, 50.0 * n); }, history_catalog());
  const auto b = source->make(job(0.6, 50.0), BeliefContext{}, nullptr);
  b->observe_progress(20.0);  // no loss yet: the prior
  CHECK(b->total_work() == 1000.0);
  b->observe_progress(2000.0);  // 40 losses, refit: 900; but 2000 done, so at least 2025
  CHECK(b->total_work() == Approx(2025.0));
  b->observe_progress(2010.0);  // no new loss (next at 2050), no refit: the floor still moves
  CHECK(b->total_work() == Approx(2035.0));
}
