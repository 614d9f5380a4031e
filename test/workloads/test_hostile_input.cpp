// test/workloads/test_hostile_input.cpp — hostile numbers and files at the workload readers: JSON numbers beyond a
// double or 2^63, denormals and absurd sizes, devices and directories as files, size caps, and traces that ask for
// more than the cluster or class allows (error, clamp with the trace's work, drop; counted), generic trace ids and
// the offered load of a trace.
#include <catch2/catch.hpp>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <memory>
#include <string>

#include "test/input_error_of.h"
#include "traces/generic_trace.h"
#include "traces/pollux_trace.h"
#include "traces/trace_workload.h"
#include "workloads/catalog.h"
#include "workloads/io/input_file.h"
#include "workloads/io/json_reader.h"

using namespace ringsched;
using ringsched::test::error_of;
namespace fs = std::filesystem;

namespace {

struct Scratch {
  fs::path dir;
  Scratch() {
    std::string t = (fs::temp_directory_path() / "ringsched-hostile-XXXXXX").string();
    dir = ::mkdtemp(t.data());
  }
  ~Scratch() {
    std::error_code ec;
    fs::remove_all(dir, ec);
  }
  std::string write(const std::string& name, const std::string& text) const {
    const auto p = dir / name;
    std::ofstream(p, std::ios::binary) << text;
    return p.string();
  }
};

// One class: 100 samples/s per GPU (t0 = 0.01 s per sample at batch 1... here: eq5 with only t0), 1..4 GPUs.
std::shared_ptr<const Catalog> small_catalog() {
  const std::string text = R"({"name": "small", "classes": [
    {"name": "lin", "batch": {"mode": "fixed_global", "size": 100}, "model_size_mparams": 1,
     "work": {"samples": 1000}, "gpus": {"min": 1, "max": 4},
     "speed": {"kind": "eq5", "t0": 0.01, "t1": 0, "t2": 0, "t3": 0}}]})";
  return std::make_shared<const Catalog>(parse_catalog(parse_json_text(text, "small.json"), "small.json"));
}

}  // namespace

TEST_CASE("workloads::JsonReader: numbers beyond a double or 2^63 are input errors naming the file", "[hostile]") {
  CHECK_THAT(error_of([] { (void)parse_json_text(R"({"a": 1e309})", "cfg.json"); }),
             Catch::StartsWith("cfg.json: malformed JSON: number overflow parsing '1e309'"));
  const auto doc = parse_json_text(R"({"jobs": 18446744073709551615, "big": 1e10, "tiny": 1e-320})", "cfg.json");
  const JsonReader r(doc, "cfg.json");
  CHECK(error_of([&] { (void)r.at("jobs").as_integer_in(1, 10); }) ==
        "cfg.json: jobs: must be an integer below 2^63, got 18446744073709551615");
  CHECK(error_of([&] { (void)r.at("big").as_integer_in(1, 10); }) ==
        "cfg.json: big: must be between 1 and 10, got 10000000000.0");
  CHECK_THAT(error_of([&] { (void)r.at("tiny").as_positive(); }), Catch::Contains("denormal"));
  CHECK(error_of([&] { (void)r.at("big").as_number_in(0, 100); }) ==
        "cfg.json: big: must be between 0 and 100, got 10000000000.0");
}

TEST_CASE("workloads::read_input_file: devices, directories, missing and oversize files are refused", "[hostile]") {
  const Scratch s;
  CHECK_THAT(error_of([] { (void)read_input_file("/dev/zero", "config"); }),
             Catch::Equals("/dev/zero: cannot read config: not a regular file (a device, FIFO or socket)"));
  CHECK_THAT(error_of([&] { (void)read_input_file(s.dir.string()); }), Catch::EndsWith("it is a directory"));
  CHECK_THAT(error_of([&] { (void)read_input_file((s.dir / "none.json").string()); }), Catch::EndsWith("no such file"));
  const std::string p = s.write("big.csv", std::string(100, 'x'));
  CHECK(error_of([&] { (void)read_input_file(p, "trace", 99); }) ==
        p + ": trace is 100 bytes, more than the limit of 99");
  CHECK(read_input_file(p, "trace", 100) == std::string(100, 'x'));
  // The readers use it: a config given as /dev/zero fails at once instead of reading forever.
  CHECK_THAT(error_of([] { (void)read_json_file("/dev/zero"); }), Catch::Contains("not a regular file"));
}

