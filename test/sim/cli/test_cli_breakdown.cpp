// test/sim/cli/test_cli_breakdown.cpp — `simulate --breakdown` and `--series SECONDS` end to end (issue 40 item 4):
// bad --series values exit 2 naming the flag; without the flags no new file or column appears (a trace without users
// keeps jobs.csv's header); with them breakdown.csv, series.csv, the table after the summary and summary.json's
// "queue_fairness"; the same bytes for any thread count.
#include <catch2/catch.hpp>

#include <filesystem>
#include <string>

#include "test/sim/cli_util.h"

using Catch::Matchers::Contains;
using ringsched::test::read_whole_file;
using ringsched::test::run_cli;
using ringsched::test::shell_quote;
using ringsched::test::TempDir;

namespace {

const std::string kQueueCluster = std::string(RINGSCHED_TEST_DIR) + "/fixtures/metrics/queue-cluster.json";
const std::string kTinyNoTrace = std::string(RINGSCHED_TEST_DIR) + "/../workloads/examples/tiny-2node.json";

}  // namespace

TEST_CASE("cli::Series: --series values that are not an interval of 0.001 to 1e9 s exit 2 naming the flag",
          "[cli][series]") {
  for (const char* bad : {"0", "-1", "abc", "nan", "inf", "1e10", "0.0001", "''", "1e999"}) {
    INFO(bad);
    const auto r = run_cli("simulate --config " + shell_quote(kQueueCluster) + " --quiet --series " + bad);
    CHECK(r.code == 2);
    CHECK_THAT(r.err, Contains("--series"));
    CHECK(r.out.empty());
  }
}

TEST_CASE(
    "cli::Breakdown: without --breakdown and --series no new file or column, and a trace without users keeps "
    "jobs.csv's header",
    "[cli][breakdown]") {
  TempDir tmp;
  const auto r =
      run_cli("simulate --config " + shell_quote(kQueueCluster) + " --quiet --out " + shell_quote(tmp / "o"));
  REQUIRE(r.code == 0);
  CHECK_FALSE(std::filesystem::exists(tmp / "o/breakdown.csv"));
  CHECK_FALSE(std::filesystem::exists(tmp / "o/series.csv"));
  CHECK_THAT(r.out, !Contains("Queueing delay and finish-time fairness"));
  const std::string jobs = read_whole_file(tmp / "o/jobs.csv");
  // The Philly log has users and VCs: both columns, no rho.
  CHECK(jobs.rfind("level,strategy,seed,job_id,name,class,user,vc,arrival_s,", 0) == 0);
  CHECK_THAT(jobs.substr(0, jobs.find('\n')), !Contains("rho"));
  CHECK_THAT(jobs, Contains(",job_a,resnet110-cifar10,u1,v1,0,0,1000,"));
  const std::string summary = read_whole_file(tmp / "o/summary.json");
  CHECK_THAT(summary, !Contains("queue_fairness"));
  const auto plain = run_cli("simulate --config " + shell_quote(kTinyNoTrace) + " --seeds 1 --jobs 4 --quiet --out " +
                             shell_quote(tmp / "p"));
  REQUIRE(plain.code == 0);
  CHECK(read_whole_file(tmp / "p/jobs.csv")
            .rfind("level,strategy,seed,job_id,name,class,arrival_s,first_start_s,finish_s,jct_s,queue_s,restarts,"
                   "gpu_seconds,max_gpus,work_samples,measured\n",
                   0) == 0);
}

