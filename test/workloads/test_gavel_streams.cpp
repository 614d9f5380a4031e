// test/workloads/test_gavel_streams.cpp — Gavel's job generator on Python's streams ("streams": "python"): the first
// jobs of Gavel's seeds as Gavel's own code draws them, in the job table's published and current orders; how a run's
// seeds map onto Gavel's; bad values of the new keys.
//
// Fixture: every expected job below was printed by /tmp/mt/gavel_ref.py (written for this test, not shipped: about 40
// lines re-implementing Gavel's utils.generate_job / _generate_scale_factor / _generate_duration draws and
// Scheduler._sample_arrival_time_delta as read in stanford-futuredata/gavel, with job_table.py's two orders, run on
// CPython 3.11.2's own `random` module and workloads/data/gavel/simulation_throughputs.json), e.g.
// `python3 gavel_ref.py 0 2.0 8 published multi`. Steps are compared to 1e-12 (the same doubles multiplied),
// arrivals to 1e-12 relative (Gavel's gap divides by 1 / lam with lam = 3600 / rate; ringsched's lam is 1 /
// rate_per_s).
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdint>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "models/input_error.h"
#include "sim/experiments/config.h"
#include "sim/experiments/replicate.h"
#include "test/sim/cli_util.h"
#include "workloads/gavel.h"
#include "workloads/gavel_jobs.h"

using namespace ringsched;
using Catch::Matchers::Contains;

namespace {

std::shared_ptr<const Catalog> gavel_streams_catalog() {
  static const auto cat = std::make_shared<const Catalog>(gavel_catalog(default_gavel_dir()));
  return cat;
}

struct PyJob {
  const char* model;
  int gpus;
  double steps;
  double arrival;
};

void check_py_jobs(const Workload& w, const std::vector<PyJob>& want) {
  REQUIRE(w.jobs.size() >= want.size());
  for (std::size_t i = 0; i < want.size(); ++i) {
    const JobTruth& j = w.jobs[i];
    INFO("job " << i);
    CHECK(w.catalog->classes[static_cast<std::size_t>(j.class_index)].name == want[i].model);
    CHECK(j.requested_gpus == want[i].gpus);
    CHECK(j.work_samples == Approx(want[i].steps).epsilon(1e-12));
    CHECK(j.arrival == Approx(want[i].arrival).epsilon(1e-12));
  }
}

GavelJobsSpec py_spec(double rate_per_hour, int jobs, bool multi, GavelJobTable table) {
  GavelJobsSpec s;
  s.rate_per_s = rate_per_hour / 3600.0;
  s.jobs = jobs;
  s.multi_gpu = multi;
  s.streams = GavelStreams::kPython;
  s.job_table = table;
  return s;
}

nlohmann::json gavel_streams_config() {
  return nlohmann::json::parse(R"({
    "cluster": {"pools": [{"gpu_type": "v100", "nodes": 8, "gpus_per_node": 1},
                          {"gpu_type": "p100", "nodes": 8, "gpus_per_node": 1},
                          {"gpu_type": "k80", "nodes": 8, "gpus_per_node": 1}]},
    "workload": {"catalog": "gavel", "jobs": 5,
                 "arrival": {"process": "gavel", "multi_gpu": true, "streams": "python"}},
    "levels": [{"name": "r", "rate_per_hour": 2.0}],
    "strategies": ["gavel_fifo"],
    "seeds": 2})");
}

