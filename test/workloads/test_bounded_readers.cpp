// test/workloads/test_bounded_readers.cpp — the readers' bounds (issue 33): Gavel job-type keys scanned by hand with a
// length cap (a 100,000-character key crashed std::regex), measurement files through the bounded JSON reader (deep
// nesting crashed), and a 1 MiB cap on one CSV row or trace line (one huge line was held whole: bad_alloc, no file
// named), each refused with the file and its line or key.
#include <catch2/catch.hpp>

#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <new>
#include <string>
#include <vector>

#include "test/input_error_of.h"
#include "test/sanitized.h"
#include "traces/gavel_trace.h"
#include "traces/generic_trace.h"
#include "workloads/gavel.h"
#include "workloads/io/csv.h"
#include "workloads/io/input_file.h"
#include "workloads/measurement/measurement.h"

using namespace ringsched;
using ringsched::test::error_of;
namespace fs = std::filesystem;

namespace {

struct BoundedScratch {
  fs::path dir;
  BoundedScratch() {
    std::string t = (fs::temp_directory_path() / "ringsched-bounded-XXXXXX").string();
    dir = ::mkdtemp(t.data());
  }
  ~BoundedScratch() {
    std::error_code ec;
    fs::remove_all(dir, ec);
  }
  BoundedScratch(const BoundedScratch&) = delete;
  BoundedScratch& operator=(const BoundedScratch&) = delete;
  std::string write(const std::string& name, const std::string& text) const {
    const auto p = dir / name;
    std::ofstream(p, std::ios::binary) << text;
    return p.string();
  }
};

// A throughputs file of one GPU type (v100) with these job-type keys, each with an isolated throughput of 2.
std::string gavel_throughputs_text(const std::vector<std::string>& keys) {
  std::string text = "{\"v100\": {";
  for (std::size_t i = 0; i < keys.size(); ++i)
    text += (i == 0 ? "\"" : ", \"") + keys[i] + "\": {\"null\": 2.0}";
  return text + "}}";
}

}  // namespace

TEST_CASE("workloads::Gavel: a job-type key is scanned by hand, the model running to the last quote before the digits",
          "[gavel][bounded]") {
  BoundedScratch s;
  // Hand-read: the model is everything between "('" and the last "', " before the digits, as Gavel's keys and the
  // former regex ^\('(.+)', (\d{1,4})\)$ take it.
  const auto t =
      read_gavel_throughputs(s.write("t.json", gavel_throughputs_text({"('a', 1', 2)", "('ResNet (x, y)', 1234)"})));
  REQUIRE(t.models == std::vector<std::string>{"ResNet (x, y)", "a', 1"});
  CHECK(t.isolated.at("a', 1").at("v100").at(0).first == 2);
  CHECK(t.isolated.at("ResNet (x, y)").at("v100").at(0).first == 1234);
  for (const char* bad : {"('x', 12345)", "('', 1)", "('x',1)", "('x', 0)", "('x', 1) ", "(x, 1)", "('x', )", "('x', 1",
                          "('a\\nb', 1)", "('x', -1)"}) {
    INFO(bad);
    CHECK_THAT(error_of([&] { (void)read_gavel_throughputs(s.write("bad.json", gavel_throughputs_text({bad}))); }),
               Catch::Contains("not a job type of the form ('<model>', <scale factor>)"));
  }
}