TEST_CASE("cli::Breakdown: --breakdown --series write breakdown.csv, series.csv, jobs.csv's rho and the table",
          "[cli][breakdown][series]") {
  TempDir tmp;
  const std::string base = "simulate --config " + shell_quote(kQueueCluster) + " --quiet --breakdown --series 100 ";
  const auto r = run_cli(base + "--threads 1 --out " + shell_quote(tmp / "a"));
  REQUIRE(r.code == 0);
  CHECK_THAT(r.out, Contains("Queueing delay and finish-time fairness"));
  // fifo: delays 662.5 s mean = 11.0 min, median 850 s = 14.2, p95 942.5 s = 15.7; rho max 16.
  CHECK_THAT(r.out, Contains("| trace | fifo | 11.0 | 14.2 | 15.7 | 0.555 | 6.225 | 16.000 |"));
  CHECK_THAT(r.out, Contains("| trace | srtf[oracle] | 0.0 | 0.0 | 0.0 | 0.973 | 1.170 | 1.560 |"));
  const std::string breakdown = read_whole_file(tmp / "a/breakdown.csv");
  CHECK_THAT(breakdown, Contains("trace,fifo,1,all,all,4,1102.5,662.5,850,942.5,"));
  CHECK_THAT(breakdown, Contains("trace,srtf[oracle],1,size,3-4,1,1560,0,0,0,"));
  const std::string series = read_whole_file(tmp / "a/series.csv");
  CHECK(series.rfind("level,strategy,seed,time_s,busy_gpus,utilisation,queued_jobs,running_jobs\n"
                     "trace,fifo,1,0,4,1,0,1\ntrace,fifo,1,100,4,1,1,1\n",
                     0) == 0);
  CHECK_THAT(series, Contains("trace,srtf[oracle],1,300,3,0.75,2,2\n"));
  const std::string jobs = read_whole_file(tmp / "a/jobs.csv");
  CHECK_THAT(jobs.substr(0, jobs.find('\n')), Contains(",outcome,rho,measured"));
  CHECK_THAT(jobs, Contains(",completed,2.9,1\n"));
  CHECK_THAT(read_whole_file(tmp / "a/summary.json"), Contains("\"queue_fairness\""));
  // Determinism: the same files with two threads.
  const auto r2 = run_cli(base + "--threads 2 --out " + shell_quote(tmp / "b"));
  REQUIRE(r2.code == 0);
  for (const char* f : {"breakdown.csv", "series.csv", "jobs.csv", "events.csv", "summary.json"}) {
    INFO(f);
    CHECK(read_whole_file(tmp / (std::string("a/") + f)) == read_whole_file(tmp / (std::string("b/") + f)));
  }
  // A later run without the flags replaces the set: the old breakdown.csv and series.csv go with --force.
  const auto again =
      run_cli("simulate --config " + shell_quote(kQueueCluster) + " --quiet --force --out " + shell_quote(tmp / "a"));
  REQUIRE(again.code == 0);
  CHECK_FALSE(std::filesystem::exists(tmp / "a/breakdown.csv"));
  CHECK_FALSE(std::filesystem::exists(tmp / "a/series.csv"));
}

TEST_CASE("cli::Breakdown: goodput-model jobs have no run time alone: rho and Jain's index are absent, never 0",
          "[cli][breakdown]") {
  const std::string config = std::string(RINGSCHED_TEST_DIR) + "/../workloads/examples/goodput-pools.json";
  const auto md = run_cli("simulate --config " + shell_quote(config) + " --seeds 1 --jobs 4 --breakdown --quiet");
  REQUIRE(md.code == 0);
  CHECK_THAT(md.out, Contains("| heavy | pollux | "));
  CHECK_THAT(md.out, Contains(" | - | - | - |\n"));
  CHECK_THAT(md.out, !Contains(" | 0.000 | 0.000 | 0.000 |"));
  const auto json =
      run_cli("simulate --config " + shell_quote(config) + " --seeds 1 --jobs 4 --breakdown --quiet --format json");
  REQUIRE(json.code == 0);
  const auto doc = nlohmann::json::parse(json.out);
  const auto& qf = doc.at("cells").at(0).at("queue_fairness");
  CHECK(qf.at("rho_mean").at("mean").is_null());
  CHECK(qf.at("jain_index").at("n") == 0);
  CHECK(qf.at("queue_delay_mean").at("n") == 1);
}
