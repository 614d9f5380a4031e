// sim/cluster/network/priority.cpp — GPU intensity and its priority levels as max-min weights.
#include "sim/cluster/network/priority.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace ringsched::net {

double gpu_intensity(int gpus, double iteration_s, double comm_alone_s, double inter_node_bytes) {
  const double compute = std::max(0.0, iteration_s - comm_alone_s);
  if (!(inter_node_bytes > 0.0)) return std::numeric_limits<double>::infinity();
  return static_cast<double>(gpus) * compute / inter_node_bytes;
}

std::vector<double> gpu_intensity_weights(std::span<const double> intensity) {
  std::vector<double> distinct(intensity.begin(), intensity.end());
  std::sort(distinct.begin(), distinct.end());
  distinct.erase(std::unique(distinct.begin(), distinct.end()), distinct.end());
  const auto d = distinct.size();
  const auto levels = std::min(d, static_cast<std::size_t>(kPriorityLevels));
  std::vector<double> w;
  w.reserve(intensity.size());
  for (double x : intensity) {
    const auto rank =
        static_cast<std::size_t>(std::lower_bound(distinct.begin(), distinct.end(), x) - distinct.begin());
    const auto level = rank * levels / d;
    w.push_back(std::pow(kPriorityBase, static_cast<double>(level)));
  }
  return w;
}

}  // namespace ringsched::net
