// sim/experiments/placement_report.h — the placement and optimality-gap table printed after Table 3 / the summary when
// a run used a topology or placement policy or recorded optimality gaps (empty otherwise, so default output is
// unchanged). Columns in docs/topology.md.
#pragma once

#include <string>

#include "sim/experiments/report.h"
#include "sim/experiments/runner.h"

namespace ringsched {

// Markdown or CSV (JSON: empty; use placement_csv). Empty when nothing was placed and no gap was recorded.
std::string render_placement_report(const ExperimentConfig& c, const ExperimentResult& r, Format f);
// The same rows as CSV (header always present).
std::string placement_csv(const ExperimentConfig& c, const ExperimentResult& r);
// Writes placement.csv into dir when there is something to report.
void write_placement_outputs(StagedOutput& out, const ExperimentConfig& c, const ExperimentResult& r);

}  // namespace ringsched
