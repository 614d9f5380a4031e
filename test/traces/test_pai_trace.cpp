// test/traces/test_pai_trace.cpp — the "pai" trace format (issue 40 item 1) on hand-written samples in the published
// headerless schema (test/fixtures/traces/pai_job_table.csv, pai_task_table.csv; README there): each job's GPUs summed
// over its tasks (fractional GPUs rounded up, dropped or refused), its GPU type, run time, status and user, the jobs
// left out by reason, a config naming the task table, validate's lines, and bad input naming file:line and the column.
// Every expectation is computed by hand from the fixture rows (the comments give the arithmetic).
#include <catch2/catch.hpp>

#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

#include "sim/experiments/config.h"
#include "sim/experiments/trace_outcome_report.h"
#include "test/input_error_of.h"
#include "test/sim/cli_util.h"
#include "traces/pai_trace.h"
#include "traces/trace_outcomes.h"
#include "traces/trace_workload.h"

using namespace ringsched;
using Catch::Matchers::Contains;
using Catch::Matchers::Equals;
using ringsched::test::error_of;
using ringsched::test::TempDir;

namespace {

const std::string kPaiFixtures = std::string(RINGSCHED_TEST_DIR) + "/fixtures/traces/";
const std::string kPaiJobs = kPaiFixtures + "pai_job_table.csv";
const std::string kPaiTasks = kPaiFixtures + "pai_task_table.csv";

PaiTraceSpec pai_spec(const std::string& tasks = kPaiTasks, FractionalGpus f = FractionalGpus::kCeil) {
  PaiTraceSpec s;
  s.task_table = tasks;
  s.fractional = f;
  s.drop_zero_gpus = true;
  return s;
}

std::string pai_write(const TempDir& dir, const std::string& name, const std::string& text) {
  const std::string path = dir / name;
  std::ofstream(path, std::ios::binary) << text;
  return path;
}

}  // namespace

TEST_CASE("traces::PaiTrace: GPUs summed over tasks, fractional totals rounded up, types, run times and outcomes",
          "[trace][outcomes][pai]") {
  const Trace tr = read_pai_trace(kPaiJobs, pai_spec());
  CHECK(tr.format == &pai_trace_format());
  CHECK(tr.skipped.still_running == 1);  // j3 (Running)
  CHECK(tr.skipped.never_ran == 3);      // j4 (Waiting), j8 (no task), j9 (0 s: its task starts at its end)
  CHECK(tr.skipped.zero_gpus == 1);      // j5 (its one task has no plan_gpu)
  CHECK(tr.skipped.fractional_gpus == 0);
  CHECK(tr.gpus_rounded_up == 2);  // j6 (0.5), j7 (1.5)
  REQUIRE(tr.jobs.size() == 4);
  // By submit time (the job's start_time), rebased to j1's 1000 s.
  const TraceJob& j1 = tr.jobs[0];
  CHECK(j1.name == "j1");
  CHECK(j1.line == 1);
  CHECK(j1.submit_s == 0.0);
  CHECK(j1.gpus == 2);             // worker 2 x 100% + ps 1 x (no plan_gpu)
  CHECK(j1.duration_s == 3950.0);  // the job's end 5000 - its first task start 1050 (ps)
  CHECK(j1.gpu_type == "V100");    // the worker's: the only task with GPUs
  CHECK(j1.outcome == JobOutcome::kCompleted);
  CHECK(j1.user == "u1");
  CHECK(j1.vc.empty());
  const TraceJob& j2 = tr.jobs[1];
  CHECK(j2.name == "j2");
  CHECK(j2.submit_s == 500.0);
  CHECK(j2.gpus == 4);            // 1 x 400%
  CHECK(j2.duration_s == 280.0);  // 1800 - 1520
  CHECK(j2.gpu_type == "P100");
  CHECK(j2.outcome == JobOutcome::kFailed);
  const TraceJob& j6 = tr.jobs[2];
  CHECK(j6.name == "j6");
  CHECK(j6.submit_s == 2000.0);
  CHECK(j6.gpus == 1);            // 1 x 50% = 0.5, rounded up
  CHECK(j6.duration_s == 590.0);  // 3600 - 3010
  CHECK(j6.gpu_type == "MISC");
  const TraceJob& j7 = tr.jobs[3];
  CHECK(j7.name == "j7");
  CHECK(j7.submit_s == 3000.0);
  CHECK(j7.gpus == 2);              // 2 x 25% + 1 x 100% = 1.5, rounded up
  CHECK(j7.duration_s == 650.0);    // no job end: the latest task end 4700 - the first task start 4050
  CHECK(j7.gpu_type == "V100M32");  // the evaluator asks for 100%, the workers 50% together
  CHECK(j7.line == 7);
  const TraceOutcomes o = trace_outcomes(tr);
  // completed: j1 3950 x 2 + j6 590 x 1 + j7 650 x 2 = 9790; failed: j2 280 x 4 = 1120.
  CHECK(o.gpu_time(JobOutcome::kCompleted) == 9790.0);
  CHECK(o.gpu_time(JobOutcome::kFailed) == 1120.0);
  CHECK(o.failed_share_by_count() == 0.25);
}

