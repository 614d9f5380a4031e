// test/sim/experiments/test_heldout.cpp — held-out evaluation as a config: beliefs never read truth (poisoned truth
// models, for the shipped Pollux tables and for a user's own table file), training runs follow the declared protocol or
// probes, the built-in held-out config is deterministic for any thread count, and its error table is sane.
#include <catch2/catch.hpp>

#include <stdexcept>

#include "sim/beliefs/belief_sources.h"
#include "sim/experiments/belief_checks.h"
#include "sim/experiments/builtin_configs.h"
#include "sim/experiments/report.h"
#include "sim/experiments/runner.h"
#include "test/input_error_of.h"
#include "workloads/io/json_reader.h"
#include "workloads/pollux.h"

using namespace ringsched;
using ringsched::test::error_of;

namespace {

const std::string kHeldoutFixtures = std::string(RINGSCHED_TEST_DIR) + "/fixtures/heldout/";

// A speed model that fails the test if anyone asks it for a step time.
class PoisonStepTime final : public models::StepTimeModel {
 public:
  [[nodiscard]] double step_seconds(int, int, double) const override {
    throw std::logic_error("a belief read the truth model");
  }
  [[nodiscard]] std::string kind() const override { return "poison"; }
};

nlohmann::json small_heldout() {
  nlohmann::json doc = parse_json_text(builtin_config_text("held-out"), "builtin:heldout");
  doc["workload"]["jobs"] = 12;
  doc["seeds"] = 2;
  doc["strategies"] = {"eight",
                       "precompute",
                       "exploratory",
                       {{"name", "precompute"}, {"beliefs", "oracle"}},
                       {{"name", "optimus"}, {"beliefs", "online"}}};
  return doc;
}

// One class "mine" whose truth is the user's table file fixtures/heldout/own-table.csv.
Catalog own_table_truth() {
  const nlohmann::json cat = {{"name", "own"},
                              {"classes",
                               {{{"name", "mine"},
                                 {"batch", {{"mode", "fixed_global"}, {"size", 256}}},
                                 {"model_size_mparams", 25},
                                 {"work", {{"samples", 1e7}, {"sigma", 0.1}}},
                                 {"gpus", {{"max", 16}}},
                                 {"speed", {{"kind", "table"}, {"csv", "own-table.csv"}}}}}}};
  return parse_catalog(cat, "own.json", "", kHeldoutFixtures);
}

TrainingSpec paper_spec(int runs, std::uint64_t seed) {
  TrainingSpec s;
  s.runs = runs;
  s.seed = seed;
  s.speed_sigma = 0.1;
  s.work_sigma = 0.1;
  s.gpus_per_node = 4;
  s.max_gpus = 64;
  return s;
}

// Fits history on `truth`'s training runs from its public facts (ClassFacts: the type carries no model to read),
// then checks a belief of class `cls` answers without touching the poisoned truth.
void check_history_never_reads_truth(const Catalog& truth, const TrainingSpec& spec, const std::string& cls) {
  const TrainingData data = make_training_data(truth, spec);
  auto history = std::make_shared<const Catalog>(fit_history_catalog(class_facts(truth.classes), data, spec, "test"));
  const auto source = make_history_source(history);
  CHECK_FALSE(source->needs_truth());
  Catalog poisoned = truth;
  for (auto& c : poisoned.classes)
    c.speed = std::make_shared<PoisonStepTime>();
  BeliefContext ctx{&poisoned, spec.gpus_per_node};
  JobPublic job;
  job.cls.name = cls;
  job.cls.max_gpus = 16;
  const auto belief = source->make(job, ctx, nullptr);
  REQUIRE(belief);
  CHECK(belief->throughput(16, 4) > 0.0);  // would throw if it read the poisoned truth
  CHECK(belief->total_work() > 0.0);
}

}  // namespace

