// sim/experiments/parallel.h — the replicate thread pool: runs fn(i) for i in [0, n) on up to `threads` threads, each
// index exactly once, results stored by index by the caller (so output does not depend on the thread count).
#pragma once

#include <cstddef>
#include <functional>

namespace ringsched {

// threads <= 0 means every hardware thread (at least 1).
int resolve_threads(int threads);

// Calls fn(i) for every i in [0, n); threads pull indices from a shared counter. fn must not throw.
void parallel_for_index(std::size_t n, int threads, const std::function<void(std::size_t)>& fn);

}  // namespace ringsched