TEST_CASE("workloads::Catalog: absurd batch, model size and work overflow are refused with their JSON path",
          "[hostile]") {
  const auto bad = [](const std::string& batch, const std::string& work, const std::string& size) {
    const std::string text =
        R"({"name": "c", "classes": [{"name": "x", "batch": {"mode": "fixed_global", "size": )" + batch +
        R"(}, "model_size_mparams": )" + size + R"(, "work": )" + work +
        R"(, "gpus": {"max": 4}, "speed": {"kind": "eq5", "t0": 0.01, "t1": 0, "t2": 0, "t3": 0}}]})";
    return error_of([&] { (void)parse_catalog(parse_json_text(text, "c.json"), "c.json"); });
  };
  CHECK_THAT(bad("1e308", R"({"samples": 1000})", "1"),
             Catch::StartsWith("c.json: classes[0].batch.size: must be <= 1e9"));
  CHECK_THAT(bad("100", R"({"epochs": 1e200, "dataset_samples": 1e200})", "1"),
             Catch::StartsWith("c.json: classes[0].work: the work is inf samples; at most 1e18"));
  CHECK_THAT(bad("100", R"({"samples": 1e300})", "1"), Catch::StartsWith("c.json: classes[0].work: the work is"));
  CHECK_THAT(bad("100", R"({"samples": 1000})", "1e300"),
             Catch::StartsWith("c.json: classes[0].model_size_mparams: must be <= 1e7"));
  CHECK(bad("100", R"({"samples": 1000})", "1").empty());
}

TEST_CASE("workloads::Trace: requests beyond the class or cluster are errors unless clamp or drop, and counted",
          "[hostile][trace]") {
  const Scratch s;
  // j1 asks 8 GPUs of a class that runs on 1..4: it ran 10 s on 8 GPUs in the trace.
  const std::string path = s.write("t.csv",
                                   "timestamp,duration,num_gpus,id\n0,100,2,first\n10,10,8,big one\n"
                                   "20,50,1,third\n");
  GenericTraceSpec g;
  const Trace t = read_generic_trace(path, g);
  const auto cat = small_catalog();
  TraceWorkloadSpec spec;
  spec.max_gpus = 16;
  spec.gpus_per_node = 4;
  CHECK(error_of([&] { (void)workload_from_trace(t, cat, spec, 1); }) ==
        path +
            ":3: job 'line-3' asks for 8 GPUs; class lin runs on 1..4 and the cluster allows at most 16 (set "
            "workload.trace.oversize to \"clamp\" or \"drop\" to run such traces, counted in the output)");

  spec.oversize = Oversize::kClamp;
  const Workload clamped = workload_from_trace(t, cat, spec, 1);
  REQUIRE(clamped.jobs.size() == 3);
  CHECK(clamped.jobs[1].requested_gpus == 4);
  // The work it did in the trace: 10 s x 8 GPUs x 100 samples/s per GPU (linear class) = 8,000 samples, not the
  // 4,000 it would be at the clamped size.
  CHECK(clamped.jobs[1].work_samples == Approx(8000.0));
  const TraceNotes cn = trace_notes(t, *cat, spec, 16);
  CHECK(cn.rows == 3);
  CHECK(cn.jobs == 3);
  CHECK(cn.clamped == 1);
  CHECK(cn.dropped == 0);
  CHECK(cn.truncated == 0);
  // Offered load: GPU-seconds as recorded (100 x 2 + 10 x 8 + 50 x 1 = 330) over 16 GPUs x the 20 s arrival span.
  CHECK(cn.offered_load == Approx(330.0 / (16.0 * 20.0)));

  spec.oversize = Oversize::kDrop;
  const Workload dropped = workload_from_trace(t, cat, spec, 1);
  REQUIRE(dropped.jobs.size() == 2);
  CHECK(dropped.jobs[1].name == "line-4");
  CHECK(dropped.jobs[1].id == 1);
  // The kept jobs' noise does not depend on what was dropped.
  CHECK(dropped.jobs[1].speed_factor == clamped.jobs[2].speed_factor);
  const TraceNotes dn = trace_notes(t, *cat, spec, 16);
  CHECK(dn.dropped == 1);
  CHECK(dn.jobs == 2);

  spec.max_jobs = 2;
  const TraceNotes tn = trace_notes(t, *cat, spec, 16);
  CHECK(tn.truncated == 1);
  CHECK(tn.jobs == 1);

  // The trace's own ids name the jobs.
  g.id_column = "id";
  const Trace named = read_generic_trace(path, g);
  CHECK(named.jobs[1].name == "big one");
  g.id_column = "nope";
  CHECK_THAT(error_of([&] { (void)read_generic_trace(path, g); }), Catch::Contains("nope"));
}

TEST_CASE("workloads::Trace: times beyond the simulated horizon are errors naming the line", "[hostile][trace]") {
  const Scratch s;
  GenericTraceSpec g;
  g.time_unit = "h";
  const std::string huge = s.write("h.csv", "timestamp,duration,num_gpus\n0,1,1\n1e300,1,1\n");
  CHECK_THAT(error_of([&] { (void)read_generic_trace(huge, g); }),
             Catch::StartsWith(huge + ":3: column 'timestamp': 1e300 h is beyond 1e12 s"));
  const std::string pollux = s.write("p.csv", "name,time,application,num_replicas,batch_size\nj,1e13,ncf,1,256\n");
  CHECK_THAT(error_of([&] { (void)read_pollux_workload(pollux); }), Catch::StartsWith(pollux + ":2: column 'time'"));
}
