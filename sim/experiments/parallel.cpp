// sim/experiments/parallel.cpp — a small work-sharing thread pool over indices.
#include "sim/experiments/parallel.h"

#include <algorithm>
#include <atomic>
#include <thread>
#include <vector>

namespace ringsched {

int resolve_threads(int threads) {
  return threads > 0 ? threads : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
}

void parallel_for_index(std::size_t n, int threads, const std::function<void(std::size_t)>& fn) {
  const std::size_t workers =
      std::min<std::size_t>(static_cast<std::size_t>(resolve_threads(threads)), std::max<std::size_t>(n, 1));
  std::atomic<std::size_t> next{0};
  auto worker = [&]() {
    for (std::size_t i = next.fetch_add(1); i < n; i = next.fetch_add(1))
      fn(i);
  };
  if (workers <= 1) {
    worker();
    return;
  }
  std::vector<std::thread> pool;
  for (std::size_t t = 0; t < workers; ++t)
    pool.emplace_back(worker);
  for (auto& t : pool)
    t.join();
}

}  // namespace ringsched
