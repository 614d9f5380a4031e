// sim/fitting/measurement_tables.cpp — profiler measurement files as a measured table.
#include "sim/fitting/measurement_tables.h"

#include <mutex>
#include <string>
#include <vector>

#include "workloads/measurement/measurement.h"
#include "workloads/table_sources.h"

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
  std::vector<profiler::Measurement> ms;
  for (const auto& f : files)
    ms.push_back(profiler::load_measurement(f));
  std::vector<models::TablePoint> pts;
  for (const auto& p : profiler::measurement_points(ms))
    pts.push_back(models::TablePoint{p.w, p.nodes, p.global_batch / p.w, p.step_seconds});
  return pts;
}

}  // namespace

void register_measurement_table_source() {
  static std::once_flag once;
  std::call_once(once, [] { register_table_source("measurement", from_measurements); });
}

}  // namespace ringsched
