// workloads/gavel_jobs.cpp — Gavel's job generator.
#include "workloads/gavel_jobs.h"

#include <cmath>

#include <boost/random/uniform_01.hpp>
#include <boost/random/uniform_int_distribution.hpp>

#include "models/input_error.h"
#include "workloads/rng.h"

namespace ringsched {
namespace {

int scale_factor(double u) {
  if (u >= 0.95) return 8;
  if (u >= 0.8) return 4;
  if (u >= 0.7) return 2;
  return 1;
}

}  // namespace

Workload generate_gavel_workload(std::shared_ptr<const Catalog> catalog, const GavelJobsSpec& spec,
                                 std::uint64_t seed) {
  Workload w;
  w.catalog = std::move(catalog);
  const Catalog& cat = *w.catalog;
  bool any_multi = false;
  for (const JobClass& c : cat.classes) {
    if (speed_on(c, spec.reference_type) == nullptr) {
      throw InputError("class '" + c.name + "' of catalog " + cat.name + " has no speed on GPU type '" +
                       spec.reference_type + "', which Gavel's generator measures durations on");
    }
    any_multi |= c.max_gpus >= 8;
  }
  if (spec.multi_gpu && !any_multi) {
    throw InputError("catalog " + cat.name + " has no class that runs on 8 GPUs, which multi-GPU jobs need");
  }
  Rng draws = make_rng(seed, Stream::kGavelJobs);
  Rng arrivals = make_rng(seed, Stream::kArrivals);
  boost::random::uniform_01<double> unit;
  boost::random::uniform_int_distribution<int> pick(0, static_cast<int>(cat.classes.size()) - 1);
  double t = 0.0;  // the first job arrives at 0
  w.jobs.reserve(static_cast<std::size_t>(spec.jobs));
  for (int i = 0; i < spec.jobs; ++i) {
    int sf = scale_factor(unit(draws));
    if (!spec.multi_gpu) sf = 1;
    const bool long_job = unit(draws) >= 0.8;
    const double exponent = long_job ? 3.0 + unit(draws) : 1.5 + 1.5 * unit(draws);
    const double duration = 60.0 * std::pow(10.0, exponent);
    int cls = pick(draws);
    while (cat.classes[static_cast<std::size_t>(cls)].max_gpus < sf)
      cls = pick(draws);
    const JobClass& c = cat.classes[static_cast<std::size_t>(cls)];
    JobTruth j;
    j.id = i;
    j.arrival = t;
    j.class_index = cls;
    j.requested_gpus = sf;
    j.work_samples = duration * class_throughput_on(c, spec.reference_type, sf, 1);
    j.name = "job-" + std::to_string(i);
    if (!(j.work_samples > 0.0)) {
      throw InputError("class '" + c.name + "' cannot run on " + std::to_string(sf) + " " + spec.reference_type +
                       " GPUs (throughput 0), so a Gavel job of it has no duration there");
    }
    w.jobs.push_back(j);
    t += -std::log(1.0 - unit(arrivals)) / spec.rate_per_s;
  }
  return w;
}

}  // namespace ringsched
