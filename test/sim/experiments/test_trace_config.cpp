// test/sim/experiments/test_trace_config.cpp — experiment configs with trace-driven arrivals (workload.trace: Pollux
// workload files and generic traces, relative paths, jobs caps, file + JSON path / file:line errors) and the
// sensitivity knobs of docs/config.md (restart cost, workload.batch_mode / large_batch_penalty, work_sigma), each
// checked in a direction that holds by construction (the reason is given next to each assertion).
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include "sim/experiments/belief_checks.h"
#include "sim/experiments/runner.h"
#include "test/sim/cli_util.h"
#include "workloads/io/json_reader.h"
#include "workloads/pollux.h"

using namespace ringsched;
using Catch::Matchers::Contains;
using ringsched::test::run_cli;
using ringsched::test::shell_quote;
using ringsched::test::TempDir;

namespace {

const std::filesystem::path kData = std::filesystem::path(RINGSCHED_TEST_DIR) / ".." / "workloads" / "data" / "pollux";

void write(const std::string& path, const std::string& text) {
  std::ofstream(path, std::ios::binary) << text;
}

// Three Pollux rows: times 0, 30, 90 s; the second asks for 100 GPUs (more than the 64-GPU cluster: an error unless
// oversize is "clamp" or "drop"; pollux_config clamps).
const char* kPolluxFixture =
    "name,time,application,num_replicas,batch_size\n"
    "a,0,cifar10,2,256\n"
    "b,30,ncf,100,1024\n"
    "c,90,bert,4,32\n";

nlohmann::json pollux_config(const std::string& file) {
  nlohmann::json doc = nlohmann::json::parse(R"({
    "cluster": {"nodes": 16, "gpus_per_node": 4},
    "workload": {"catalog": "pollux", "trace": {"format": "pollux", "oversize": "clamp"}},
    "strategies": ["eight"],
    "seeds": 1
  })");
  doc["workload"]["trace"]["file"] = file;
  return doc;
}

std::string parse_error(const nlohmann::json& doc, const std::string& base_dir) {
  try {
    (void)parse_experiment(doc, "cfg.json", base_dir);
  } catch (const InputError& e) {
    return e.what();
  }
  return "(no error)";
}

nlohmann::json paper_config() {
  return nlohmann::json::parse(R"({
    "cluster": {"nodes": 2, "gpus_per_node": 8},
    "workload": {"catalog": "paper", "jobs": 12, "arrival": {"process": "poisson", "load": 0.9}},
    "strategies": ["eight"],
    "seeds": 1
  })");
}

}  // namespace

