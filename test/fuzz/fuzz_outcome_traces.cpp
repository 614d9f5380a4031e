// test/fuzz/fuzz_outcome_traces.cpp — the `philly_log` and `acme` fuzz targets (issue 38 item 3): bytes as Philly's
// job log (a JSON array streamed one job at a time) or as an Acme job CSV (either layout), read with a held-row cap
// of 0..6 as workload.jobs caps a trace, then the outcome statistics, the notes and the workload under each oversize
// mode. InputError is a clear rejection; anything else (another exception, a sanitizer report, a crash) is a finding.
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
#include "traces/acme_trace.h"
#include "traces/philly_trace.h"
#include "traces/trace_outcomes.h"
#include "traces/trace_workload.h"
#include "workloads/catalog.h"

namespace ringsched::fuzz {
namespace {

const std::string kOutcomeSource = RINGSCHED_SOURCE_DIR;

void outcome_into_workload(const Trace& t, std::string_view data) {
  static const auto catalog = std::make_shared<const Catalog>(load_catalog("paper"));
  const TraceOutcomes o = trace_outcomes(t);
  if (!(o.failed_share_by_count() >= 0.0 && o.failed_share_by_count() <= 1.0)) std::abort();
  if (!(o.failed_share_by_gpu_time() >= 0.0 && o.failed_share_by_gpu_time() <= 1.0)) std::abort();
  TraceWorkloadSpec spec;
  spec.max_jobs = data.size() % 7 == 0 ? 200 : static_cast<int>(data.size() % 7);
  spec.max_gpus = 64;
  spec.oversize = static_cast<Oversize>(data.size() % 3);
  (void)trace_notes(t, *catalog, spec, 64);
  (void)workload_from_trace(t, catalog, spec, 1);
}

void run_philly_log(std::string_view data) {
  try {
    outcome_into_workload(read_philly_log(scratch_file("log.json", data), data.size() % 7), data);
  } catch (const InputError&) {
    // a clear rejection
  }
}

void run_acme_trace(std::string_view data) {
  try {
    outcome_into_workload(read_acme_trace(scratch_file("acme.csv", data), data.size() % 7), data);
  } catch (const InputError&) {
    // a clear rejection
  }
}

std::vector<std::string> philly_log_seeds() {
  return {file_bytes(kOutcomeSource + "/test/fixtures/traces/philly-small.json")};
}

std::vector<std::string> acme_trace_seeds() {
  return {file_bytes(kOutcomeSource + "/test/fixtures/traces/acme-seren.csv"),
          file_bytes(kOutcomeSource + "/test/fixtures/traces/acme-kalos.csv")};
}

const TargetRegistrar philly_log_fuzz_target{
    {"philly_log", "Philly's job log (JSON) into outcomes and a workload", run_philly_log, philly_log_seeds}};
const TargetRegistrar acme_trace_fuzz_target{{"acme_trace",
                                              "Acme job CSV (Seren and Kalos layouts) into outcomes and a workload",
                                              run_acme_trace, acme_trace_seeds}};

}  // namespace
}  // namespace ringsched::fuzz
