// test/traces/test_helios_trace.cpp — the "helios" trace format (issue 40 item 1) on hand-written samples
// (test/fixtures/traces/helios-*.csv, README there): Helios' cluster_log.csv and the Helios artifact's Philly
// conversion (jobname, Pass / Failed / Killed), submit times, GPUs, run times, states, users and VCs, the rows left out
// by reason, zero_gpus, a config that reads it, and bad input naming file:line and the column. Every expectation is
// computed by hand from the fixture rows (the comments give the arithmetic).
#include <catch2/catch.hpp>

#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

#include "sim/experiments/config.h"
#include "sim/experiments/trace_outcome_report.h"
#include "test/input_error_of.h"
#include "test/sim/cli_util.h"
#include "traces/helios_trace.h"
#include "traces/trace_outcomes.h"
#include "traces/trace_workload.h"
#include "workloads/catalog.h"

using namespace ringsched;
using Catch::Matchers::Contains;
using Catch::Matchers::Equals;
using ringsched::test::error_of;
using ringsched::test::TempDir;

namespace {

const std::string kHeliosFixtures = std::string(RINGSCHED_TEST_DIR) + "/fixtures/traces/";

const std::string kHeliosHeader =
    "job_id,user,vc,gpu_num,cpu_num,node_num,state,submit_time,start_time,end_time,duration,queue\n";

std::string helios_write(const TempDir& dir, const std::string& name, const std::string& text) {
  const std::string path = dir / name;
  std::ofstream(path, std::ios::binary) << text;
  return path;
}

HeliosTraceSpec helios_dropping() {
  HeliosTraceSpec s;
  s.drop_zero_gpus = true;
  return s;
}

}  // namespace

TEST_CASE("traces::HeliosTrace: cluster_log.csv's jobs, states, users and VCs, and the rows left out",
          "[trace][outcomes][helios]") {
  const Trace tr = read_helios_trace(kHeliosFixtures + "helios-cluster_log.csv", helios_dropping());
  CHECK(tr.format == &helios_trace_format());
  CHECK(tr.skipped.zero_gpus == 2);  // 2002 (a CPU job), 2009 (a CPU job that never ran: 0 GPUs is checked first)
  CHECK(tr.skipped.never_ran == 2);  // 2004 (no start_time), 2008 (duration 0)
  CHECK(tr.skipped.still_running == 0);
  CHECK(tr.file_rows == 0);
  REQUIRE(tr.jobs.size() == 5);
  // By submit time, rebased to 2005's 18:00:00.
  const TraceJob& a = tr.jobs[0];
  CHECK(a.name == "2005");
  CHECK(a.line == 6);
  CHECK(a.submit_s == 0.0);
  CHECK(a.gpus == 4);
  CHECK(a.duration_s == 1000.0);
  CHECK(a.outcome == JobOutcome::kFailed);  // TIMEOUT
  CHECK(a.user == "uC");
  CHECK(a.vc == "vcA");
  CHECK(a.gpu_type.empty());
  const TraceJob& b = tr.jobs[1];
  CHECK(b.name == "2003");
  CHECK(b.submit_s == 300.0);  // 18:05:00
  CHECK(b.gpus == 16);
  CHECK(b.duration_s == 120.0);
  CHECK(b.outcome == JobOutcome::kFailed);
  CHECK(b.vc == "vcB");
  const TraceJob& c = tr.jobs[2];
  CHECK(c.name == "2001");
  CHECK(c.submit_s == 600.0);  // 18:10:00
  CHECK(c.gpus == 8);
  CHECK(c.duration_s == 3600.0);
  CHECK(c.outcome == JobOutcome::kCompleted);
  CHECK(c.user == "uA");
  CHECK(tr.jobs[3].name == "2006");
  CHECK(tr.jobs[3].submit_s == 3600.0);              // 19:00:00
  CHECK(tr.jobs[3].outcome == JobOutcome::kFailed);  // NODE_FAIL
  CHECK(tr.jobs[4].name == "2007");
  CHECK(tr.jobs[4].submit_s == 5400.0);  // 19:30:00
  CHECK(tr.jobs[4].duration_s == 300.0);
  CHECK(tr.jobs[4].outcome == JobOutcome::kKilled);  // CANCELLED
  const TraceOutcomes o = trace_outcomes(tr);
  // completed 2001 3600 x 8 = 28800; failed 2005 1000 x 4 + 2003 120 x 16 + 2006 50 x 1 = 5970; killed 2007 300 x 1.
  CHECK(o.gpu_time(JobOutcome::kCompleted) == 28800.0);
  CHECK(o.gpu_time(JobOutcome::kFailed) == 5970.0);
  CHECK(o.gpu_time(JobOutcome::kKilled) == 300.0);
  CHECK(o.failed_share_by_count() == 0.6);
  // A capped read keeps the first 2 by submit time and counts every row.
  const Trace capped = read_helios_trace(kHeliosFixtures + "helios-cluster_log.csv", helios_dropping(), 2);
  REQUIRE(capped.jobs.size() == 2);
  CHECK(capped.jobs[1].name == "2003");
  CHECK(capped.file_rows == 5);
  CHECK(capped.skipped.total() == 4);
}