TEST_CASE("sim::Experiment: a Pollux trace gives arrivals, classes and GPU requests row by row", "[sim][trace]") {
  TempDir dir;
  write(dir / "w.csv", kPolluxFixture);
  // Relative to the config's folder.
  const ExperimentConfig c = parse_experiment(pollux_config("w.csv"), "cfg.json", dir.path().string());
  REQUIRE(c.workload.jobs == 3);
  REQUIRE(c.levels.size() == 1);
  CHECK(c.levels[0].name == "trace");
  const Workload w = make_workload(c, 0, 7);
  REQUIRE(w.jobs.size() == 3);
  CHECK(w.jobs[0].arrival == 0.0);
  CHECK(w.jobs[1].arrival == 30.0);
  CHECK(w.jobs[2].arrival == 90.0);
  CHECK(w.jobs[0].name == "a");
  CHECK(w.catalog->classes[static_cast<std::size_t>(w.jobs[1].class_index)].name == "ncf");
  CHECK(w.jobs[0].requested_gpus == 2);
  CHECK(w.jobs[1].requested_gpus == 64);  // 100 clamped to the cluster's 64 GPUs, and counted
  CHECK(w.jobs[2].requested_gpus == 4);
  CHECK(c.workload.trace_notes.clamped == 1);
  CHECK(c.workload.trace_notes.rows == 3);
  CHECK(c.levels[0].load > 0.0);  // the trace's offered load, not 0
  nlohmann::json strict = pollux_config("w.csv");
  strict["workload"]["trace"].erase("oversize");
  CHECK_THAT(parse_error(strict, dir.path().string()),
             Contains("cfg.json: workload.trace.file: ") && Contains("w.csv:3: job 'b' asks for 100 GPUs"));
  strict["workload"]["trace"]["oversize"] = "drop";
  CHECK(make_workload(parse_experiment(strict, "cfg.json", dir.path().string()), 0, 7).jobs.size() == 2);
  strict["workload"]["trace"]["oversize"] = "squeeze";
  CHECK_THAT(parse_error(strict, dir.path().string()),
             Contains("cfg.json: workload.trace.oversize: unknown value 'squeeze' (valid: error, clamp, drop)"));
  // work_sigma defaults to 0 for the pollux catalog: every job does exactly its class's work.
  const auto& bert = w.catalog->classes[static_cast<std::size_t>(w.jobs[2].class_index)];
  CHECK(w.jobs[2].work_samples == Approx(bert.work_samples).epsilon(1e-12));

  SECTION("jobs caps the rows; time_unit and time_scale rescale submit times") {
    nlohmann::json doc = pollux_config("w.csv");
    doc["workload"]["jobs"] = 2;
    doc["workload"]["trace"]["time_unit"] = "min";
    doc["workload"]["trace"]["time_scale"] = 0.5;
    const ExperimentConfig c2 = parse_experiment(doc, "cfg.json", dir.path().string());
    CHECK(c2.workload.jobs == 2);
    const Workload w2 = make_workload(c2, 0, 7);
    REQUIRE(w2.jobs.size() == 2);
    CHECK(w2.jobs[1].arrival == Approx(30.0 * 60.0 * 0.5));  // 30 min, compressed by half
  }
  SECTION("jobs larger than the trace runs every row once") {
    nlohmann::json doc = pollux_config("w.csv");
    doc["workload"]["jobs"] = 1000;
    CHECK(parse_experiment(doc, "cfg.json", dir.path().string()).workload.jobs == 3);
  }
  SECTION("the whole trace runs: every job finishes, deterministically") {
    const CellRun a = run_cell(c, 0, 0, 0, false);
    const CellRun b = run_cell(c, 0, 0, 0, false);
    REQUIRE(a.error.empty());
    REQUIRE(a.jobs.size() == 3);
    for (std::size_t i = 0; i < a.jobs.size(); ++i) {
      CHECK(a.jobs[i].finish > a.jobs[i].arrival);
      CHECK(a.jobs[i].finish == b.jobs[i].finish);
    }
  }
}

TEST_CASE("sim::Experiment: a generic trace maps columns and units and turns durations into work", "[sim][trace]") {
  TempDir dir;
  // Out of order on purpose: rows are sorted by submit time and rebased to the first submission (t = 5 min).
  write(dir / "g.csv",
        "when,secs,cards\n"
        "7,2,8\n"
        "5,1,4\n");
  nlohmann::json doc = paper_config();
  doc["workload"].erase("arrival");
  doc["workload"].erase("jobs");
  doc["workload"]["trace"] = nlohmann::json::parse(
      R"({"format": "generic", "file": "g.csv", "time_unit": "min",
          "columns": {"submit": "when", "duration": "secs", "gpus": "cards"}})");
  const ExperimentConfig c = parse_experiment(doc, "cfg.json", dir.path().string());
  REQUIRE(c.workload.jobs == 2);
  const Workload w = make_workload(c, 0, 3);
  REQUIRE(w.jobs.size() == 2);
  CHECK(w.jobs[0].arrival == 0.0);
  CHECK(w.jobs[1].arrival == Approx(120.0));  // (7 - 5) min
  const JobClass& cls = c.workload.catalog->classes[0];
  // work = duration x the class's throughput on its GPUs packed on 8-GPU nodes (1 min on 4 GPUs, 2 min on 8).
  CHECK(w.jobs[0].work_samples == Approx(60.0 * class_throughput(cls, 4, 1)));
  CHECK(w.jobs[1].work_samples == Approx(120.0 * class_throughput(cls, 8, 1)));
}

