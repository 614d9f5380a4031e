// sim/cli/strategies.cpp — `ringsched strategies`: the registered strategies with their parameters, and the belief
// sources.
#include <iostream>

#include "sim/cli/commands.h"
#include "strategies/registry.h"

namespace ringsched::cli {

Command add_strategies_command(CLI::App& app) {
  auto* s = app.add_subcommand("strategies", "List the registered strategies and their parameters");
  return {s, [] {
            for (const auto& i : strategy_infos())
              std::cout << i.name << "  (beliefs: " << i.default_beliefs << ")\n    " << i.description << "\n";
            std::cout << "\nBelief sources (choose with name[beliefs] or \"beliefs\" in a config): none; oracle (the "
                         "job's truth, for reference); history (class models of completed runs: the catalog's, or "
                         "fitted on training runs with beliefs.history); online (Eq. 1 refitted to the losses the job "
                         "reports; needs a catalog with loss curves, e.g. pollux); exploration (Eq. 5 fitted to the "
                         "job's own measured speeds). docs/config.md, docs/heldout.md\n";
            return 0;
          }};
}

}  // namespace ringsched::cli
