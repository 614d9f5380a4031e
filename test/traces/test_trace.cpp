// test/traces/test_trace.cpp — trace import: Pollux workload files (fixture and every shipped file), generic
// traces with column mapping, datetimes and units, trace-driven workloads, and bad rows with file:line.
#include <catch2/catch.hpp>

#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>

#include "traces/generic_trace.h"
#include "traces/pollux_trace.h"
#include "traces/trace_workload.h"
#include "workloads/pollux.h"

using namespace ringsched;

namespace {
const std::string kDir = std::string(RINGSCHED_TEST_DIR) + "/fixtures/heldout/";
}

TEST_CASE("workloads::Trace: a small Pollux workload file", "[trace]") {
  const Trace t = read_pollux_workload(kDir + "workload-small.csv");
  REQUIRE(t.jobs.size() == 4);
  CHECK(t.jobs[1].name == "b-1");
  CHECK(t.jobs[1].submit_s == 30.0);
  CHECK(t.jobs[1].application == "imagenet");
  CHECK(t.jobs[1].gpus == 4);
  CHECK(t.jobs[3].batch_size == 96.0);
  CHECK(t.jobs[3].line == 5);

  auto cat = std::make_shared<const Catalog>(pollux_catalog(default_pollux_dir(), 0.0));
  TraceWorkloadSpec spec;
  spec.time_scale = 0.5;
  const Workload w = workload_from_trace(t, cat, spec, 7);
  REQUIRE(w.jobs.size() == 4);
  CHECK(w.jobs[1].arrival == 15.0);
  CHECK(cat->classes[static_cast<std::size_t>(w.jobs[1].class_index)].name == "imagenet");
  CHECK(w.jobs[1].requested_gpus == 4);
  CHECK(w.jobs[1].work_samples == cat->classes[static_cast<std::size_t>(w.jobs[1].class_index)].work_samples);
  CHECK(w.jobs[1].speed_factor == 1.0);
}

TEST_CASE("workloads::Trace: every shipped Pollux workload file", "[trace]") {
  const auto dir = std::filesystem::path(default_pollux_dir()) / "workloads";
  auto cat = std::make_shared<const Catalog>(pollux_catalog(default_pollux_dir(), 0.1));
  int files = 0;
  for (const auto& variant : std::filesystem::directory_iterator(dir)) {
    for (const auto& f : std::filesystem::directory_iterator(variant.path())) {
      const Trace t = read_pollux_workload(f.path().string());
      CHECK(t.jobs.size() >= 100);
      const Workload w = workload_from_trace(t, cat, TraceWorkloadSpec{}, 1);  // every application is known
      CHECK(w.jobs.size() == t.jobs.size());
      ++files;
    }
  }
  CHECK(files == 8);
  const Trace philly = read_generic_trace(
      (std::filesystem::path(default_pollux_dir()) / "traces" / "philly-every100.csv").string(), GenericTraceSpec{});
  CHECK(philly.jobs.size() == 823);
  CHECK(philly.jobs.front().submit_s == 0.0);
}

TEST_CASE("workloads::Trace: generic traces with column mapping, datetimes and minutes", "[trace]") {
  GenericTraceSpec spec;
  spec.submit_column = "submitted";
  spec.duration_column = "run_minutes";
  spec.gpus_column = "gpus";
  spec.time_unit = "min";
  const Trace t = read_generic_trace(kDir + "generic-small.csv", spec);
  REQUIRE(t.jobs.size() == 3);
  // Sorted by submit time and rebased: 06:59:00 first, then 07:00:00 (+60 s), 07:01:30 (+150 s).
  CHECK(t.jobs[0].line == 3);
  CHECK(t.jobs[0].submit_s == 0.0);
  CHECK(t.jobs[0].duration_s == 150.0);
  CHECK(t.jobs[1].submit_s == 60.0);
  CHECK(t.jobs[2].submit_s == 150.0);
  CHECK(t.jobs[2].gpus == 8);

  // A duration-only job's work: duration x the class throughput on its GPUs (so it takes `duration` there).
  auto cat = std::make_shared<const Catalog>(pollux_catalog(default_pollux_dir(), 0.0));
  TraceWorkloadSpec ws;
  ws.class_name = "cifar10";
  ws.gpus_per_node = 4;
  const Workload w = workload_from_trace(t, cat, ws, 3);
  const JobClass& c = cat->classes[static_cast<std::size_t>(cat->find("cifar10"))];
  CHECK(w.jobs[2].work_samples == Approx(3600.0 * class_throughput(c, 8, 2)));
  ws.class_name = "nope";
  CHECK_THROWS_WITH(workload_from_trace(t, cat, ws, 3), Catch::Contains("classes: cifar10"));
}

