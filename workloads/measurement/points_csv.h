// workloads/measurement/points_csv.h — plain measured step times: a CSV with header
// `gpus,nodes,global_batch,step_seconds` (and optionally `gpu_type`), one row per measurement (what `ringsched fit
// --csv` reads and a catalog `table` speed kind may take as its truth, per GPU type with `gpu_type`).
#pragma once

#include <string>
#include <vector>

#include "models/fit.h"
#include "workloads/io/csv.h"

namespace ringsched {

// 1 <= nodes <= gpus; global_batch and step_seconds > 0 and finite. Bad rows fail with file:line (InputError).
// Tables of several GPU types carry a `gpu_type` column: `gpu_type` then selects that type's rows, and is required
// (naming the file's types) when the file has the column; a type with no rows, or a type asked of a file without
// the column, is an InputError naming the file.
std::vector<models::SpeedPoint> read_points_csv(const std::string& path, const std::string& gpu_type = "");
// The same checks on CSV text already in memory (the Python module's points); messages name `origin` and the line.
std::vector<models::SpeedPoint> parse_points_csv_text(const std::string& text, const std::string& origin);
// The rows of a parsed table (read_points_csv's checks); `path` names it in messages.
std::vector<models::SpeedPoint> parse_points_csv(const CsvTable& t, const std::string& path,
                                                 const std::string& gpu_type);

}  // namespace ringsched
