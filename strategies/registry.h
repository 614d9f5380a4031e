// strategies/registry.h — strategies registered by name. Each strategy file defines a `StrategyInfo` (name,
// description, the belief source it uses by default, its parameters) and registry.cpp lists them.
// An unknown name fails with the list of valid names.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "strategies/strategy.h"
#include "workloads/json_reader.h"

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
  // Without gpu_types: why it cannot choose types (configs with cluster.pools refuse it with this reason).
  std::string no_gpu_types_reason;
  // Builds a fresh instance (one per replicate). `params` is an object holding only keys from `params`.
  std::function<std::unique_ptr<Strategy>(const JsonReader& params)> make;
};

void register_strategy(StrategyInfo info);
[[nodiscard]] std::vector<StrategyInfo> strategy_infos();  // sorted by name
[[nodiscard]] std::vector<std::string> strategy_names();
// Throws InputError naming `where` and listing valid names if unknown.
[[nodiscard]] StrategyInfo find_strategy(const std::string& name, const std::string& where);

// The built-in strategies (defined in one file each).
StrategyInfo eight_strategy_info();
StrategyInfo fifo_strategy_info();

// The `class_max_gpus` parameter shared by optimus and pollux: an object of class name -> most GPUs (1..2^20) for
// that class's jobs; empty when absent. Fails naming the parameter's JSON path.
std::map<std::string, int> class_max_gpus_param(const JsonReader& params);
StrategyInfo precompute_strategy_info();
StrategyInfo optimus_strategy_info();
StrategyInfo exploratory_strategy_info();
StrategyInfo optimal_strategy_info();   // strategies/optimal.cpp (issue 6)
StrategyInfo srtf_strategy_info();      // strategies/srtf.cpp
StrategyInfo tiresias_strategy_info();  // strategies/tiresias.cpp
StrategyInfo afs_strategy_info();       // strategies/afs.cpp
StrategyInfo pollux_strategy_info();    // strategies/pollux/pollux.cpp
// Gavel's policies on its round mechanism (strategies/gavel/gavel.cpp).
StrategyInfo gavel_fifo_strategy_info();
StrategyInfo gavel_fifo_perf_strategy_info();
StrategyInfo max_min_fairness_strategy_info();
StrategyInfo max_min_fairness_perf_strategy_info();
StrategyInfo finish_time_fairness_perf_strategy_info();
StrategyInfo min_total_duration_perf_strategy_info();

}  // namespace ringsched
