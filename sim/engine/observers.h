// sim/engine/observers.h — the truth-side measurement channels of a replicate: they read a job's truth and hand beliefs
// only numbers. The exploration speed measurer (a few noisy steps of the job) and the online loss observer (the loss
// the job reports at each evaluation). Both are deterministic for (seed, job), whatever order they are asked in.
#pragma once

#include <cstdint>
#include <memory>

#include "sim/beliefs/belief_sources.h"
#include "workloads/workload.h"

namespace ringsched {

// One noisy step at each of 1, 2, 4, 8 GPUs (packed on nodes of gpus_per_node; counts above the class's max are
// skipped), as the exploratory strategy profiles; lognormal measurement noise of `sigma`.
SpeedMeasurer make_speed_measurer(std::shared_ptr<const Workload> wl, double sigma, int gpus_per_node,
                                  std::uint64_t seed);

// The loss job j reports at its n-th evaluation (after n * loss_interval_samples samples): its class's loss curve
// stretched to the job's work (the curve at n * interval * class work / job work, so every job reaches the class's
// target loss at its own work), times lognormal noise of `sigma` keyed by (seed, job, n). Throws std::logic_error
// for a job whose class has no convergence curve (callers check JobPublic::loss_interval_samples first).
LossObserver make_loss_observer(std::shared_ptr<const Workload> wl, double sigma, std::uint64_t seed);

}  // namespace ringsched