TEST_CASE("sim::Heldout: history beliefs are built from training measurements only, never the truth", "[heldout]") {
  const Catalog truth = pollux_catalog(default_pollux_dir(), 0.1);
  const TrainingSpec spec = paper_spec(3, 99);
  check_history_never_reads_truth(truth, spec, "imagenet");
  // The paper protocol measured nothing outside one node or above 4 GPUs.
  const TrainingData data = make_training_data(truth, spec);
  for (const auto& p : data.points[0]) {
    CHECK(p.nodes == 1);
    CHECK(p.w <= 4);
  }
  // Exploration sees only the measured numbers it is handed.
  auto history = std::make_shared<const Catalog>(fit_history_catalog(class_facts(truth.classes), data, spec, "test"));
  int calls = 0;
  const auto explore = make_exploration_source(
      [&calls](int) {
        ++calls;
        return std::vector<models::SpeedPoint>{
            {1, 1, 200, 0.5}, {2, 1, 400, 0.52}, {4, 1, 800, 0.55}, {8, 2, 1600, 0.7}};
      },
      history);
  JobPublic job;
  job.cls.name = "imagenet";
  job.cls.max_gpus = 64;
  BeliefContext ctx{&truth, 4};
  const auto eb = explore->make(job, ctx, nullptr);
  REQUIRE(eb);
  CHECK(calls == 1);
  CHECK(eb->throughput(8, 2) > 0.0);
}

TEST_CASE("sim::Heldout: history beliefs never read a truth the user brought as a table file", "[heldout]") {
  const Catalog truth = own_table_truth();
  TrainingSpec spec = paper_spec(4, 7);
  spec.protocol = FitProtocol::kTwoLevel;
  // One measured batch: the two-level protocol's five positions (1, 2, 4 GPUs; 2 and 8 on 2 nodes) cannot fit its
  // six coefficients, however many runs repeat them.
  CHECK_THROWS_WITH(fit_history_catalog(class_facts(truth.classes), make_training_data(truth, spec), spec, "own.json"),
                    Catch::Contains("own.json: class 'mine' (protocol two-level): too few points to fit: the "
                                    "profiled points leave 5 distinct measured position(s)") &&
                        Catch::Contains("add probes"));
  // The probes select exactly the points they name.
  spec.probes = {ProbePoint{1, 1, true, ""},  ProbePoint{2, 1, true, ""},  ProbePoint{4, 1, true, ""},
                 ProbePoint{8, 2, false, ""}, ProbePoint{2, 2, false, ""}, ProbePoint{16, 4, false, ""}};
  const TrainingData data = make_training_data(truth, spec);
  for (const auto& p : data.points[0]) {
    const bool named = (p.nodes == 1 && p.w <= 4) || (p.w == 8 && p.nodes == 2) || (p.w == 2 && p.nodes == 2) ||
                       (p.w == 16 && p.nodes == 4);
    CHECK(named);
  }
  check_history_never_reads_truth(truth, spec, "mine");
  // The two-node protocol: the net model on every position of at most 2 nodes (1, 2, 3, 4, 2@2, 4@2, 6@2, 8@2).
  spec.probes.clear();
  spec.protocol = FitProtocol::kTwoNode;
  const Catalog net =
      fit_history_catalog(class_facts(truth.classes), make_training_data(truth, spec), spec, "own.json");
  CHECK(net.classes[0].speed->kind() == "net");
  check_history_never_reads_truth(truth, spec, "mine");
}

TEST_CASE("sim::Heldout: the built-in config is deterministic, and the same for any thread count", "[heldout]") {
  const ExperimentConfig c = parse_experiment(small_heldout(), "builtin:heldout", "");
  REQUIRE(c.beliefs.training);
  REQUIRE(c.beliefs.history);
  const ExperimentResult ra = run_experiment(c, 1);
  const ExperimentResult rb = run_experiment(c, 2);
  REQUIRE(ra.runs.size() == 4u * 5u * 2u);
  REQUIRE(ra.runs.size() == rb.runs.size());
  for (std::size_t i = 0; i < ra.runs.size(); ++i) {
    INFO("run " << i << ": " << ra.runs[i].error);
    CHECK(ra.runs[i].error.empty());
    CHECK(ra.runs[i].metrics.mean_jct_s == rb.runs[i].metrics.mean_jct_s);
    CHECK(ra.runs[i].metrics.makespan_s == rb.runs[i].metrics.makespan_s);
  }
  const std::string md = render_table3(c, ra, Format::kMarkdown) + render_belief_report(c, ra, Format::kMarkdown);
  CHECK(md == render_table3(c, rb, Format::kMarkdown) + render_belief_report(c, rb, Format::kMarkdown));
  CHECK(ra.table_lookups() == rb.table_lookups());
  CHECK(ra.table_lookups() > 0);
  CHECK(summary_json(c, ra).dump() == summary_json(c, rb).dump());
}

