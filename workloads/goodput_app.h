// workloads/goodput_app.h — the goodput job model of one measured application, as the Pollux (OSDI'21) artifact's
// simulator defines it (petuum/adaptdl, branch osdi21-artifact, simulator/applications.py and simulator.py; every
// formula with its source in docs/fidelity.md): step and sync time by placement and per-GPU (atomic) batch from the
// measured tables, gradient accumulation above the largest per-GPU batch, the statistical-efficiency gain from the
// gradient statistics of the validation runs at the current global batch and epoch, progress per epoch and the
// completion epoch. Progress is counted in steps at the application's smallest validated batch ("progress units");
// a job's goodput is gain / seconds per (accumulated) step, in progress units per second.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "models/delaunay_interpolator.h"
#include "models/goodput.h"
#include "models/goodput_step_time.h"
#include "workloads/job_class.h"
#include "workloads/pollux_data.h"

namespace ringsched {

// The application limits of the artifact (applications.py): 0 = derived from the data (init batch = the smallest
// validated batch, max batch = the largest, min/max local batch = the smallest/largest per-GPU batch measured).
struct GoodputLimits {
  int max_epochs = 0;  // required: training stops after this many epochs (the artifact's target_metric is None)
  double init_batch_size = 0.0;
  double max_batch_size = 0.0;
  double min_local_bsz = 0.0;
  double max_local_bsz = 0.0;
  // goodput.interpolation "when_needed": tables whose points Qhull cannot triangulate (e.g. one per-GPU batch
  // measured throughout, as Sia's bert tables) load anyway, as Sia's simulator, which interpolates only for a
  // placement its tables lack; such a lookup then takes the nearest measured point (counted as clamped). false: a
  // load error (the default).
  bool interpolate_when_needed = false;
};

class GoodputApp;

// How an application folder gives its tables per GPU type (a goodput class's `goodput.by_type`, docs/config.md):
// kFiles, Sia's (SOSP'23) layout: placements-<type>.csv (and scalability-<type>.csv for every type or for none)
// beside the shared validation-<B>.csv; kColumn: one placements.csv (and optional scalability.csv) with a
// `gpu_type` column.
enum class GoodputTypeLayout { kFiles, kColumn };

// One application per GPU type, by type name (ascending).
using GoodputAppsByType = std::vector<std::pair<std::string, std::shared_ptr<const GoodputApp>>>;

class GoodputApp final : public GoodputProfile {
 public:
  // Reads <folder>/placements.csv, scalability.csv and validation-<B>.csv (with grad_sqr, grad_var). Bad rows fail
  // with file:line; InputError when max_epochs exceeds the shortest validation run or a limit is inconsistent.
  // Loaded applications are immutable and shared: a second load of the same folder (same files: names, sizes and
  // modification times) with the same name and limits in this process returns the first (a sweep's cells and runs
  // do not triangulate the tables again). Thread-safe.
  static std::shared_ptr<const GoodputApp> load(const std::string& name, const std::string& folder,
                                                const GoodputLimits& limits);
  // The application on each GPU type of `folder` in `layout` (workloads/goodput_types.cpp): every type's step tables
  // with the validation runs of the folder, which all types share: epochs, progress units and gradient statistics
  // belong to the application, not to the GPU it runs on (same_progress holds between any two). InputError naming
  // file (and line) for a type with no rows, a type in one file but not the other, an empty gpu_type, and as load.
  // Cached as load is. Thread-safe.
  static GoodputAppsByType load_by_type(const std::string& name, const std::string& folder, const GoodputLimits& limits,
                                        GoodputTypeLayout layout);
  // An application from step rows already read (placements rows, then scalability rows; `tables` names them in
  // messages) and the validation runs of `folder`; `gpu_type` as it will answer gpu_type(). Not cached.
  static std::shared_ptr<const GoodputApp> from_rows(const std::string& name, const std::string& folder,
                                                     const std::string& tables, const std::vector<PolluxStepRow>& rows,
                                                     const GoodputLimits& limits, const std::string& gpu_type);
  // The same read without the process-wide cache (the fuzz target rewrites one folder again and again).
  static std::shared_ptr<const GoodputApp> load_uncached(const std::string& name, const std::string& folder,
                                                         const GoodputLimits& limits) {
    return read(name, folder, limits);
  }

  [[nodiscard]] const std::string& name() const { return name_; }
  [[nodiscard]] const std::string& folder() const { return folder_; }
  // The GPU type whose tables these are; empty for an application read without types (load).
  [[nodiscard]] const std::string& gpu_type() const { return gpu_type_; }
  // True when `o` counts progress exactly as this does (so a job may move between them keeping its progress): the
  // same initial batch, epochs, validated batches, and progress and iterations per epoch.
  [[nodiscard]] bool same_progress(const GoodputApp& o) const;
  [[nodiscard]] double init_batch_size() const override { return init_batch_; }
  [[nodiscard]] double max_batch_size() const { return max_batch_; }
  [[nodiscard]] double min_local_bsz() const { return min_local_; }
  [[nodiscard]] double max_local_bsz() const { return max_local_; }
  [[nodiscard]] int max_epochs() const { return max_epochs_; }
  // The most GPUs of any measured row (placements.csv or scalability.csv).
  [[nodiscard]] int max_measured_gpus() const { return static_cast<int>(spread_points_.col(1).maxCoeff()); }
  // The validated global batch sizes, ascending.
  [[nodiscard]] std::vector<double> validated_batches() const;

