// models/fit.h — fitting Eq. 5 from measured (w, step time) points and Eq. 1 from loss points, with
// cross-validation (leave-one-GPU-count-out MAPE).
#pragma once

#include <vector>

#include "models/convergence.h"
#include "models/speed_model.h"

namespace ringsched::models {

// One measured step: w workers spanning `nodes` nodes, global minibatch m samples, seconds per step.
struct SpeedPoint {
  int w = 1;
  int nodes = 1;
  double global_batch = 0.0;
  double step_seconds = 0.0;
};

struct Eq5Fit {
  Eq5Coeffs coeffs;
  double r2 = 0.0;    // coefficient of determination on step times
  double mape = 0.0;  // in-sample mean absolute percentage error on speeds, in percent
  int points = 0;
};

// Fits t0..t3 >= 0 by NNLS on step times (the model is linear in t0..t3 for known m, n, w).
// Points are weighted by 1/step_seconds so the fit minimises relative error. Needs >= 1 point; throws
// std::invalid_argument if there are none or a point is not positive.
Eq5Fit fit_eq5(const std::vector<SpeedPoint>& points, double model_size);

// Leave-one-GPU-count-out cross-validation: for each distinct w, fit on the others and predict its points.
// Returns the MAPE (percent) over all held-out points; NaN if fewer than two distinct w values.
double cross_validate_eq5(const std::vector<SpeedPoint>& points, double model_size);

// Coefficient of determination 1 - SS_res / SS_tot of predictions against measurements (same length, >= 1).
// When the measurements have no spread: 1 if the predictions match them exactly, else 0.
double coefficient_of_determination(const std::vector<double>& predicted, const std::vector<double>& actual);

// MAPE (percent) of a fitted model's predicted speeds on the given points.
double eq5_mape(const Eq5Coeffs& c, const std::vector<SpeedPoint>& points, double model_size);

struct LossPoint {
  double k = 0.0;     // steps (or samples) done
  double loss = 0.0;  // loss-like value, decreasing towards b2
};

struct Eq1Fit {
  Eq1Coeffs coeffs;
  double r2 = 0.0;
  double rmse = 0.0;
  int points = 0;
};

// Fits Eq. 1: for each candidate b2 in [0, min loss) on a grid refined around the best, solves the linear NNLS
// 1/(l - b2) ~ b0 k + b1 for b0, b1 >= 0, keeping the b2 whose curve best matches the losses. Needs >= 3
// points; throws std::invalid_argument otherwise. `grid`: candidates per refinement round (three rounds); the
// default resolves b2 to about 1e-7 of the loss range; online refits use a coarser grid (40: about 6e-5).
Eq1Fit fit_eq1(const std::vector<LossPoint>& points, int grid = 200);

}  // namespace ringsched::models
