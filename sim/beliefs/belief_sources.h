// sim/beliefs/belief_sources.h — belief sources by name: they build each job's Belief (what the strategy believes) from
// public facts and the catalog's class models. Only `oracle` is handed the job's truth, for reference runs.
// In-sample (the paper's setting), `history` uses the catalog class models the truth was drawn from.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "models/fit.h"
#include "strategies/strategy.h"
#include "workloads/io/json_reader.h"
#include "workloads/workload.h"

namespace ringsched {

struct BeliefContext {
  const Catalog* catalog = nullptr;  // class-level models (the "history" of completed runs, in-sample)
  int gpus_per_node = 8;
  // On a cluster with GPU types (cluster.pools): the GPUs per node of each type's pool (the first pool of a type),
  // for beliefs that place a job's GPUs on a type as the engine packs them. Empty on the untyped cluster.
  std::vector<std::pair<std::string, int>> gpus_per_node_by_type = {};
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

// `history`: class models of previously completed runs, from `history`: in-sample the catalog the truth was drawn
// from (the paper's setting), held-out a catalog fitted on training runs (sim/beliefs/history_training.h). It never
// reads BeliefContext::catalog; a job whose class `history` lacks gets no belief.
std::shared_ptr<const BeliefSource> make_history_source(std::shared_ptr<const Catalog> history);

// Measured points of one job (e.g. a few noisy steps at 1, 2, 4, 8 GPUs), by job id. The only channel through which
// `exploration` learns about a job; it receives numbers, not truth objects.
using SpeedMeasurer = std::function<std::vector<models::SpeedPoint>(int job_id)>;

// `exploration`: Eq. 5 fitted to the job's own measured points (from `measure`); work from `work_history`'s class
// (a fitted catalog, as `history`). A job whose class is unknown to `work_history` gets no belief.
std::shared_ptr<const BeliefSource> make_exploration_source(SpeedMeasurer measure,
                                                            std::shared_ptr<const Catalog> work_history);

// The loss job `job_id` reports at its n-th evaluation (n >= 1, after n * JobPublic::loss_interval_samples samples).
// The only channel through which `online` learns how a job converges; it receives numbers, not truth objects.
using LossObserver = std::function<double(int job_id, int evaluation)>;

// `online` (Optimus-style): speed from the history class (`history`, a fitted catalog; null = the catalog of the
// BeliefContext, as in-sample `history`); total work from Eq. 1 refitted (models::fit_eq1) to the losses the job has
// reported so far, read off where the fitted curve reaches the job's target loss. Rules (docs/heldout.md):
// - fewer than kOnlineMinLosses losses, or a job that reports no loss: the history class's work (the prior);
// - refit whenever the number of losses has grown by a quarter since the last fit (3, 4, 5, 7, 9, 12, ...);
// - a fitted curve that never reaches the target: the prior; any estimate is capped at kOnlineCapFactor x the
//   prior and floored at the work done plus half an evaluation interval (the job has not converged yet).
inline constexpr int kOnlineMinLosses = 3;
inline constexpr double kOnlineCapFactor = 10.0;
std::shared_ptr<const BeliefSource> make_online_source(LossObserver observe, std::shared_ptr<const Catalog> history);

// `agent`: what the job's own agent knows (sim/beliefs/agent_belief.h): the class of `prior` (a fitted history
// catalog; null = the BeliefContext's catalog, in-sample) corrected by the steps the job measured of its own runs,
// which the engine reports with lognormal noise of `measurement_sigma` (EngineConfig::step_measurement_sigma; the
// belief weighs them by it); a goodput-model job: its AdaptDL agent's fitted report. Work: the prior's.
inline constexpr double kDefaultAgentMeasurementSigma = 0.05;
std::shared_ptr<const BeliefSource> make_agent_source(std::shared_ptr<const Catalog> prior, double measurement_sigma);

// The `beliefs.<source>` options of a config, each read by its own source (BeliefSourceInfo::read_options); the
// runner hands them to the channels they parameterise.
struct BeliefOptions {
  double exploration_measurement_sigma = 0.05;                     // beliefs.exploration.measurement_sigma
  double agent_measurement_sigma = kDefaultAgentMeasurementSigma;  // beliefs.agent.measurement_sigma
};

// What a belief source may be built from in one replicate: the history catalog (null: the BeliefContext's catalog,
// in-sample) and the observation channels the truth hands out (empty when the caller has none).
struct BeliefInputs {
  std::shared_ptr<const Catalog> history;
  SpeedMeasurer measure;  // `exploration`: the job's own noisy steps at 1, 2, 4, 8 GPUs
  LossObserver losses;    // `online`: the losses the job reports
  double agent_measurement_sigma = kDefaultAgentMeasurementSigma;
};

// The registry of belief sources, in name order (`ringsched strategies` lists it, configs accept its names). Each
// source registers itself in the file that implements it with a BeliefSourceRegistrar (docs/extending.md).
struct BeliefSourceInfo {
  std::string name;
  std::string description;
  // Builds the source; null when `inputs` lacks the channel it needs (`needs` names it for the error).
  std::function<std::shared_ptr<const BeliefSource>(const BeliefInputs&)> make;
  std::string needs;
  // Reads the config's `beliefs.<name>` object (its keys, ranges, defaults) into `options`; empty = the source takes
  // no options (the key `beliefs.<name>` is then refused as unknown).
  std::function<void(const JsonReader& object, BeliefOptions& options)> read_options;
  // Why the source cannot serve a strategy on `catalog` (the rest of "belief source 'x' ..."); "" = it can. Empty
  // function = any catalog.
  std::function<std::string(const Catalog& catalog)> check_catalog;
};
// One object at namespace scope with a unique name (even in a unity build), beside the source:
//   const BeliefSourceRegistrar none_belief_registrar{{"none", "no beliefs (rigid strategies)", make_none}};
// Two sources of one name make every look-up throw std::logic_error naming it.
struct BeliefSourceRegistrar {
  explicit BeliefSourceRegistrar(BeliefSourceInfo info);
};
const std::vector<BeliefSourceInfo>& belief_source_registry();
std::vector<std::string> belief_source_names();

// The source `name` built from `inputs`. Throws InputError naming `where` for an unknown name and for a source whose
// channel `inputs` lacks.
std::shared_ptr<const BeliefSource> make_belief_source(const std::string& name, const BeliefInputs& inputs,
                                                       const std::string& where);
// The same without channels or a fitted history (in-sample: none, oracle, history, agent).
std::shared_ptr<const BeliefSource> make_belief_source(const std::string& name, const std::string& where);

}  // namespace ringsched
