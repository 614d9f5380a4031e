// test/traces/test_outcome_traces.cpp — the traces that record how jobs ended (issue 38 item 3): Philly's job log
// (philly_log) and Acme's Seren and Kalos CSVs (acme) on hand-written samples (test/fixtures/traces/): submit times,
// GPUs, run times, attempts, outcomes, users and VCs, the rows left out by reason, the failed shares, date-times with
// UTC offsets, and bad input naming file:line and the key or column. Every expectation is computed by hand from the
// fixture rows (the comments give the arithmetic).
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <string>

#include "test/input_error_of.h"
#include "test/sim/cli_util.h"
#include "traces/acme_trace.h"
#include "traces/philly_trace.h"
#include "traces/trace_outcomes.h"
#include "traces/trace_time.h"
#include "traces/trace_workload.h"
#include "workloads/catalog.h"

using namespace ringsched;
using Catch::Matchers::Contains;
using Catch::Matchers::Equals;
using ringsched::test::error_of;
using ringsched::test::TempDir;

namespace {

const std::string kOutcomeFixtures = std::string(RINGSCHED_TEST_DIR) + "/fixtures/traces/";

std::string outcome_write(const TempDir& dir, const std::string& name, const std::string& text) {
  const std::string path = dir / name;
  std::ofstream(path, std::ios::binary) << text;
  return path;
}

// One Philly job (one line) with the given status and attempts' JSON.
std::string philly_line(const std::string& status, const std::string& attempts,
                        const std::string& submitted = "2017-10-03 10:00:00") {
  return R"({"status": ")" + status + R"(", "vc": "v", "jobid": "j", "user": "u", "submitted_time": ")" + submitted +
         R"(", "attempts": )" + attempts + "}";
}

const std::string kOneAttempt =
    R"([{"start_time": "2017-10-03 10:01:00", "end_time": "2017-10-03 10:02:00", "detail": [{"ip": "m", "gpus": ["gpu0"]}]}])";

const std::string kSerenHeader =
    "job_id,user,node_num,gpu_num,cpu_num,type,state,submit_time,start_time,end_time,duration,queue,gpu_time\n";

}  // namespace

TEST_CASE("traces::TraceTime: date-times with UTC offsets and fractions are read as UTC seconds", "[trace][outcomes]") {
  double t = 0.0;
  // 2023-03-01 00:00:00 UTC = 19417 days after 1970-01-01 (53 years with 13 leap days: 53 x 365 + 13 = 19358; Jan 31
  // + Feb 28 = 59 more) = 1677628800 s.
  REQUIRE(parse_trace_datetime("2023-03-01 00:00:00", t));
  CHECK(t == 1677628800.0);
  REQUIRE(parse_trace_datetime("2023-03-01 00:18:22+08:00", t));
  CHECK(t == 1677628800.0 + 18 * 60 + 22 - 8 * 3600);
  REQUIRE(parse_trace_datetime("2023-02-28 16:18:22+00:00", t));
  CHECK(t == 1677628800.0 + 18 * 60 + 22 - 8 * 3600);  // the same instant
  REQUIRE(parse_trace_datetime("2023-03-01T00:00:00Z", t));
  CHECK(t == 1677628800.0);
  REQUIRE(parse_trace_datetime("2023-03-01 00:00:00-0530", t));
  CHECK(t == 1677628800.0 + 5.5 * 3600);
  REQUIRE(parse_trace_datetime("2023-03-01 00:00:00.25+01:00", t));
  CHECK(t == 1677628800.0 + 0.25 - 3600);
  for (const char* bad :
       {"2023-03-01", "2023-03-01 00:00", "2023/03/01 00:00:00", "2023-03-01 25:00:00", "2023-13-01 00:00:00",
        "2023-03-01 00:00:00+8", "2023-03-01 00:00:00+08:00x", "2023-03-01 00:00:00.", "None", ""}) {
    INFO(bad);
    CHECK_FALSE(parse_trace_datetime(bad, t));
  }
}

