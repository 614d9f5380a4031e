// test/traces/test_trace_streaming.cpp — traces read as a stream: the streamed CSV reader against the whole-text
// parser (quotes, escapes and rows straddling its 1 MiB reads), TraceRows against a stable sort cut at N, and each
// format's capped read against its full read cut at N (rows counted, notes unchanged).
#include <catch2/catch.hpp>

#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <functional>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "models/input_error.h"
#include "traces/gavel_trace.h"
#include "traces/generic_trace.h"
#include "traces/pollux_trace.h"
#include "traces/trace_workload.h"
#include "workloads/gavel.h"
#include "workloads/io/csv.h"
#include "workloads/pollux.h"

using namespace ringsched;

namespace {

// A file under the temporary folder, removed at scope exit.
class StreamTestFile {
 public:
  StreamTestFile(const std::string& stem, const std::string& text)
      : path_((std::filesystem::temp_directory_path() / ("ringsched-stream-" + std::to_string(::getpid()) + "-" + stem))
                  .string()) {
    std::ofstream(path_, std::ios::binary) << text;
  }
  ~StreamTestFile() {
    std::error_code ec;
    std::filesystem::remove(path_, ec);
  }
  StreamTestFile(const StreamTestFile&) = delete;
  StreamTestFile& operator=(const StreamTestFile&) = delete;
  [[nodiscard]] const std::string& path() const { return path_; }

 private:
  std::string path_;
};

std::vector<CsvRow> streamed_rows(const std::string& path, std::size_t block = kReadBlockBytes) {
  std::vector<CsvRow> rows;
  const std::size_t n = for_each_csv_row(
      path, [&](const CsvTable&, const CsvRow& row) { rows.push_back(row); }, block);
  CHECK(n == rows.size());
  return rows;
}

void check_same_rows(const std::vector<CsvRow>& got, const std::vector<CsvRow>& want) {
  REQUIRE(got.size() == want.size());
  for (std::size_t i = 0; i < got.size(); ++i) {
    INFO("row " << i);
    CHECK(got[i].line == want[i].line);
    CHECK(got[i].fields == want[i].fields);
  }
}

// Trace rows with many equal submit times, in a shuffled order.
std::vector<TraceJob> tied_rows(std::size_t n, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int> t(0, 40);
  std::vector<TraceJob> rows(n);
  for (std::size_t i = 0; i < n; ++i) {
    rows[i].name = "r" + std::to_string(i);
    rows[i].submit_s = t(rng);
    rows[i].line = static_cast<int>(i) + 2;
  }
  return rows;
}

std::vector<std::string> names_of(const Trace& t) {
  std::vector<std::string> out;
  for (const TraceJob& j : t.jobs)
    out.push_back(j.name);
  return out;
}

}  // namespace