TEST_CASE("sim::Experiment: the work beliefs assume is checked against a generic trace's durations", "[sim][trace]") {
  TempDir dir;
  nlohmann::json doc = paper_config();
  doc["workload"].erase("arrival");
  doc["workload"].erase("jobs");
  doc["workload"]["trace"] = nlohmann::json::parse(
      R"({"format": "generic", "file": "g.csv", "columns": {"submit": "when", "duration": "secs", "gpus": "cards"}})");
  // Minutes of work against the paper class's 164 epochs: a placeholder far off the trace.
  write(dir / "g.csv", "when,secs,cards\n0,60,4\n10,120,8\n");
  const ExperimentConfig c = parse_experiment(doc, "cfg.json", dir.path().string());
  const JobClass& cls = c.workload.catalog->classes[0];
  const double w0 = 60.0 * class_throughput(cls, 4, 1);
  const double w1 = 120.0 * class_throughput(cls, 8, 1);
  const double a0 = std::abs(cls.work_samples - w0) / w0;
  const double a1 = std::abs(cls.work_samples - w1) / w1;
  const auto check = trace_work_check(c);
  REQUIRE(check);
  CHECK(check->jobs == 2);
  CHECK(check->median_ape == Approx(0.5 * (a0 + a1)));  // two jobs: the mean of the middle two
  CHECK(check->mean_ape == Approx(0.5 * (a0 + a1)));
  const ExperimentResult none;
  const auto warnings = experiment_warnings(c, none, check);
  REQUIRE(warnings.size() == 1);
  CHECK_THAT(warnings[0], Contains("off the work the trace's durations imply (median over 2 jobs)"));
  // Durations that imply exactly the class's work: no warning.
  char row[128];
  std::snprintf(row, sizeof row, "when,secs,cards\n0,%.17g,4\n", cls.work_samples / class_throughput(cls, 4, 1));
  write(dir / "g.csv", row);
  const ExperimentConfig exact = parse_experiment(doc, "cfg.json", dir.path().string());
  const auto ok = trace_work_check(exact);
  REQUIRE(ok);
  CHECK(ok->median_ape == Approx(0.0).margin(1e-9));
  CHECK(experiment_warnings(exact, none, ok).empty());
  // A Poisson workload has no durations to compare with.
  CHECK_FALSE(trace_work_check(parse_experiment(paper_config(), "cfg.json", "")));
}

TEST_CASE("sim::Experiment: trace errors name the config's JSON path and the trace's file:line", "[sim][trace]") {
  TempDir dir;
  const std::string base = dir.path().string();
  write(dir / "unknown.csv", "name,time,application,num_replicas,batch_size\na,0,cifar10,1,64\nb,5,gpt9,1,64\n");
  write(dir / "decreasing.csv", "name,time,application,num_replicas,batch_size\na,10,cifar10,1,64\nb,5,ncf,1,64\n");
  write(dir / "w.csv", kPolluxFixture);

  std::string msg = parse_error(pollux_config("unknown.csv"), base);
  CHECK_THAT(msg, Contains("cfg.json: workload.trace.file") && Contains("unknown.csv:3") &&
                      Contains("unknown application 'gpt9'") && Contains("cifar10"));
  msg = parse_error(pollux_config("decreasing.csv"), base);
  CHECK_THAT(msg, Contains("cfg.json: workload.trace.file") && Contains("decreasing.csv:3") && Contains("decrease"));
  msg = parse_error(pollux_config("missing.csv"), base);
  CHECK_THAT(msg, Contains("cfg.json: workload.trace.file") && Contains("missing.csv"));

  nlohmann::json doc = pollux_config("w.csv");
  doc["workload"]["trace"]["format"] = "slurm";
  CHECK_THAT(parse_error(doc, base), Contains("workload.trace.format") && Contains("pollux, generic, gavel"));
  doc = pollux_config("w.csv");
  doc["workload"]["trace"]["time_unit"] = "fortnight";
  CHECK_THAT(parse_error(doc, base), Contains("workload.trace.time_unit"));
  doc = pollux_config("w.csv");
  doc["workload"]["trace"]["columns"] = nlohmann::json::object();
  CHECK_THAT(parse_error(doc, base), Contains("workload.trace.columns") && Contains("generic"));
  doc = pollux_config("w.csv");
  doc["workload"]["arrival"] = {{"process", "poisson"}, {"load", 1}};
  CHECK_THAT(parse_error(doc, base), Contains("workload.arrival") && Contains("not both"));
  doc = pollux_config("w.csv");
  doc["levels"] = nlohmann::json::parse(R"([{"name": "x", "load": 1}])");
  CHECK_THAT(parse_error(doc, base), Contains("cfg.json: levels"));
  doc = pollux_config("w.csv");
  doc["workload"]["trace"]["bogus"] = 1;
  CHECK_THAT(parse_error(doc, base), Contains("workload.trace") && Contains("bogus"));
}

