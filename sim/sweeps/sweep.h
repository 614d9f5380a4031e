// sim/sweeps/sweep.h — batch experiments: running a sweep (sweep_spec.h) cell by cell on threads and, through
// a SweepComm, MPI ranks (sim/cli/sweep_mpi.cpp), in a fixed output order, with incremental atomic output and
// --resume (sweep_results.h); and `ringsched sweep`. See docs/sweeps.md.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "sim/experiments/runner.h"
#include "sim/sweeps/sweep_results.h"
#include "sim/sweeps/sweep_spec.h"

namespace ringsched {

// How a sweep spreads work over processes. The default is one process; sim/cli/sweep_mpi.cpp provides MPI ranks.
class SweepComm {
 public:
  virtual ~SweepComm() = default;
  [[nodiscard]] virtual int rank() const = 0;
  [[nodiscard]] virtual int size() const = 0;
  // Root (rank 0) passes its text; every rank returns it.
  virtual std::string broadcast(const std::string& text) = 0;
  // Every rank passes its text; rank 0 returns all of them by rank, others an empty vector.
  virtual std::vector<std::string> gather(const std::string& text) = 0;
  // Stops every rank now with `code` (MPI_Abort): what a rank does when it fails alone, so the others do not wait
  // for it forever. A single process has nothing to stop.
  virtual void abort_all(int code) { (void)code; }
};
std::unique_ptr<SweepComm> make_local_comm();

struct SweepOptions {
  std::string out_dir;         // required
  int threads = 0;             // 0 = all hardware threads
  bool resume = false;         // continue the results in out_dir (refused if they belong to another sweep)
  bool force = false;          // overwrite existing results in out_dir
  bool quiet = false;          // no progress bar
  double flush_seconds = 1.0;  // rewrite the output files at most this often (and always at the end)
  std::string plot_time_unit;  // --time-unit for --plot's figures (s, min, h; "" = the plot script's default)
  // Testing hook (env RINGSCHED_SWEEP_FAIL_RANK): this rank throws before its first batch, as a rank that fails
  // alone would (the MPI test checks that every rank stops). < 0: off.
  int fail_rank = -1;
  // Testing hook (env RINGSCHED_SWEEP_STOP_AFTER): flush and stop the process with exit code 75 once at least
  // this many cells were finished by this invocation. <= 0: off.
  int stop_after_cells = 0;
};

struct SweepOutcome {
  std::size_t cells_total = 0;
  std::size_t cells_skipped = 0;  // already done (--resume)
  std::size_t cells_run = 0;
  std::size_t runs = 0;  // replicate runs executed by all ranks
  std::size_t failed_cells = 0;
  double seconds = 0.0;
  std::string failures;  // one line per failed cell or run (rank 0)
};

// Runs every cell not yet done and writes out_dir/{sweep.json,runs.csv,cells.csv}. Collective over `comm`:
// every rank must call it with the same spec and options; only rank 0 writes and reports.
SweepOutcome run_sweep(const SweepSpec& spec, const SweepOptions& options, SweepComm& comm);

// `ringsched sweep`: loads the sweep file, runs it (RINGSCHED_SWEEP_STOP_AFTER=K sets stop_after_cells), reports
// on stderr (rank 0), draws plots into plot_dir when given. Returns the exit code: 0, or 1 when a cell or run
// failed or plotting failed; throws InputError for bad input (exit 2).
int sweep_command(const std::string& config_path, SweepOptions options, const std::string& plot_dir, SweepComm& comm);

}  // namespace ringsched
