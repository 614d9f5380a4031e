// workloads/table_sources.h — the `table` speed kind of a catalog class: measured seconds per step, interpolated
// (models/table_speed.h), from one of several sources registered by name: `points` (inline), `pollux` (a shipped
// Pollux application), `pollux_tables` (a folder of Pollux-format placements.csv / scalability.csv), `csv` (a plain
// gpus,nodes,global_batch,step_seconds file, what `ringsched fit --csv` reads) and, when the profiler's measurement
// library is built in, `measurement` (ringsched-profile output files; registered by sim/experiments). Relative file
// names are resolved against the folder of the file that names them. Formats: docs/config.md.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "models/step_time_model.h"
#include "models/table_speed.h"
#include "workloads/io/input_path.h"  // resolve_input_path, for sources that name files
#include "workloads/io/json_reader.h"

namespace ringsched {

struct JobClass;

// Reads the measured points of a source from its JSON value (the value of the source's key; `spec` is the whole
// speed object, for optional companion keys such as `pollux_dir`). Errors: InputError naming the file:line or the
// JSON path.
using TableSourceReader = std::function<std::vector<models::TablePoint>(const JsonReader& value, const JsonReader& spec,
                                                                        const std::string& base_dir)>;

// Registers (or replaces) a source; `companions` are the extra keys it accepts in the speed object.
void register_table_source(const std::string& name, TableSourceReader reader, std::vector<std::string> companions = {});
[[nodiscard]] std::vector<std::string> table_source_names();

// The `table` speed kind: exactly one source key. Builds the table; a point the table rejects fails with its path.
models::StepTimeModelPtr make_table_speed_from_json(const JsonReader& spec, const JobClass& cls,
                                                    const std::string& base_dir);

}  // namespace ringsched