TEST_CASE("sim::Experiment: every shipped Pollux workload file and philly-every100.csv load as traces",
          "[sim][trace]") {
  for (int i = 1; i <= 8; ++i) {
    const auto file = kData / "workloads" / "load-1.0" / ("workload-" + std::to_string(i) + ".csv");
    const ExperimentConfig c = parse_experiment(pollux_config(file.string()), "cfg.json", "");
    CHECK(c.workload.jobs == 160);
    CHECK(make_workload(c, 0, 1).jobs.size() == 160);
  }
  nlohmann::json doc = paper_config();
  doc["workload"].erase("arrival");
  doc["workload"].erase("jobs");
  doc["workload"]["trace"] = {{"format", "generic"}, {"file", (kData / "traces" / "philly-every100.csv").string()}};
  const ExperimentConfig c = parse_experiment(doc, "cfg.json", "");
  CHECK(c.workload.jobs == 823);
  const Workload w = make_workload(c, 0, 1);
  CHECK(w.jobs.front().arrival == 0.0);
  CHECK(std::is_sorted(w.jobs.begin(), w.jobs.end(),
                       [](const JobTruth& a, const JobTruth& b) { return a.arrival < b.arrival; }));
  for (const auto& j : w.jobs)
    CHECK(j.requested_gpus <= c.total_gpus());
}

TEST_CASE("sim::Experiment: the trace example config validates and simulates", "[sim][trace][cli]") {
  const auto example =
      (std::filesystem::path(RINGSCHED_TEST_DIR) / ".." / "workloads" / "examples" / "trace-pollux.json").string();
  const auto r = run_cli("simulate --config " + shell_quote(example) + " --seeds 1 --jobs 6 --threads 1");
  INFO(r.err);
  CHECK(r.code == 0);
  CHECK_THAT(r.out, Contains("precompute"));
}

// ---- sensitivity knobs --------------------------------------------------------------------------------------

