// sim/cli/strategies.cpp — `ringsched strategies`: the registered strategies with their parameters, whether they
// run on GPU pools and on virtual clusters, and the belief sources.
#include <iostream>
#include <string>

#include "sim/beliefs/belief_sources.h"
#include "sim/cli/commands.h"
#include "strategies/registry.h"

namespace ringsched::cli {

Command add_strategies_command(CLI::App& app) {
  auto* s = app.add_subcommand("strategies", "List the registered strategies and their parameters");
  s->footer(
      "Examples:\n  ringsched strategies\n"
      "  ringsched simulate --config my.json --strategies 'eight,precompute[oracle],optimus'   # name[beliefs]\n"
      "Adding a strategy: README \"How to add a strategy\" (C++) or docs/python.md (Python).");
  return {s, [] {
            for (const auto& i : strategy_infos()) {
              // Whether it runs on a cluster with GPU types (cluster.pools), and why not when it does not.
              const std::string pools = i.needs_gpu_types ? "only" : i.gpu_types ? "yes" : "no";
              std::cout << i.name << "  (beliefs: " << i.default_beliefs << "; GPU pools: " << pools << ")\n    "
                        << i.description << "\n";
              if (!i.gpu_types && !i.no_gpu_types_reason.empty())
                std::cout << "    Not on GPU pools: " << i.no_gpu_types_reason << ".\n";
              if (i.virtual_clusters)
                std::cout << "    On virtual clusters (cluster.virtual_clusters): one queue per VC, on its nodes.\n";
            }
            std::cout << "\nBelief sources (choose with name[beliefs] or \"beliefs\" in a config; docs/heldout.md "
                         "\"What each belief source knows\"):\n";
            for (const auto& b : belief_source_registry())
              std::cout << "  " << b.name << ": " << b.description << "\n";
            return 0;
          }};
}

}  // namespace ringsched::cli
