// strategies/registry.h — strategies registered by name. Each strategy file defines a `StrategyInfo` (name,
// description, the belief source it uses by default, its parameters) and registers it itself with a
// `StrategyRegistrar` (nothing else lists strategies; the folder's library is linked whole, cmake/). An unknown name
// fails with the list of valid names.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "strategies/strategy.h"
#include "workloads/io/json_reader.h"

namespace ringsched {

struct StrategyInfo {
  std::string name;
  std::string description;
  std::string default_beliefs;      // "none", "history", "oracle", ...
  std::vector<std::string> params;  // accepted parameter keys (documented in the description)
  // Chooses a GPU type for every job (Decision::pools), so it runs on a cluster with cluster.pools.
  bool gpu_types = false;
  // Runs only there (Gavel's policies): configs without cluster.pools refuse it, and `--strategies all` leaves it out.
  bool needs_gpu_types = false;
  // Plans every node's GPUs itself (Assignment::nodes): configs with cluster.failures refuse it (it would plan on
  // failed nodes; docs/failures.md).
  bool places_nodes = false;
  // Queues jobs per virtual cluster and names their nodes in its VC (Snapshot::vcs, Change::nodes), so it runs on a
  // cluster with cluster.virtual_clusters (configs refuse the others there).
  bool virtual_clusters = false;
  // Without gpu_types: why it cannot choose types (configs with cluster.pools refuse it with this reason).
  std::string no_gpu_types_reason;
  // On a cluster with GPU pools: why the strategy's params do not fit the pools' GPU types ("" when they do), for
  // configs to refuse it at its params (exit 2). Null: nothing to check.
  std::function<std::string(const JsonReader& params, const std::vector<std::string>& gpu_types)> check_pools;
  // For a strategy whose default beliefs are "none": whether it plans with beliefs under these params all the same
  // (then configs refuse beliefs "none" for it). Null: never (qssf: with estimator "oracle").
  std::function<bool(const JsonReader& params)> plans_with_beliefs;
  // Builds a fresh instance (one per replicate). `params` is an object holding only keys from `params`.
  std::function<std::unique_ptr<Strategy>(const JsonReader& params)> make;
};

// Registers (or replaces) a strategy at run time (the Python module's register_strategy).
void register_strategy(StrategyInfo info);

// A strategy file registers itself with one object at namespace scope, named after the strategy (names must be unique
// even in a unity build):   const StrategyRegistrar fifo_registrar{fifo_strategy_info};
// The info is built on the first look-up (no static-initialisation order to worry about). Two files registering one
// name make that look-up throw std::logic_error naming it.
struct StrategyRegistrar {
  explicit StrategyRegistrar(StrategyInfo (*info)());
};
[[nodiscard]] std::vector<StrategyInfo> strategy_infos();  // sorted by name
[[nodiscard]] std::vector<std::string> strategy_names();
// Throws InputError naming `where` and listing valid names if unknown.
[[nodiscard]] StrategyInfo find_strategy(const std::string& name, const std::string& where);

// The `class_max_gpus` parameter shared by optimus and pollux: an object of class name -> most GPUs (1..2^20) for
// that class's jobs; empty when absent. Fails naming the parameter's JSON path.
std::map<std::string, int> class_max_gpus_param(const JsonReader& params);

}  // namespace ringsched
