// sim/engine/engine_helpers.h — pieces of the engine's loop that need only its records, kept out of engine.cpp
// (which test/sim/test_size_limits.cpp holds to 600 lines): the incremental decision check's view of the jobs, the
// invariant checker's view, belief scoring over the active jobs, and the typed cluster's "cannot run there" error.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "sim/cluster/cluster_runtime.h"
#include "sim/engine/belief_scoring.h"
#include "sim/engine/check_view.h"
#include "sim/engine/decision_check.h"
#include "sim/engine/failure_book.h"
#include "sim/engine/job_runtime.h"

namespace ringsched::engine_detail {

// What check_changes needs of the jobs (all references must outlive the result).
ChangeContext change_context(const std::vector<Runtime>& rt, const std::vector<JobPublic>& pub,
                             const ClusterRuntime& cluster);

// An incremental decision's changes (`ch`, job-id order) placed on the cluster at `now` (ClusterRuntime::place_changes
// with the GPUs each job holds before); jobs moved to other nodes at the same count are added to `moved`.
void place_changes(ClusterRuntime& cluster, double now, const std::vector<Change>& ch, const std::vector<Runtime>& rt,
                   std::vector<int>& moved);

// The checker's view of the active jobs `active` (advanced to `now` by the caller).
EngineCheckView check_view(double now, int finished, const ClusterRuntime& cluster, const std::vector<int>& active,
                           const std::vector<Runtime>& rt, const FailureBook& book);

// Every active job's belief against the truth, as of now (EngineConfig::score_beliefs).
void score_all_beliefs(BeliefScorer& scorer, BeliefScore& out, const Workload& wl, const std::vector<Runtime>& rt,
                       const std::vector<std::unique_ptr<Belief>>& beliefs, const std::vector<JobPublic>& pub);

// A strategy put a job on GPUs of a type its class has no speed on: std::logic_error naming both.
[[noreturn]] void no_speed_on_type(const std::string& strategy, const std::string& job, int gpus,
                                   const std::string& gpu_type);

}  // namespace ringsched::engine_detail
