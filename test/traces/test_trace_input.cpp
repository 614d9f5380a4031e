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
      Equals(path + ":3: column 'timestamp': expected a date-time like 2017-10-03 14:26:27 (YYYY-MM-DD HH:MM:SS, UTC) "
                    "or a number of seconds, got '2017/10/03 14:30:00'"));
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
                             "HH:MM:SS, UTC; submit_format is \"datetime\"), got '3600'"));
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
