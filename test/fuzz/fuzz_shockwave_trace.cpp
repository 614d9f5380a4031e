// test/fuzz/fuzz_shockwave_trace.cpp — the `shockwave_trace` fuzz target: bytes as a Shockwave trace (12 columns, or
// 13 with a batch schedule) read against the shipped `shockwave` catalog with a held-row cap of 0..6, then the notes
// and the workload under each oversize mode. InputError is a clear rejection; anything else is a finding.
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include <unistd.h>

#include "models/input_error.h"
#include "test/fuzz/fuzz_entries.h"
#include "traces/shockwave_trace.h"
#include "traces/trace_workload.h"
#include "workloads/shockwave.h"

namespace ringsched::fuzz {
namespace {

const std::string kShockwaveFuzzSource = RINGSCHED_SOURCE_DIR;

// A private file for the bytes, under a folder removed at exit.
std::string shockwave_fuzz_put(std::string_view data) {
  static const std::string dir = [] {
    const char* tmp = std::getenv("TMPDIR");
    std::string templ = std::string(tmp != nullptr && *tmp != '\0' ? tmp : "/tmp") + "/ringsched-fuzz-sw-XXXXXX";
    if (::mkdtemp(templ.data()) == nullptr) std::abort();
    static const std::string keep = templ;
    std::atexit([] {
      std::error_code ec;
      std::filesystem::remove_all(keep, ec);
    });
    return templ;
  }();
  const std::string path = dir + "/jobs.trace";
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(data.data(), static_cast<std::streamsize>(data.size()));
  return path;
}

std::string shockwave_fuzz_read(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

void run_shockwave_trace(std::string_view data) {
  static const auto catalog = std::make_shared<const Catalog>(shockwave_catalog(default_shockwave_dir()));
  try {
    const std::string unit = data.size() % 5 == 0 ? "min" : "s";
    const Trace t = read_shockwave_trace(shockwave_fuzz_put(data), unit, *catalog, data.size() % 7);
    TraceWorkloadSpec spec;
    spec.max_jobs = static_cast<int>(data.size() % 7);
    spec.max_gpus = 32;
    spec.oversize = static_cast<Oversize>(data.size() % 3);
    (void)trace_notes(t, *catalog, spec, 32);
    const Workload w = workload_from_trace(t, catalog, spec, 1);
    for (const JobTruth& j : w.jobs) {
      if (!j.schedule) std::abort();  // every Shockwave job has its schedule
      if (!(j.schedule->phase_end.back() == j.work_samples) || !(j.schedule->isolated_s > 0.0)) std::abort();
    }
  } catch (const InputError&) {
    // a clear rejection
  }
}

std::vector<std::string> shockwave_trace_seeds() {
  return {shockwave_fuzz_read(kShockwaveFuzzSource + "/workloads/data/shockwave/traces/tacc-120.trace"),
          shockwave_fuzz_read(kShockwaveFuzzSource + "/test/fixtures/traces/shockwave-small.trace"),
          shockwave_fuzz_read(kShockwaveFuzzSource + "/test/fixtures/traces/shockwave-schedule.trace")};
}

const TargetRegistrar shockwave_trace_fuzz_target{{"shockwave_trace",
                                                   "Shockwave trace (tab-separated, 12 or 13 columns) into a workload",
                                                   run_shockwave_trace, shockwave_trace_seeds}};

}  // namespace
}  // namespace ringsched::fuzz
