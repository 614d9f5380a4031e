// test/fuzz/fuzz_today_traces.cpp — the `helios_trace`, `pai_trace` and `generic_columns` fuzz targets (issue 40):
// bytes as a Helios cluster_log.csv (either the Helios or the Philly-conversion layout), as PAI's job and task tables
// (one input: the job table, a blank line, the task table) or as a generic trace with gpu_type, class, user and vc
// columns, read with a held-row cap of 0..6 as workload.jobs caps a trace, then the outcome statistics, the notes and
// the workload under each oversize mode (and each zero_gpus / fractional_gpus choice, by the input's size).
// InputError is a clear rejection; anything else (another exception, a sanitizer report, a crash) is a finding.
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
#include "traces/generic_trace.h"
#include "traces/helios_trace.h"
#include "traces/pai_trace.h"
#include "traces/trace_outcomes.h"
#include "traces/trace_workload.h"
#include "workloads/catalog.h"
#include "workloads/pollux.h"
#include "workloads/pollux_data.h"

namespace ringsched::fuzz {
namespace {

const std::string kTodaySource = RINGSCHED_SOURCE_DIR;

void today_into_workload(const Trace& t, const std::shared_ptr<const Catalog>& catalog, std::string_view data) {
  const TraceOutcomes o = trace_outcomes(t);
  if (!(o.failed_share_by_count() >= 0.0 && o.failed_share_by_count() <= 1.0)) std::abort();
  if (!(o.failed_share_by_gpu_time() >= 0.0 && o.failed_share_by_gpu_time() <= 1.0)) std::abort();
  for (const TraceJob& j : t.jobs)
    if (j.gpus < 0 || !(j.duration_s >= 0.0) || !(j.submit_s >= 0.0)) std::abort();
  TraceWorkloadSpec spec;
  spec.max_jobs = data.size() % 7 == 0 ? 200 : static_cast<int>(data.size() % 7);
  spec.max_gpus = 64;
  spec.oversize = static_cast<Oversize>(data.size() % 3);
  (void)trace_notes(t, *catalog, spec, 64);
  (void)workload_from_trace(t, catalog, spec, 1);
}

std::shared_ptr<const Catalog> today_paper() {
  static const auto cat = std::make_shared<const Catalog>(load_catalog("paper"));
  return cat;
}

void run_helios_trace(std::string_view data) {
  try {
    HeliosTraceSpec spec;
    spec.drop_zero_gpus = data.size() % 2 == 0;
    today_into_workload(read_helios_trace(scratch_file("cluster_log.csv", data), spec, data.size() % 7), today_paper(),
                        data);
  } catch (const InputError&) {
    // a clear rejection
  }
}

std::vector<std::string> helios_trace_seeds() {
  return {file_bytes(kTodaySource + "/test/fixtures/traces/helios-cluster_log.csv"),
          file_bytes(kTodaySource + "/test/fixtures/traces/helios-philly.csv")};
}

void run_pai_trace(std::string_view data) {
  try {
    const auto split = data.find("\n\n");
    const std::string_view jobs = data.substr(0, split);
    const std::string_view tasks = split == std::string_view::npos ? std::string_view() : data.substr(split + 2);
    PaiTraceSpec spec;
    spec.task_table = scratch_file("pai_task_table.csv", tasks);
    spec.fractional = static_cast<FractionalGpus>(data.size() % 3);
    spec.drop_zero_gpus = data.size() % 2 == 0;
    today_into_workload(read_pai_trace(scratch_file("pai_job_table.csv", jobs), spec, data.size() % 7), today_paper(),
                        data);
  } catch (const InputError&) {
    // a clear rejection
  }
}

std::vector<std::string> pai_trace_seeds() {
  return {file_bytes(kTodaySource + "/test/fixtures/traces/pai_job_table.csv") + "\n" +
          file_bytes(kTodaySource + "/test/fixtures/traces/pai_task_table.csv")};
}

std::shared_ptr<const Catalog> today_pollux() {
  static const auto cat = std::make_shared<const Catalog>(pollux_catalog(default_pollux_dir(), 0.0));
  return cat;
}

void run_generic_columns(std::string_view data) {
  try {
    const Catalog& cat = *today_pollux();
    GenericTraceSpec g;
    g.gpu_type_column = "gpu_type";
    g.class_column = "model";
    g.user_column = "user";
    g.vc_column = "vc";
    g.catalog_classes = cat.class_names();
    g.catalog_name = cat.name;
    g.class_map = {{"resnet50", "imagenet"}, {"", "ncf"}};
    g.zero_gpus = data.size() % 2 == 0 ? "drop" : "error";
    today_into_workload(read_generic_trace(scratch_file("columns.csv", data), g, data.size() % 7), today_pollux(),
                        data);
  } catch (const InputError&) {
    // a clear rejection
  }
}

std::vector<std::string> generic_columns_seeds() {
  return {
      "timestamp,duration,num_gpus,gpu_type,model,user,vc\n"
      "0,60,1,V100,resnet50,alice,vc1\n"
      "10,120,2,T4,ncf,bob,vc2\n"
      "5,30,4,,imagenet,alice,\n"
      "7,30,0,,,carol,vc1\n"};
}

const TargetRegistrar helios_trace_fuzz_target{
    {"helios_trace", "Helios cluster_log.csv (and its Philly conversion) into outcomes and a workload",
     run_helios_trace, helios_trace_seeds}};
const TargetRegistrar pai_trace_fuzz_target{
    {"pai_trace", "PAI job and task tables (one input, a blank line between) into outcomes and a workload",
     run_pai_trace, pai_trace_seeds}};
const TargetRegistrar generic_columns_fuzz_target{
    {"generic_columns", "generic trace with gpu_type, class (class_map), user and vc columns into a workload",
     run_generic_columns, generic_columns_seeds}};

}  // namespace
}  // namespace ringsched::fuzz
