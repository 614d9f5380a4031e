// workloads/measurement/points_csv.cpp — the plain measured-points CSV reader.
#include "workloads/measurement/points_csv.h"

#include <set>

#include "workloads/io/csv.h"
#include "workloads/io/json_reader.h"

namespace ringsched {

std::vector<models::SpeedPoint> read_points_csv(const std::string& path, const std::string& gpu_type) {
  return parse_points_csv(read_csv_file(path), path, gpu_type);
}

std::vector<models::SpeedPoint> parse_points_csv_text(const std::string& text, const std::string& origin) {
  return parse_points_csv(parse_csv(text, origin), origin, "");
}

std::vector<models::SpeedPoint> parse_points_csv(const CsvTable& t, const std::string& path,
                                                 const std::string& gpu_type) {
  const int cg = t.require_column("gpus");
  const int cn = t.require_column("nodes");
  const int cb = t.require_column("global_batch");
  const int cs = t.require_column("step_seconds");
  const int ct = t.column("gpu_type");
  if (t.rows.empty()) throw InputError(path + ":2: empty table (no measured points)");
  std::set<std::string> types;
  if (ct >= 0) {
    for (const auto& row : t.rows) {
      if (t.text(row, ct).empty()) t.fail(row, "column 'gpu_type': empty");
      types.insert(t.text(row, ct));
    }
    const std::vector<std::string> names(types.begin(), types.end());
    if (gpu_type.empty()) {
      throw InputError(path + ":1: a gpu_type column (types: " + join_names(names) +
                       "): say which type's rows to read (\"gpu_type\" beside the file, e.g. in speed_by_type)");
    }
    if (types.count(gpu_type) == 0) {
      throw InputError(path + ": no rows of GPU type '" + gpu_type + "' (types in the file: " + join_names(names) +
                       ")");
    }
  } else if (!gpu_type.empty()) {
    throw InputError(path + ":1: GPU type '" + gpu_type + "' asked of a table without a gpu_type column");
  }
  std::vector<models::SpeedPoint> out;
  for (const auto& row : t.rows) {
    if (ct >= 0 && t.text(row, ct) != gpu_type) continue;
    models::SpeedPoint p;
    p.w = t.integer_in(row, cg, 1, 1 << 20);
    p.nodes = t.integer_in(row, cn, 1, p.w);
    p.global_batch = t.positive(row, cb);
    if (p.global_batch > 1e9) t.fail(row, "column 'global_batch': must be <= 1e9 samples, got " + t.text(row, cb));
    p.step_seconds = t.positive(row, cs);
    // A step between a nanosecond and a year: outside, the fit's scaled columns overflow or underflow.
    if (p.step_seconds < 1e-9 || p.step_seconds > 3.2e7) {
      t.fail(row, "column 'step_seconds': must be between 1e-9 and 3.2e7 s, got " + t.text(row, cs));
    }
    out.push_back(p);
  }
  return out;
}

}  // namespace ringsched
