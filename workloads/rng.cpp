// workloads/rng.cpp — stream seeding by splitmix64 mixing.
#include "workloads/rng.h"

#include <cmath>
#include <numbers>

namespace ringsched {

std::uint64_t splitmix64(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

Rng make_rng(std::uint64_t seed, Stream stream, std::uint64_t extra) {
  const std::uint64_t s =
      splitmix64(splitmix64(seed) ^ splitmix64(static_cast<std::uint64_t>(stream) * 0x100000001b3ULL) ^
                 splitmix64(extra + 0x5bd1e995ULL));
  return Rng(s);
}

double keyed_normal(std::uint64_t seed, Stream stream, std::uint64_t a, std::uint64_t b) {
  const std::uint64_t key =
      splitmix64(splitmix64(seed) ^ splitmix64(static_cast<std::uint64_t>(stream) * 0x100000001b3ULL) ^
                 splitmix64(a + 0x5bd1e995ULL) ^ splitmix64(splitmix64(b) + 0x2545f4914f6cdd1dULL));
  const std::uint64_t k2 = splitmix64(key);
  // Uniforms in (0, 1] and [0, 1) from the top 53 bits.
  const double u1 = (static_cast<double>(key >> 11) + 1.0) * 0x1.0p-53;
  const double u2 = static_cast<double>(k2 >> 11) * 0x1.0p-53;
  return std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * std::numbers::pi * u2);
}

}  // namespace ringsched
