// workloads/workload.cpp — Poisson workload generation and offered-load arithmetic.
#include "workloads/workload.h"

#include <algorithm>
#include <cmath>

#include <boost/random/discrete_distribution.hpp>
#include <boost/random/exponential_distribution.hpp>
#include <boost/random/normal_distribution.hpp>

#include "workloads/rng.h"

namespace ringsched {

Workload generate_poisson_workload(std::shared_ptr<const Catalog> catalog, const PoissonSpec& spec,
                                   std::uint64_t seed) {
  Workload w;
  w.catalog = std::move(catalog);
  Rng arrivals = make_rng(seed, Stream::kArrivals);
  Rng noise = make_rng(seed, Stream::kJobNoise);
  boost::random::exponential_distribution<double> gap(spec.rate_per_s);
  std::vector<double> weights;
  for (const auto& c : w.catalog->classes)
    weights.push_back(c.weight);
  boost::random::discrete_distribution<int, double> pick(weights.begin(), weights.end());
  boost::random::normal_distribution<double> gauss(0.0, 1.0);
  double t = 0.0;
  w.jobs.reserve(static_cast<std::size_t>(spec.jobs));
  for (int i = 0; i < spec.jobs; ++i) {
    t += gap(arrivals);
    JobTruth j;
    j.id = i;
    j.arrival = t;
    j.class_index = pick(arrivals);
    const JobClass& c = w.catalog->classes[static_cast<std::size_t>(j.class_index)];
    // Draw both normals every time so streams stay aligned whatever the sigmas are.
    const double zw = gauss(noise);
    const double zs = gauss(noise);
    // Mean-preserving lognormal: exp(sigma z - sigma^2/2).
    j.work_samples = c.work_samples * std::exp(c.work_sigma * zw - 0.5 * c.work_sigma * c.work_sigma);
    j.speed_factor = std::exp(spec.speed_sigma * zs - 0.5 * spec.speed_sigma * spec.speed_sigma) /
                     c.goodput_slowdown;  // goodput.slowdown: 1 unless set
    j.name = "job-" + std::to_string(i);
    w.jobs.push_back(j);
  }
  return w;
}

double gpu_seconds_on_eight(const Catalog& catalog, int gpus_per_node) {
  double total_weight = 0.0;
  for (const auto& c : catalog.classes)
    total_weight += c.weight;
  double gs = 0.0;
  for (const auto& c : catalog.classes) {
    const int w = std::min(8, c.max_gpus);
    const double secs = c.work_samples / class_throughput(c, w, packed_nodes(w, gpus_per_node));
    gs += c.weight / total_weight * secs * w;
  }
  return gs;
}

double rate_for_load(const Catalog& catalog, double load, int total_gpus, int gpus_per_node) {
  return load * static_cast<double>(total_gpus) / gpu_seconds_on_eight(catalog, gpus_per_node);
}

}  // namespace ringsched