TEST_CASE("sim::Heldout: the prediction-error table", "[heldout]") {
  const ExperimentConfig c = parse_experiment(small_heldout(), "builtin:heldout", "");
  const ExperimentResult r = run_experiment(c, 2);
  const auto& e = r.prediction_errors;
  // Six sources over every class, then the same six for each of the six applications.
  REQUIRE(e.size() == 6 + 6 * 6);
  for (std::size_t i = 0; i < 6; ++i)
    CHECK(e[i].class_name.empty());
  int per_class_jobs = 0;
  for (std::size_t k = 0; k < 6; ++k) {
    const PredictionError& hist = e[6 + 6 * k + 1];
    CHECK(hist.source == "history");
    CHECK(hist.class_name == c.workload.catalog->classes[k].name);
    per_class_jobs += hist.jobs;
  }
  CHECK(per_class_jobs == e[1].jobs);
  CHECK(e[0].source == "oracle");
  CHECK(e[0].jobs == 24);
  CHECK(e[0].speed_mape == Approx(0.0).margin(1e-9));  // the oracle is the truth
  CHECK(e[0].work_mape == Approx(0.0).margin(1e-9));
  CHECK(e[1].source == "history");
  CHECK(e[1].work_mape > 0.0);  // per-job work noise the class mean cannot know
  CHECK(e[2].source == "exploration");
  CHECK(e[1].speed_mape_16 > 0.0);
  // online: history's speed model; its work estimate is scored at 25%, 50%, 75% of each job's true work.
  CHECK(e[3].source == "online@25%");
  CHECK(e[4].source == "online@50%");
  CHECK(e[5].source == "online@75%");
  for (std::size_t i = 3; i < 6; ++i) {
    CHECK(e[i].jobs == 24);
    CHECK(e[i].speed_mape == Approx(e[1].speed_mape));
    CHECK(e[i].work_mape > 0.0);
  }
  const std::string md = render_belief_report(c, r, Format::kMarkdown);
  CHECK(md.find("| belief source |") != std::string::npos);
  CHECK(md.find("precompute[oracle]") != std::string::npos);
  CHECK(summary_json(c, r).at("prediction_errors").size() == 6);
  CHECK(summary_json(c, r).at("prediction_errors_by_class").size() == 36);
  CHECK(md.find("| class | belief source |") != std::string::npos);
  nlohmann::json bad = small_heldout();
  bad["strategies"] = {{{"name", "precompute"}, {"beliefs", "crystal-ball"}}};
  CHECK(error_of([&] { (void)parse_experiment(bad, "h.json", ""); }) ==
        "h.json: strategies[0].beliefs: unknown belief source 'crystal-ball' (valid: " +
            join_names(belief_source_names()) + ")");
}

TEST_CASE("sim::Heldout: in-sample history is the truth's class model", "[heldout]") {
  nlohmann::json doc = parse_json_text(table3_config_text(), "builtin:table3");
  doc["seeds"] = 1;
  doc["workload"]["jobs"] = 5;
  doc["output"] = {{"prediction_errors", true}};
  const ExperimentConfig c = parse_experiment(doc, "builtin:table3", "");
  CHECK_FALSE(c.beliefs.training);
  CHECK(c.history_catalog() == c.workload.catalog);
  const ExperimentResult r = run_experiment(c, 1);
  REQUIRE(r.prediction_errors.size() == 6);  // no loss curves: no online rows; 3 over all classes, 3 for `paper`
  CHECK(r.prediction_errors[1].source == "history");
  CHECK(r.prediction_errors[1].speed_mape == Approx(0.0).margin(1e-9));  // no speed noise in-sample
  CHECK(r.prediction_errors[1].work_mape == Approx(0.0).margin(1e-9));
}

