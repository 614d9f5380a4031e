// sim/belief_sources.h — belief sources by name: they build each job's Belief (what the strategy believes) from
// public facts and the catalog's class models. Only `oracle` is handed the job's truth, for reference runs.
// In-sample (the paper's setting), `history` uses the catalog class models the truth was drawn from.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "strategies/strategy.h"
#include "workloads/workload.h"

namespace ringsched {

struct BeliefContext {
  const Catalog* catalog = nullptr;  // class-level models (the "history" of completed runs, in-sample)
  int gpus_per_node = 8;
};

class BeliefSource {
 public:
  virtual ~BeliefSource() = default;
  [[nodiscard]] virtual std::string name() const = 0;
  // True only for `oracle`: make() then receives the job's truth.
  [[nodiscard]] virtual bool needs_truth() const { return false; }
  // `truth` is null unless needs_truth(). Returns null for the `none` source.
  [[nodiscard]] virtual std::unique_ptr<Belief> make(const JobPublic& pub, const BeliefContext& ctx,
                                                     const JobTruth* truth) const = 0;
};

// "none", "oracle", "history". Throws InputError naming `where` for an unknown name.
std::shared_ptr<const BeliefSource> make_belief_source(const std::string& name, const std::string& where);
std::vector<std::string> belief_source_names();

}  // namespace ringsched
