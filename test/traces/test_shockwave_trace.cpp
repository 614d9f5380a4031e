// test/traces/test_shockwave_trace.cpp — Shockwave's trace files: small hand-written rows of each mode (static,
// accordion, gns) and with an explicit batch schedule, their schedules worked by hand from the TACC throughputs, the
// shipped 120-job trace, and bad lines refused with file and line.
#include <catch2/catch.hpp>

#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>

#include "test/input_error_of.h"
#include "test/sim/cli_util.h"
#include "traces/shockwave_trace.h"
#include "traces/trace_workload.h"
#include "workloads/shockwave.h"

using namespace ringsched;

namespace {

std::shared_ptr<const Catalog> tacc_catalog() {
  static const auto cat = std::make_shared<const Catalog>(shockwave_catalog(default_shockwave_dir()));
  return cat;
}

std::string write_shockwave_trace(const std::string& name, const std::string& text) {
  const auto dir = std::filesystem::temp_directory_path() / ("ringsched-sw-trace-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const auto path = dir / name;
  std::ofstream(path, std::ios::binary) << text;
  return path.string();
}

// A 12-column row (command and directories filled in).
std::string sw_row(const std::string& type, const std::string& steps, const std::string& sf, const std::string& mode,
                   const std::string& arrival) {
  return type + "\tpython3 x.py\tdir\t--steps\t1\t" + steps + "\t" + sf + "\t" + mode + "\t1\t-1.000000\t100\t" +
         arrival + "\n";
}

}  // namespace

TEST_CASE("traces::ShockwaveTrace: rows of each mode with their schedules by hand", "[trace][shockwave]") {
  const std::string path =
      write_shockwave_trace("modes.trace", sw_row("ResNet-18 (batch size 32)", "20000", "1", "accordion", "55") +
                                               sw_row("LM (batch size 10)", "20000", "1", "gns", "0") +
                                               sw_row("Transformer (batch size 64)", "500", "2", "static", "60"));
  const Trace t = read_shockwave_trace(path, "s", *tacc_catalog());
  REQUIRE(t.jobs.size() == 3);
  // Sorted by arrival: LM (0), ResNet-18 (55), Transformer (60).
  const TraceJob& lm = t.jobs[0];
  const TraceJob& r18 = t.jobs[1];
  CHECK(lm.application == "LM (batch size 10)");
  CHECK(r18.submit_s == 55.0);
  CHECK(r18.steps == 20000.0);
  // ResNet-18 at 32: ceil(50000 / 32) = 1563 steps an epoch, ceil(20000 / 1563) = 13 epochs; Accordion: epochs 10..12
  // (past 0.3 x 13 = 3.9, outside the critical 0..9) at 256. V100 throughputs 42.97497938 (32) and 6.31952281 (256):
  // an epoch takes 1563 / 42.975 = 36.37 s at 32 and ceil(50000 / 256) / 6.3195 = 196 / 6.3195 = 31.02 s at 256.
  REQUIRE(r18.schedule);
  CHECK(r18.schedule->epochs == 13);
  CHECK(r18.schedule->phase_end == std::vector<double>{15630.0, 20000.0});
  CHECK(r18.schedule->batch == std::vector<int>{32, 256});
  const double d32 = 1563.0 / 42.97497938;
  const double d256 = 196.0 / 6.31952281;
  CHECK(r18.schedule->factor[1] == Approx(d32 / d256));
  CHECK(r18.schedule->isolated_s == Approx(10 * 50000.0 / 32 / 42.97497938 + 3 * 50000.0 / 256 / 6.31952281));
  // LM at 10: 5968 steps an epoch, 4 epochs: GNS's case needs more than 11; one phase at factor 1.
  REQUIRE(lm.schedule);
  CHECK(lm.schedule->epochs == 4);
  CHECK(lm.schedule->factor == std::vector<double>{1.0});
  // Transformer at 64 on 2 GPUs (3.75822861 steps/s): ceil(10000 / 64) = 157 steps an epoch, 4 epochs.
  const TraceJob& tf = t.jobs[2];
  CHECK(tf.gpus == 2);
  CHECK(tf.schedule->isolated_s == Approx(4 * 10000.0 / 64 / 3.75822861));
  // Into a workload: work in steps (batch-1 classes), the schedule carried, phase ends in the same unit.
  TraceWorkloadSpec spec;
  const Workload w = workload_from_trace(t, tacc_catalog(), spec, 1);
  REQUIRE(w.jobs.size() == 3);
  CHECK(w.jobs[1].work_samples == 20000.0);
  REQUIRE(w.jobs[1].schedule);
  CHECK(w.jobs[1].schedule->phase_end.back() == 20000.0);
}

TEST_CASE("traces::ShockwaveTrace: a 13th column gives the batch of each epoch", "[trace][shockwave]") {
  // LM at 20, 9000 steps: ceil(59675 / 20) = 2984 steps an epoch, 4 epochs at 20, 20, 40, 40 (the rest unused).
  const std::string path = write_shockwave_trace("explicit.trace",
                                                 "LM (batch size 20)\tx\ty\t--steps\t1\t9000\t1\tgns\t1\t-1\t10\t30\t"
                                                 "20,20,40,40,80,80\n");
  const Trace t = read_shockwave_trace(path, "s", *tacc_catalog());
  REQUIRE(t.jobs.size() == 1);
  const EpochSchedule& s = *t.jobs[0].schedule;
  CHECK(s.epochs == 4);
  CHECK(s.batch == std::vector<int>{20, 40});
  CHECK(s.phase_end == std::vector<double>{5968.0, 9000.0});
  // 68.05405097 steps/s at 20, 46.82253256 at 40: epochs of 2984 / 68.054 and ceil(59675 / 40) / 46.823 = 1492
  // / 46.823.
  CHECK(s.factor[1] == Approx((2984.0 / 68.05405097) / (1492.0 / 46.82253256)));
}

TEST_CASE("traces::ShockwaveTrace: the shipped TACC trace reads 120 jobs, each with its schedule",
          "[trace][shockwave]") {
  const Trace t = read_shockwave_trace(default_shockwave_dir() + "/traces/tacc-120.trace", "s", *tacc_catalog());
  REQUIRE(t.jobs.size() == 120);
  int changing = 0;
  for (const TraceJob& j : t.jobs) {
    REQUIRE(j.schedule);
    CHECK(j.schedule->isolated_s > 0.0);
    CHECK(j.schedule->phase_end.back() == j.steps);
    changing += j.schedule->batch.size() > 1 ? 1 : 0;
  }
  CHECK(changing > 0);
  CHECK(t.jobs.back().submit_s == 5011.0);  // the last line's arrival (the first arrives at 0)
}

TEST_CASE("traces::ShockwaveTrace: bad lines fail with file, line and column", "[trace][shockwave]") {
  const auto err = [](const std::string& name, const std::string& text) {
    const std::string path = write_shockwave_trace(name, text);
    return test::error_of([&] { (void)read_shockwave_trace(path, "s", *tacc_catalog()); });
  };
  const std::string good = sw_row("LM (batch size 10)", "20000", "1", "gns", "0");
  const std::string mode = err("mode.trace", good + sw_row("LM (batch size 10)", "20000", "1", "elastic", "5"));
  CHECK_THAT(mode, Catch::Contains("mode.trace:2:") && Catch::Contains("unknown job mode 'elastic'"));
  const std::string number = err("number.trace", sw_row("LM (batch size 10)", "lots", "1", "gns", "0"));
  CHECK_THAT(number, Catch::Contains("number.trace:1:") && Catch::Contains("total_steps"));
  const std::string cols = err("cols.trace", "LM (batch size 10)\t5\t0\n");
  CHECK_THAT(cols, Catch::Contains("cols.trace:1:") && Catch::Contains("a Shockwave trace has 12"));
  const std::string shorter =
      err("short.trace", "LM (batch size 20)\tx\ty\t--steps\t1\t9000\t1\tgns\t1\t-1\t10\t0\t20,20\n");
  CHECK_THAT(shorter, Catch::Contains("short.trace:1:") && Catch::Contains("shorter than the job's 4 epochs"));
  const std::string model = err("model.trace", sw_row("GPT (batch size 8)", "100", "1", "static", "0"));
  CHECK_THAT(model, Catch::Contains("model.trace:1:") && Catch::Contains("unknown model 'GPT'"));
  // Recommendation is measured on 1 GPU only: at 2 its batch has no throughput.
  const std::string tput = err("tput.trace", sw_row("Recommendation (batch size 512)", "100", "2", "static", "0"));
  CHECK_THAT(tput, Catch::Contains("tput.trace:1:") && Catch::Contains("no throughput at batch 512"));
}

TEST_CASE("traces::ShockwaveTrace: the CLI exits 2 naming file and line for a bad mode and a short schedule",
          "[trace][shockwave][cli]") {
  test::TempDir dir;
  const auto run_with = [&](const std::string& text) {
    test::write_whole_file(dir.path() / "bad.trace", text);
    test::write_whole_file(dir.path() / "cfg.json",
                           R"({"cluster": {"pools": [{"gpu_type": "v100", "nodes": 4, "gpus_per_node": 1}]},
                               "workload": {"catalog": "shockwave", "trace": {"file": "bad.trace", "format": "shockwave"}},
                               "strategies": ["max_min_fairness"], "scheduler": {"interval_s": 360}})");
    return test::run_cli("validate --config " + test::shell_quote(dir / "cfg.json"));
  };
  const test::CliResult mode = run_with(sw_row("LM (batch size 10)", "20000", "1", "gns", "0") +
                                        sw_row("LM (batch size 10)", "20000", "1", "adaptive", "9"));
  CHECK(mode.code == 2);
  CHECK_THAT(mode.err, Catch::Contains("bad.trace:2:") && Catch::Contains("unknown job mode 'adaptive'"));
  const test::CliResult shorter =
      run_with("LM (batch size 20)\tx\ty\t--steps\t1\t9000\t1\tgns\t1\t-1\t10\t0\t20,20,40\n");
  CHECK(shorter.code == 2);
  CHECK_THAT(shorter.err, Catch::Contains("bad.trace:1:") && Catch::Contains("shorter than the job's 4 epochs"));
}
