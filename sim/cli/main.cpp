// sim/cli/main.cpp — the `ringsched` command line (CLI11): registers the subcommands (commands.h), parses, runs the
// chosen one and maps failures to exit codes: 0 ok, 1 runtime failure, 2 bad input.
#include <iostream>
#include <vector>

#include <CLI/CLI.hpp>

#include "models/input_error.h"
#include "sim/cli/commands.h"
#include "sim/cli/flags.h"
#include "sim/cli/interrupt.h"

using namespace ringsched;

int main(int argc, char** argv) {
  cli::handle_interrupts();  // before any thread starts, so that every thread inherits the blocked signals
  CLI::App app{
      "ringsched: simulate elastic scheduling of ring all-reduce training jobs on GPU clusters (arXiv 1908.08082).\n"
      "Start with `ringsched table3`; see README.md for the config format."};
  app.require_subcommand(1);
  app.set_version_flag("--version", std::string("ringsched ") + RINGSCHED_VERSION);
  const std::vector<cli::Command> commands = {
      cli::add_table3_command(app),     cli::add_simulate_command(app), cli::add_validate_command(app),
      cli::add_strategies_command(app), cli::add_catalogs_command(app), cli::add_sweep_command(app),
      cli::add_check_command(app),      cli::add_fit_command(app),      cli::add_metrics_command(app)};
  if (argc == 1) {  // no command: the list of commands, on stderr (nothing ran), and the first one to try
    std::cerr << app.help() << "\nringsched: error: a command is required; start with `ringsched table3`\n";
    return 2;
  }
  if (const std::string bad = cli::check_names(app, argc, argv); !bad.empty()) {
    std::cerr << "ringsched: error: " << bad << "\n";
    return 2;
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    app.exit(e);
    return 2;
  }
  try {
    for (const auto& c : commands) {
      if (*c.app) return c.run();
    }
  } catch (const InputError& e) {
    std::cerr << "ringsched: error: " << e.what() << "\n";
    return 2;
  } catch (const std::exception& e) {
    std::cerr << "ringsched: failure: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