  // Seconds per step and the part spent in gradient synchronisation, at `atomic_bsz` per GPU on `placement` (GPUs
  // per node, in allocation order; zeros ignored). A placement measured in placements.csv (up to rotation) is
  // interpolated linearly in the per-GPU batch between its rows; any other placement by the Delaunay interpolation
  // of (min(nodes, 16), GPUs, per-GPU batch) over the placements' means and the scalability rows. Outside the
  // measured range (a documented clamp, counted in models::thread_table_stats and printed by the commands): a
  // measured placement takes its edge row; an interpolated one its batch clamped into the measured per-GPU range,
  // and when still outside the hull, the nearest measured point. Never throws. Thread-safe.
  [[nodiscard]] models::StepSync step_time(const std::vector<int>& placement, double atomic_bsz) const override;
  // Gradient statistics at `batch_size` (linear between the bracketing validated batches) during epoch `epoch`.
  [[nodiscard]] models::GradStats grad_stats(double batch_size, int epoch) const override;
  // Progress units at the end of `epoch` epochs (0 at 0): the smallest over the validation runs.
  [[nodiscard]] double progress_at(int epoch) const;
  // Steps done at batch_size after epoch `epoch` (its row), linear between the bracketing validated batches.
  [[nodiscard]] double iteration_at(double batch_size, int epoch) const;
  // Total progress to completion: the end of epoch max_epochs.
  [[nodiscard]] double total_progress() const { return progress_at(max_epochs_); }
  // Batch configuration for a fixed global batch on `replicas` GPUs (simulator.py update_local_bsz).
  [[nodiscard]] models::BatchConfig fixed_batch(double batch_size, int replicas) const override;
  // Goodput in progress units per second of `cfg` on `placement` in epoch `epoch`.
  [[nodiscard]] double goodput(const std::vector<int>& placement, const models::BatchConfig& cfg, int epoch) const;

 private:
  struct Row {
    double local_bsz;
    double step;
    double sync;
  };
  struct Run {
    double batch;
    std::vector<double> progress;
    std::vector<double> iteration;
    std::vector<double> grad_sqr;
    std::vector<double> grad_var;
  };
  [[nodiscard]] models::StepSync measured_placement(const std::vector<Row>& rows, double bsz, bool& clamped) const;
  [[nodiscard]] models::StepSync interpolated(int nodes, int replicas, double bsz, bool& clamped) const;
  [[nodiscard]] models::StepSync compute_step_time(const std::vector<int>& key, double atomic_bsz, bool& clamped) const;
  static std::shared_ptr<const GoodputApp> read(const std::string& name, const std::string& folder,
                                                const GoodputLimits& limits);
  // Indices of the validated runs bracketing `batch` (equal when it is validated or clamped to an end).
  void bracket(double batch, std::size_t& lo, std::size_t& hi, bool& clamped) const;
  // A per-epoch column of the validation runs at (batch, epoch): linear in the batch between the two runs that
  // bracket it, the epoch clamped to the runs' length.
  [[nodiscard]] double run_column(double batch_size, int epoch, std::vector<double> Run::*column) const;

  std::uint64_t uid_ = 0;  // distinct per loaded application: keys the per-thread step-time memo
  std::string name_;
  std::string folder_;
  std::string gpu_type_;
  std::map<std::vector<int>, std::vector<Row>> placements_;  // normalised placement -> rows by batch
  std::unique_ptr<models::DelaunayInterpolator> spread_;     // the other placements
  Eigen::MatrixXd spread_points_;                            // its points (nodes, GPUs, per-GPU batch)
  Eigen::MatrixXd spread_values_;                            // and values (step, sync)
  std::vector<Run> runs_;                                    // by batch
  double init_batch_ = 0.0;
  double max_batch_ = 0.0;
  double min_local_ = 0.0;
  double max_local_ = 0.0;
  int max_epochs_ = 0;
};

// A job class whose truth is the goodput model of `app` (work = total progress x init batch; default batch =
// `batch_size`, 0 = the app's initial batch; fixed_global; GPUs 1..max_gpus).
JobClass goodput_job_class(const std::string& name, std::shared_ptr<const GoodputApp> app, double batch_size,
                           int max_gpus, bool adaptive_batch);

// What identifies a load of an application's tables in the process-wide caches: its name, limits, folder and the
// folder's files (names, sizes, modification times) as they are now.
std::string goodput_load_key(const std::string& name, const std::string& folder, const GoodputLimits& limits);

// A placement as the artifact's tables key it: zeros dropped, then the lexicographically smallest rotation.
std::vector<int> normalise_placement(const std::vector<int>& placement);

}  // namespace ringsched
