// sim/experiments/parallel.h — the replicate thread pool: runs fn(i) for i in [0, n) on up to `threads` threads, each
// index exactly once, results stored by index by the caller (so output does not depend on the thread count); and
// start_thread, through which every thread of the simulator is created, so that a thread the system refuses
// (std::system_error: a process-count or memory limit) is met with fewer threads instead of std::terminate.
#pragma once

#include <cstddef>
#include <functional>
#include <thread>

namespace ringsched {

// threads <= 0 means every hardware thread (at least 1).
int resolve_threads(int threads);

// Calls fn(i) for every i in [0, n); threads pull indices from a shared counter. fn must not throw. When the system
// refuses a thread, the threads already started and the calling thread do the work (one line on stderr says so):
// the results are the same, only slower.
void parallel_for_index(std::size_t n, int threads, const std::function<void(std::size_t)>& fn);

// Starts a thread running fn. Throws std::system_error when the system cannot create one (as std::thread does).
std::thread start_thread(std::function<void()> fn);

// Test seam: after `starts` more successful start_thread calls, every call throws std::system_error (EAGAIN) as if
// the system had refused; a negative value restores normal starts. Process-wide.
void refuse_thread_starts_after(int starts);

// "ringsched: warning: ..." on stderr: the system refused a thread (`why`), so the work goes on with `using` of the
// `wanted` threads.
void warn_fewer_threads(std::size_t using_threads, std::size_t wanted, const char* why);

}  // namespace ringsched
