// workloads/python_random.cpp — Python 3's `random.Random` (CPython's Mersenne Twister and Lib/random.py's methods
// that Gavel calls), written from MT19937's published algorithm (Matsumoto and Nishimura's mt19937ar.c, which CPython
// embeds) and the documented behaviour of Python's random module.
#include "workloads/python_random.h"

#include <algorithm>
#include <bit>
#include <cmath>

namespace ringsched {

void PyRandom::init_genrand(std::uint32_t s) {
  mt_[0] = s;
  for (int i = 1; i < kN; ++i) {
    const std::uint32_t prev = mt_[static_cast<std::size_t>(i - 1)];
    mt_[static_cast<std::size_t>(i)] = 1812433253U * (prev ^ (prev >> 30)) + static_cast<std::uint32_t>(i);
  }
  mti_ = kN;
}

void PyRandom::init_by_array(const std::vector<std::uint32_t>& key) {
  init_genrand(19650218U);
  std::size_t i = 1;
  std::size_t j = 0;
  const std::size_t len = key.size();
  for (std::size_t k = std::max<std::size_t>(kN, len); k > 0; --k) {
    const std::uint32_t prev = mt_[i - 1];
    mt_[i] = (mt_[i] ^ ((prev ^ (prev >> 30)) * 1664525U)) + key[j] + static_cast<std::uint32_t>(j);
    ++i;
    ++j;
    if (i >= kN) {
      mt_[0] = mt_[kN - 1];
      i = 1;
    }
    if (j >= len) j = 0;
  }
  for (std::size_t k = kN - 1; k > 0; --k) {
    const std::uint32_t prev = mt_[i - 1];
    mt_[i] = (mt_[i] ^ ((prev ^ (prev >> 30)) * 1566083941U)) - static_cast<std::uint32_t>(i);
    ++i;
    if (i >= kN) {
      mt_[0] = mt_[kN - 1];
      i = 1;
    }
  }
  mt_[0] = 0x80000000U;  // the most significant bit is 1: a non-zero initial state
  mti_ = kN;
}

void PyRandom::seed(std::uint64_t n) {
  std::vector<std::uint32_t> key;
  while (n != 0) {
    key.push_back(static_cast<std::uint32_t>(n & 0xffffffffU));
    n >>= 32;
  }
  if (key.empty()) key.push_back(0);
  init_by_array(key);
}

std::uint32_t PyRandom::next_u32() {
  constexpr std::uint32_t kMatrixA = 0x9908b0dfU;
  constexpr std::uint32_t kUpper = 0x80000000U;
  constexpr std::uint32_t kLower = 0x7fffffffU;
  constexpr int kM = 397;
  if (mti_ >= kN) {
    const auto mag = [](std::uint32_t y) { return (y & 1U) != 0 ? kMatrixA : 0U; };
    int kk = 0;
    for (; kk < kN - kM; ++kk) {
      const std::uint32_t y =
          (mt_[static_cast<std::size_t>(kk)] & kUpper) | (mt_[static_cast<std::size_t>(kk + 1)] & kLower);
      mt_[static_cast<std::size_t>(kk)] = mt_[static_cast<std::size_t>(kk + kM)] ^ (y >> 1) ^ mag(y);
    }
    for (; kk < kN - 1; ++kk) {
      const std::uint32_t y =
          (mt_[static_cast<std::size_t>(kk)] & kUpper) | (mt_[static_cast<std::size_t>(kk + 1)] & kLower);
      mt_[static_cast<std::size_t>(kk)] = mt_[static_cast<std::size_t>(kk + (kM - kN))] ^ (y >> 1) ^ mag(y);
    }
    const std::uint32_t y = (mt_[kN - 1] & kUpper) | (mt_[0] & kLower);
    mt_[kN - 1] = mt_[kM - 1] ^ (y >> 1) ^ mag(y);
    mti_ = 0;
  }
  std::uint32_t y = mt_[static_cast<std::size_t>(mti_++)];
  y ^= (y >> 11);
  y ^= (y << 7) & 0x9d2c5680U;
  y ^= (y << 15) & 0xefc60000U;
  y ^= (y >> 18);
  return y;
}

double PyRandom::random() {
  const std::uint32_t a = next_u32() >> 5;
  const std::uint32_t b = next_u32() >> 6;
  return (a * 67108864.0 + b) * (1.0 / 9007199254740992.0);
}

std::uint64_t PyRandom::getrandbits(int k) {
  if (k < 0 || k > 64) throw std::invalid_argument("PyRandom::getrandbits: k must be in [0, 64]");
  if (k == 0) return 0;
  if (k <= 32) return next_u32() >> (32 - k);
  const std::uint64_t low = next_u32();
  const std::uint64_t high = next_u32() >> (64 - k);
  return low | (high << 32);
}

std::uint64_t PyRandom::randbelow(std::uint64_t n) {
  if (n == 0) throw std::invalid_argument("PyRandom::randbelow: n must be >= 1");
  const int k = static_cast<int>(std::bit_width(n));
  std::uint64_t r = getrandbits(k);
  while (r >= n)
    r = getrandbits(k);
  return r;
}

double PyRandom::expovariate(double lambd) {
  return -std::log(1.0 - random()) / lambd;
}

}  // namespace ringsched
