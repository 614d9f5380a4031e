// test/traces/test_outcome_replay.cpp — configs that replay the traces recording outcomes (philly_log, acme) end to
// end: under fifo on a cluster with room for every request and no restart cost, each job starts when it is submitted
// and ends after exactly the run time it had in the trace (its work is that run time at its GPUs' speed, the
// generic format's rule), so failed and killed jobs end as they ended. Config errors name the JSON path.
#include <catch2/catch.hpp>

#include <filesystem>
#include <string>

#include "sim/experiments/runner.h"
#include "test/input_error_of.h"
#include "traces/trace.h"
#include "workloads/io/json_reader.h"

using namespace ringsched;
using Catch::Matchers::Contains;

namespace {

const std::string kReplayFixtures = std::string(RINGSCHED_TEST_DIR) + "/fixtures/traces";

// 4 x 8 GPUs (every fixture job fits at once), the paper catalog (1..64 GPUs), fifo at the requested sizes.
nlohmann::json outcome_replay_config(const std::string& format, const std::string& file) {
  nlohmann::json doc = nlohmann::json::parse(R"({
    "cluster": {"nodes": 4, "gpus_per_node": 8},
    "workload": {"catalog": "paper"},
    "strategies": ["fifo"],
    "seeds": 1
  })");
  doc["workload"]["trace"] = {{"format", format}, {"file", file}};
  return doc;
}

// Runs the config; returns (name, finish - arrival) per job by id, and checks it against the trace's run times.
void check_replay_ends_as_recorded(const std::string& format, const std::string& file) {
  const ExperimentConfig c = parse_experiment(outcome_replay_config(format, file), "cfg.json", kReplayFixtures);
  const Trace& trace = *c.workload.trace;
  const ExperimentResult r = run_experiment(c, 1);
  REQUIRE(r.runs.size() == 1);
  const auto& jobs = r.runs[0].jobs;
  REQUIRE(jobs.size() == trace.jobs.size());
  for (std::size_t i = 0; i < jobs.size(); ++i) {
    INFO(jobs[i].name);
    CHECK(jobs[i].name == trace.jobs[i].name);
    CHECK(jobs[i].arrival == trace.jobs[i].submit_s);
    CHECK(jobs[i].first_start == Approx(jobs[i].arrival));
    CHECK(jobs[i].finish - jobs[i].arrival == Approx(trace.jobs[i].duration_s).epsilon(1e-9));
    CHECK(jobs[i].max_gpus == trace.jobs[i].gpus);
  }
}

}  // namespace

TEST_CASE("traces::PhillyLog: a config replays each job's recorded run time end to end", "[trace][outcomes][philly]") {
  // application_1 1200 s on 8 GPUs, application_0 3600 s on 2, application_2 1800 s on 4, application_6 7200 s on 1.
  check_replay_ends_as_recorded("philly_log", "philly-small.json");
  const ExperimentConfig c =
      parse_experiment(outcome_replay_config("philly_log", "philly-small.json"), "cfg.json", kReplayFixtures);
  CHECK(c.workload.jobs == 4);
  CHECK(c.workload.trace->skipped.total() == 4);
}

TEST_CASE("traces::AcmeTrace: a config replays each GPU job's recorded duration end to end",
          "[trace][outcomes][acme]") {
  check_replay_ends_as_recorded("acme", "acme-seren.csv");
  check_replay_ends_as_recorded("acme", "acme-kalos.csv");
}

TEST_CASE("traces::AcmeTrace: config errors name the JSON path (time_unit, class, keys of other formats)",
          "[trace][outcomes][acme]") {
  auto err = [](nlohmann::json doc) {
    return ringsched::test::error_of([&] { (void)parse_experiment(doc, "cfg.json", kReplayFixtures); });
  };
  nlohmann::json doc = outcome_replay_config("acme", "acme-seren.csv");
  doc["workload"]["trace"]["time_unit"] = "min";
  CHECK_THAT(err(doc), Contains("workload.trace.time_unit: Acme traces give date-times and seconds: time_unit must "
                                "be \"s\""));
  doc = outcome_replay_config("philly_log", "philly-small.json");
  doc["workload"]["trace"]["class"] = "gpt9";
  CHECK_THAT(err(doc), Contains("workload.trace.class: class 'gpt9' is not in catalog paper"));
  doc = outcome_replay_config("philly_log", "philly-small.json");
  doc["workload"]["trace"]["submit_format"] = "auto";
  CHECK_THAT(err(doc), Contains("workload.trace.submit_format: only for format \"generic\""));
  // A bad row of the file: the config's path, then the file:line.
  doc = outcome_replay_config("acme", "philly-small.json");
  CHECK_THAT(err(doc), Contains("cfg.json: workload.trace.file: ") && Contains("philly-small.json:"));
}