TEST_CASE("traces::PhillyLog: submit times, GPUs, run times, attempts and outcomes of a hand-written log",
          "[trace][outcomes][philly]") {
  const Trace tr = read_philly_log(kOutcomeFixtures + "philly-small.json");
  CHECK(tr.format == &philly_trace_format());
  // Jobs 3 (no attempts) and 7 (times "" only) never ran; job 4's last attempt has no end (still running); job 5's
  // only attempt lists no GPUs.
  CHECK(tr.skipped.never_ran == 2);
  CHECK(tr.skipped.still_running == 1);
  CHECK(tr.skipped.zero_gpus == 1);
  CHECK(tr.file_rows == 0);
  REQUIRE(tr.jobs.size() == 4);
  // By submit time, rebased to application_1's 09:30:00.
  const TraceJob& j1 = tr.jobs[0];
  CHECK(j1.name == "application_1");
  CHECK(j1.line == 3);
  CHECK(j1.submit_s == 0.0);
  CHECK(j1.gpus == 8);             // the first attempt: 4 + 4 GPUs on two servers
  CHECK(j1.duration_s == 1200.0);  // 09:31-09:41 and 09:50-10:00
  CHECK(j1.attempts == 2);
  CHECK(j1.outcome == JobOutcome::kFailed);
  CHECK(j1.user == "user-b");
  CHECK(j1.vc == "vc-b");
  const TraceJob& j0 = tr.jobs[1];
  CHECK(j0.name == "application_0");
  CHECK(j0.line == 2);
  CHECK(j0.submit_s == 1800.0);
  CHECK(j0.gpus == 2);
  CHECK(j0.duration_s == 3600.0);
  CHECK(j0.attempts == 1);
  CHECK(j0.outcome == JobOutcome::kCompleted);
  const TraceJob& j2 = tr.jobs[2];
  CHECK(j2.name == "application_2");
  CHECK(j2.submit_s == 5400.0);
  CHECK(j2.gpus == 4);             // the first attempt with a start time is the second ("None" start before it)
  CHECK(j2.duration_s == 1800.0);  // 12:10-12:40 only: the first attempt has no start
  CHECK(j2.attempts == 2);
  CHECK(j2.outcome == JobOutcome::kKilled);
  CHECK(j2.vc == "vc-a");
  const TraceJob& j6 = tr.jobs[3];
  CHECK(j6.name == "application_6");
  CHECK(j6.submit_s == 52200.0);  // 2017-10-04 00:00 - 2017-10-03 09:30 = 14.5 h
  CHECK(j6.gpus == 1);
  CHECK(j6.duration_s == 7200.0);
  CHECK(j6.line == 8);
}

TEST_CASE("traces::PhillyLog: outcome counts, GPU-seconds and the failed shares by count and GPU time",
          "[trace][outcomes][philly]") {
  const TraceOutcomes o = trace_outcomes(read_philly_log(kOutcomeFixtures + "philly-small.json"));
  // completed: application_0 3600 s x 2 + application_6 7200 s x 1; failed: application_1 1200 s x 8; killed:
  // application_2 1800 s x 4.
  CHECK(o.count(JobOutcome::kCompleted) == 2);
  CHECK(o.count(JobOutcome::kFailed) == 1);
  CHECK(o.count(JobOutcome::kKilled) == 1);
  CHECK(o.count(JobOutcome::kUnknown) == 0);
  CHECK(o.known() == 4);
  CHECK(o.gpu_time(JobOutcome::kCompleted) == 14400.0);
  CHECK(o.gpu_time(JobOutcome::kFailed) == 9600.0);
  CHECK(o.gpu_time(JobOutcome::kKilled) == 7200.0);
  CHECK(o.failed_share_by_count() == 0.25);
  CHECK(o.failed_share_by_gpu_time() == Approx(9600.0 / 31200.0));
  // Over the first 2 jobs only (application_1 failed, application_0 completed): 1 of 2, 9600 of 9600 + 7200.
  const TraceOutcomes two = trace_outcomes(read_philly_log(kOutcomeFixtures + "philly-small.json"), 2);
  CHECK(two.failed_share_by_count() == 0.5);
  CHECK(two.failed_share_by_gpu_time() == Approx(9600.0 / 16800.0));
  // No known outcome: shares 0, not NaN.
  CHECK(TraceOutcomes{}.failed_share_by_count() == 0.0);
  CHECK(TraceOutcomes{}.failed_share_by_gpu_time() == 0.0);
}

TEST_CASE("traces::PhillyLog: a capped read keeps the first N jobs by submit time and counts every row left out",
          "[trace][outcomes][philly]") {
  const Trace full = read_philly_log(kOutcomeFixtures + "philly-small.json");
  const Trace capped = read_philly_log(kOutcomeFixtures + "philly-small.json", 2);
  REQUIRE(capped.jobs.size() == 2);
  CHECK(capped.jobs[0].name == "application_1");
  CHECK(capped.jobs[1].name == "application_0");
  CHECK(capped.file_rows == 4);
  CHECK(capped.total_rows() == 4);
  CHECK(capped.skipped.total() == full.skipped.total());
  CHECK(capped.skipped.total() == 4);
}