TEST_CASE("workloads::for_each_csv_row: the rows parse_csv gives, with quotes, escapes and rows across reads",
          "[csv][trace]") {
  // A byte-order mark, spaces to trim, quoted fields with an escaped quote and a line break, a blank line, CRLF and
  // no final newline; read in blocks of every size from 1 to 40 bytes, so each of them straddles two reads.
  const std::string text =
      "\xEF\xBB\xBF"
      "name , note\n\"a\"\"b\nc\",  x \n\n\"\"\"\",\"q,r\"\r\nplain, \"\"\nlast,row";
  const StreamTestFile file("csv-small.csv", text);
  const CsvTable whole = parse_csv(text, file.path());
  CHECK(whole.header == std::vector<std::string>{"name", "note"});
  REQUIRE(whole.rows.size() == 4);
  CHECK(whole.rows[0].fields == std::vector<std::string>{"a\"b\nc", "x"});
  CHECK(whole.rows[1].line == 5);
  CHECK(whole.rows[1].fields == std::vector<std::string>{"\"", "q,r"});
  for (std::size_t block = 1; block <= 40; ++block) {
    INFO("block " << block);
    check_same_rows(streamed_rows(file.path(), block), whole.rows);
  }
  // The real block size, on a file past it (the boundary inside a quoted escape).
  const std::string row = "\"a\"\"b\nc\",  x \n";  // 15 bytes
  std::string big = "name,note\n" + std::string(9, 'f') + ",y\n";
  while (big.size() < kReadBlockBytes + 64)
    big += row;
  const StreamTestFile big_file("csv-big.csv", big);
  check_same_rows(streamed_rows(big_file.path()), parse_csv(big, big_file.path()).rows);
  // Errors: the same messages, naming the file and line.
  const StreamTestFile bad("bad.csv", "a,b\n1,2\n3\n");
  CHECK_THROWS_WITH(streamed_rows(bad.path()),
                    Catch::Contains("bad.csv:3: expected 2 fields as in the header (line 1), got 1"));
  const StreamTestFile after_quote("after.csv", "a,b\n1,\"2\" \r\n3,\"4\"5\n");
  CHECK_THROWS_WITH(
      streamed_rows(after_quote.path()),
      Catch::Contains("after.csv:3: text after the closing quote of field 2 (a quoted field ends at its closing "
                      "quote)"));
  const StreamTestFile open_quote("quote.csv", "a,b\n1,\"2\n");
  CHECK_THROWS_WITH(streamed_rows(open_quote.path()), Catch::Contains("quote.csv:2: unterminated quoted field"));
  const StreamTestFile bom_only("bom.csv", "\xEF\xBB\xBF");
  CHECK_THROWS_WITH(streamed_rows(bom_only.path()), Catch::Contains("bom.csv:1: empty file (expected a header row)"));
  const StreamTestFile two_bytes("two.csv", "ab");
  CHECK(streamed_rows(two_bytes.path()).empty());  // a header "ab" and no rows
  CHECK_THROWS_WITH(streamed_rows("/nonexistent/ringsched.csv"), Catch::Contains("no such file"));
  CHECK_THROWS_WITH(streamed_rows(std::filesystem::temp_directory_path().string()),
                    Catch::Contains("it is a directory"));
}

TEST_CASE("traces::TraceRows: keeping the first N rows equals a stable sort by submit time cut at N", "[trace]") {
  for (const std::size_t n : {std::size_t{1}, std::size_t{7}, std::size_t{150}, std::size_t{600}, std::size_t{0}}) {
    const std::vector<TraceJob> rows = tied_rows(600, 11);
    std::vector<TraceJob> sorted = rows;
    std::stable_sort(sorted.begin(), sorted.end(),
                     [](const TraceJob& a, const TraceJob& b) { return a.submit_s < b.submit_s; });
    const std::size_t want = n == 0 ? rows.size() : std::min(n, rows.size());
    TraceRows kept("t.csv", n);
    for (const TraceJob& r : rows)
      kept.add(r);
    CHECK(kept.rows() == 600);
    Trace t;
    kept.finish(t, false);
    INFO("keep " << n);
    REQUIRE(t.jobs.size() == want);
    CHECK(t.total_rows() == 600);
    CHECK(t.file_rows == (want < 600 ? 600U : 0U));
    for (std::size_t i = 0; i < want; ++i) {
      INFO("row " << i);
      CHECK(t.jobs[i].name == sorted[i].name);
      CHECK(t.jobs[i].submit_s == sorted[i].submit_s);
    }
  }
  // Without a cap, a row past the limit is refused as it is read (before it is held), naming the file and line; a
  // capped read holds the cap whatever the row count.
  TraceRows uncapped("big.csv", 0, 5);
  TraceRows capped("big.csv", 3, 5);
  for (int i = 0; i < 5; ++i) {
    TraceJob j;
    j.line = i + 2;
    uncapped.add(j);
    capped.add(j);
  }
  TraceJob sixth;
  sixth.line = 7;
  CHECK_THROWS_WITH(uncapped.add(sixth), Catch::Contains("big.csv:7: more than 5 rows, and no job cap") &&
                                             Catch::Contains("set workload.jobs (or --jobs)"));
  capped.add(sixth);
  CHECK(capped.rows() == 6);

  // Rebased: the first kept row (the earliest of all) is at 0.
  TraceRows kept("t.csv", 3);
  for (double s : {50.0, 20.0, 90.0, 20.0, 70.0}) {
    TraceJob j;
    j.submit_s = s;
    kept.add(j);
  }
  Trace t;
  kept.finish(t, true);
  REQUIRE(t.jobs.size() == 3);
  CHECK(t.jobs[0].submit_s == 0.0);
  CHECK(t.jobs[1].submit_s == 0.0);
  CHECK(t.jobs[2].submit_s == 30.0);
}

