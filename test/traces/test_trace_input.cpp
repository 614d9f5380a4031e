// test/traces/test_trace_input.cpp — trace files as people write them (issue 33): a Gavel trace saved with a UTF-8
// byte-order mark, generic submit times that are neither a date-time nor a number (the message says both were
// expected), and a file that is not a trace at all (named with what was expected, its content never quoted).
#include <catch2/catch.hpp>

#include <fstream>
#include <string>

#include "test/input_error_of.h"
#include "test/sim/cli_util.h"
#include "traces/gavel_trace.h"
#include "traces/generic_trace.h"

using namespace ringsched;
using Catch::Matchers::Contains;
using Catch::Matchers::Equals;
using ringsched::test::error_of;
using ringsched::test::TempDir;

namespace {

std::string write_file(const TempDir& dir, const std::string& name, const std::string& text) {
  const std::string path = dir / name;
  std::ofstream(path, std::ios::binary) << text;
  return path;
}

// Two 7-column lines (job_type, command, num_steps_arg, needs_data_dir, total_steps, arrival_time, scale_factor).
const std::string kGavelLines =
    "ResNet-18 (batch size 64)\tpython3 main.py\t--num_steps\t1\t1000\t0\t1\n"
    "A3C\tpython3 main.py\t--max_steps\t0\t2000\t30\t2\n";

}  // namespace

TEST_CASE("traces::GavelTrace: a leading UTF-8 byte-order mark is skipped", "[trace][gavel][hostile]") {
  TempDir dir;
  // Before: the mark became part of the first job type ("\xEF\xBB\xBFResNet-18 ...", not a class of the catalog).
  const Trace bom = read_gavel_trace(write_file(dir, "bom.trace", "\xEF\xBB\xBF" + kGavelLines), "s");
  const Trace plain = read_gavel_trace(write_file(dir, "plain.trace", kGavelLines), "s");
  REQUIRE(bom.jobs.size() == 2);
  CHECK(bom.jobs[0].application == "ResNet-18 (batch size 64)");
  CHECK(bom.jobs[0].line == 1);
  CHECK(bom.jobs[0].steps == 1000.0);
  CHECK(bom.jobs[1].application == "A3C");
  CHECK(bom.jobs[1].submit_s == 30.0);
  CHECK(bom.jobs[1].gpus == 2);
  REQUIRE(plain.jobs.size() == 2);
  CHECK(plain.jobs[0].application == bom.jobs[0].application);
  // Only at the start of the file: the mark's bytes later in a line are that line's text.
  const Trace inner = read_gavel_trace(
      write_file(dir, "inner.trace", kGavelLines + "\xEF\xBB\xBF" + "A3C\tpython3 main.py\t--max_steps\t0\t5\t40\t1\n"),
      "s");
  REQUIRE(inner.jobs.size() == 3);
  CHECK(inner.jobs[2].application == "\xEF\xBB\xBF" + std::string("A3C"));
}

TEST_CASE("traces::GenericTrace: a submit time that is neither a date-time nor a number says what was expected",
          "[trace][hostile]") {
  TempDir dir;
  const std::string path =
      write_file(dir, "dates.csv", "timestamp,duration,num_gpus\n2017-10-03 14:26:27,60,1\n2017/10/03 14:30:00,60,1\n");
  GenericTraceSpec spec;  // submit_format "auto"
  // Line 3: slashes are not the date-time format; before, the message was "expected a finite number".
  CHECK_THAT(
      error_of([&] { (void)read_generic_trace(path, spec); }),
      Equals(path + ":3: column 'timestamp': expected a date-time like 2017-10-03 14:26:27 "
                    "(YYYY-MM-DD HH:MM:SS[.fraction][+HH:MM], UTC without an offset) or a number of seconds, got "
                    "'2017/10/03 14:30:00'"));
  spec.time_unit = "min";
  CHECK_THAT(error_of([&] { (void)read_generic_trace(path, spec); }),
             Contains("or a number of minutes, got '2017/10/03 14:30:00'"));
  // An impossible date-time (hour 25) is no number either.
  const std::string hour = write_file(dir, "hour.csv", "timestamp,duration,num_gpus\n2017-10-03 25:00:00,60,1\n");
  CHECK_THAT(error_of([&] { (void)read_generic_trace(hour, GenericTraceSpec{}); }),
             Contains("hour.csv:2: column 'timestamp': expected a date-time like 2017-10-03 14:26:27"));
  // "datetime": only date-times.
  spec.submit_format = "datetime";
  const std::string number = write_file(dir, "number.csv", "timestamp,duration,num_gpus\n3600,60,1\n");
  CHECK_THAT(error_of([&] { (void)read_generic_trace(number, spec); }),
             Equals(number + ":2: column 'timestamp': expected a date-time like 2017-10-03 14:26:27 (YYYY-MM-DD "
                             "HH:MM:SS[.fraction][+HH:MM], UTC without an offset; submit_format is \"datetime\"), "
                             "got '3600'"));
  // "number": a date-time is named as such, with the format that reads it.
  spec.submit_format = "number";
  spec.time_unit = "s";
  CHECK_THAT(error_of([&] { (void)read_generic_trace(path, spec); }),
             Equals(path + ":2: column 'timestamp': expected a number of seconds (submit_format is \"number\"; "
                           "\"auto\" reads date-times too), got '2017-10-03 14:26:27'"));
  // What still reads: a date-time and a number in "auto" (the numbers are seconds: 14:26:27 and 14:26:27 + 60 s).
  const std::string mixed =
      write_file(dir, "mixed.csv", "timestamp,duration,num_gpus\n2017-10-03 14:26:27,60,1\n2017-10-03T14:27:27,5,2\n");
  const Trace t = read_generic_trace(mixed, GenericTraceSpec{});
  REQUIRE(t.jobs.size() == 2);
  CHECK(t.jobs[1].submit_s == 60.0);
}

