// models/table_speed.h — the `table` speed model kind: measured seconds per step at (GPU count w, nodes spanned,
// per-GPU batch), interpolated piecewise-linearly between measured points and clamped (and counted) outside them.
// No I/O: readers of measured files (workloads/pollux.h, the `table` speed kind) build it from TablePoints.
#pragma once

#include <cstdint>
#include <map>
#include <utility>
#include <vector>

#include "models/step_time_model.h"

namespace ringsched::models {

// One measured step: w GPUs over `nodes` nodes, `local_batch` samples per GPU, seconds per step.
struct TablePoint {
  int w = 1;
  int nodes = 1;
  double local_batch = 0.0;
  double step_seconds = 0.0;
};

// step_seconds lookups done and those that fell outside the measured range in some dimension (answered by clamping).
struct TableStats {
  std::uint64_t lookups = 0;
  std::uint64_t clamped = 0;
};

// One table's lookups on a thread, and the range the clamped ones asked for (w, nodes, per-GPU batch).
struct TableClampStats {
  std::uint64_t lookups = 0;
  std::uint64_t clamped = 0;
  int w_min = 0;  // clamped lookups' range; meaningful when clamped > 0
  int w_max = 0;
  int nodes_min = 0;
  int nodes_max = 0;
  double batch_min = 0.0;
  double batch_max = 0.0;
  void merge(const TableClampStats& o);
};

// What a table measured: the ranges of its points.
struct TableRange {
  int w_min = 0;
  int w_max = 0;
  int nodes_min = 0;
  int nodes_max = 0;
  double batch_min = 0.0;
  double batch_max = 0.0;
};

// Interpolation rule (exact at every measured point, linear, hence monotone, between neighbouring points):
//   1. per-GPU batch b = global_batch / w; within one measured (w, nodes) group, linear in b between the two
//      nearest measured batches;
//   2. at a measured w, linear in the node count between the two nearest measured node counts for that w;
//   3. at an unmeasured w, linear in w between the nearest measured w_lo < w < w_hi, each evaluated at the node
//      count that keeps the same GPUs per node (nodes * w_k / w).
// Outside the measured range of any dimension the nearest edge value is used and the lookup is counted as clamped.
// Repeated points (same w, nodes, batch; e.g. placements 13 and 22) are averaged.
class TableStepTime final : public StepTimeModel {
 public:
  // Throws std::invalid_argument for an empty table or a point with w < 1, nodes < 1, nodes > w, or a
  // non-positive / non-finite batch or step time (the message names the point's index).
  explicit TableStepTime(const std::vector<TablePoint>& points);

  [[nodiscard]] double step_seconds(int w, int nodes, double global_batch) const override;
  [[nodiscard]] std::string kind() const override { return "table"; }

  // Same as step_seconds, and sets *clamped (if given) when the lookup left the measured range. Does not count.
  [[nodiscard]] double lookup(double w, double nodes, double local_batch, bool* clamped) const;

  // The distinct measured points (after averaging repeats), ordered by w, nodes, batch.
  [[nodiscard]] std::vector<TablePoint> points() const;
  [[nodiscard]] TableRange range() const;

 private:
  struct Group {
    int nodes = 1;
    std::vector<double> batch;    // sorted, distinct
    std::vector<double> seconds;  // same length
  };
  using Row = std::vector<Group>;  // sorted by nodes

  [[nodiscard]] double row_value(const Row& row, double nodes, double b, bool& clamped) const;

  std::map<int, Row> rows_;  // by w
};

// step_seconds lookups of every table, counted per thread: a replicate runs on one thread, so the runner resets the
// count before a run and reads it after (exact per run, whatever runs beside it on other threads).
TableStats thread_table_stats();
void reset_thread_table_stats();
// The same lookups per TableStepTime (by address), on this thread, reset with the totals.
std::vector<std::pair<const TableStepTime*, TableClampStats>> thread_table_clamps();
// Counts one lookup of another measured-table model (the goodput model's) on this thread.
void count_table_lookup(bool clamped);

// Piecewise-linear interpolation of (xs, ys) at x (xs sorted ascending, distinct, non-empty); outside [xs.front(),
// xs.back()] returns the edge value and sets clamped.
double interpolate_linear(const std::vector<double>& xs, const std::vector<double>& ys, double x, bool& clamped);

}  // namespace ringsched::models
