// sim/experiments/run_checks.h — checks on a parsed config that catch what would make every run fail (or never
// finish) although each value passes its own check: trace rows that cannot finish before the simulated clock's
// horizon (their arrival after time_scale and repeat, their work at their class's fastest), a restart that outlasts
// the round, a class Gavel's generator cannot give a duration on its reference GPU type. `validate`, `simulate`,
// `table3`, sweeps and Python all parse configs with parse_experiment, which runs these last.
#pragma once

#include "sim/experiments/config.h"
#include "workloads/json_reader.h"

namespace ringsched {

// The simulated clock's horizon (sim/engine/engine.cpp kMaxSimTime): no event may lie beyond it.
inline constexpr double kSimHorizonS = 1e12;

// InputError "origin: json.path: ..." naming what to change; `root` is the config document's reader.
void check_runs_can_finish(const JsonReader& root, const ExperimentConfig& c);

}  // namespace ringsched
