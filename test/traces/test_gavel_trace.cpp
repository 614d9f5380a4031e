// test/traces/test_gavel_trace.cpp — Gavel's trace files: both shipped layouts (10 and 7 columns) read row by row,
// their jobs in the gavel catalog (steps as work, scale factor as GPUs), and bad lines refused with file:line.
#include <catch2/catch.hpp>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <memory>
#include <string>

#include "traces/gavel_trace.h"
#include "traces/trace_workload.h"
#include "workloads/gavel.h"

using namespace ringsched;

namespace {

std::shared_ptr<const Catalog> gavel_types() {
  static const auto cat = std::make_shared<const Catalog>(gavel_catalog(default_gavel_dir()));
  return cat;
}

std::string shipped_gavel_trace(const std::string& name) {
  return default_gavel_dir() + "/traces/" + name;
}

// A trace file of the given text in a private temporary folder.
std::string write_gavel_trace(const std::string& name, const std::string& text) {
  const auto dir = std::filesystem::temp_directory_path() / ("ringsched-gavel-trace-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const auto path = dir / name;
  std::ofstream(path, std::ios::binary) << text;
  return path.string();
}

}  // namespace

TEST_CASE("traces::GavelTrace: the 10-column layout of Gavel's physical-cluster traces", "[trace][gavel]") {
  const Trace t = read_gavel_trace(shipped_gavel_trace("artifact_evaluation.trace"), "s");
  REQUIRE(t.jobs.size() == 15);
  // First line: ResNet-50 (batch size 64) ... 2931 steps, scale factor 1, priority 1, SLO -1, arrival 0.
  CHECK(t.jobs[0].application == "ResNet-50 (batch size 64)");
  CHECK(t.jobs[0].steps == 2931.0);
  CHECK(t.jobs[0].gpus == 1);
  CHECK(t.jobs[0].submit_s == 0.0);
  CHECK(t.jobs[0].line == 1);
  // Second: Transformer (batch size 16), 11005 steps on 2 GPUs.
  CHECK(t.jobs[1].application == "Transformer (batch size 16)");
  CHECK(t.jobs[1].steps == 11005.0);
  CHECK(t.jobs[1].gpus == 2);
  const Workload w = workload_from_trace(t, gavel_types(), TraceWorkloadSpec{}, 1);
  REQUIRE(w.jobs.size() == 15);
  // The gavel catalog's batch is one step: work = the trace's steps; the GPUs its scale factor.
  CHECK(w.jobs[1].work_samples == 11005.0);
  CHECK(w.jobs[1].requested_gpus == 2);
  CHECK(gavel_types()->classes[static_cast<std::size_t>(w.jobs[1].class_index)].name == "Transformer (batch size 16)");
}

TEST_CASE("traces::GavelTrace: the 7-column layout of Gavel's Philly-derived traces", "[trace][gavel]") {
  const Trace t = read_gavel_trace(shipped_gavel_trace("msr-seed0-51b7ef.trace"), "s");
  REQUIRE(t.jobs.size() == 18);
  // Lines 1-3 end in: 246378 steps at 0 s on 1 GPU; 11064 at 58417 s on 1; 3248 at 76902 s on 8.
  CHECK(t.jobs[0].steps == 246378.0);
  CHECK(t.jobs[0].submit_s == 0.0);
  CHECK(t.jobs[1].steps == 11064.0);
  CHECK(t.jobs[1].submit_s == 58417.0);
  CHECK(t.jobs[1].gpus == 1);
  CHECK(t.jobs[2].steps == 3248.0);
  CHECK(t.jobs[2].submit_s == 76902.0);
  CHECK(t.jobs[2].gpus == 8);
  // Line 9 asks for 8 GPUs of CycleGAN, which Gavel's throughputs file measures on 1 only (its simulator would stop at
  // the missing key): refused by default, dropped or clamped (with the work it asked for) on request.
  CHECK_THROWS_WITH(workload_from_trace(t, gavel_types(), TraceWorkloadSpec{}, 1),
                    Catch::Contains("msr-seed0-51b7ef.trace:9: job 'line-9' asks for 8 GPUs; class CycleGAN runs on "
                                    "1..1"));
  TraceWorkloadSpec drop;
  drop.oversize = Oversize::kDrop;
  const Workload w = workload_from_trace(t, gavel_types(), drop, 1);
  CHECK(w.jobs.size() == 17);
  CHECK(w.jobs[2].requested_gpus == 8);
  CHECK(w.jobs[2].arrival == 76902.0);
  CHECK(trace_notes(t, *gavel_types(), drop, 108).dropped == 1);
  // Hours: arrivals scaled by 3600.
  CHECK(read_gavel_trace(shipped_gavel_trace("msr-seed0-51b7ef.trace"), "h").jobs[1].submit_s == 58417.0 * 3600.0);
}

TEST_CASE("traces::GavelTrace: bad lines fail with file, line and column", "[trace][gavel]") {
  const std::string row10 = "A3C\tcmd\tdir\t--n\t1\t100\t1\t1\t-1\t0\n";
  const std::string row7 = "A3C\tcmd\t--n\t1\t100\t0\t1\n";
  CHECK_THROWS_WITH(read_gavel_trace(write_gavel_trace("five.trace", "A3C\t1\t2\t3\t4\n"), "s"),
                    Catch::Contains("five.trace:1: 5 tab-separated columns; a Gavel trace has 10"));
  CHECK_THROWS_WITH(read_gavel_trace(write_gavel_trace("mixed.trace", row10 + row7), "s"),
                    Catch::Contains("mixed.trace:2: 7 tab-separated columns where the first line has 10"));
  CHECK_THROWS_WITH(read_gavel_trace(write_gavel_trace("steps.trace", "A3C\tcmd\t--n\t1\t0\t0\t1\n"), "s"),
                    Catch::Contains("steps.trace:1: column 'total_steps'"));
  CHECK_THROWS_WITH(read_gavel_trace(write_gavel_trace("nan.trace", "A3C\tcmd\t--n\t1\t10\tnan\t1\n"), "s"),
                    Catch::Contains("nan.trace:1: column 'arrival_time'"));
  CHECK_THROWS_WITH(read_gavel_trace(write_gavel_trace("far.trace", "A3C\tcmd\t--n\t1\t10\t1e13\t1\n"), "s"),
                    Catch::Contains("far.trace:1: column 'arrival_time': 1e13 s is beyond 1e12 s"));
  CHECK_THROWS_WITH(read_gavel_trace(write_gavel_trace("sf.trace", "A3C\tcmd\t--n\t1\t10\t0\t0\n"), "s"),
                    Catch::Contains("sf.trace:1: column 'scale_factor'"));
  for (const char* w : {"0", "-1", "nan", "inf"}) {  // a priority weight must be > 0 and finite
    INFO(w);
    CHECK_THROWS_WITH(
        read_gavel_trace(
            write_gavel_trace("prio.trace", std::string("A3C\tcmd\tdir\t--n\t1\t100\t1\t") + w + "\t-1\t0\n"), "s"),
        Catch::Contains("prio.trace:1: column 'priority_weight'"));
  }
  CHECK_THROWS_WITH(read_gavel_trace(write_gavel_trace("slo.trace", "A3C\tcmd\tdir\t--n\t1\t100\t1\t1\t1.2\t0\n"), "s"),
                    Catch::Contains("slo.trace:1: column 'SLO': 1.2 (only -1"));
  CHECK_THROWS_WITH(read_gavel_trace(write_gavel_trace("empty.trace", "\n\n"), "s"), Catch::Contains("empty trace"));
  CHECK_THROWS_WITH(read_gavel_trace(write_gavel_trace("missing.trace", row7) + ".nope", "s"),
                    Catch::Contains("cannot open"));
  // A job type the catalog lacks: named with its line when the workload is built.
  const Trace t = read_gavel_trace(write_gavel_trace("type.trace", row7 + "GPT-5\tcmd\t--n\t1\t100\t5\t1\n"), "s");
  CHECK_THROWS_WITH(workload_from_trace(t, gavel_types(), TraceWorkloadSpec{}, 1),
                    Catch::Contains("type.trace:2: job type 'GPT-5' is not a class of catalog gavel"));
  // Eight GPUs of a type that Gavel measured only on one: refused as oversize, naming the class's range.
  const Trace big = read_gavel_trace(write_gavel_trace("big.trace", "A3C\tcmd\t--n\t1\t100\t5\t8\n"), "s");
  CHECK_THROWS_WITH(workload_from_trace(big, gavel_types(), TraceWorkloadSpec{}, 1),
                    Catch::Contains("big.trace:1: job 'line-1' asks for 8 GPUs; class A3C runs on 1..1"));
}
