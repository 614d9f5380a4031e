// sim/experiments/parallel.cpp — a small work-sharing thread pool over indices, and the one place threads are started.
#include "sim/experiments/parallel.h"

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdio>
#include <system_error>
#include <vector>

namespace ringsched {
namespace {

std::atomic<int> starts_left{-1};  // refuse_thread_starts_after: < 0 means no refusal

}  // namespace

int resolve_threads(int threads) {
  return threads > 0 ? threads : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
}

std::thread start_thread(std::function<void()> fn) {
  for (int left = starts_left.load(); left >= 0;) {
    if (left == 0) throw std::system_error(EAGAIN, std::generic_category(), "cannot create a thread (test seam)");
    if (starts_left.compare_exchange_weak(left, left - 1)) break;
  }
  return std::thread(std::move(fn));
}

void refuse_thread_starts_after(int starts) {
  starts_left.store(starts < 0 ? -1 : starts);
}

void warn_fewer_threads(std::size_t using_threads, std::size_t wanted, const char* why) {
  std::fprintf(stderr,
               "ringsched: warning: the system refused a new thread (%s); continuing on %zu of the %zu threads asked "
               "for (the results are the same, only slower)\n",
               why, using_threads, wanted);
  std::fflush(stderr);
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
  pool.reserve(workers);
  for (std::size_t t = 0; t < workers; ++t) {
    try {
      pool.push_back(start_thread(worker));
    } catch (const std::system_error& e) {
      // Fewer threads, same indices: the calling thread joins the ones that started.
      warn_fewer_threads(pool.size() + 1, workers, e.what());
      worker();
      break;
    }
  }
  for (auto& t : pool)
    t.join();
}

}  // namespace ringsched