TEST_CASE("traces::GenericTrace: a file that is not a trace is named with what was expected, its text unquoted",
          "[trace][hostile]") {
  TempDir dir;
  // Before: "missing column 'timestamp' (columns: root:x:0:0:root:/root:/bin/bash)", the file's first line.
  const std::string passwd = write_file(dir, "passwd", "root:x:0:0:root:/root:/bin/bash\ndaemon:x:1:1::/:/bin/sh\n");
  CHECK_THAT(error_of([&] { (void)read_generic_trace(passwd, GenericTraceSpec{}); }),
             Equals(passwd + ":1: missing column 'timestamp' (the header has 1 column, none of that name)"));
  // A field count that differs from the first line's does not list the first line's fields either.
  const std::string secret = write_file(dir, "secret.txt", "hunter2,swordfish\nabc\n");
  const std::string msg = error_of([&] { (void)read_generic_trace(secret, GenericTraceSpec{}); });
  CHECK_THAT(msg, Equals(secret + ":2: expected 2 fields as in the header (line 1), got 1"));
  // A header with a typo of the column asked for: that one name is suggested.
  const std::string typo = write_file(dir, "typo.csv", "timestmap,duration,num_gpus\n0,60,1\n");
  CHECK_THAT(error_of([&] { (void)read_generic_trace(typo, GenericTraceSpec{}); }),
             Equals(typo + ":1: missing column 'timestamp' (the header has 3 columns; did you mean 'timestmap'?)"));
}

TEST_CASE(
    "traces::GenericTrace: date-times with fractions and UTC offsets, CPU rows dropped on request, a "
    "semicolon-separated file named",
    "[trace][hostile]") {
  TempDir dir;
  // 14:26:27 UTC; 22:26:27.5+08:00 is 14:26:27.5 UTC (0.5 s later); 09:27:27-05:00 is 14:27:27 UTC (60 s later);
  // Z is UTC; one-digit fields still read as before (14:26:30 -> 3 s).
  const std::string zones = write_file(dir, "zones.csv",
                                       "timestamp,duration,num_gpus\n2017-10-03 14:26:27,60,1\n"
                                       "2017-10-03T22:26:27.5+08:00,60,1\n2017-10-03 09:27:27-0500,60,1\n"
                                       "2017-10-03T14:26:28Z,60,1\n2017-10-3 14:26:30,60,1\n");
  const Trace z = read_generic_trace(zones, GenericTraceSpec{});
  REQUIRE(z.jobs.size() == 5);
  CHECK(z.jobs[0].submit_s == 0.0);  // rebased to the first submission, sorted by time
  CHECK(z.jobs[1].submit_s == 0.5);
  CHECK(z.jobs[2].submit_s == 1.0);
  CHECK(z.jobs[3].submit_s == 3.0);
  CHECK(z.jobs[4].submit_s == 60.0);
  const std::string bad_offset =
      write_file(dir, "offset.csv", "timestamp,duration,num_gpus\n2017-10-03 14:26:27+25:00,60,1\n");
  CHECK_THAT(error_of([&] { (void)read_generic_trace(bad_offset, GenericTraceSpec{}); }),
             Contains("offset.csv:2: column 'timestamp': expected a date-time"));

  // 0 GPUs: an error naming the row and the option by default; dropped and counted with zero_gpus "drop".
  const std::string cpu = write_file(dir, "cpu.csv", "timestamp,duration,num_gpus\n0,60,1\n10,30,0\n20,60,2\n");
  CHECK_THAT(error_of([&] { (void)read_generic_trace(cpu, GenericTraceSpec{}); }),
             Equals(cpu + ":3: column 'num_gpus': 0 GPUs (a CPU job); set the trace's \"zero_gpus\": \"drop\" to "
                          "leave such rows out"));
  GenericTraceSpec drop;
  drop.zero_gpus = "drop";
  const Trace kept = read_generic_trace(cpu, drop);
  REQUIRE(kept.jobs.size() == 2);
  CHECK(kept.jobs[1].gpus == 2);
  CHECK(kept.skipped.zero_gpus == 1);
  const std::string all_cpu = write_file(dir, "allcpu.csv", "timestamp,duration,num_gpus\n0,60,0\n");
  CHECK_THAT(error_of([&] { (void)read_generic_trace(all_cpu, drop); }),
             Contains("no job to replay (all 1 rows ask for 0 GPUs"));
  const std::string negative = write_file(dir, "neg.csv", "timestamp,duration,num_gpus\n0,60,-1\n");
  CHECK_THAT(error_of([&] { (void)read_generic_trace(negative, drop); }), Contains("neg.csv:2: column 'num_gpus'"));

  // A header of one column holding another separator: the file is named with the separator it seems to use.
  const std::string semi = write_file(dir, "semi.csv", "timestamp;duration;num_gpus\n0;60;1\n");
  CHECK_THAT(error_of([&] { (void)read_generic_trace(semi, GenericTraceSpec{}); }),
             Contains("semi.csv:1: the header is one column ('timestamp;duration;num_gpus'): the file seems "
                      "separated by ';', but generic traces are comma-separated"));
  const std::string tabs = write_file(dir, "tabs.csv", "timestamp\tduration\tnum_gpus\n0\t60\t1\n");
  CHECK_THAT(error_of([&] { (void)read_generic_trace(tabs, GenericTraceSpec{}); }), Contains("separated by tabs"));
}
