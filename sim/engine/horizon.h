// sim/engine/horizon.h — the simulated clock's horizon, shared by the engine, its job records and validation.
#pragma once

namespace ringsched {

// The simulated clock's horizon: 1e12 s (about 31,700 years). The engine stops a run whose events would pass it;
// validation (check_runs_can_finish) refuses configs whose every run would.
inline constexpr double kSimHorizonS = 1e12;

}  // namespace ringsched
