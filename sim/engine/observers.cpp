// sim/engine/observers.cpp — the exploration speed measurer and the online loss observer.
#include "sim/engine/observers.h"

#include <cmath>
#include <stdexcept>
#include <vector>

#include <boost/random/normal_distribution.hpp>

#include "workloads/rng.h"

namespace ringsched {
namespace {

double lognormal(double sigma, double z) {
  return std::exp(sigma * z - 0.5 * sigma * sigma);
}

}  // namespace

SpeedMeasurer make_speed_measurer(std::shared_ptr<const Workload> wl, double sigma, int gpus_per_node,
                                  std::uint64_t seed) {
  return [wl, sigma, gpus_per_node, seed](int job_id) {
    const JobTruth& t = wl->jobs.at(static_cast<std::size_t>(job_id));
    const JobClass& c = wl->catalog->classes[static_cast<std::size_t>(t.class_index)];
    Rng rng = make_rng(seed, Stream::kMeasurement, 0x10000u + static_cast<std::uint64_t>(job_id));
    boost::random::normal_distribution<double> gauss(0.0, 1.0);
    std::vector<models::SpeedPoint> pts;
    for (int w : {1, 2, 4, 8}) {
      const double z = gauss(rng);
      if (w > c.max_gpus) continue;
      const int nodes = packed_nodes(w, gpus_per_node);
      const double m = global_batch(c, w);
      const double step = c.speed->step_seconds(w, nodes, m) / t.speed_factor * lognormal(sigma, z);
      pts.push_back(models::SpeedPoint{w, nodes, m, step});
    }
    return pts;
  };
}

LossObserver make_loss_observer(std::shared_ptr<const Workload> wl, double sigma, std::uint64_t seed) {
  return [wl, sigma, seed](int job_id, int evaluation) {
    const JobTruth& t = wl->jobs.at(static_cast<std::size_t>(job_id));
    const JobClass& c = wl->catalog->classes[static_cast<std::size_t>(t.class_index)];
    if (!c.convergence || !(c.loss_interval_samples > 0.0)) {
      throw std::logic_error("loss observer: class '" + c.name + "' has no convergence curve");
    }
    const double samples = static_cast<double>(evaluation) * c.loss_interval_samples;
    const double on_class_curve = samples * c.work_samples / t.work_samples;
    const double z =
        keyed_normal(seed, Stream::kLoss, static_cast<std::uint64_t>(job_id), static_cast<std::uint64_t>(evaluation));
    return c.convergence->loss(on_class_curve) * lognormal(sigma, z);
  };
}

}  // namespace ringsched
