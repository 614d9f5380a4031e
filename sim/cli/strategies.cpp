// sim/cli/strategies.cpp — `ringsched strategies`: the registered strategies with their parameters, and the belief
// sources.
#include <iostream>

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
            for (const auto& i : strategy_infos())
              std::cout << i.name << "  (beliefs: " << i.default_beliefs << ")\n    " << i.description << "\n";
            std::cout << "\nBelief sources (choose with name[beliefs] or \"beliefs\" in a config; docs/heldout.md "
                         "\"What each belief source knows\"):\n";
            for (const auto& b : belief_source_registry())
              std::cout << "  " << b.name << ": " << b.description << "\n";
            return 0;
          }};
}

}  // namespace ringsched::cli