TEST_CASE("traces::PaiTrace: fractional_gpus drop and error, zero_gpus error", "[trace][outcomes][pai]") {
  const Trace dropped = read_pai_trace(kPaiJobs, pai_spec(kPaiTasks, FractionalGpus::kDrop));
  CHECK(dropped.skipped.fractional_gpus == 2);  // j6, j7
  CHECK(dropped.gpus_rounded_up == 0);
  REQUIRE(dropped.jobs.size() == 2);
  CHECK(dropped.jobs[1].name == "j2");
  CHECK_THAT(error_of([&] { (void)read_pai_trace(kPaiJobs, pai_spec(kPaiTasks, FractionalGpus::kError)); }),
             Equals(kPaiJobs + ":6: job 'j6': its tasks ask for 0.5 GPUs in all (inst_num x plan_gpu / 100, " +
                    kPaiTasks + ":7); set the trace's \"fractional_gpus\" to \"ceil\" or \"drop\" to run such traces"));
  PaiTraceSpec strict = pai_spec();
  strict.drop_zero_gpus = false;
  CHECK_THAT(error_of([&] { (void)read_pai_trace(kPaiJobs, strict); }),
             Equals(kPaiJobs + ":5: job 'j5': its tasks ask for 0 GPUs (a CPU job, " + kPaiTasks +
                    ":6); set the trace's \"zero_gpus\": \"drop\" to leave such jobs out"));
  // A capped read keeps the first 2 jobs by submit time and counts every job.
  const Trace capped = read_pai_trace(kPaiJobs, pai_spec(), 2);
  REQUIRE(capped.jobs.size() == 2);
  CHECK(capped.file_rows == 4);
  CHECK(capped.skipped.total() == 5);
}

TEST_CASE("traces::PaiTrace: files with the published header line are read too", "[trace][outcomes][pai]") {
  TempDir dir;
  const std::string jobs = pai_write(dir, "jobs.csv",
                                     "job_name,inst_id,user,status,start_time,end_time\n"
                                     "a,i,u,Terminated,10,20\n");
  const std::string tasks =
      pai_write(dir, "tasks.csv",
                "job_name,task_name,inst_num,status,start_time,end_time,plan_cpu,plan_mem,plan_gpu,gpu_type\n"
                "a,worker,8,Terminated,12,20,600,10,100,T4\n");
  const Trace tr = read_pai_trace(jobs, pai_spec(tasks));
  REQUIRE(tr.jobs.size() == 1);
  CHECK(tr.jobs[0].gpus == 8);
  CHECK(tr.jobs[0].duration_s == 8.0);
  CHECK(tr.jobs[0].line == 2);
}