TEST_CASE("sim::Experiment: workload.batch_mode and large_batch_penalty override every class", "[sim][knobs]") {
  nlohmann::json doc = paper_config();
  const ExperimentConfig base = parse_experiment(doc, "cfg.json", "");
  REQUIRE(base.workload.catalog->classes[0].batch_mode == BatchMode::kFixedPerWorker);  // the paper class

  doc["workload"]["batch_mode"] = "fixed_global";
  const ExperimentConfig global = parse_experiment(doc, "cfg.json", "");
  CHECK(global.workload.catalog->classes[0].batch_mode == BatchMode::kFixedGlobal);
  // fixed_global keeps m = size on any w; fixed_per_worker multiplies it by w (job_class.cpp).
  CHECK(global_batch(global.workload.catalog->classes[0], 8) == global_batch(base.workload.catalog->classes[0], 1));

  doc = paper_config();
  doc["workload"]["batch_mode"] = "fixed_per_worker";
  doc["workload"]["large_batch_penalty"] = 0.5;
  const ExperimentConfig pen = parse_experiment(doc, "cfg.json", "");
  // Hand-computed: on 8 GPUs (one node) useful throughput is divided by 1 + 0.5 x log2(8) = 2.5.
  CHECK(class_throughput(pen.workload.catalog->classes[0], 8, 1) ==
        Approx(class_throughput(base.workload.catalog->classes[0], 8, 1) / 2.5));
  // The offered load is relative to the penalised classes, so the same load gives a lower arrival rate.
  CHECK(pen.levels[0].rate_per_s < base.levels[0].rate_per_s);

  // Direction on results: same arrivals (fixed by a trace-free rate, so pin the rate) and every job slower at every
  // w. `eight` is strict FCFS with one fixed size and never resizes, so each job's start is the max of its arrival
  // and earlier jobs' finishes: with slower service no job can finish earlier (induction over the queue).
  doc["levels"] = nlohmann::json::parse(R"([{"name": "r", "rate_per_hour": 4}])");
  doc["workload"]["arrival"] = {{"process", "poisson"}};
  nlohmann::json doc0 = doc;
  doc0["workload"].erase("large_batch_penalty");
  const CellRun slow = run_cell(parse_experiment(doc, "cfg.json", ""), 0, 0, 0, false);
  const CellRun fast = run_cell(parse_experiment(doc0, "cfg.json", ""), 0, 0, 0, false);
  REQUIRE(slow.jobs.size() == fast.jobs.size());
  for (std::size_t i = 0; i < slow.jobs.size(); ++i)
    CHECK(slow.jobs[i].finish >= fast.jobs[i].finish);
  CHECK(slow.metrics.mean_jct_s > fast.metrics.mean_jct_s);

  doc = paper_config();
  doc["workload"]["batch_mode"] = "fixed_global";
  doc["workload"]["large_batch_penalty"] = 0.5;
  CHECK_THAT(parse_error(doc, ""), Contains("workload.large_batch_penalty") && Contains("fixed_per_worker"));
  doc = paper_config();
  doc["workload"]["batch_mode"] = "elastic";
  CHECK_THAT(parse_error(doc, ""), Contains("workload.batch_mode") && Contains("fixed_global, fixed_per_worker"));
}

TEST_CASE("sim::Experiment: workload.work_sigma spreads per-job work around the class mean", "[sim][knobs]") {
  nlohmann::json doc = paper_config();
  doc["workload"]["jobs"] = 200;
  const Workload none = make_workload(parse_experiment(doc, "cfg.json", ""), 0, 5);
  doc["workload"]["work_sigma"] = 0.5;
  const Workload noisy = make_workload(parse_experiment(doc, "cfg.json", ""), 0, 5);
  // sigma 0 (the paper class's default): every job does exactly the class's work; 0.5: lognormal spread, so the
  // works are no longer all equal and their log standard deviation is near 0.5 (200 draws: within 0.1).
  const double w0 = none.jobs[0].work_samples;
  for (const auto& j : none.jobs)
    CHECK(j.work_samples == w0);
  double sum = 0.0;
  double sum2 = 0.0;
  for (const auto& j : noisy.jobs) {
    const double l = std::log(j.work_samples / w0);
    sum += l;
    sum2 += l * l;
  }
  const double n = static_cast<double>(noisy.jobs.size());
  const double sd = std::sqrt(sum2 / n - (sum / n) * (sum / n));
  CHECK(sd == Approx(0.5).margin(0.1));
  doc["workload"]["work_sigma"] = 4;
  CHECK_THAT(parse_error(doc, ""), Contains("workload.work_sigma"));
}