TEST_CASE("traces::PhillyLog: bad jobs name file:line, the job's index and the key", "[trace][outcomes][philly]") {
  TempDir dir;
  auto err = [&](const std::string& text) {
    const std::string path = outcome_write(dir, "log.json", text);
    return error_of([&] { (void)read_philly_log(path); });
  };
  const std::string path = dir / "log.json";
  const std::string ok = philly_line("Pass", kOneAttempt);
  CHECK_THAT(err("[\n" + ok + ",\n" + philly_line("Done", kOneAttempt) + "\n]"),
             Equals(path + ":3: [1].status: unknown status 'Done' (valid: Pass, Failed, Killed)"));
  CHECK_THAT(err("[\n" + philly_line("Pass", kOneAttempt, "2017/10/03 10:00:00") + "\n]"),
             Equals(path + ":2: [0].submitted_time: expected a date-time like 2017-10-03 14:26:27 (YYYY-MM-DD "
                           "HH:MM:SS) or null, got '2017/10/03 10:00:00'"));
  // An attempt that ends before it starts (a negative run time).
  CHECK_THAT(err("[" +
                 philly_line("Pass", R"([{"start_time": "2017-10-03 10:05:00", "end_time": "2017-10-03 10:01:00", )"
                                     R"("detail": [{"ip": "m", "gpus": ["gpu0"]}]}])") +
                 "]"),
             Equals(path + ":1: [0].attempts[0].end_time: the attempt ends before it starts"));
  CHECK_THAT(err("[\n" + ok + ",\n" +
                 R"({"status": "Pass", "vc": "v", "jobid": "j", "submitted_time": )"
                 R"("2017-10-03 10:00:00", "attempts": []})" +
                 "\n]"),
             Equals(path + ":3: [1].user: required key is missing"));
  CHECK_THAT(err("[\n" + philly_line("Pass", R"([{"start_time": null, "end_time": null}])") + "\n]"),
             Equals(path + ":2: [0].attempts[0].detail: required key is missing"));
  CHECK_THAT(err("[" + philly_line("Pass", R"([{"start_time": 5, "end_time": null, "detail": []}])") + "]"),
             Contains(path + ":1: [0].attempts[0].start_time: expected a date-time"));
  // Malformed JSON inside a job: the line of the error within the file.
  CHECK_THAT(err("[\n" + ok + ",\n{\"status\": \"Pass\",\n \"vc\": tru}\n]"),
             Contains(path + ":4: [1]: malformed JSON: parse error"));
  CHECK_THAT(err("[\n{\"status\": \"Pass\", \"status\": \"Failed\"}\n]"),
             Equals(path + ":2: [0]: key 'status' given twice"));
  CHECK_THAT(err("{\"jobs\": []}"), Equals(path + ":1: a Philly job log is a JSON array of jobs ('[' expected)"));
  CHECK_THAT(err("[\n" + ok + ",\n3\n]"), Equals(path + ":3: [1]: expected a job (a JSON object)"));
  CHECK_THAT(err("[\n" + ok + "\n" + ok + "\n]"), Equals(path + ":3: expected ',' or ']' after job [0]"));
  CHECK_THAT(err("[\n" + ok + ",\n" + ok), Equals(path + ":3: the file ends inside the job array (a truncated "
                                                         "download?)"));
  CHECK_THAT(err("[" + ok + "] x"), Equals(path + ":1: text after the job array"));
  CHECK_THAT(err(""), Equals(path + ":1: empty file: a Philly job log is a JSON array of jobs"));
  // Every job left out: said with the counts, never an empty workload.
  CHECK_THAT(err("[" + philly_line("Pass", "[]") + "]"),
             Equals(path + ": no job to replay (1 never ran, 0 still running, 0 with 0 GPUs)"));
  CHECK_THAT(err("[]"), Equals(path + ": no job to replay (0 never ran, 0 still running, 0 with 0 GPUs)"));
  // A byte-order mark and a string holding brackets, braces and escaped quotes are no part of the structure.
  std::string odd = philly_line("Pass", kOneAttempt);
  odd.replace(odd.find("\"j\""), 3, "\"j}]{[\\\"\"");
  const std::string tricky = outcome_write(dir, "tricky.json", "\xEF\xBB\xBF[" + odd + "]");
  const Trace t = read_philly_log(tricky);
  REQUIRE(t.jobs.size() == 1);
  CHECK(t.jobs[0].name == "j}]{[\"");
}