TEST_CASE("traces::HeliosTrace: 0-GPU rows are an error suggesting zero_gpus \"drop\" by default",
          "[trace][outcomes][helios]") {
  const std::string path = kHeliosFixtures + "helios-cluster_log.csv";
  CHECK_THAT(error_of([&] { (void)read_helios_trace(path); }),
             Equals(path + ":3: column 'gpu_num': 0 GPUs (a CPU job; about half of Helios' rows are); set the "
                           "trace's \"zero_gpus\": \"drop\" to leave such rows out"));
}

TEST_CASE("traces::HeliosTrace: the Helios artifact's Philly conversion: jobname names the job, Pass / Failed / Killed",
          "[trace][outcomes][helios]") {
  const Trace tr = read_helios_trace(kHeliosFixtures + "helios-philly.csv");
  REQUIRE(tr.jobs.size() == 3);
  CHECK(tr.skipped.total() == 0);
  // By submit time from 09:30: job-bert (Failed, 600 s on 4), job-resnet (Pass, 10:00), job-resnet (Killed, 12:00).
  CHECK(tr.jobs[0].name == "job-bert");
  CHECK(tr.jobs[0].outcome == JobOutcome::kFailed);
  CHECK(tr.jobs[0].gpus == 4);
  CHECK(tr.jobs[0].duration_s == 600.0);
  CHECK(tr.jobs[0].vc == "7f04ca");
  CHECK(tr.jobs[0].user == "user2");
  CHECK(tr.jobs[1].name == "job-resnet");
  CHECK(tr.jobs[1].submit_s == 1800.0);
  CHECK(tr.jobs[1].outcome == JobOutcome::kCompleted);
  CHECK(tr.jobs[1].duration_s == 3600.0);
  CHECK(tr.jobs[2].name == "job-resnet");
  CHECK(tr.jobs[2].submit_s == 9000.0);
  CHECK(tr.jobs[2].outcome == JobOutcome::kKilled);
  CHECK(tr.jobs[2].duration_s == 1800.0);
  CHECK(tr.jobs[2].vc == "6214e9");
}

TEST_CASE("traces::HeliosTrace: without a duration column the run time is end_time - start_time",
          "[trace][outcomes][helios]") {
  TempDir dir;
  const std::string path =
      helios_write(dir, "h.csv",
                   "job_id,user,vc,gpu_num,state,submit_time,start_time,end_time\n"
                   "a,u,v,2,COMPLETED,2020-06-09 18:00:00,2020-06-09 18:01:00.5,2020-06-09 18:11:00.5\n"
                   "b,u,v,2,FAILED,2020-06-09 18:00:00,2020-06-09 18:01:00,\n"
                   "c,u,v,1,SUSPENDED,2020-06-09 18:30:00+08:00,2020-06-09 18:30:00+08:00,2020-06-09 18:31:00+08:00\n");
  const Trace tr = read_helios_trace(path);
  CHECK(tr.skipped.still_running == 1);  // b: started, neither a duration nor an end
  REQUIRE(tr.jobs.size() == 2);
  // c at 18:30+08:00 = 10:30 UTC comes first; a 7.5 h later.
  CHECK(tr.jobs[0].name == "c");
  CHECK(tr.jobs[0].outcome == JobOutcome::kUnknown);
  CHECK(tr.jobs[0].duration_s == 60.0);
  CHECK(tr.jobs[1].name == "a");
  CHECK(tr.jobs[1].submit_s == 27000.0);
  CHECK(tr.jobs[1].duration_s == 600.0);
  // The duration column wins where both are given (Helios' simulator replays it); end_time is only checked.
  const std::string both = helios_write(dir, "both.csv",
                                        kHeliosHeader +
                                            "a,u,v,2,1,1,COMPLETED,2020-06-09 18:00:00,2020-06-09 18:00:00,"
                                            "2020-06-09 18:10:00,700,0\n");
  CHECK(read_helios_trace(both).jobs.at(0).duration_s == 700.0);
}