TEST_CASE("workloads::Trace: bad traces fail with file and line", "[trace]") {
  CHECK_THROWS_WITH(read_pollux_workload(kDir + "workload-unordered.csv"),
                    Catch::Contains("workload-unordered.csv:3: column 'time': times must not decrease"));
  CHECK_THROWS_WITH(read_generic_trace(kDir + "generic-negative.csv",
                                       GenericTraceSpec{"submit_s", "duration_s", "gpus", "s", "number", ""}),
                    Catch::Contains("generic-negative.csv:3: column 'duration_s': must be >= 0"));
  CHECK_THROWS_WITH(read_generic_trace(kDir + "generic-small.csv", GenericTraceSpec{}),
                    Catch::Contains("generic-small.csv:1: missing column 'timestamp'"));
  CHECK_THROWS_WITH(read_pollux_workload(kDir + "does-not-exist.csv"), Catch::Contains("cannot open"));
  CHECK_THROWS_WITH(read_generic_trace(kDir + "generic-small.csv",
                                       GenericTraceSpec{"submitted", "run_minutes", "gpus", "weeks", "auto", ""}),
                    Catch::Contains("unknown time unit 'weeks'"));
  const Trace t = read_pollux_workload(kDir + "workload-unknown-app.csv");
  auto cat = std::make_shared<const Catalog>(pollux_catalog(default_pollux_dir(), 0.0));
  CHECK_THROWS_WITH(workload_from_trace(t, cat, TraceWorkloadSpec{}, 1),
                    Catch::Contains("workload-unknown-app.csv:3: unknown application 'gpt5'") &&
                        Catch::Contains("known: cifar10, imagenet"));
}

TEST_CASE("workloads::Trace: with goodput classes batch_size sets each job's batch, and is checked",
          "[trace][goodput]") {
  const auto dir = std::filesystem::temp_directory_path() / ("ringsched-trace-bsz-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const auto write = [&](const std::string& name, const std::string& text) {
    std::ofstream((dir / name).string()) << text;
    return (dir / name).string();
  };
  auto cat = std::make_shared<const Catalog>(pollux_goodput_catalog(default_pollux_dir()));
  const std::string good = write("good.csv",
                                 "name,time,application,num_replicas,batch_size\n"
                                 "cifar10-0,0,cifar10,2,2048\nncf-1,5,ncf,1,512\n");
  const Workload w = workload_from_trace(read_pollux_workload(good), cat, TraceWorkloadSpec{}, 1);
  REQUIRE(w.jobs.size() == 2);
  CHECK(w.jobs[0].batch_size == 2048);
  CHECK(w.jobs[0].requested_gpus == 2);
  CHECK(w.jobs[1].batch_size == 512);
  // cifar10 is validated at 128..4096: 100 is refused, naming file and line.
  const std::string small = write("small.csv",
                                  "name,time,application,num_replicas,batch_size\n"
                                  "cifar10-0,0,cifar10,2,2048\ncifar10-1,5,cifar10,1,100\n");
  CHECK_THROWS_WITH(
      workload_from_trace(read_pollux_workload(small), cat, TraceWorkloadSpec{}, 1),
      Catch::Contains("small.csv:3: batch_size 100 is outside cifar10's validated batch sizes 128..4096"));
  const std::string big = write("big.csv", "name,time,application,num_replicas,batch_size\nb,0,bert,1,1e9\n");
  CHECK_THROWS_WITH(workload_from_trace(read_pollux_workload(big), cat, TraceWorkloadSpec{}, 1),
                    Catch::Contains("big.csv:2: batch_size 1e+09 is outside bert's"));
  for (const std::string bad : {"nan", "-5", "0", "inf", "1e309", "x"}) {
    const std::string f =
        write("bad.csv", "name,time,application,num_replicas,batch_size\nc,0,cifar10,1," + bad + "\n");
    INFO(bad);
    CHECK_THROWS_WITH(read_pollux_workload(f), Catch::Contains("bad.csv:2: column 'batch_size'"));
  }
  const std::string app = write("app.csv", "name,time,application,num_replicas,batch_size\nc,0,gpt5,1,128\n");
  CHECK_THROWS_WITH(workload_from_trace(read_pollux_workload(app), cat, TraceWorkloadSpec{}, 1),
                    Catch::Contains("app.csv:2: unknown application 'gpt5'"));
  std::filesystem::remove_all(dir);
}