TEST_CASE("traces::PaiTrace: bad input names file:line and the column", "[trace][outcomes][pai]") {
  TempDir dir;
  const std::string jobs = dir / "jobs.csv";
  const std::string tasks = dir / "tasks.csv";
  const std::string ok_task = "a,worker,1,Terminated,12,20,600,10,100,T4\n";
  auto err = [&](const std::string& job_rows, const std::string& task_rows) {
    pai_write(dir, "jobs.csv", job_rows);
    pai_write(dir, "tasks.csv", task_rows);
    return error_of([&] { (void)read_pai_trace(jobs, pai_spec(tasks)); });
  };
  const std::string ok_job = "a,i,u,Terminated,10,20\n";
  CHECK_THAT(err(ok_job + "b,i,u,Done,10,20\n", ok_task),
             Equals(jobs + ":2: column 'status': unknown status 'Done' (valid: Terminated, Failed, Running, Waiting)"));
  CHECK_THAT(err("a,i,u,Terminated,ten,20\n", ok_task),
             Equals(jobs + ":1: column 'start_time': expected a finite number, got 'ten'"));
  CHECK_THAT(err("a,i,u,Terminated,10,1e309\n", ok_task),
             Equals(jobs + ":1: column 'end_time': expected a finite number, got '1e309'"));
  CHECK_THAT(err("a,i,u,Terminated,-10,20\n", ok_task),
             Equals(jobs + ":1: column 'start_time': must be >= 0, got -10"));
  CHECK_THAT(err("a,i,u,Terminated,2e12,20\n", ok_task),
             Equals(jobs + ":1: column 'start_time': 2e12 s is beyond 1e12 s (about 31,700 years)"));
  CHECK_THAT(
      err("a,i,u,Terminated,10,11\n", ok_task),
      Equals(jobs + ":1: column 'end_time': job 'a' ends (11 s) before its first task starts (12 s, " + tasks + ":1)"));
  CHECK_THAT(err(",i,u,Terminated,10,20\n", ok_task), Equals(jobs + ":1: column 'job_name': empty job name"));
  CHECK_THAT(err(ok_job + ok_job, ok_task),
             Equals(jobs + ":2: column 'job_name': job 'a' is given twice (also line 1)"));
  CHECK_THAT(err("a,i,u,Terminated,10\n", ok_task),
             Equals(jobs + ":1: expected 6 fields (job_name, inst_id, user, status, start_time, end_time), got 5"));
  // Task rows.
  CHECK_THAT(err(ok_job, ok_task + "zz,worker,1,Terminated,12,20,600,10,100,T4\n"),
             Equals(tasks + ":2: column 'job_name': job 'zz' is not in the job table (" + jobs + ")"));
  CHECK_THAT(err(ok_job, "a,worker,-1,Terminated,12,20,600,10,100,T4\n"),
             Equals(tasks + ":1: column 'inst_num': must be >= 0, got -1"));
  CHECK_THAT(err(ok_job, "a,worker,1,Terminated,12,20,600,10,nan,T4\n"),
             Equals(tasks + ":1: column 'plan_gpu': expected a finite number, got 'nan'"));
  CHECK_THAT(err(ok_job, "a,worker,1,Terminated,12,20,600,10,-50,T4\n"),
             Equals(tasks + ":1: column 'plan_gpu': must be >= 0, got -50"));
  CHECK_THAT(err(ok_job, "a,worker,1e300,Terminated,12,20,600,10,1e300,T4\n"),
             Equals(tasks + ":1: column 'plan_gpu': the job's tasks ask for more than 1048576 GPUs in all (inst_num x "
                            "plan_gpu / 100)"));
  CHECK_THAT(err(ok_job, "a,worker,1,Terminated,12\n"),
             Equals(tasks + ":1: expected 10 fields (job_name, task_name, inst_num, status, start_time, end_time, "
                            "plan_cpu, plan_mem, plan_gpu, gpu_type), got 5"));
  CHECK_THAT(err(ok_job, ",worker,1,Terminated,12,20,600,10,100,T4\n"),
             Equals(tasks + ":1: column 'job_name': empty job name"));
  // Empty files, and tables with no job to replay.
  CHECK_THAT(err(ok_job, ""), Equals(tasks + ":1: empty file (no rows)"));
  CHECK_THAT(err("", ok_task), Equals(jobs + ":1: empty file (no rows)"));
  CHECK_THAT(err("job_name,inst_id,user,status,start_time,end_time\n", ok_task),
             Equals(jobs + ":1: empty job table (no rows)"));
  CHECK_THAT(err("a,i,u,Running,10,\n", ok_task),
             Equals(jobs + ": no job to replay (1 still running, 0 never ran, 0 with 0 GPUs, 0 with fractional GPUs)"));
}

