// models/quantile.h — the linear-interpolation quantile (type 7) the metrics, the belief checks and the intervals
// share.
#pragma once

#include <vector>

namespace ringsched::models {

// Quantile q in [0, 1] of unsorted values (type 7: linear between order statistics); 0 for no values.
double quantile(std::vector<double> values, double q);

}  // namespace ringsched::models
