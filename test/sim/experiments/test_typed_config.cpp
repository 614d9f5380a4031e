// test/sim/experiments/test_typed_config.cpp — configs on a cluster with GPU types (cluster.pools): the example runs
// end to end with a gpu_type column, rigid FIFO with oracle beliefs picks the fastest type, and what cannot run on
// the types fails validation naming the JSON path, the class and the type.
#include <catch2/catch.hpp>

#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

#include "models/input_error.h"
#include "sim/experiments/belief_checks.h"
#include "sim/experiments/replicate.h"
#include "sim/experiments/report.h"

using namespace ringsched;

namespace {

nlohmann::json typed_example() {
  std::ifstream in(std::string(RINGSCHED_SOURCE_DIR) + "/workloads/examples/typed-pools.json");
  return nlohmann::json::parse(in);
}

std::string typed_error(const nlohmann::json& doc) {
  try {
    (void)parse_experiment(doc, "cfg.json", "");
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("sim::Experiment: on a typed cluster oracle FIFO starts jobs on the fastest type with room", "[sim][pools]") {
  nlohmann::json doc = typed_example();
  doc["seeds"] = 1;
  doc["workload"]["jobs"] = 12;
  doc["levels"] = nlohmann::json::parse(R"([{"name": "light", "load": 0.1}])");
  const ExperimentConfig c = parse_experiment(doc, "typed.json", "");
  REQUIRE(c.cluster.typed());
  const CellRun plain = run_cell(c, 0, 0, 0, true);   // fifo, no beliefs: the first pool with room (slow)
  const CellRun oracle = run_cell(c, 0, 1, 0, true);  // fifo-fastest
  REQUIRE(plain.error.empty());
  REQUIRE(oracle.error.empty());
  int slow = 0;
  int fast = 0;
  for (const auto& j : plain.jobs)
    slow += j.gpu_type == "slow" ? 1 : 0;
  for (const auto& j : oracle.jobs)
    fast += j.gpu_type == "fast" ? 1 : 0;
  CHECK(slow == 12);  // light load: the slow pool always has room
  CHECK(fast == 12);  // and so has the fast one
  CHECK(oracle.metrics.mean_jct_s < plain.metrics.mean_jct_s);
  // Every job, every event names its type; the per-pool GPU-seconds add up to the total.
  ExperimentResult r;
  r.runs = {plain};
  const ExperimentConfig one = [&] {
    ExperimentConfig k = c;
    k.strategies.resize(1);
    return k;
  }();
  const std::string jobs = jobs_csv(one, r);
  CHECK(jobs.rfind("level,strategy,seed,job_id,name,class,arrival_s,first_start_s,finish_s,jct_s,queue_s,restarts,"
                   "gpu_seconds,max_gpus,work_samples,gpu_type,measured\n",
                   0) == 0);
  CHECK(events_csv(one, r).find(",start,slow\n") != std::string::npos);
  double total = 0.0;
  for (double g : plain.metrics.pool_gpu_seconds)
    total += g;
  double sum_jobs = 0.0;
  for (const auto& j : plain.jobs)
    sum_jobs += j.gpu_seconds;
  CHECK(total == Approx(sum_jobs).epsilon(1e-9));
}

TEST_CASE("sim::Experiment: a typed cluster refuses classes and strategies that cannot run on its types",
          "[sim][pools]") {
  using Catch::Contains;
  nlohmann::json doc = typed_example();
  doc["workload"]["catalog"]["classes"][0]["speed_by_type"].erase("fast");
  CHECK_THAT(typed_error(doc), Contains("cfg.json: workload.catalog") && Contains("class 'cnn'") &&
                                   Contains("no speed for GPU type 'fast'"));
  doc = typed_example();
  doc["workload"]["catalog"]["classes"][1]["speed_by_type"]["tpu"] = doc["workload"]["catalog"]["classes"][1]["speed"];
  CHECK(typed_error(doc).empty());  // a type the cluster lacks is not used (the catalog may serve other clusters)
  doc = typed_example();
  doc["cluster"]["placement"] = "spread";  // each pool places its jobs on its own nodes
  CHECK(typed_error(doc).empty());
  doc["cluster"]["topology"] = {{"kind", "two_level"},
                                {"intra_node", {{"bandwidth_gb_s", 150}, {"latency_us", 1}}},
                                {"inter_node", {{"bandwidth_gb_s", 12.5}, {"latency_us", 5}}}};
  CHECK(typed_error(doc).empty());                   // each pool takes the form over its own nodes
  doc["cluster"]["topology"] = {{"kind", "graph"}};  // an explicit graph names its nodes: not shared by pools
  CHECK_THAT(typed_error(doc), Contains("cfg.json: cluster.topology.kind: an explicit graph names its nodes") &&
                                   Contains("give each pool its own"));
  doc["cluster"]["topology"] = {{"kind", "hosts_csv"}};  // so does a host list (each pool would take the same hosts)
  CHECK_THAT(typed_error(doc), Contains("cfg.json: cluster.topology.kind: a host list names its nodes") &&
                                   Contains("give each pool its own"));
  doc = typed_example();  // a pool's own topology, over its own nodes
  doc["cluster"]["pools"][0]["topology"] = {{"kind", "fat_tree"},
                                            {"nodes_per_leaf", 2},
                                            {"spines", 1},
                                            {"intra_node", {{"bandwidth_gb_s", 150}, {"latency_us", 1}}},
                                            {"node_leaf", {{"bandwidth_gb_s", 25}, {"latency_us", 2}}},
                                            {"leaf_spine", {{"bandwidth_gb_s", 12.5}, {"latency_us", 3}}}};
  CHECK(typed_error(doc).empty());
  doc["cluster"]["pools"][0]["topology"]["nodes_per_leaf"] = 3;  // 4 nodes do not fill leaves of 3
  CHECK_THAT(typed_error(doc), Contains("cfg.json: cluster.pools[0].topology"));
  doc = typed_example();
  doc["strategies"] = nlohmann::json::array({"optimal"});
  CHECK_THAT(typed_error(doc),
             Contains("cfg.json: strategies[0]") && Contains("does not choose GPU types (its DP") &&
                 Contains("strategies that do: afs, allox, exploratory, fifo, finish_time_fairness,") &&
                 Contains("optimus, pollux, precompute, qssf, sia_gavel, sjf, srtf, tiresias)"));
  doc["strategies"] = nlohmann::json::array({"eight"});
  CHECK_THAT(typed_error(doc), Contains("does not choose GPU types (it is the paper's fixed-size FCFS"));
  doc = typed_example();
  doc["workload"]["catalog"]["classes"][0]["gpus"] = {{"min", 33}, {"max", 40}};
  doc["cluster"]["pools"][0]["nodes"] = 5;  // 40 slow GPUs, 16 fast: the largest pool has 40, the cluster 56
  CHECK(typed_error(doc).empty());
  doc["cluster"]["pools"][0]["nodes"] = 4;  // 32 + 16 = 48 >= 33, but no pool holds 33
  CHECK_THAT(typed_error(doc), Contains("gpus.min 33 exceeds the largest pool (32 GPUs)"));
}

TEST_CASE("sim::Experiment: the gavel catalog on Gavel's 36 + 36 + 36 GPUs runs rigid FIFO per type", "[sim][pools]") {
  const nlohmann::json doc = nlohmann::json::parse(R"({
    "cluster": {"pools": [{"gpu_type": "v100", "nodes": 36, "gpus_per_node": 1},
                          {"gpu_type": "p100", "nodes": 36, "gpus_per_node": 1},
                          {"gpu_type": "k80", "nodes": 36, "gpus_per_node": 1}]},
    "workload": {"catalog": "gavel", "jobs": 30, "arrival": {"process": "poisson"}},
    "levels": [{"name": "r", "rate_per_hour": 2}],
    "strategies": [{"name": "fifo", "beliefs": "oracle", "params": {"gpus": 1}}],
    "restart": {"cost_s": 0}, "seeds": 1})");
  const ExperimentConfig c = parse_experiment(doc, "gavel.json", "");
  const CellRun run = run_cell(c, 0, 0, 0, false);
  REQUIRE(run.error.empty());
  // At 2 jobs/hour on 108 GPUs no job waits, and each starts on the type with its highest throughput.
  const Catalog& cat = *c.workload.catalog;
  for (const auto& j : run.jobs) {
    const JobClass& cls = cat.classes[static_cast<std::size_t>(cat.find(j.class_name))];
    std::string best;
    double rate = -1.0;
    for (const char* type : {"v100", "p100", "k80"}) {
      if (class_throughput_on(cls, type, 1, 1) > rate) {
        rate = class_throughput_on(cls, type, 1, 1);
        best = type;
      }
    }
    CHECK(j.gpu_type == best);
    CHECK(j.first_start == j.arrival);
  }
  nlohmann::json wrong = doc;
  wrong["workload"]["catalog"] = "pollux";
  wrong["workload"]["gavel_dir"] = "x";
  CHECK_THAT(typed_error(wrong),
             Catch::Contains("workload.gavel_dir") && Catch::Contains("only with \"catalog\": \"gavel\""));
}

TEST_CASE("sim::Experiment: Gavel arrivals and a measurement window in a config", "[sim][pools][gavel]") {
  nlohmann::json doc = nlohmann::json::parse(R"({
    "cluster": {"pools": [{"gpu_type": "v100", "nodes": 4, "gpus_per_node": 1},
                          {"gpu_type": "p100", "nodes": 4, "gpus_per_node": 1},
                          {"gpu_type": "k80", "nodes": 4, "gpus_per_node": 1}]},
    "workload": {"catalog": "gavel", "jobs": 40, "arrival": {"process": "gavel"},
                 "measure": {"from_job": 10, "to_job": 30}},
    "levels": [{"name": "r", "rate_per_hour": 0.4}],
    "strategies": [{"name": "fifo", "beliefs": "oracle", "params": {"gpus": 1}}],
    "restart": {"cost_s": 0}, "seeds": 1})");
  const ExperimentConfig c = parse_experiment(doc, "gavel.json", "");
  CHECK(c.workload.arrival_process == "gavel");
  CHECK(c.workload.measure.first == 10);
  const CellRun run = run_cell(c, 0, 0, 0, false);
  REQUIRE(run.error.empty());
  CHECK(run.metrics.jobs == 20);
  double sum = 0.0;
  for (int id = 10; id < 30; ++id)
    sum += run.jobs[static_cast<std::size_t>(id)].finish - run.jobs[static_cast<std::size_t>(id)].arrival;
  CHECK(run.metrics.mean_jct_s == Approx(sum / 20.0).epsilon(1e-12));
  using Catch::Contains;
  nlohmann::json bad = doc;
  bad["levels"][0] = {{"name", "r"}, {"load", 0.5}};
  CHECK_THAT(typed_error(bad), Contains("levels[0].load") && Contains("rate_per_hour"));
  bad = doc;
  bad["workload"]["measure"]["to_job"] = 41;
  CHECK_THAT(typed_error(bad), Contains("workload.measure.to_job"));
  bad = doc;
  bad["workload"]["arrival"]["process"] = "poisson";
  bad["workload"]["arrival"]["multi_gpu"] = true;
  CHECK_THAT(typed_error(bad), Contains("workload.arrival.multi_gpu") && Contains("only with"));
  bad = doc;
  bad["workload"]["arrival"]["reference_gpu_type"] = "a100";
  CHECK_THAT(typed_error(bad), Contains("reference_gpu_type") && Contains("no speed on GPU type 'a100'"));
}

TEST_CASE("sim::Experiment: measured jobs that finish after the last arrival are counted and warned about",
          "[sim][gavel]") {
  nlohmann::json doc = nlohmann::json::parse(R"({
    "cluster": {"pools": [{"gpu_type": "v100", "nodes": 2, "gpus_per_node": 1}]},
    "workload": {"catalog": "gavel", "jobs": 12, "arrival": {"process": "gavel"},
                 "measure": {"from_job": 2, "to_job": 12}},
    "levels": [{"name": "r", "rate_per_hour": 10}],
    "strategies": [{"name": "gavel_fifo_perf", "label": "fifo_perf"}],
    "scheduler": {"interval_s": 360}, "restart": {"cost_s": 0}, "seeds": 1})");
  const ExperimentConfig c = parse_experiment(doc, "late.json", "");
  // 12 jobs of ~17 h each at 10 per hour on 2 GPUs: the last arrives after ~1 h, nearly every measured job ends
  // long after it.
  const CellRun run = run_cell(c, 0, 0, 0, false);
  REQUIRE(run.error.empty());
  CHECK(run.measured_after_arrivals >= 8);
  CHECK(run.measured_after_arrivals <= 10);
  ExperimentResult r;
  r.runs = {run};
  const auto warnings = experiment_warnings(c, r, std::nullopt);
  REQUIRE(warnings.size() == 1);
  CHECK_THAT(warnings[0],
             Catch::Contains("finished after the last job arrived") && Catch::Contains("raise workload.jobs"));
}
