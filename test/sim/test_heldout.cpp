// test/sim/test_heldout.cpp — the held-out block: beliefs never read truth (poisoned truth models), training runs are
// disjoint from the evaluated seeds, the run is deterministic for any thread count, and the error table is sane.
#include <catch2/catch.hpp>

#include <stdexcept>

#include "sim/heldout.h"
#include "workloads/pollux.h"

using namespace ringsched;

namespace {

// A speed model that fails the test if anyone asks it for a step time.
class PoisonStepTime final : public models::StepTimeModel {
 public:
  [[nodiscard]] double step_seconds(int, int, double) const override {
    throw std::logic_error("a belief read the truth model");
  }
  [[nodiscard]] std::string kind() const override { return "poison"; }
};

HeldoutOptions small_options() {
  HeldoutOptions o;
  o.jobs = 12;
  o.seeds = 2;
  o.strategies = {"eight", "precompute", "exploratory", "precompute[oracle]", "optimus[online]"};
  return o;
}

}  // namespace

TEST_CASE("sim::Heldout: history beliefs are built from training measurements only, never the truth", "[heldout]") {
  const Catalog truth = pollux_catalog(default_pollux_dir(), 0.1);
  const TrainingData data = make_training_data(truth, FitProtocol::kPaper, 3, 0.1, 0.05, 4, 99);
  // Public facts only: every truth model replaced by one that throws when read.
  std::vector<JobClass> pub = truth.classes;
  for (auto& c : pub) {
    c.speed = std::make_shared<PoisonStepTime>();
    c.work_samples = -1.0;
  }
  auto history = std::make_shared<const Catalog>(fit_history_catalog(pub, data, FitProtocol::kPaper, "test"));
  const auto source = make_fitted_history_source(history);
  CHECK_FALSE(source->needs_truth());
  Catalog poisoned = truth;
  for (auto& c : poisoned.classes)
    c.speed = std::make_shared<PoisonStepTime>();
  BeliefContext ctx{&poisoned, 4};
  JobPublic job;
  job.class_name = "imagenet";
  job.max_gpus = 64;
  const auto belief = source->make(job, ctx, nullptr);
  REQUIRE(belief);
  CHECK(belief->throughput(16, 4) > 0.0);  // would throw if it read the poisoned truth
  CHECK(belief->total_work() > 0.0);
  // The paper protocol measured nothing outside one node or above 4 GPUs.
  for (const auto& p : data.points[0]) {
    CHECK(p.nodes == 1);
    CHECK(p.w <= 4);
  }
  // Exploration sees only the measured numbers it is handed.
  int calls = 0;
  const auto explore = make_exploration_source(
      [&calls](int) {
        ++calls;
        return std::vector<models::SpeedPoint>{
            {1, 1, 200, 0.5}, {2, 1, 400, 0.52}, {4, 1, 800, 0.55}, {8, 2, 1600, 0.7}};
      },
      history);
  const auto eb = explore->make(job, ctx, nullptr);
  REQUIRE(eb);
  CHECK(calls == 1);
  CHECK(eb->throughput(8, 2) > 0.0);
}

TEST_CASE("sim::Heldout: deterministic, and the same for any thread count", "[heldout]") {
  HeldoutOptions a = small_options();
  a.threads = 1;
  HeldoutOptions b = small_options();
  b.threads = 2;
  const HeldoutResult ra = run_heldout(a);
  const HeldoutResult rb = run_heldout(b);
  REQUIRE(ra.result.runs.size() == 4u * 5u * 2u);
  REQUIRE(ra.result.runs.size() == rb.result.runs.size());
  for (std::size_t i = 0; i < ra.result.runs.size(); ++i) {
    INFO("run " << i << ": " << ra.result.runs[i].error);
    CHECK(ra.result.runs[i].error.empty());
    CHECK(ra.result.runs[i].metrics.mean_jct_s == rb.result.runs[i].metrics.mean_jct_s);
    CHECK(ra.result.runs[i].metrics.makespan_s == rb.result.runs[i].metrics.makespan_s);
  }
  CHECK(render_heldout(ra, Format::kMarkdown) == render_heldout(rb, Format::kMarkdown));
  CHECK(ra.table_lookups == rb.table_lookups);
}

TEST_CASE("sim::Heldout: the prediction-error table", "[heldout]") {
  const HeldoutResult r = run_heldout(small_options());
  REQUIRE(r.errors.size() == 6);
  CHECK(r.errors[0].source == "oracle");
  CHECK(r.errors[0].jobs == 24);
  CHECK(r.errors[0].speed_mape == Approx(0.0).margin(1e-9));  // the oracle is the truth
  CHECK(r.errors[0].work_mape == Approx(0.0).margin(1e-9));
  CHECK(r.errors[1].source == "history");
  CHECK(r.errors[1].work_mape > 0.0);  // per-job work noise the class mean cannot know
  CHECK(r.errors[2].source == "exploration");
  CHECK(r.errors[1].speed_mape_16 > 0.0);
  // online: history's speed model; its work estimate is scored at 25%, 50%, 75% of each job's true work.
  CHECK(r.errors[3].source == "online@25%");
  CHECK(r.errors[4].source == "online@50%");
  CHECK(r.errors[5].source == "online@75%");
  for (int i = 3; i < 6; ++i) {
    CHECK(r.errors[static_cast<std::size_t>(i)].jobs == 24);
    CHECK(r.errors[static_cast<std::size_t>(i)].speed_mape == Approx(r.errors[1].speed_mape));
    CHECK(r.errors[static_cast<std::size_t>(i)].work_mape > 0.0);
  }
  const std::string md = render_heldout(r, Format::kMarkdown);
  CHECK(md.find("| belief source |") != std::string::npos);
  CHECK(md.find("precompute[oracle]") != std::string::npos);
  HeldoutOptions bad = small_options();
  bad.strategies = {"precompute[crystal-ball]"};
  CHECK_THROWS_AS(run_heldout(bad), InputError);
}