TEST_CASE("sim::Experiment: restart cost knob (config and --restart-cost)", "[sim][knobs]") {
  nlohmann::json doc = paper_config();
  doc["strategies"] = {"eight", "precompute"};
  doc["workload"]["jobs"] = 20;
  doc["restart"] = {{"cost_s", 0}};
  const ExperimentConfig cheap = parse_experiment(doc, "cfg.json", "");
  doc["restart"] = {{"cost_s", 3000}};
  const ExperimentConfig dear = parse_experiment(doc, "cfg.json", "");
  CHECK(dear.restart.cost_s == 3000.0);
  // `eight` never resizes or preempts and a first start does not pause (test_restart_cost.cpp), so its run cannot
  // depend on the restart cost.
  const CellRun e0 = run_cell(cheap, 0, 0, 0, false);
  const CellRun e1 = run_cell(dear, 0, 0, 0, false);
  CHECK(e0.metrics.mean_jct_s == e1.metrics.mean_jct_s);
  // precompute resizes: every restart pauses the job for the full cost while it holds GPUs, and a job's pauses do
  // not overlap, so each job's JCT is at least restarts x 3000 s (a bound that fails if the cost is not applied).
  const CellRun p1 = run_cell(dear, 0, 1, 0, false);
  int restarts = 0;
  for (const auto& j : p1.jobs) {
    restarts += j.restarts;
    CHECK(j.finish - j.arrival >= j.restarts * 3000.0);
  }
  CHECK(restarts > 0);

  // --restart-cost reaches the config: the CLI run with 3000 s prints the same table as the config with 3000 s.
  TempDir dir;
  nlohmann::json cli_doc = doc;
  cli_doc["restart"] = {{"cost_s", 0}};
  write(dir / "zero.json", cli_doc.dump());
  write(dir / "dear.json", doc.dump());
  const auto via_flag =
      run_cli("simulate --config " + shell_quote(dir / "zero.json") + " --restart-cost 3000 --threads 1 --format csv");
  const auto via_config = run_cli("simulate --config " + shell_quote(dir / "dear.json") + " --threads 1 --format csv");
  const auto zero = run_cli("simulate --config " + shell_quote(dir / "zero.json") + " --threads 1 --format csv");
  REQUIRE(via_flag.code == 0);
  CHECK(via_flag.out == via_config.out);
  CHECK(via_flag.out != zero.out);
  CHECK(run_cli("simulate --config " + shell_quote(dir / "zero.json") + " --restart-cost -1").code == 2);
}

TEST_CASE("sim::Experiment: workload.trace.repeat tiles a trace, copies shifted and merged in time order",
          "[sim][trace]") {
  TempDir dir;
  write(dir / "w.csv", kPolluxFixture);  // a at 0, b at 30, c at 90
  nlohmann::json doc = pollux_config("w.csv");
  doc["workload"]["trace"]["repeat"] = {{"copies", 3}, {"every", 30}};
  const ExperimentConfig c = parse_experiment(doc, "cfg.json", dir.path().string());
  REQUIRE(c.workload.jobs == 9);
  const Workload w = make_workload(c, 0, 7);
  // Copy k is shifted by 30 k s; equal times keep copy order (b at 30 before a~1 at 30).
  const std::vector<std::pair<std::string, double>> want = {
      {"a", 0}, {"b", 30}, {"a~1", 30}, {"b~1", 60}, {"a~2", 60}, {"c", 90}, {"b~2", 90}, {"c~1", 120}, {"c~2", 150}};
  REQUIRE(w.jobs.size() == want.size());
  for (std::size_t i = 0; i < want.size(); ++i) {
    INFO("job " << i);
    CHECK(w.jobs[i].name == want[i].first);
    CHECK(w.jobs[i].arrival == want[i].second);
  }
  CHECK(w.jobs[2].requested_gpus == 2);  // a copy keeps its row's request
  // time_unit applies to `every` too: 0.5 min = 30 s.
  doc["workload"]["trace"]["time_unit"] = "min";
  doc["workload"]["trace"]["repeat"]["every"] = 0.5;
  const Workload wm = make_workload(parse_experiment(doc, "cfg.json", dir.path().string()), 0, 7);
  CHECK(wm.jobs[1].name == "a~1");  // a at 0, a~1 at 0.5 min, a~2 at 1 min, then b at 30 min
  CHECK(wm.jobs[1].arrival == 30.0);
  CHECK(wm.jobs[3].name == "b");
  CHECK(wm.jobs[3].arrival == 1800.0);
  doc["workload"]["trace"].erase("time_unit");
  doc["workload"]["trace"]["repeat"] = {{"copies", 0}, {"every", 30}};
  CHECK_THAT(parse_error(doc, dir.path().string()), Contains("cfg.json: workload.trace.repeat.copies: "));
  doc["workload"]["trace"]["repeat"] = {{"copies", 4000000}, {"every", 30}};
  CHECK_THAT(parse_error(doc, dir.path().string()),
             Contains("workload.trace.repeat.copies: 4000000 copies of 3 rows exceed 10,000,000 jobs"));
  doc["workload"]["trace"]["repeat"] = {{"copies", 2}, {"every", 1e13}};
  CHECK_THAT(parse_error(doc, dir.path().string()),
             Contains("workload.trace.repeat.every: the last copy would start beyond the simulated horizon"));
  doc["workload"]["trace"]["repeat"] = {{"copies", 2}, {"period", 30}};
  CHECK_THAT(parse_error(doc, dir.path().string()), Contains("workload.trace.repeat.period: unknown key"));
}