TEST_CASE("traces::TraceFormat: the registry names each format once, in order, and finds them by name", "[trace]") {
  const auto names = trace_format_names();
  // The built-in formats keep their order (pollux, the default, first; then generic, gavel) wherever others rank.
  const auto pos = [&](const char* n) { return std::find(names.begin(), names.end(), n) - names.begin(); };
  REQUIRE(pos("pollux") == 0);
  CHECK(pos("generic") < pos("gavel"));
  CHECK(pos("gavel") < static_cast<std::ptrdiff_t>(names.size()));
  for (const TraceFormat* f : trace_format_registry()) {
    CHECK(&find_trace_format(f->name(), "here") == f);
    CHECK_FALSE(f->description().empty());
  }
  CHECK_THROWS_WITH(find_trace_format("slurm", "cfg.json: workload.trace.format"),
                    "cfg.json: workload.trace.format: unknown trace format 'slurm' (valid: " + join_names(names) + ")");
  // What read_* record is the format object itself, so nothing outside the registry compares names.
  CHECK(read_pollux_workload(kDir + "workload-small.csv").format == &pollux_trace_format());
  CHECK(read_generic_trace(kDir + "generic-small.csv",
                           GenericTraceSpec{"submitted", "run_minutes", "gpus", "min", "auto", ""})
            .format == &generic_trace_format());
  CHECK(pollux_trace_format().keys().empty());
  CHECK(generic_trace_format().keys() ==
        std::vector<std::string>{"columns", "submit_format", "class", "zero_gpus", "class_map"});
}

TEST_CASE("traces::TraceFormat: a row's class, work and offered GPU-seconds per format", "[trace]") {
  auto cat = std::make_shared<const Catalog>(pollux_catalog(default_pollux_dir(), 0.0));
  TraceJob row;
  row.application = "imagenet";
  row.gpus = 4;
  row.duration_s = 100.0;
  const int imagenet = cat->find("imagenet");
  CHECK(pollux_trace_format().row_class(row, *cat, 0, "f:2: ") == imagenet);
  CHECK(generic_trace_format().row_class(row, *cat, 2, "f:2: ") == 2);  // the configured class, whatever the row says
  row.application = "resnet";
  CHECK_THROWS_WITH(pollux_trace_format().row_class(row, *cat, 0, "f:2: "),
                    Catch::StartsWith("f:2: unknown application 'resnet' (known: "));
  const JobClass& c = cat->classes[static_cast<std::size_t>(imagenet)];
  JobTruth j;
  pollux_trace_format().fill_job(row, c, 4, 8, 0.0, j);
  CHECK(j.work_samples == c.work_samples);  // work_sigma 0: the class's work
  generic_trace_format().fill_job(row, c, 4, 8, 0.0, j);
  CHECK(j.work_samples == Approx(100.0 * class_throughput(c, 4, 1)).epsilon(1e-12));
  CHECK(generic_trace_format().offered_gpu_seconds(row, c, 4, 8) == 400.0);
  const int w8 = std::min(8, c.max_gpus);
  CHECK(pollux_trace_format().offered_gpu_seconds(row, c, 4, 8) ==
        Approx(c.work_samples / class_throughput(c, w8, 1) * w8).epsilon(1e-12));
  CHECK(generic_trace_format().column_notes(*cat).empty());
  CHECK_THAT(pollux_trace_format().column_notes(*cat), Catch::StartsWith("columns: name = job name"));
}