TEST_CASE("workloads::Gavel: a 100,000-character job type is refused naming the file and the key, not crashed on",
          "[gavel][bounded][hostile]") {
  BoundedScratch s;
  const std::string file = s.write("t.json", gavel_throughputs_text({"('" + std::string(100000, 'm') + "', 1)"}));
  const std::string msg = error_of([&] { (void)read_gavel_throughputs(file); });
  CHECK_THAT(msg, Catch::StartsWith(file + ": v100.('mmmm"));
  CHECK_THAT(msg, Catch::Contains("job type is 100007 characters long"));
  CHECK(msg.size() < 300);  // the key is quoted cut short
  // At the cap: a 256-character model is read; 257 is refused naming the file and the key.
  const std::string m256(256, 'q');
  CHECK(read_gavel_throughputs(s.write("ok.json", gavel_throughputs_text({"('" + m256 + "', 1)"}))).models ==
        std::vector<std::string>{m256});
  const std::string long_file = s.write("long.json", gavel_throughputs_text({"('" + m256 + "x', 1)"}));
  CHECK_THAT(error_of([&] { (void)read_gavel_throughputs(long_file); }),
             Catch::StartsWith(long_file + ": v100.('qqq") && Catch::Contains("257 characters long; at most 256"));
  // A GPU type name past the cap.
  const std::string type_file = s.write("type.json", "{\"" + std::string(5000, 'g') + "\": {}}");
  CHECK_THAT(error_of([&] { (void)read_gavel_throughputs(type_file); }),
             Catch::StartsWith(type_file + ": ") && Catch::Contains("5000 characters long; at most 256"));
}

namespace {

// A valid measurement file whose "version" is `value` (the reader quotes a wrong-typed value in its message: a deep
// one was dumped recursively, a stack overflow).
std::string measurement_with_version(const std::string& value) {
  profiler::Measurement m;
  m.machine = {"host-a", "Test CPU", "cpu"};
  m.backend = "cpu";
  m.world_size = 1;
  m.hostnames = {"host-a"};
  m.nodes = 1;
  m.model.layers = {10, 10};
  m.model.parameters = profiler::mlp_parameter_count(m.model.layers);
  m.model.gradient_bytes = 4 * m.model.parameters;
  m.settings = {0, 1, "default"};
  m.compute.push_back({8, profiler::seconds_from_repeats({0.001})});
  m.timestamp = "2024-01-01T00:00:00Z";
  std::string text = profiler::measurement_to_json(m);
  const std::string version = "\"version\": 1";
  const auto at = text.find(version);
  return text.replace(at, version.size(), "\"version\": " + value);
}

}  // namespace

TEST_CASE("profiler::measurement: nesting 100,000 deep is refused with file:line by the bounded JSON reader",
          "[profiler][measurement][bounded][hostile]") {
  BoundedScratch s;
  const std::string deep = std::string(100000, '[') + std::string(100000, ']');
  const std::string file = s.write("deep.json", measurement_with_version(deep));
  const std::string msg = error_of([&] { (void)profiler::load_measurement(file); });
  CHECK_THAT(msg, Catch::StartsWith(file + ":3:") && Catch::Contains("nested deeper than 128 levels"));
  const std::string unclosed = s.write("unclosed.json", "{\"schema\": " + std::string(1000000, '['));
  CHECK_THAT(error_of([&] { (void)profiler::load_measurement(unclosed); }),
             Catch::StartsWith(unclosed + ":1:") && Catch::Contains("nested deeper than 128 levels"));
  // 128 levels are within the limit: the reader gets to the version, and quotes it.
  const std::string ok = s.write("ok.json", measurement_with_version(std::string(127, '[') + std::string(127, ']')));
  CHECK_THAT(error_of([&] { (void)profiler::load_measurement(ok); }),
             Catch::StartsWith(ok + ": version: must be an integer, got array [[[["));
}

