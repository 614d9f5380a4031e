// sim/fitting/measurement_tables.h — the `measurement` source of the `table` speed kind (workloads/
// table_sources.h): a catalog class whose truth is what ringsched-profile measured (one file per world size; step =
// compute(b) + all-reduce of the gradient, workloads/measurement/measurement.h). Registered here because workloads/ may
// not depend on the profiler; without the profiler's measurement library the source exists and says how to get it.
#pragma once

namespace ringsched {

// Registers the source once per process (idempotent, thread-safe). parse_experiment calls it.
void register_measurement_table_source();

}  // namespace ringsched