TEST_CASE("traces::TraceFormat: a capped read holds N rows, equals the full read cut at N and counts every row",
          "[trace]") {
  std::mt19937 rng(5);
  std::uniform_int_distribution<int> t(0, 300);
  std::string generic = "timestamp,duration,num_gpus\n";
  std::string gavel;
  std::string pollux = "name,time,application,num_replicas,batch_size\n";
  const int rows = 3000;
  for (int i = 0; i < rows; ++i) {
    const int s = t(rng);
    generic += std::to_string(s) + "," + std::to_string(10 + i % 7) + "," + std::to_string(1 + i % 4) + "\n";
    gavel +=
        "Transformer (batch size 128)\tcmd\t-step\t1\t" + std::to_string(100 + i) + "\t" + std::to_string(s) + "\t1\n";
    pollux +=
        "job" + std::to_string(i) + "," + std::to_string(i / 3) + ",cifar10," + std::to_string(1 + i % 4) + ",128\n";
  }
  const StreamTestFile gf("generic.csv", generic);
  const StreamTestFile vf("gavel.tsv", gavel);
  const StreamTestFile pf("pollux.csv", pollux);
  const auto read_generic = [&](std::size_t keep) { return read_generic_trace(gf.path(), GenericTraceSpec{}, keep); };
  const auto read_gavel = [&](std::size_t keep) { return read_gavel_trace(vf.path(), "s", keep); };
  const auto read_pollux = [&](std::size_t keep) { return read_pollux_workload(pf.path(), keep); };
  const auto pollux_cat = std::make_shared<const Catalog>(pollux_catalog(default_pollux_dir(), 0.0));
  const auto gavel_cat = std::make_shared<const Catalog>(gavel_catalog(default_gavel_dir()));
  struct Format {
    std::string name;
    std::function<Trace(std::size_t)> read;
    std::shared_ptr<const Catalog> catalog;
  };
  const std::vector<Format> formats = {
      {"generic", read_generic, pollux_cat}, {"gavel", read_gavel, gavel_cat}, {"pollux", read_pollux, pollux_cat}};
  for (const Format& f : formats) {
    const Trace full = f.read(0);
    REQUIRE(full.jobs.size() == rows);
    CHECK(full.file_rows == 0);
    for (const std::size_t keep :
         {std::size_t{1}, std::size_t{20}, std::size_t{2999}, std::size_t{3000}, std::size_t{5000}}) {
      INFO(f.name << " keep " << keep);
      const Trace capped = f.read(keep);
      const std::size_t n = std::min<std::size_t>(keep, rows);
      REQUIRE(capped.jobs.size() == n);  // memory: the rows a run uses, not the file
      CHECK(capped.total_rows() == rows);
      std::vector<std::string> want = names_of(full);
      want.resize(n);
      CHECK(names_of(capped) == want);
      for (std::size_t i = 0; i < n; ++i) {
        INFO("row " << i);
        CHECK(capped.jobs[i].submit_s == full.jobs[i].submit_s);  // rebased alike (the earliest row is kept)
        CHECK(capped.jobs[i].line == full.jobs[i].line);
      }
      // The notes and the workload a run builds are those of the full read with the same cap.
      TraceWorkloadSpec spec;
      spec.max_jobs = static_cast<int>(keep);
      spec.max_gpus = 64;
      const TraceNotes a = trace_notes(full, *f.catalog, spec, 64);
      const TraceNotes b = trace_notes(capped, *f.catalog, spec, 64);
      CHECK(b.rows == a.rows);
      CHECK(b.truncated == a.truncated);
      CHECK(b.jobs == a.jobs);
      CHECK(b.offered_load == a.offered_load);
      const Workload wa = workload_from_trace(full, f.catalog, spec, 3);
      const Workload wb = workload_from_trace(capped, f.catalog, spec, 3);
      REQUIRE(wa.jobs.size() == wb.jobs.size());
      for (std::size_t i = 0; i < wa.jobs.size(); ++i) {
        CHECK(wb.jobs[i].arrival == wa.jobs[i].arrival);
        CHECK(wb.jobs[i].work_samples == wa.jobs[i].work_samples);
      }
    }
  }
  // A bad row after the cap still fails the read: every row is checked, only the first N are held.
  const StreamTestFile late("late.csv", generic + "5,-1,2\n");
  CHECK_THROWS_WITH(read_generic_trace(late.path(), GenericTraceSpec{}, 5),
                    Catch::Contains("late.csv:3002: column 'duration': must be >= 0"));
}