TEST_CASE("traces::PaiTrace: a config names the task table beside it, and validate prints the counts by reason",
          "[trace][outcomes][pai][config][cli]") {
  TempDir dir;
  const std::string cfg = dir / "cfg.json";
  ringsched::test::write_whole_file(dir / "jobs.csv", ringsched::test::read_whole_file(kPaiJobs));
  ringsched::test::write_whole_file(dir / "tasks.csv", ringsched::test::read_whole_file(kPaiTasks));
  nlohmann::json doc = nlohmann::json::parse(R"({"cluster": {"nodes": 2, "gpus_per_node": 8},
      "workload": {"catalog": "paper", "trace": {"format": "pai", "file": "jobs.csv", "zero_gpus": "drop"}},
      "strategies": ["fifo"], "seeds": 1})");
  CHECK_THAT(error_of([&] { (void)parse_experiment(doc, "cfg.json", dir.path().string()); }),
             Equals("cfg.json: workload.trace.task_table: required key is missing"));
  doc["workload"]["trace"]["task_table"] = "tasks.csv";
  doc["workload"]["trace"]["fractional_gpus"] = "floor";
  CHECK_THAT(error_of([&] { (void)parse_experiment(doc, "cfg.json", dir.path().string()); }),
             Equals("cfg.json: workload.trace.fractional_gpus: unknown value 'floor' (valid: ceil, drop, error)"));
  doc["workload"]["trace"].erase("fractional_gpus");
  const ExperimentConfig c = parse_experiment(doc, "cfg.json", dir.path().string());
  CHECK(c.workload.jobs == 4);
  CHECK(c.workload.trace_notes.gpus_rounded_up == 2);
  const Workload w = workload_from_trace(*c.workload.trace, c.workload.catalog, c.workload.trace_spec, 1);
  REQUIRE(w.jobs.size() == 4);
  CHECK(w.jobs[3].requested_gpus == 2);
  CHECK(w.jobs[3].user == "u4");
  nlohmann::json summary = nlohmann::json::object();
  add_trace_outcomes_json(c.workload.trace_notes, summary);
  CHECK(summary.at("gpus_rounded_up") == 2);
  CHECK_FALSE(summary.at("skipped").contains("fractional_gpus"));  // only when some were dropped
  // The command line: validate's lines with the counts by reason.
  doc["workload"]["trace"]["fractional_gpus"] = "drop";
  ringsched::test::write_whole_file(cfg, doc.dump());
  const auto r = ringsched::test::run_cli("validate --config " + ringsched::test::shell_quote(cfg));
  CHECK(r.code == 0);
  CHECK_THAT(r.out, Contains("arrivals from pai trace " + (dir / "jobs.csv") + " (2 rows)"));
  CHECK_THAT(r.out, Contains("  rows left out: 3 never ran, 1 still running, 1 with 0 GPUs, 2 with fractional GPUs "
                             "(fractional_gpus \"drop\")\n"));
  doc["workload"]["trace"].erase("fractional_gpus");
  ringsched::test::write_whole_file(cfg, doc.dump());
  const auto ceil = ringsched::test::run_cli("validate --config " + ringsched::test::shell_quote(cfg));
  CHECK(ceil.code == 0);
  CHECK_THAT(ceil.out, Contains("  rows left out: 3 never ran, 1 still running, 1 with 0 GPUs\n  fractional GPUs: 2 "
                                "jobs asked for a fractional number of GPUs, rounded up to whole GPUs "
                                "(fractional_gpus \"ceil\")\n"));
  // A task table that does not exist: exit 2 naming it.
  doc["workload"]["trace"]["task_table"] = "missing.csv";
  ringsched::test::write_whole_file(cfg, doc.dump());
  const auto missing = ringsched::test::run_cli("validate --config " + ringsched::test::shell_quote(cfg));
  CHECK(missing.code == 2);
  CHECK_THAT(missing.err, Contains("missing.csv"));
}
