// workloads/rng.cpp — stream seeding by splitmix64 mixing.
#include "workloads/rng.h"

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

}  // namespace ringsched
