// profiler/synthetic_data.h — the deterministic synthetic classification data set of the elastic experiment: a
// Gaussian mixture (several clusters per class in a few informative dimensions, pure noise in the rest), a train
// split and a held-out split, every sample a pure function of (seed, index); and the per-epoch shuffle.
#pragma once

#include <cstdint>
#include <vector>

namespace ringsched::profiler {

struct DataSpec {
  int inputs = 32;   // features per sample (= first layer width)
  int classes = 10;  // labels 0..classes-1 (= last layer width)
  std::int64_t train_samples = 16384;
  std::int64_t test_samples = 4096;
  std::uint64_t seed = 1;
  int clusters_per_class = 3;
  int informative = 8;        // dimensions that carry the cluster centres (clamped to inputs)
  double centre_scale = 1.0;  // standard deviation of the cluster centres
  double noise = 0.75;        // standard deviation of the per-sample noise
};

class SyntheticData {
 public:
  explicit SyntheticData(const DataSpec& spec);

  const DataSpec& spec() const { return spec_; }
  // Samples [0, train_samples) are the train split, [train_samples, train_samples + test_samples) held out.
  std::int64_t size() const { return spec_.train_samples + spec_.test_samples; }
  const float* features(std::int64_t i) const { return &features_[static_cast<std::size_t>(i) * spec_.inputs]; }
  int label(std::int64_t i) const { return labels_[static_cast<std::size_t>(i)]; }

  // Copies the given samples into `x` (inputs x count, column-major) and `labels` (count entries).
  void gather(const std::int64_t* indices, std::int64_t count, float* x, int* labels) const;

 private:
  DataSpec spec_;
  std::vector<float> features_;
  std::vector<int> labels_;
};

// A permutation of [0, n) from `seed` (Fisher-Yates with SplitMix64; identical everywhere).
std::vector<std::int64_t> shuffled_indices(std::int64_t n, std::uint64_t seed);

}  // namespace ringsched::profiler
