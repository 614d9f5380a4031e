// workloads/python_random.h — Python 3's `random.Random` in C++, draw for draw: CPython's Mersenne Twister
// (Modules/_randommodule.c: init_by_array seeding from an int, genrand_uint32, random() with 53 bits,
// getrandbits) and the pure-Python methods of Lib/random.py that Gavel's simulator calls (_randbelow, randrange,
// choice, uniform, expovariate, shuffle). Used by Gavel's job generator with "streams": "python"
// (workloads/gavel_jobs.h), so that its jobs are Gavel's own, seed for seed.
#pragma once

#include <array>
#include <cstdint>
#include <stdexcept>
#include <utility>
#include <vector>

namespace ringsched {

class PyRandom {
 public:
  // random.Random(seed) for a non-negative integer seed (Python seeds with |n|; negative seeds are not needed here).
  explicit PyRandom(std::uint64_t seed) { this->seed(seed); }

  // random.seed(n): init_by_array with the 32-bit words of n, least significant first (n = 0: the key [0]).
  void seed(std::uint64_t n);

  // The next 32 bits of MT19937 (genrand_uint32).
  std::uint32_t next_u32();

  // random(): a 53-bit float in [0, 1): (a >> 5) * 2^26 + (b >> 6), over 2^53.
  double random();

  // getrandbits(k) for 0 <= k <= 64: k = 0 gives 0 (Python 3.9+); k <= 32 one word's top k bits; more, words
  // least significant first, the last one's top bits.
  std::uint64_t getrandbits(int k);

  // _randbelow(n) for n >= 1 (_randbelow_with_getrandbits): getrandbits(n.bit_length()) until below n.
  std::uint64_t randbelow(std::uint64_t n);

  // randrange(stop) for stop >= 1: _randbelow(stop).
  std::uint64_t randrange(std::uint64_t stop) { return randbelow(stop); }

  // choice(seq): seq[_randbelow(len(seq))]; seq must not be empty.
  template <class T>
  const T& choice(const std::vector<T>& seq) {
    if (seq.empty()) throw std::invalid_argument("PyRandom::choice: empty sequence");
    return seq[static_cast<std::size_t>(randbelow(seq.size()))];
  }

  // uniform(a, b): a + (b - a) * random().
  double uniform(double a, double b) { return a + (b - a) * random(); }

  // expovariate(lambd): -log(1 - random()) / lambd.
  double expovariate(double lambd);

  // shuffle(x), Python 3's: for i in reversed(range(1, len(x))): j = _randbelow(i + 1); x[i], x[j] = x[j], x[i].
  template <class T>
  void shuffle(std::vector<T>& x) {
    for (std::size_t i = x.size(); i-- > 1;) {
      const auto j = static_cast<std::size_t>(randbelow(i + 1));
      std::swap(x[i], x[j]);
    }
  }

 private:
  static constexpr int kN = 624;
  std::array<std::uint32_t, kN> mt_{};
  int mti_ = kN + 1;

  void init_genrand(std::uint32_t s);
  void init_by_array(const std::vector<std::uint32_t>& key);
};

}  // namespace ringsched
