// sim/cli/sweep.cpp — `ringsched sweep`: run a sweep file on all cores, and over MPI ranks under mpirun.
#include <iostream>
#include <memory>

#include "models/input_error.h"
#include "sim/cli/commands.h"
#include "sim/cli/flags.h"
#include "sim/sweeps/sweep.h"
#ifdef RINGSCHED_WITH_MPI
#include "sim/cli/sweep_mpi.h"
#endif

namespace ringsched::cli {
namespace {

struct SweepCliOptions {
  std::string config;
  std::string plot;
  SweepOptions opt;
};

}  // namespace

Command add_sweep_command(CLI::App& app) {
  auto o = std::make_shared<SweepCliOptions>();
  auto* sweep = app.add_subcommand(
      "sweep", "Run a sweep file (base config + axes or cells, replicates) on all cores; under mpirun over ranks");
  sweep->add_option("--config", o->config, "Sweep file (JSON)")->required();
  sweep->add_option("--out", o->opt.out_dir, "Output directory: sweep.json, runs.csv, cells.csv")->required();
  sweep->add_option("--threads", o->opt.threads, "Worker threads per process (0 = all cores)")
      ->check(strict_integer())
      ->check(CLI::Range(0, 4096));
  sweep->add_flag("--resume", o->opt.resume, "Continue the results in --out (refused if from another config)");
  sweep->add_flag("--force", o->opt.force, "Overwrite results already in --out");
  sweep->add_flag("--quiet", o->opt.quiet, "No progress bar");
  sweep->add_option("--flush-seconds", o->opt.flush_seconds, "Rewrite the output files at most this often")
      ->check(strict_number())
      ->check(CLI::Range(0.0, 86400.0));
  sweep->add_option("--plot", o->plot, "Draw the sweep plots (PNG + SVG) into this directory");
  sweep
      ->add_option("--time-unit", o->opt.plot_time_unit,
                   "Unit of the times in --plot's figures: s, min (default) or h (the output files keep seconds)")
      ->check(CLI::IsMember({"s", "min", "h"}));
  sweep->footer(
      "Examples:\n  ringsched sweep --config workloads/examples/sweep-load.json --out out/load\n"
      "  mpirun -np 4 ringsched sweep --config big.json --out out/big --resume\n"
      "Sweep file format and outputs: docs/sweeps.md (a base may be builtin:table3 or builtin:heldout).");
  return {sweep, [o] {
            std::unique_ptr<SweepComm> comm;
#ifdef RINGSCHED_WITH_MPI
            comm = make_mpi_comm_if_launched();
#endif
            if (!comm) comm = make_local_comm();
            if (comm->size() <= 1) return sweep_command(o->config, o->opt, o->plot, *comm);
            // Over ranks, a failure on one rank (a write error on rank 0, memory on another) must not leave the
            // others waiting in a collective: report it and stop every rank.
            try {
              return sweep_command(o->config, o->opt, o->plot, *comm);
            } catch (const InputError& e) {
              // Bad input is found by rank 0 before any run and rethrown on every rank (all stop together): one
              // message is enough.
              if (comm->rank() == 0) std::cerr << "ringsched: error: " << e.what() << "\n" << std::flush;
              return 2;
            } catch (const std::exception& e) {
              std::cerr << "ringsched: failure on rank " << comm->rank() << ": " << e.what()
                        << "; stopping every rank\n"
                        << std::flush;
              comm->abort_all(1);
            }
            return 1;
          }};
}

}  // namespace ringsched::cli