TEST_CASE("sim::Heldout: agent beliefs learn from the job's runs, not the truth, and have an error row",
          "[heldout][agent]") {
  nlohmann::json doc = small_heldout();
  doc["levels"] = {{{"name", "moderate"}, {"load", 0.6}}};
  doc["strategies"] = {"pollux", {{"name", "pollux"}, {"beliefs", "oracle"}}};
  const ExperimentConfig c = parse_experiment(doc, "builtin:heldout", "");
  const ExperimentResult r = run_experiment(c, 2);
  bool differ = false;
  for (int s = 0; s < c.seeds; ++s) {
    INFO(r.run(c, 0, 0, s).error);
    REQUIRE(r.run(c, 0, 0, s).error.empty());
    differ = differ || r.run(c, 0, 0, s).metrics.mean_jct_s != r.run(c, 0, 1, s).metrics.mean_jct_s;
  }
  CHECK(differ);  // before, agent read the truth table and pollux was pollux[oracle] to the byte
  const auto& e = r.prediction_errors;
  REQUIRE(e.size() >= 7);
  CHECK(e[6].source == "agent");
  CHECK(e[6].class_name.empty());
  CHECK(e[6].jobs == 24);
  CHECK(e[6].speed_mape > 1.0);              // a fitted prior and noisy measurements: not the truth
  CHECK(e[6].speed_mape < e[1].speed_mape);  // ... but closer than the history it starts from
  CHECK(prediction_error_used_by(c, "agent").find("pollux") != std::string::npos);
}

TEST_CASE("sim::Heldout: agent beliefs never read a truth the user brought as a table file", "[heldout][agent]") {
  const Catalog truth = own_table_truth();
  TrainingSpec spec = paper_spec(4, 7);
  spec.protocol = FitProtocol::kTwoNode;
  const TrainingData data = make_training_data(truth, spec);
  auto history = std::make_shared<const Catalog>(fit_history_catalog(class_facts(truth.classes), data, spec, "test"));
  const auto source = make_agent_source(history, 0.05);
  CHECK_FALSE(source->needs_truth());
  Catalog poisoned = truth;
  for (auto& k : poisoned.classes)
    k.speed = std::make_shared<PoisonStepTime>();
  BeliefContext ctx{&poisoned, spec.gpus_per_node};
  JobPublic job;
  job.cls.name = "mine";
  job.cls.max_gpus = 16;
  const auto belief = source->make(job, ctx, nullptr);
  REQUIRE(belief);
  const double before = belief->throughput(16, 4);  // would throw if it read the poisoned truth
  CHECK(before > 0.0);
  belief->observe_step({16, 4, 256.0, 0.5 * before, ""});
  CHECK(belief->throughput(16, 4) < before);
  CHECK(belief->total_work() > 0.0);
}

TEST_CASE("sim::Heldout: clamped lookups are reported per table and strategy, with warnings past 5%",
          "[heldout][clamp]") {
  const ExperimentConfig c = parse_experiment(small_heldout(), "builtin:heldout", "");
  const ExperimentResult r = run_experiment(c, 2);
  const auto rows = table_clamp_rows(c, r);
  REQUIRE(rows.size() == 6);  // the six truth tables (history under the paper protocol is Eq. 5, not a table)
  std::uint64_t lookups = 0;
  std::uint64_t clamped = 0;
  int over = 0;
  for (const auto& row : rows) {
    CHECK(row.role == "truth");
    CHECK(row.stats.clamped <= row.stats.lookups);
    lookups += row.stats.lookups;
    clamped += row.stats.clamped;
    over += row.share() > kClampWarnShare ? 1 : 0;
    CHECK(row.measured.w_max == 64);
    if (row.stats.clamped > 0) {
      CHECK(row.stats.w_min >= 1);
      CHECK(row.stats.w_max <= 64);  // no job may ask beyond the cluster
      CHECK(row.stats.nodes_min <= row.stats.nodes_max);
    }
  }
  // Every lookup of this config is of these tables.
  CHECK(lookups == r.table_lookups());
  CHECK(clamped == r.table_clamped());
  std::uint64_t by_strategy = 0;
  for (int s = 0; s < static_cast<int>(c.strategies.size()); ++s)
    for (const auto& e : r.table_clamps(s))
      by_strategy += e.second.lookups;
  CHECK(by_strategy == lookups);
  const auto warnings = experiment_warnings(c, r, std::nullopt);
  int table_warnings = 0;
  for (const auto& w : warnings)
    table_warnings += w.find("truth table were answered by clamping") != std::string::npos ? 1 : 0;
  CHECK(table_warnings == over);
  const nlohmann::json j = summary_json(c, r);
  CHECK(j.at("table_clamps").size() == 6);
  CHECK(j.at("table_clamps_by_strategy").size() == c.strategies.size());
  CHECK(j.contains("warnings") == !warnings.empty());
  CHECK(render_belief_report(c, r, Format::kMarkdown).find("| class | table | lookups |") != std::string::npos);
}

