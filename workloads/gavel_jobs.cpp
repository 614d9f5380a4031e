// workloads/gavel_jobs.cpp — Gavel's job generator: from ringsched's Boost streams, or draw for draw from Python's
// streams over Gavel's job table (its published or its current order).
#include "workloads/gavel_jobs.h"

#include <array>
#include <cmath>

#include <boost/random/uniform_01.hpp>
#include <boost/random/uniform_int_distribution.hpp>

#include "models/input_error.h"
#include "workloads/python_random.h"
#include "workloads/rng.h"

namespace ringsched {
namespace {

int scale_factor(double u) {
  if (u >= 0.95) return 8;
  if (u >= 0.8) return 4;
  if (u >= 0.7) return 2;
  return 1;
}

// _generate_scale_factor's tests in its order (0.8 itself gives 2, 0.95 itself 4).
int gavel_py_scale_factor(double r) {
  if (0.7 <= r && r <= 0.8) return 2;
  if (0.8 <= r && r <= 0.95) return 4;
  if (0.95 <= r) return 8;
  return 1;
}

// One job of Gavel's utils.generate_job from its generator stream: scale factor, duration, then the template.
JobTruth gavel_py_job(PyRandom& rng, const std::vector<GavelTemplate>& table, const std::vector<int>& classes,
                      const Catalog& cat, const GavelJobsSpec& spec) {
  int sf = gavel_py_scale_factor(rng.uniform(0.0, 1.0));
  double run_time = 0.0;
  if (rng.random() >= 0.8) {
    run_time = 60.0 * std::pow(10.0, rng.uniform(3.0, 4.0));
  } else {
    run_time = 60.0 * std::pow(10.0, rng.uniform(1.5, 3.0));
  }
  if (!spec.multi_gpu) sf = 1;
  std::size_t t = static_cast<std::size_t>(rng.randbelow(table.size()));
  while (sf > 1 && !table[t].distributed)
    t = static_cast<std::size_t>(rng.randbelow(table.size()));
  const JobClass& c = cat.classes[static_cast<std::size_t>(classes[t])];
  JobTruth j;
  j.class_index = classes[t];
  j.requested_gpus = sf;
  j.work_samples = run_time * (sf <= c.max_gpus ? class_throughput_on(c, spec.reference_type, sf, 1) : 0.0);
  if (!(j.work_samples > 0.0)) {
    throw InputError("class '" + c.name + "' (distributed in Gavel's job table) has no throughput on " +
                     std::to_string(sf) + " " + spec.reference_type +
                     " GPUs, so a Gavel job of it has no duration there (Gavel asserts the same)");
  }
  return j;
}

Workload generate_gavel_python(Workload w, const GavelJobsSpec& spec, std::uint64_t seed) {
  const Catalog& cat = *w.catalog;
  const std::vector<GavelTemplate>& table = gavel_job_table(spec.job_table);
  const std::vector<int> classes = gavel_table_classes(cat, spec.job_table);
  PyRandom jobs(seed + 2);      // Scheduler._job_generator
  PyRandom arrivals(seed + 3);  // Scheduler._interarrival_time_generator
  const double lam = 1.0 / spec.rate_per_s;
  double t = 0.0;
  w.jobs.reserve(static_cast<std::size_t>(spec.jobs));
  for (int i = 0; i < spec.jobs; ++i) {
    JobTruth j = gavel_py_job(jobs, table, classes, cat, spec);
    j.id = i;
    j.arrival = t;
    j.name = "job-" + std::to_string(i);
    w.jobs.push_back(j);
    t = -std::log(1.0 - arrivals.random()) / (1.0 / lam) + t;
  }
  return w;
}

}  // namespace

const std::vector<GavelTemplate>& gavel_job_table(GavelJobTable order) {
  // scheduler/job_table.py: ResNet-18 (5 batch sizes), ResNet-50 (4), Transformer (5), LM (5) distributed;
  // Recommendation (5), A3C, CycleGAN not. Before commit 19a0dd2 A3C came right after the Transformers.
  static const std::array<std::vector<GavelTemplate>, 2> tables = [] {
    std::vector<GavelTemplate> rn18, rn50, transformer, lm, rec;
    for (int b : {16, 32, 64, 128, 256})
      rn18.push_back({"ResNet-18 (batch size " + std::to_string(b) + ")", true});
    for (int b : {16, 32, 64, 128})
      rn50.push_back({"ResNet-50 (batch size " + std::to_string(b) + ")", true});
    for (int b : {16, 32, 64, 128, 256})
      transformer.push_back({"Transformer (batch size " + std::to_string(b) + ")", true});
    for (int b : {5, 10, 20, 40, 80})
      lm.push_back({"LM (batch size " + std::to_string(b) + ")", true});
    for (int b : {512, 1024, 2048, 4096, 8192})
      rec.push_back({"Recommendation (batch size " + std::to_string(b) + ")", false});
    const GavelTemplate a3c{"A3C", false};
    const GavelTemplate cyclegan{"CycleGAN", false};
    std::vector<GavelTemplate> published, current;
    for (const auto* part : {&rn18, &rn50, &transformer})
      published.insert(published.end(), part->begin(), part->end());
    current = published;
    published.push_back(a3c);
    for (const auto* part : {&lm, &rec}) {
      published.insert(published.end(), part->begin(), part->end());
      current.insert(current.end(), part->begin(), part->end());
    }
    published.push_back(cyclegan);
    current.push_back(a3c);
    current.push_back(cyclegan);
    return std::array<std::vector<GavelTemplate>, 2>{published, current};
  }();
  return tables[order == GavelJobTable::kPublished ? 0 : 1];
}

std::vector<int> gavel_table_classes(const Catalog& catalog, GavelJobTable order) {
  std::vector<int> out;
  for (const GavelTemplate& t : gavel_job_table(order)) {
    int found = -1;
    for (std::size_t i = 0; i < catalog.classes.size(); ++i)
      if (catalog.classes[i].name == t.model) found = static_cast<int>(i);
    if (found < 0) {
      throw InputError("catalog " + catalog.name + " has no class '" + t.model +
                       "' of Gavel's job table, which Python's streams draw from (use \"catalog\": \"gavel\")");
    }
    out.push_back(found);
  }
  return out;
}

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
  if (spec.streams == GavelStreams::kPython) return generate_gavel_python(std::move(w), spec, seed);
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
