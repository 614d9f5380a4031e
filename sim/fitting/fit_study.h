// sim/fitting/fit_study.h — the fit study of `ringsched fit --pollux all`: protocols side by side on every Pollux
// application, held-out error at 16+ GPUs, and the noise floor of the measured tables (how well any predictor can
// do given the spread between same-size placements). Doc: docs/heldout.md.
#pragma once

#include <string>
#include <vector>

#include "models/fit.h"
#include "sim/fitting/speed_fit.h"

namespace ringsched {

// Noise floor of a measured table, speed APEs in percent.
struct NoiseFloor {
  // Leave-one-out mean of the other measurements with the same (w, nodes, per-GPU batch): only points whose group
  // has >= 2 measurements (e.g. placements 13 and 22, or 1444 and 2344).
  int group_points = 0;
  double group_mape = 0.0;  // NaN if none
  int group_points_16 = 0;
  double group_mape_16 = 0.0;
  // Leave-one-out interpolation of the table itself (models::TableStepTime on every other point) at 16+ GPUs.
  int table_points_16 = 0;
  double table_mape_16 = 0.0;
  double table_median_16 = 0.0;
  int table_clamped_16 = 0;  // of them, lookups outside the remaining points' range (edge value used)
};
NoiseFloor noise_floor(const std::vector<models::SpeedPoint>& points);

// Mean and median of speed APEs (percent); NaN for none.
double mean_of(std::vector<double> v);
double median_of(std::vector<double> v);
// "12.3%" (one decimal); "n/a" for NaN or infinity.
std::string format_pct(double v);

// `ringsched fit --pollux all`, second part (Markdown): per application and protocol (paper, two-level, multi-node),
// the mean and median speed APE at the held-out 16+ GPU points, next to the noise floor; then the medians over
// applications.
std::string render_pollux_heldout_summary(const std::string& pollux_dir);

// `ringsched fit --pollux all`, third part (Markdown): the two-node study. Speed APE at the 32+ GPU points (all on
// 8-16 nodes) from probes of at most 2 nodes, mean / median per application and per (probes, model): paper,
// two-level, every <= 2-node point under eq5 / two-level / net, the packed <= 2-node points (1, 2, 4, 4+4) under
// net, and multi-node (a 4-node probe) for reference; the ratio of step times on 2 nodes to 3-4 nodes at equal GPUs
// and batch; then the net model's leave-one-probe-out choice per application.
std::string render_two_node_study(const std::string& pollux_dir);

// Side-by-side comparison of protocols on every Pollux application (Markdown), as `ringsched fit --pollux all`.
std::string render_pollux_protocol_table(const std::string& pollux_dir, const std::vector<FitProtocol>& protocols);

}  // namespace ringsched
