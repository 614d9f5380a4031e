// sim/cli/commands.h — the subcommands of `ringsched`, one source file each (table3.cpp, simulate.cpp, ...): each
// declares its options on a CLI11 subcommand and returns what running it does. They are thin adapters: the work is
// in sim/experiments/. Exit codes: 0 ok, 1 runtime failure (a run failed, plotting failed, drift found), 2 bad input
// (InputError, with the file and JSON path or line).
#pragma once

#include <functional>

#include <CLI/CLI.hpp>

namespace ringsched::cli {

struct Command {
  CLI::App* app = nullptr;
  std::function<int()> run;  // throws InputError for bad input
};

Command add_table3_command(CLI::App& app);
Command add_simulate_command(CLI::App& app);
Command add_validate_command(CLI::App& app);
Command add_strategies_command(CLI::App& app);
Command add_metrics_command(CLI::App& app);  // metrics.cpp
Command add_catalogs_command(CLI::App& app);
Command add_sweep_command(CLI::App& app);
Command add_check_command(CLI::App& app);
Command add_fit_command(CLI::App& app);

}  // namespace ringsched::cli
