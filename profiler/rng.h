// profiler/rng.h — a tiny, fully specified random generator (SplitMix64) plus the few distributions the profiler
// needs, so synthetic data and initial weights are bit-identical across compilers and standard libraries.
#pragma once

#include <cmath>
#include <cstdint>

namespace ringsched::profiler {

class SplitMix64 {
 public:
  explicit SplitMix64(std::uint64_t seed = 0) : state_(seed) {}

  std::uint64_t next() {
    std::uint64_t z = (state_ += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
  }

  // Uniform in [0, 1) with 53 random bits.
  double uniform() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }

  // Uniform integer in [0, n), n > 0 (rejection sampling: unbiased and fully deterministic).
  std::uint64_t below(std::uint64_t n) {
    const std::uint64_t limit = UINT64_MAX - UINT64_MAX % n;
    std::uint64_t x = next();
    while (x >= limit)
      x = next();
    return x % n;
  }

  // Standard normal by Box-Muller (one value per call, the second is discarded for simplicity).
  double normal() {
    double u1 = uniform();
    while (u1 <= 0.0)
      u1 = uniform();
    const double u2 = uniform();
    return std::sqrt(-2.0 * std::log(u1)) * std::cos(6.283185307179586 * u2);
  }

  std::uint64_t state() const { return state_; }
  void set_state(std::uint64_t s) { state_ = s; }

 private:
  std::uint64_t state_;
};

// Mixes several 64-bit values into one seed (used to derive per-sample and per-epoch streams).
inline std::uint64_t mix_seed(std::uint64_t a, std::uint64_t b) {
  SplitMix64 g(a ^ (b * 0xD1B54A32D192ED03ULL));
  g.next();
  return g.next();
}

}  // namespace ringsched::profiler
