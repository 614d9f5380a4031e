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

void run_shockwave_trace(std::string_view data) {
  static const auto catalog = std::make_shared<const Catalog>(shockwave_catalog(default_shockwave_dir()));
  try {
    const std::string unit = data.size() % 5 == 0 ? "min" : "s";
    const Trace t = read_shockwave_trace(scratch_file("shockwave.trace", data), unit, *catalog, data.size() % 7);
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
  return {file_bytes(kShockwaveFuzzSource + "/workloads/data/shockwave/traces/tacc-120.trace"),
          file_bytes(kShockwaveFuzzSource + "/test/fixtures/traces/shockwave-small.trace"),
          file_bytes(kShockwaveFuzzSource + "/test/fixtures/traces/shockwave-schedule.trace")};
}

const TargetRegistrar shockwave_trace_fuzz_target{{"shockwave_trace",
                                                   "Shockwave trace (tab-separated, 12 or 13 columns) into a workload",
                                                   run_shockwave_trace, shockwave_trace_seeds}};

}  // namespace
}  // namespace ringsched::fuzz
