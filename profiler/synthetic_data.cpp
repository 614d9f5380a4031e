// profiler/synthetic_data.cpp — Gaussian-mixture classification data generated from a seed; epoch shuffles.
#include "profiler/synthetic_data.h"

#include <algorithm>
#include <stdexcept>
#include <string>

#include "profiler/rng.h"

namespace ringsched::profiler {

SyntheticData::SyntheticData(const DataSpec& spec) : spec_(spec) {
  if (spec.inputs <= 0 || spec.classes < 2 || spec.train_samples <= 0 || spec.test_samples <= 0 ||
      spec.clusters_per_class <= 0 || !(spec.noise >= 0.0))
    throw std::invalid_argument("SyntheticData: needs inputs > 0, classes >= 2, positive sample counts");
  const int informative = std::clamp(spec.informative, 1, spec.inputs);
  const int centres = spec.classes * spec.clusters_per_class;
  std::vector<double> centre(static_cast<std::size_t>(centres) * informative);
  SplitMix64 g(mix_seed(spec.seed, 0xC3A5C85C97CB3127ULL));
  for (double& c : centre)
    c = spec.centre_scale * g.normal();

  const auto n = static_cast<std::size_t>(size());
  features_.resize(n * static_cast<std::size_t>(spec.inputs));
  labels_.resize(n);
  for (std::size_t i = 0; i < n; ++i) {
    SplitMix64 s(mix_seed(spec.seed, i + 1));
    const int label = static_cast<int>(s.below(static_cast<std::uint64_t>(spec.classes)));
    const int cluster = static_cast<int>(s.below(static_cast<std::uint64_t>(spec.clusters_per_class)));
    const double* mu = &centre[static_cast<std::size_t>(label * spec.clusters_per_class + cluster) * informative];
    float* x = &features_[i * static_cast<std::size_t>(spec.inputs)];
    for (int d = 0; d < spec.inputs; ++d) {
      const double base = d < informative ? mu[d] : 0.0;
      x[d] = static_cast<float>(base + spec.noise * s.normal());
    }
    labels_[i] = label;
  }
}

void SyntheticData::gather(const std::int64_t* indices, std::int64_t count, float* x, int* labels) const {
  for (std::int64_t k = 0; k < count; ++k) {
    const std::int64_t i = indices[k];
    if (i < 0 || i >= size()) throw std::out_of_range("SyntheticData::gather: index " + std::to_string(i));
    std::copy_n(features(i), spec_.inputs, x + k * spec_.inputs);
    labels[k] = label(i);
  }
}

std::vector<std::int64_t> shuffled_indices(std::int64_t n, std::uint64_t seed) {
  std::vector<std::int64_t> p(static_cast<std::size_t>(n));
  for (std::int64_t i = 0; i < n; ++i)
    p[static_cast<std::size_t>(i)] = i;
  SplitMix64 g(seed);
  for (std::int64_t i = n - 1; i > 0; --i) {
    const auto j = static_cast<std::int64_t>(g.below(static_cast<std::uint64_t>(i + 1)));
    std::swap(p[static_cast<std::size_t>(i)], p[static_cast<std::size_t>(j)]);
  }
  return p;
}

}  // namespace ringsched::profiler