std::string gavel_streams_error(const nlohmann::json& doc) {
  try {
    (void)parse_experiment(doc, "cfg.json", "");
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("workloads::Gavel: python streams give Gavel's seed-0 multi-GPU jobs in the published table order",
          "[gavel][python_random]") {
  // python3 gavel_ref.py 0 2.0 8 published multi
  const std::vector<PyJob> want = {
      {"ResNet-18 (batch size 64)", 8, 17484476.26110642, 0.0},
      {"Transformer (batch size 16)", 1, 343170.46864225325, 489.172145820603},
      {"Recommendation (batch size 1024)", 1, 28512.481519640125, 1903.5496550581915},
      {"Recommendation (batch size 4096)", 1, 28852.725096361417, 2735.085391312775},
      {"LM (batch size 10)", 4, 833178.3316614165, 4402.1358889867415},
      {"A3C", 1, 14968.796197677024, 6171.089328948011},
      {"LM (batch size 10)", 4, 19331185.713115137, 6293.083491182921},
      {"ResNet-50 (batch size 16)", 1, 47952.65094388308, 6316.943316023263},
  };
  check_py_jobs(generate_gavel_workload(gavel_streams_catalog(), py_spec(2.0, 8, true, GavelJobTable::kPublished), 0),
                want);
}

TEST_CASE("workloads::Gavel: python streams in today's table order pick other templates from the same draws",
          "[gavel][python_random]") {
  // python3 gavel_ref.py 0 2.0 8 current multi: the same scale factors and durations while no re-draw differs; job 5
  // is A3C in the published order and a Transformer today, and job 6's template re-draws differ from there on
  const std::vector<PyJob> want = {
      {"ResNet-18 (batch size 64)", 8, 17484476.26110642, 0.0},
      {"Transformer (batch size 16)", 1, 343170.46864225325, 489.172145820603},
      {"Recommendation (batch size 2048)", 1, 16034.37819420177, 1903.5496550581915},
      {"Recommendation (batch size 8192)", 1, 20989.313058424774, 2735.085391312775},
      {"LM (batch size 5)", 4, 869104.8688980676, 4402.1358889867415},
      {"Transformer (batch size 64)", 1, 3842187.572961124, 6171.089328948011},
      {"LM (batch size 20)", 1, 456418.0067377881, 6293.083491182921},
      {"ResNet-50 (batch size 16)", 1, 47952.65094388308, 6316.943316023263},
  };
  check_py_jobs(generate_gavel_workload(gavel_streams_catalog(), py_spec(2.0, 8, true, GavelJobTable::kCurrent), 0),
                want);
  // Both tables hold Gavel's 26 templates, the same set, A3C at index 14 before 19a0dd2 and 24 after.
  const auto& pub = gavel_job_table(GavelJobTable::kPublished);
  const auto& cur = gavel_job_table(GavelJobTable::kCurrent);
  REQUIRE(pub.size() == 26);
  REQUIRE(cur.size() == 26);
  CHECK(pub[14].model == "A3C");
  CHECK(cur[24].model == "A3C");
  CHECK(pub[25].model == "CycleGAN");
  CHECK(cur[14].model == "LM (batch size 5)");
}

TEST_CASE("workloads::Gavel: python streams, single-GPU jobs of seed 1 at 2.4 jobs/h", "[gavel][python_random]") {
  // python3 gavel_ref.py 1 2.4 5 published single (the scale factor is still drawn, then 1)
  const std::vector<PyJob> want = {
      {"LM (batch size 80)", 1, 192286.14885015614, 0.0},
      {"LM (batch size 5)", 1, 1677414.529338207, 403.87565471883323},
      {"LM (batch size 5)", 1, 6452207.988077917, 567.202455018622},
      {"ResNet-18 (batch size 256)", 1, 77037.31818262114, 1323.6187258089153},
      {"Transformer (batch size 128)", 1, 252924.25869721835, 1576.197480626317},
  };
  check_py_jobs(generate_gavel_workload(gavel_streams_catalog(), py_spec(2.4, 5, false, GavelJobTable::kPublished), 1),
                want);
}

TEST_CASE("workloads::Gavel: a run's seeds draw Gavel's seeds 0, 1, ... (first_seed shifts them)",
          "[gavel][python_random]") {
  nlohmann::json doc = gavel_streams_config();
  doc["base_seed"] = 7;
  const ExperimentConfig c = parse_experiment(doc, "cfg.json", "");
  const auto cat = c.workload.catalog;
  const Workload first = make_workload(c, 0, 7);   // the run's first seed: Gavel's seed 0
  const Workload second = make_workload(c, 0, 8);  // the second: Gavel's seed 1
  const auto spec = py_spec(2.0, 5, true, GavelJobTable::kPublished);
  const Workload g0 = generate_gavel_workload(cat, spec, 0);
  const Workload g1 = generate_gavel_workload(cat, spec, 1);
  for (std::size_t i = 0; i < 5; ++i) {
    CHECK(first.jobs[i].class_index == g0.jobs[i].class_index);
    CHECK(first.jobs[i].work_samples == g0.jobs[i].work_samples);
    CHECK(second.jobs[i].work_samples == g1.jobs[i].work_samples);
  }
  CHECK(first.jobs[0].work_samples == Approx(17484476.26110642).epsilon(1e-12));  // Gavel's seed-0 job 0
  doc["workload"]["arrival"]["first_seed"] = 1;
  const ExperimentConfig shifted = parse_experiment(doc, "cfg.json", "");
  CHECK(make_workload(shifted, 0, 7).jobs[1].work_samples == g1.jobs[1].work_samples);
  CHECK_THROWS_AS(make_workload(c, 0, 6), std::invalid_argument);  // below base_seed: a caller's error
}

TEST_CASE("workloads::Gavel: bad streams, job_table and first_seed values name their JSON path",
          "[gavel][python_random]") {
  nlohmann::json doc = gavel_streams_config();
  CHECK(gavel_streams_error(doc).empty());
  doc["workload"]["arrival"]["streams"] = "numpy";
  CHECK_THAT(gavel_streams_error(doc), Contains("cfg.json: workload.arrival.streams") &&
                                           Contains("unknown streams 'numpy' (valid: boost, python)"));
  doc = gavel_streams_config();
  doc["workload"]["arrival"]["job_table"] = "old";
  CHECK_THAT(gavel_streams_error(doc), Contains("workload.arrival.job_table") &&
                                           Contains("unknown job table order 'old' (valid: published, current)"));
  doc = gavel_streams_config();
  doc["workload"]["arrival"]["first_seed"] = -1;
  CHECK_THAT(gavel_streams_error(doc), Contains("workload.arrival.first_seed"));
  doc = gavel_streams_config();
  doc["workload"]["arrival"].erase("streams");
  doc["workload"]["arrival"]["job_table"] = "current";  // meaningless with Boost streams
  CHECK_THAT(gavel_streams_error(doc),
             Contains("workload.arrival.job_table") && Contains("only with \"streams\": \"python\""));
  doc = gavel_streams_config();
  doc["workload"]["arrival"] = {{"process", "poisson"}, {"streams", "python"}};
  CHECK_THAT(gavel_streams_error(doc),
             Contains("workload.arrival.streams") && Contains("only with \"process\": \"gavel\""));
  // A catalog without Gavel's job types (the typed-pools example's): python streams draw templates it lacks.
  std::ifstream in(std::string(RINGSCHED_SOURCE_DIR) + "/workloads/examples/typed-pools.json");
  doc = nlohmann::json::parse(in);
  doc["workload"]["arrival"] = {
      {"process", "gavel"}, {"reference_gpu_type", "fast"}, {"streams", "python"}, {"rate_per_hour", 1.0}};
  doc.erase("levels");
  const std::string err = gavel_streams_error(doc);
  CHECK_THAT(err, Contains("workload.arrival.streams") && Contains("has no class 'ResNet-18 (batch size 16)'"));
}

TEST_CASE("workloads::Gavel: a bad streams value exits 2 from the CLI naming the JSON path", "[gavel][python_random]") {
  test::TempDir tmp;
  nlohmann::json doc = gavel_streams_config();
  doc["workload"]["arrival"]["streams"] = "numpy";
  const std::string cfg = (tmp.path() / "cfg.json").string();
  test::write_whole_file(cfg, doc.dump());
  const test::CliResult r = test::run_cli("validate --config " + test::shell_quote(cfg));
  CHECK(r.code == 2);
  CHECK_THAT(r.err, Contains("workload.arrival.streams: unknown streams 'numpy'"));
}

TEST_CASE("workloads::Gavel: python streams match Gavel's whole 6,000-job streams (digest of every job)",
          "[gavel][python_random]") {
  // python3 gavel_ref.py SEED RATE 6000 ORDER MODE q: FNV-1a 64 over (template index in the table, scale factor) of
  // every job, the sum of the steps in job order, and the last arrival.
  struct Case {
    std::uint64_t seed;
    double rate;
    GavelJobTable table;
    bool multi;
    std::uint64_t digest;
    double total_steps, last_arrival;
  };
  const std::vector<Case> cases = {
      {0, 2.0, GavelJobTable::kPublished, true, 9492098556041353839ULL, 12952197282.031496, 10709556.585517237},
      {1, 2.4, GavelJobTable::kPublished, true, 5474302701880078168ULL, 13666870805.374695, 9092743.65662046},
      {2, 0.4, GavelJobTable::kCurrent, true, 1109891223760527056ULL, 13015815613.88708, 54575213.62718854},
      {0, 2.0, GavelJobTable::kPublished, false, 8555792998047335313ULL, 7696857416.914533, 10709556.585517237},
  };
  for (const Case& k : cases) {
    INFO("seed " << k.seed << " rate " << k.rate << (k.multi ? " multi" : " single"));
    const Workload w =
        generate_gavel_workload(gavel_streams_catalog(), py_spec(k.rate, 6000, k.multi, k.table), k.seed);
    const std::vector<int> classes = gavel_table_classes(*w.catalog, k.table);
    std::uint64_t digest = 1469598103934665603ULL;
    double total = 0.0;
    for (const JobTruth& j : w.jobs) {
      const auto t =
          static_cast<std::uint64_t>(std::find(classes.begin(), classes.end(), j.class_index) - classes.begin());
      for (std::uint64_t byte : {t, static_cast<std::uint64_t>(j.requested_gpus)})
        digest = (digest ^ byte) * 1099511628211ULL;
      total += j.work_samples;
    }
    CHECK(digest == k.digest);
    CHECK(total == Approx(k.total_steps).epsilon(1e-12));
    CHECK(w.jobs.back().arrival == Approx(k.last_arrival).epsilon(1e-11));
  }
}