TEST_CASE("traces::HeliosTrace: bad input names file:line and the column", "[trace][outcomes][helios]") {
  TempDir dir;
  const std::string path = dir / "h.csv";
  auto err = [&](const std::string& text) {
    helios_write(dir, "h.csv", text);
    return error_of([&] { (void)read_helios_trace(path, helios_dropping()); });
  };
  const std::string ok = "a,u,v,1,1,1,COMPLETED,2020-06-09 18:00:00,2020-06-09 18:00:00,2020-06-09 18:01:00,60,0\n";
  CHECK_THAT(err(kHeliosHeader + ok + "b,u,v,1,1,1,RUNNING,2020-06-09 18:00:00,,,0,0\n"),
             Equals(path + ":3: column 'state': unknown state 'RUNNING' (valid: COMPLETED, CANCELLED, FAILED, "
                           "TIMEOUT, NODE_FAIL, SUSPENDED; Pass, Failed, Killed)"));
  CHECK_THAT(
      err(kHeliosHeader + "b,u,v,1,1,1,FAILED,2020/06/09 18:00:00,,,0,0\n"),
      Equals(path + ":2: column 'submit_time': expected a date-time like 2020-06-09 18:41:01 "
                    "(YYYY-MM-DD HH:MM:SS[.fraction][+HH:MM], UTC without an offset), got '2020/06/09 18:00:00'"));
  CHECK_THAT(err(kHeliosHeader + "b,u,v,1,1,1,FAILED,2020-06-09 18:00:00,2020-06-09 18:00,,5,0\n"),
             Contains(path + ":2: column 'start_time': expected a date-time"));
  CHECK_THAT(err(kHeliosHeader + "b,u,v,1,1,1,FAILED,2020-06-09 18:00:00,2020-06-09 18:00:00,yesterday,5,0\n"),
             Contains(path + ":2: column 'end_time': expected a date-time"));
  CHECK_THAT(err(kHeliosHeader + ok + "b,u,v,-1,1,1,FAILED,2020-06-09 18:00:00,,,0,0\n"),
             Equals(path + ":3: column 'gpu_num': expected an integer in [0, 1048576], got -1"));
  CHECK_THAT(err(kHeliosHeader + "b,u,v,1.5,1,1,FAILED,2020-06-09 18:00:00,,,0,0\n"),
             Equals(path + ":2: column 'gpu_num': expected an integer in [0, 1048576], got 1.5"));
  CHECK_THAT(err(kHeliosHeader + "b,u,v,nan,1,1,FAILED,2020-06-09 18:00:00,,,0,0\n"),
             Equals(path + ":2: column 'gpu_num': expected a finite number, got 'nan'"));
  CHECK_THAT(err(kHeliosHeader + "b,u,v,1,1,1,FAILED,2020-06-09 18:00:00,2020-06-09 18:00:00,,NaN,0\n"),
             Equals(path + ":2: column 'duration': expected a finite number, got 'NaN'"));
  CHECK_THAT(err(kHeliosHeader + "b,u,v,1,1,1,FAILED,2020-06-09 18:00:00,2020-06-09 18:00:00,,1e309,0\n"),
             Equals(path + ":2: column 'duration': expected a finite number, got '1e309'"));
  CHECK_THAT(err(kHeliosHeader + "b,u,v,1,1,1,FAILED,2020-06-09 18:00:00,2020-06-09 18:00:00,,2e12,0\n"),
             Equals(path + ":2: column 'duration': a run time beyond 1e12 s (about 31,700 years)"));
  CHECK_THAT(err(kHeliosHeader + "b,u,v,1,1,1,FAILED,2020-06-09 18:00:00,2020-06-09 18:00:00,,-5,0\n"),
             Equals(path + ":2: column 'duration': must be >= 0, got -5"));
  CHECK_THAT(err(kHeliosHeader + ",u,v,1,1,1,FAILED,2020-06-09 18:00:00,,,0,0\n"),
             Equals(path + ":2: column 'job_id': empty job name"));
  CHECK_THAT(err("job_id,user,vc,gpu_num,state,submit_time,start_time,end_time\n"
                 "b,u,v,1,FAILED,2020-06-09 18:00:00,2020-06-09 18:10:00,2020-06-09 18:05:00\n"),
             Equals(path + ":2: column 'end_time': the job ends before it starts (start_time)"));
  CHECK_THAT(err(kHeliosHeader + ok + "b,u,v,1,1,1,FAILED\n"),
             Equals(path + ":3: expected 12 fields as in the header (line 1), got 7"));
  // Missing columns.
  CHECK_THAT(err("job_id,vc,gpu_num,state,submit_time,start_time,duration\nb,v,1,FAILED,x,y,0\n"),
             Contains(path + ":1: missing column 'user'"));
  CHECK_THAT(err("user,vc,gpu_num,state,submit_time,start_time,duration\nu,v,1,FAILED,x,y,0\n"),
             Equals(path + ":1: missing column 'job_id' (or 'jobname'): a Helios trace names each job (header: 7 "
                           "columns)"));
  CHECK_THAT(err("job_id,user,vc,gpu_num,state,submit_time,start_time\nb,u,v,1,FAILED,x,y\n"),
             Equals(path + ":1: missing column 'duration' (or 'end_time'): a Helios trace gives each job's run time"));
  // Empty files and files with no job.
  CHECK_THAT(err(""), Equals(path + ":1: empty file (expected a header row)"));
  CHECK_THAT(err(kHeliosHeader), Equals(path + ":2: empty trace (a header and no rows)"));
  CHECK_THAT(err(kHeliosHeader + "b,u,v,0,1,1,COMPLETED,2020-06-09 18:00:00,,,0,0\n"
                                 "c,u,v,2,1,1,COMPLETED,2020-06-09 18:00:00,,,0,0\n"),
             Equals(path + ": no job to replay (1 with 0 GPUs, 1 never ran, 0 still running)"));
}