TEST_CASE("sim::Experiment: workload.jobs caps the rows a trace holds, with or without repeat, and changes no job",
          "[sim][trace]") {
  TempDir dir;
  // 100,000 rows in descending submit order (the earliest last): the cap must find the earliest rows anywhere.
  std::string text = "timestamp,duration,num_gpus\n";
  for (int i = 100'000; i > 0; --i)
    text += std::to_string(i / 2) + "," + std::to_string(60 + i % 50) + "," + std::to_string(1 + i % 8) + "\n";
  write(dir / "big.csv", text);
  nlohmann::json doc = paper_config();
  doc["workload"].erase("arrival");
  doc["workload"]["jobs"] = 20;
  doc["workload"]["trace"] = nlohmann::json::parse(R"({"format": "generic", "file": "big.csv"})");
  const ExperimentConfig c = parse_experiment(doc, "cfg.json", dir.path().string());
  CHECK(c.workload.jobs == 20);
  CHECK(c.workload.trace->jobs.size() == 20);  // held: the first 20 by submit time, not the file
  CHECK(c.workload.trace_notes.rows == 100'000);
  CHECK(c.workload.trace_notes.truncated == 99'980);
  doc["workload"].erase("jobs");
  const ExperimentConfig whole = parse_experiment(doc, "cfg.json", dir.path().string());
  CHECK(whole.workload.trace->jobs.size() == 100'000);
  const Workload capped = make_workload(c, 0, 5);
  const Workload all = make_workload(whole, 0, 5);
  REQUIRE(capped.jobs.size() == 20);
  for (std::size_t i = 0; i < capped.jobs.size(); ++i) {
    INFO("job " << i);
    CHECK(capped.jobs[i].name == all.jobs[i].name);
    CHECK(capped.jobs[i].arrival == all.jobs[i].arrival);
    CHECK(capped.jobs[i].work_samples == all.jobs[i].work_samples);
    CHECK(capped.jobs[i].speed_factor == all.jobs[i].speed_factor);
  }
  // Tiled: copies of the held rows give the tiled trace's first 20 (rows counted as copies x the file's).
  doc["workload"]["jobs"] = 20;
  doc["workload"]["trace"]["repeat"] = {{"copies", 3}, {"every", 2}};
  const ExperimentConfig tiled = parse_experiment(doc, "cfg.json", dir.path().string());
  CHECK(tiled.workload.trace->jobs.size() == 60);
  CHECK(tiled.workload.trace_notes.rows == 300'000);
  CHECK(tiled.workload.trace_notes.truncated == 299'980);
  doc["workload"].erase("jobs");
  const Workload tiled_all = make_workload(parse_experiment(doc, "cfg.json", dir.path().string()), 0, 5);
  const Workload tiled_capped = make_workload(tiled, 0, 5);
  REQUIRE(tiled_capped.jobs.size() == 20);
  for (std::size_t i = 0; i < tiled_capped.jobs.size(); ++i) {
    INFO("tiled job " << i);
    CHECK(tiled_capped.jobs[i].name == tiled_all.jobs[i].name);
    CHECK(tiled_capped.jobs[i].arrival == tiled_all.jobs[i].arrival);
  }
  // t = 0: line 100,001; t = 1: lines 99,999 and 100,000; t = 2: lines 99,997, 99,998, then copy 1 of line 100,001.
  CHECK(tiled_capped.jobs[5].name == "line-100001~1");
}
