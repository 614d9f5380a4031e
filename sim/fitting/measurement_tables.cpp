// sim/fitting/measurement_tables.cpp — profiler measurement files as a measured table.
#include "sim/fitting/measurement_tables.h"

#include <mutex>
#include <string>
#include <vector>

#include "workloads/table_sources.h"
#ifdef RINGSCHED_HAVE_MEASUREMENT
#include "profiler/measurement.h"
#endif

namespace ringsched {
namespace {

std::vector<models::TablePoint> from_measurements(const JsonReader& value, const JsonReader&,
                                                  const std::string& base_dir) {
  std::vector<std::string> files;
  if (value.is_string()) {
    files.push_back(resolve_input_path(value.as_string(), base_dir));
  } else {
    for (const auto& f : value.non_empty_elements())
      files.push_back(resolve_input_path(f.as_string(), base_dir));
  }
#ifdef RINGSCHED_HAVE_MEASUREMENT
  std::vector<profiler::Measurement> ms;
  for (const auto& f : files)
    ms.push_back(profiler::load_measurement(f));
  std::vector<models::TablePoint> pts;
  for (const auto& p : profiler::measurement_points(ms))
    pts.push_back(models::TablePoint{p.w, p.nodes, p.global_batch / p.w, p.step_seconds});
  return pts;
#else
  value.fail(
      "this ringsched was built without the profiler's measurement library (configure with "
      "-DRINGSCHED_BUILD_PROFILER=ON), so it cannot read " +
      files.front() + "; convert the points to a csv table (gpus,nodes,global_batch,step_seconds) instead");
#endif
}

}  // namespace

void register_measurement_table_source() {
  static std::once_flag once;
  std::call_once(once, [] { register_table_source("measurement", from_measurements); });
}

}  // namespace ringsched