TEST_CASE("traces::HeliosTrace: a config reads it, users and VCs reach the jobs, validate's counts",
          "[trace][outcomes][helios][config]") {
  TempDir dir;
  const std::string fixture = kHeliosFixtures + "helios-cluster_log.csv";
  nlohmann::json doc = nlohmann::json::parse(R"({"cluster": {"nodes": 4, "gpus_per_node": 8},
      "workload": {"catalog": "paper", "trace": {"format": "helios"}}, "strategies": ["fifo"], "seeds": 1})");
  doc["workload"]["trace"]["file"] = fixture;
  CHECK_THAT(error_of([&] { (void)parse_experiment(doc, "cfg.json", dir.path().string()); }),
             Contains(fixture + ":3: column 'gpu_num': 0 GPUs"));
  doc["workload"]["trace"]["zero_gpus"] = "maybe";
  CHECK_THAT(error_of([&] { (void)parse_experiment(doc, "cfg.json", dir.path().string()); }),
             Equals("cfg.json: workload.trace.zero_gpus: unknown value 'maybe' (valid: error, drop)"));
  doc["workload"]["trace"]["zero_gpus"] = "drop";
  doc["workload"]["trace"]["time_unit"] = "min";
  CHECK_THAT(error_of([&] { (void)parse_experiment(doc, "cfg.json", dir.path().string()); }),
             Contains("workload.trace.time_unit: Helios traces give date-times and seconds"));
  doc["workload"]["trace"].erase("time_unit");
  const ExperimentConfig c = parse_experiment(doc, "cfg.json", dir.path().string());
  CHECK(c.workload.jobs == 5);
  CHECK(c.workload.trace_notes.skipped.zero_gpus == 2);
  CHECK(trace_outcomes_text(c.workload.trace_notes) ==
        "  outcomes: completed 1 (8.0 GPU-h), failed 3 (1.7 GPU-h), killed 1 (0.1 GPU-h); failed 60.0% of jobs, 17.0% "
        "of GPU time (as recorded)\n  rows left out: 2 never ran, 0 still running, 2 with 0 GPUs\n");
  const Workload w = workload_from_trace(*c.workload.trace, c.workload.catalog, c.workload.trace_spec, 1);
  REQUIRE(w.jobs.size() == 5);
  CHECK(w.jobs[0].name == "2005");
  CHECK(w.jobs[0].user == "uC");
  CHECK(w.jobs[0].vc == "vcA");
  CHECK(w.jobs[1].vc == "vcB");
  // The command line: a bad row exits 2 with one line naming file:line and the column.
  nlohmann::json strict = doc;
  strict["workload"]["trace"].erase("zero_gpus");
  ringsched::test::write_whole_file(dir / "cfg.json", strict.dump());
  const auto r = ringsched::test::run_cli("validate --config " + ringsched::test::shell_quote(dir / "cfg.json"));
  CHECK(r.code == 2);
  CHECK_THAT(r.err, Contains(fixture + ":3: column 'gpu_num': 0 GPUs"));
  CHECK(r.out.empty());
  // A key of another format is refused naming the formats that take it.
  doc["workload"]["trace"]["task_table"] = "t.csv";
  CHECK_THAT(error_of([&] { (void)parse_experiment(doc, "cfg.json", dir.path().string()); }),
             Equals("cfg.json: workload.trace.task_table: only for format \"pai\""));
}
