// models/multi_node_step_time.cpp — the `multi-node` model's step time.
#include "models/multi_node_step_time.h"

namespace ringsched {

std::array<double, 7> multi_node_columns(int w, int nodes, double m, double n) {
  const double wd = w;
  const double lat = wd - 1.0;
  const double bw = 2.0 * (wd - 1.0) / wd * n;
  if (nodes > 1) return {m / wd, 1.0, 0.0, 0.0, lat, bw, static_cast<double>(nodes)};
  return {m / wd, 1.0, lat, bw, 0.0, 0.0, 0.0};
}

double multi_node_step_time(const MultiNodeCoeffs& c, int w, int nodes, double m, double n) {
  const auto x = multi_node_columns(w, nodes, m, n);
  return c.t0 * x[0] + c.t3 * x[1] + c.a_in * x[2] + c.b_in * x[3] + c.a_x * x[4] + c.b_x * x[5] + c.g_x * x[6];
}

double MultiNodeStepTime::step_seconds(int w, int nodes, double global_batch) const {
  return multi_node_step_time(c_, w, nodes, global_batch, n_);
}

}  // namespace ringsched