TEST_CASE("workloads::csv: a row longer than 1 MiB is refused with file:line as it streams, the rows before it read",
          "[csv][bounded][hostile]") {
  REQUIRE(kMaxLineBytes == 1048576);
  BoundedScratch s;
  // Row 3 is exactly the cap with its line end (1,048,573 + ",1\n"); row 4 one byte more.
  const std::string at_cap = std::string(kMaxLineBytes - 3, 'a') + ",1\n";
  const std::string over = std::string(kMaxLineBytes - 2, 'b') + ",1\n";
  const std::string file = s.write("t.csv", "name,n\nshort,1\n" + at_cap + over + "after,1\n");
  std::vector<int> lines;
  const std::string msg = error_of([&] {
    (void)for_each_csv_row(
        file, [&](const CsvTable&, const CsvRow& row) { lines.push_back(row.line); }, 4096);
  });
  CHECK(msg == file + ":4: a row longer than the limit of 1048576 bytes; is this the right file?");
  CHECK(lines == std::vector<int>{2, 3});
  // The same cap for whole-file reads (read_csv_file, parse_csv), and for a quoted field whose line breaks run on.
  CHECK_THAT(error_of([&] { (void)read_csv_file(file); }), Catch::StartsWith(file + ":4: a row longer than"));
  const std::string quoted = "name,n\n\"" + std::string(kMaxLineBytes / 2, '\n') + std::string(kMaxLineBytes, 'c');
  CHECK_THAT(error_of([&] { (void)parse_csv(quoted, "q.csv"); }), Catch::StartsWith("q.csv:2: a row longer than"));
  // One line of 8 MiB and no line end: refused at line 1 (the header).
  const std::string one = s.write("one.csv", std::string(8u << 20, 'z'));
  CHECK_THAT(error_of([&] { (void)for_each_csv_row(one, [](const CsvTable&, const CsvRow&) {}); }),
             Catch::StartsWith(one + ":1: a row longer than the limit of 1048576 bytes"));
}

TEST_CASE("traces::GavelTrace: a line longer than 1 MiB is refused with file:line (and a generic trace's row)",
          "[traces][bounded]") {
  BoundedScratch s;
  const std::string row = "ResNet-18 (batch size 64)\tcmd\t--num_steps\tFalse\t100\t0\t1\n";
  const std::string gavel = s.write("jobs.trace", row + std::string(2u << 20, 'x') + "\n" + row);
  CHECK(error_of([&] { (void)read_gavel_trace(gavel, "s"); }) ==
        gavel + ":2: a line longer than the limit of 1048576 bytes; is this the right file?");
  const std::string unended = s.write("unended.trace", row + row + std::string(3u << 20, 'x'));
  CHECK_THAT(error_of([&] { (void)read_gavel_trace(unended, "s"); }),
             Catch::StartsWith(unended + ":3: a line longer than"));
  GenericTraceSpec g;
  g.submit_column = "t";
  g.duration_column = "d";
  g.gpus_column = "g";
  const std::string generic = s.write("g.csv", "t,d,g\n0,1,1\n" + std::string(2u << 20, '9') + ",1,1\n");
  CHECK_THAT(error_of([&] { (void)read_generic_trace(generic, g); }),
             Catch::StartsWith(generic + ":3: a row longer than the limit of 1048576 bytes"));
}

TEST_CASE("workloads::csv: a line of 64 MiB is refused within 32 MiB of memory, never held whole",
          "[csv][bounded][hostile]") {
  if (ringsched::test::kSanitized) return;  // the sanitizers' shadow memory needs more address space than the cap
  BoundedScratch s;
  const std::string file = s.write("huge.csv", "a,b\n" + std::string(64u << 20, 'h') + ",1\n");
  const pid_t child = ::fork();
  REQUIRE(child >= 0);
  if (child == 0) {  // a process that may map only 32 MiB more than it has now
    long pages = 0;
    if (std::FILE* f = std::fopen("/proc/self/statm", "r")) {
      if (std::fscanf(f, "%ld", &pages) != 1) pages = 0;
      std::fclose(f);
    }
    const rlim_t now = static_cast<rlim_t>(pages) * static_cast<rlim_t>(::sysconf(_SC_PAGESIZE));
    const rlimit cap{now + (32u << 20), now + (32u << 20)};
    if (pages == 0 || ::setrlimit(RLIMIT_AS, &cap) != 0) ::_exit(5);
    try {
      (void)for_each_csv_row(file, [](const CsvTable&, const CsvRow&) {});
    } catch (const InputError& e) {
      ::_exit(std::string(e.what()).rfind(file + ":2: a row longer than", 0) == 0 ? 0 : 2);
    } catch (const std::bad_alloc&) {
      ::_exit(3);  // held the line whole
    } catch (...) {
      ::_exit(4);
    }
    ::_exit(1);  // accepted
  }
  int status = 0;
  REQUIRE(::waitpid(child, &status, 0) == child);
  REQUIRE(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 0);
}
