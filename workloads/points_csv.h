// workloads/points_csv.h — plain measured step times: a CSV with header `gpus,nodes,global_batch,step_seconds`, one
// row per measurement (what `ringsched fit --csv` reads and a catalog `table` speed kind may take as its truth).
#pragma once

#include <string>
#include <vector>

#include "models/fit.h"

namespace ringsched {

// 1 <= nodes <= gpus; global_batch and step_seconds > 0 and finite. Bad rows fail with file:line (InputError).
std::vector<models::SpeedPoint> read_points_csv(const std::string& path);

}  // namespace ringsched