TEST_CASE("sim::Heldout: history beliefs may plan with the high end of the net model's intervals", "[heldout]") {
  nlohmann::json doc = small_heldout();
  doc["beliefs"]["history"]["protocol"] = "two-node";
  const ExperimentConfig mid = parse_experiment(doc, "builtin:heldout", "");
  doc["beliefs"]["history"]["speed"] = "high";
  const ExperimentConfig high = parse_experiment(doc, "builtin:heldout", "");
  CHECK(high.beliefs.training->describe().find("high end") != std::string::npos);
  // The high end is never faster than the middle, and slower somewhere beyond the probes' 2 nodes.
  bool slower = false;
  for (std::size_t k = 0; k < mid.beliefs.history->classes.size(); ++k) {
    const JobClass& m = mid.beliefs.history->classes[k];
    const JobClass& h = high.beliefs.history->classes[k];
    CHECK(h.speed->kind() == "net-high");
    for (int w : {1, 4, 8, 32, 64}) {
      const int nodes = (w + 3) / 4;
      const double b = global_batch(m, w);
      CHECK(h.speed->step_seconds(w, nodes, b) >= m.speed->step_seconds(w, nodes, b));
      slower = slower || h.speed->step_seconds(w, nodes, b) > 1.2 * m.speed->step_seconds(w, nodes, b);
    }
  }
  CHECK(slower);
  doc["beliefs"]["history"]["speed"] = "low";
  CHECK(error_of([&] { (void)parse_experiment(doc, "h.json", ""); }) ==
        "h.json: beliefs.history.speed: unknown value 'low' (valid: mid, high)");
  doc["beliefs"]["history"]["speed"] = "high";
  doc["beliefs"]["history"]["protocol"] = "paper";
  CHECK_THAT(error_of([&] { (void)parse_experiment(doc, "h.json", ""); }),
             Catch::Contains("speed \"high\" plans with the upper end of the net model's intervals"));
}

TEST_CASE("sim::Heldout: on GPU types history is fitted per type from training runs on each type", "[heldout][pools]") {
  // Truth: reference speed eq5 with t0 0.01 s/sample step; "fast" twice that speed, "slow" a quarter.
  const nlohmann::json cat = {{"name", "typed"},
                              {"classes",
                               {{{"name", "lin"},
                                 {"batch", {{"mode", "fixed_global"}, {"size", 100}}},
                                 {"model_size_mparams", 1},
                                 {"work", {{"samples", 1e6}}},
                                 {"gpus", {{"max", 8}}},
                                 {"speed", {{"kind", "eq5"}, {"t0", 0.01}, {"t1", 0}, {"t2", 0}, {"t3", 0}}},
                                 {"speed_by_type",
                                  {{"fast", {{"kind", "eq5"}, {"t0", 0.005}, {"t1", 0}, {"t2", 0}, {"t3", 0}}},
                                   {"slow", {{"kind", "eq5"}, {"t0", 0.04}, {"t1", 0}, {"t2", 0}, {"t3", 0}}}}}}}}};
  const Catalog truth = parse_catalog(cat, "typed.json");
  TrainingSpec spec = paper_spec(3, 7);
  spec.speed_sigma = 0.0;
  spec.measurement_sigma = 0.0;
  spec.protocol = FitProtocol::kEq5All;
  const TrainingData data = make_training_data(truth, spec);
  REQUIRE(data.points_by_type.size() == 1);
  REQUIRE(data.points_by_type[0].size() == 2);
  CHECK(data.points_by_type[0][0].first == "fast");
  CHECK(data.points_by_type[0][0].second.size() == data.points[0].size());  // the same positions on every type
  const Catalog history = fit_history_catalog(class_facts(truth.classes), data, spec, "typed.json");
  const JobClass& c = history.classes[0];
  REQUIRE(c.speed_by_type.size() == 2);
  // Noise-free, perfectly linear: each fit reproduces its type's step time (100 samples x t0 on one GPU).
  CHECK(speed_on(c, "fast")->step_seconds(1, 1, 100.0) == Approx(0.5).epsilon(1e-6));
  CHECK(speed_on(c, "slow")->step_seconds(1, 1, 100.0) == Approx(4.0).epsilon(1e-6));
  CHECK(c.speed->step_seconds(1, 1, 100.0) == Approx(1.0).epsilon(1e-6));
}
