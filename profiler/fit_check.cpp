// profiler/fit_check.cpp — Eq. 5 fit on chosen world sizes, predicted vs measured everywhere.
#include "profiler/fit_check.h"

#include <cmath>
#include <cstdio>
#include <ostream>
#include <set>

#include "models/input_error.h"
#include "models/speed_model.h"
#include "workloads/measurement/measurement.h"

namespace ringsched::profiler {

FitCheckResult run_fit_check(const FitCheckOptions& options) {
  if (options.files.empty()) throw InputError("fit-check: give at least one measurement file");
  std::vector<Measurement> ms;
  for (const auto& f : options.files)
    ms.push_back(load_measurement(f));
  std::set<int> sizes;
  for (const auto& m : ms)
    sizes.insert(m.world_size);
  std::set<int> fit_on(options.fit_on.begin(), options.fit_on.end());
  if (fit_on.empty()) {
    for (int w : sizes)
      if ((w & (w - 1)) == 0) fit_on.insert(w);
  }
  for (int w : fit_on)
    if (!sizes.count(w)) throw InputError("--fit-on: no measurement file has world size " + std::to_string(w));
  if (fit_on.empty()) throw InputError("--fit-on: no world sizes to fit on");

  FitCheckResult r;
  r.model_size = measurement_model_size(ms);
  const auto points = measurement_points(ms);
  std::vector<models::SpeedPoint> train;
  for (const auto& p : points)
    if (fit_on.count(p.w)) train.push_back(p);
  try {
    r.fit = models::fit_eq5(train, r.model_size);
  } catch (const std::invalid_argument& e) {
    throw InputError(std::string("fit-check: ") + e.what());
  }
  double fit_sum = 0.0, held_sum = 0.0;
  int fit_n = 0, held_n = 0;
  for (const auto& p : points) {
    FitCheckRow row;
    row.point = p;
    row.in_fit = fit_on.count(p.w) > 0;
    row.predicted_seconds = models::eq5_step_time(r.fit.coeffs, p.w, p.global_batch, r.model_size);
    row.error_percent = (row.predicted_seconds - p.step_seconds) / p.step_seconds * 100.0;
    (row.in_fit ? fit_sum : held_sum) += std::abs(row.error_percent);
    ++(row.in_fit ? fit_n : held_n);
    r.rows.push_back(row);
  }
  r.fit_mape = fit_n ? fit_sum / fit_n : 0.0;
  r.heldout_mape = held_n ? held_sum / held_n : -1.0;
  return r;
}

void print_fit_check(const FitCheckResult& r, std::ostream& out) {
  char line[256];
  std::snprintf(line, sizeof(line),
                "Eq. 5 fit (n = %.0f parameters): t0 = %.4g s/sample, t1 = %.4g s, t2 = %.4g s/param, t3 = %.4g s; "
                "R^2 = %.4f on %d points\n\n",
                r.model_size, r.fit.coeffs.t0, r.fit.coeffs.t1, r.fit.coeffs.t2, r.fit.coeffs.t3, r.fit.r2,
                r.fit.points);
  out << line;
  out << "| W | nodes | per-worker batch | global batch | measured step (ms) | predicted (ms) | error % | fitted on "
         "|\n";
  out << "|---:|---:|---:|---:|---:|---:|---:|:---:|\n";
  for (const auto& row : r.rows) {
    std::snprintf(line, sizeof(line), "| %d | %d | %.0f | %.0f | %.3f | %.3f | %+.1f | %s |\n", row.point.w,
                  row.point.nodes, row.point.global_batch / row.point.w, row.point.global_batch,
                  row.point.step_seconds * 1e3, row.predicted_seconds * 1e3, row.error_percent,
                  row.in_fit ? "yes" : "no");
    out << line;
  }
  std::snprintf(line, sizeof(line), "\nMAPE of step time: fitted sizes %.1f%%", r.fit_mape);
  out << line;
  if (r.heldout_mape >= 0) {
    std::snprintf(line, sizeof(line), ", held-out sizes %.1f%%", r.heldout_mape);
    out << line;
  } else {
    out << ", no held-out sizes";
  }
  out << "\n";
}

}  // namespace ringsched::profiler
