// profiler/fit_check.h — `ringsched-profile fit-check`: fits Eq. 5 to measurements at some world sizes (by default
// the powers of two) and prints predicted versus measured step time at every measured world size, so the error at
// the held-out (non-power-of-two) sizes is visible.
#pragma once

#include <iosfwd>
#include <string>
#include <vector>

#include "models/fit.h"

namespace ringsched::profiler {

struct FitCheckOptions {
  std::vector<std::string> files;  // measurement files (one per world size, same model and backend)
  std::vector<int> fit_on;         // world sizes to fit on; empty = the powers of two present
};

struct FitCheckRow {
  models::SpeedPoint point;
  double predicted_seconds = 0.0;
  double error_percent = 0.0;  // (predicted - measured) / measured * 100
  bool in_fit = false;
};

struct FitCheckResult {
  models::Eq5Fit fit;
  double model_size = 0.0;
  std::vector<FitCheckRow> rows;
  double fit_mape = 0.0;     // mean |error| over the fitted points, percent
  double heldout_mape = -1;  // over the other points; -1 if there are none
};

// Throws ringsched::InputError for unreadable/invalid files, --fit-on sizes with no measurement, or no points.
FitCheckResult run_fit_check(const FitCheckOptions& options);

// Prints the coefficients and the per-point table (Markdown).
void print_fit_check(const FitCheckResult& result, std::ostream& out);

}  // namespace ringsched::profiler