TEST_CASE("traces::AcmeTrace: Seren's layout with CPU jobs, each state and +08:00 / +00:00 offsets",
          "[trace][outcomes][acme]") {
  const Trace tr = read_acme_trace(kOutcomeFixtures + "acme-seren.csv");
  CHECK(tr.format == &acme_trace_format());
  CHECK(tr.skipped.zero_gpus == 1);  // s2
  CHECK(tr.skipped.never_ran == 2);  // s4 (no start_time), s8 (duration 0)
  CHECK(tr.skipped.still_running == 0);
  REQUIRE(tr.jobs.size() == 5);
  // By submit time (UTC), rebased to s3's 2023-03-01 00:10:00+08:00.
  CHECK(tr.jobs[0].name == "s3");
  CHECK(tr.jobs[0].submit_s == 0.0);
  CHECK(tr.jobs[0].gpus == 16);
  CHECK(tr.jobs[0].duration_s == 120.0);
  CHECK(tr.jobs[0].outcome == JobOutcome::kFailed);
  CHECK(tr.jobs[0].user == "u1");
  CHECK(tr.jobs[0].line == 4);
  CHECK(tr.jobs[1].name == "s1");
  CHECK(tr.jobs[1].submit_s == 502.0);  // 00:18:22 - 00:10:00
  CHECK(tr.jobs[1].gpus == 8);
  CHECK(tr.jobs[1].duration_s == 3600.0);
  CHECK(tr.jobs[1].outcome == JobOutcome::kCompleted);
  CHECK(tr.jobs[2].name == "s5");
  CHECK(tr.jobs[2].submit_s == 1200.0);              // 2023-02-28 16:30:00+00:00 = 2023-03-01 00:30:00+08:00
  CHECK(tr.jobs[2].outcome == JobOutcome::kFailed);  // TIMEOUT
  CHECK(tr.jobs[3].name == "s6");
  CHECK(tr.jobs[3].submit_s == 6600.0);
  CHECK(tr.jobs[3].outcome == JobOutcome::kFailed);  // NODE_FAIL
  CHECK(tr.jobs[4].name == "s7");
  CHECK(tr.jobs[4].submit_s == 10200.0);
  CHECK(tr.jobs[4].outcome == JobOutcome::kKilled);  // CANCELLED
  CHECK(tr.jobs[4].attempts == 0);
  CHECK(tr.jobs[4].vc.empty());
  const TraceOutcomes o = trace_outcomes(tr);
  // completed s1 3600 x 8; failed s3 120 x 16 + s5 1000 x 4 + s6 50 x 2 = 6020; killed s7 300 x 1.
  CHECK(o.count(JobOutcome::kCompleted) == 1);
  CHECK(o.count(JobOutcome::kFailed) == 3);
  CHECK(o.count(JobOutcome::kKilled) == 1);
  CHECK(o.gpu_time(JobOutcome::kCompleted) == 28800.0);
  CHECK(o.gpu_time(JobOutcome::kFailed) == 6020.0);
  CHECK(o.gpu_time(JobOutcome::kKilled) == 300.0);
  CHECK(o.failed_share_by_count() == 0.6);
  CHECK(o.failed_share_by_gpu_time() == Approx(6020.0 / 35120.0));
}

TEST_CASE("traces::AcmeTrace: Kalos' layout is told by its header", "[trace][outcomes][acme]") {
  const Trace tr = read_acme_trace(kOutcomeFixtures + "acme-kalos.csv");
  CHECK(tr.skipped.zero_gpus == 1);  // k3
  CHECK(tr.skipped.never_ran == 0);
  REQUIRE(tr.jobs.size() == 3);
  // k1 10:00+08:00 = 02:00 UTC, k4 11:00+08:00 = 03:00 UTC, k2 09:00 UTC.
  CHECK(tr.jobs[0].name == "k1");
  CHECK(tr.jobs[0].submit_s == 0.0);
  CHECK(tr.jobs[0].gpus == 8);
  CHECK(tr.jobs[0].duration_s == 7200.0);
  CHECK(tr.jobs[1].name == "k4");
  CHECK(tr.jobs[1].submit_s == 3600.0);
  CHECK(tr.jobs[1].outcome == JobOutcome::kKilled);
  CHECK(tr.jobs[2].name == "k2");
  CHECK(tr.jobs[2].submit_s == 25200.0);
  CHECK(tr.jobs[2].gpus == 32);
  CHECK(tr.jobs[2].duration_s == 600.0);
  CHECK(tr.jobs[2].outcome == JobOutcome::kFailed);
  CHECK(tr.jobs[2].user == "u2");
  const TraceOutcomes o = trace_outcomes(tr);
  // 57600 completed, 600 x 32 = 19200 failed, 900 x 4 = 3600 killed.
  CHECK(o.failed_share_by_count() == Approx(1.0 / 3.0));
  CHECK(o.failed_share_by_gpu_time() == Approx(19200.0 / 80400.0));
  // A Kalos header without one of its own columns: the missing column is named.
  TempDir dir;
  std::string text = ringsched::test::read_whole_file(kOutcomeFixtures + "acme-kalos.csv");
  text.replace(text.find("fail_time"), 9, "fail_tm");
  const std::string path = outcome_write(dir, "kalos.csv", text);
  CHECK_THAT(error_of([&] { (void)read_acme_trace(path); }), Contains(path + ":1: missing column 'fail_time'"));
}

