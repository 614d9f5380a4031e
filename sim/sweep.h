// sim/sweep.h — batch experiments: a sweep file (base experiment + axes over any config key by JSON path, as a
// cartesian product or an explicit cell list, replicates per cell), its expansion into cells, the order-preserving
// runner (threads; ranks through a SweepComm, MPI in sim/sweep_mpi.cpp), incremental atomic output with --resume,
// and the output files (sweep.json, runs.csv, cells.csv). See docs/sweeps.md.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <variant>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/experiment.h"
#include "sim/metrics.h"

namespace ringsched {

// "cluster.nodes", "levels[0].load", "strategies[1].params.x": object keys separated by '.', array indices in [].
using JsonPathSegment = std::variant<std::string, std::size_t>;
// Throws InputError "where: ..." on a malformed path.
std::vector<JsonPathSegment> parse_json_path(const std::string& path, const std::string& where);
// The value at the path, or nullptr when it does not exist. `missing` (if given) receives a reason.
const nlohmann::json* find_json_path(const nlohmann::json& doc, const std::vector<JsonPathSegment>& path,
                                     std::string* missing = nullptr);

struct SweepAxis {
  std::string name;  // column name (default: the path)
  std::string path;  // JSON path into the base experiment config
  std::vector<JsonPathSegment> segments;
  std::vector<nlohmann::json> values;  // empty for the columns of an explicit cell list
};

struct SweepSpec {
  std::string origin;  // the sweep file, for messages
  std::string description;
  nlohmann::json base;      // the base experiment config (with "seeds" set from "replicates")
  std::string base_origin;  // where the base came from (the sweep file, a config file or builtin:table3)
  std::string base_dir;     // resolves relative paths inside the base (catalog files)
  std::vector<SweepAxis> axes;
  // One entry per cell, in output order: one value per axis (null = this cell leaves that key as in the base).
  std::vector<std::vector<nlohmann::json>> cells;
  std::string config_hash;  // "fnv1a64:<16 hex>" of the canonical sweep (base, axes, cells)

  [[nodiscard]] std::size_t size() const { return cells.size(); }
  // The experiment config document of one cell (the base with the cell's values written at the axis paths).
  [[nodiscard]] nlohmann::json cell_document(std::size_t cell) const;
  // "restart.cost_s=10, cluster.nodes=4" (axis names), for messages and the check command.
  [[nodiscard]] std::string cell_label(std::size_t cell) const;
};

// Parses and expands a sweep file; errors are InputError naming the sweep file and the JSON path (exit code 2).
SweepSpec parse_sweep(const nlohmann::json& doc, const std::string& origin, const std::string& base_dir);
SweepSpec load_sweep(const std::string& path);

struct SweepRun {
  int level = 0;
  int strategy = 0;
  int replicate = 0;
  std::uint64_t seed = 0;
  RunMetrics metrics;
  std::string error;  // non-empty if this replicate failed
};

struct SweepCellResult {
  bool done = false;
  std::string error;  // the cell's config is invalid (then runs is empty)
  std::vector<std::string> levels;
  std::vector<std::string> strategies;
  std::vector<SweepRun> runs;  // by level, then strategy, then replicate
};

struct SweepResults {
  std::vector<SweepCellResult> cells;  // indexed like SweepSpec::cells
  [[nodiscard]] std::size_t done_cells() const;
  [[nodiscard]] std::size_t failed_cells() const;  // cells with a config error or at least one failed run
};

// Output files (only cells with done == true appear; identical bytes for any thread or rank count).
nlohmann::json sweep_results_json(const SweepSpec& spec, const SweepResults& results);
std::string sweep_runs_csv(const SweepSpec& spec, const SweepResults& results);
std::string sweep_cells_csv(const SweepSpec& spec, const SweepResults& results);
// Reads a sweep.json back for --resume. Throws InputError with the reason when it belongs to another sweep
// (config hash), another ringsched version or format, or is unreadable.
SweepResults read_sweep_results(const SweepSpec& spec, const nlohmann::json& doc, const std::string& origin);

// How a sweep spreads work over processes. The default is one process; sim/sweep_mpi.cpp provides MPI ranks.
class SweepComm {
 public:
  virtual ~SweepComm() = default;
  [[nodiscard]] virtual int rank() const = 0;
  [[nodiscard]] virtual int size() const = 0;
  // Root (rank 0) passes its text; every rank returns it.
  virtual std::string broadcast(const std::string& text) = 0;
  // Every rank passes its text; rank 0 returns all of them by rank, others an empty vector.
  virtual std::vector<std::string> gather(const std::string& text) = 0;
};
std::unique_ptr<SweepComm> make_local_comm();

struct SweepOptions {
  std::string out_dir;         // required
  int threads = 0;             // 0 = all hardware threads
  bool resume = false;         // continue the results in out_dir (refused if they belong to another sweep)
  bool force = false;          // overwrite existing results in out_dir
  bool quiet = false;          // no progress bar
  double flush_seconds = 1.0;  // rewrite the output files at most this often (and always at the end)
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

// FNV-1a 64-bit of text, as "fnv1a64:<16 hex digits>".
std::string fnv1a64_hex(const std::string& text);

}  // namespace ringsched