TEST_CASE("traces::AcmeTrace: bad rows name file:line and the column", "[trace][outcomes][acme]") {
  TempDir dir;
  const std::string path = dir / "acme.csv";
  auto err = [&](const std::string& rows) {
    outcome_write(dir, "acme.csv", kSerenHeader + rows);
    return error_of([&] { (void)read_acme_trace(path); });
  };
  const std::string ok =
      "a,u,1,1,1,Other,COMPLETED,2023-03-01 00:00:00+08:00,2023-03-01 00:00:00+08:00,2023-03-01 00:01:00+08:00,60,0,"
      "60\n";
  CHECK_THAT(err(ok + "b,u,1,1,1,Other,RUNNING,2023-03-01 00:00:00+08:00,,,0,0,0\n"),
             Equals(path + ":3: column 'state': unknown state 'RUNNING' (valid: COMPLETED, CANCELLED, FAILED, "
                           "TIMEOUT, NODE_FAIL)"));
  CHECK_THAT(err("b,u,1,1,1,Other,FAILED,2023-03-01T00:00:00 +08:00,,,0,0,0\n"),
             Equals(path + ":2: column 'submit_time': expected a date-time like 2023-03-01 00:18:22+08:00, got "
                           "'2023-03-01T00:00:00 +08:00'"));
  CHECK_THAT(err("b,u,1,1,1,Other,FAILED,2023-03-01 00:00:00+08:00,2023-03-01 00:00,,5,0,5\n"),
             Contains(path + ":2: column 'start_time': expected a date-time"));
  CHECK_THAT(err(ok + ok + "b,u,1,2,1,Other,FAILED,2023-03-01 00:00:00+08:00,2023-03-01 00:00:00+08:00,,-5,0,-10\n"),
             Equals(path + ":4: column 'duration': must be >= 0, got -5"));
  CHECK_THAT(err("b,u,1,-1,1,Other,FAILED,2023-03-01 00:00:00+08:00,,,0,0,0\n"),
             Contains(path + ":2: column 'gpu_num': expected an integer in [0, 1048576], got -1"));
  CHECK_THAT(err(",u,1,1,1,Other,FAILED,2023-03-01 00:00:00+08:00,,,0,0,0\n"),
             Equals(path + ":2: column 'job_id': empty job id"));
  CHECK_THAT(err("b,u,0,0,1,Other,COMPLETED,2023-03-01 00:00:00+08:00,2023-03-01 00:00:00+08:00,,60,0,0\n"),
             Equals(path + ": no job to replay (1 with 0 GPUs, 0 never ran)"));
  const std::string no_state = outcome_write(dir, "nostate.csv", "job_id,user,gpu_num\na,u,1\n");
  CHECK_THAT(error_of([&] { (void)read_acme_trace(no_state); }), Contains(no_state + ":1: missing column 'node_num'"));
}

TEST_CASE("traces::TraceNotes: trace_notes carries the outcomes of the jobs used and the rows left out",
          "[trace][outcomes]") {
  const Catalog cat = load_catalog("paper");
  const Trace tr = read_philly_log(kOutcomeFixtures + "philly-small.json");
  TraceWorkloadSpec spec;
  TraceNotes notes = trace_notes(tr, cat, spec, 16);
  CHECK(notes.jobs == 4);
  CHECK(notes.outcomes.count(JobOutcome::kFailed) == 1);
  CHECK(notes.outcomes.failed_share_by_count() == 0.25);
  CHECK(notes.outcomes.failed_share_by_gpu_time() == Approx(9600.0 / 31200.0));
  CHECK(notes.skipped.never_ran == 2);
  CHECK(notes.skipped.still_running == 1);
  CHECK(notes.skipped.zero_gpus == 1);
  spec.max_jobs = 2;  // application_1 (failed) and application_0 (completed)
  notes = trace_notes(tr, cat, spec, 16);
  CHECK(notes.truncated == 2);
  CHECK(notes.outcomes.known() == 2);
  CHECK(notes.outcomes.failed_share_by_count() == 0.5);
  CHECK(notes.skipped.total() == 4);  // over the whole file
}
