// sim/cli/interrupt.cpp — interrupts handled by a thread that waits for the signal (sigwait), so the clean-up runs as
// ordinary code instead of inside a signal handler; it waits for an output commit in progress (remove_live_staging),
// so that an output folder is always left with all of its earlier files or all of the new ones.
#include "sim/cli/interrupt.h"

#include <pthread.h>
#include <signal.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <system_error>
#include <thread>

#include "sim/experiments/atomic_file.h"
#include "sim/experiments/parallel.h"

namespace ringsched::cli {

namespace {

std::atomic<bool> g_interrupted{false};

// At exit: when an interrupt is being handled (it may have waited for a commit that the main thread finished just
// now), let its thread say what was written and exit 130 / 143 instead of this exit.
void wait_for_interrupt_handler() {
  while (g_interrupted.load())
    std::this_thread::sleep_for(std::chrono::seconds(1));
}

}  // namespace

void handle_interrupts() {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGINT);
  sigaddset(&set, SIGTERM);
  if (pthread_sigmask(SIG_BLOCK, &set, nullptr) != 0) return;  // default handling stays
  std::atexit(wait_for_interrupt_handler);
  auto watch = [set] {
    int sig = 0;
    if (sigwait(&set, &sig) != 0) return;
    g_interrupted.store(true);
    const std::string name = sig == SIGINT ? "SIGINT" : "SIGTERM";
    const LiveOutputs live = remove_live_staging();  // waits for a commit in progress: never a half-done one
    remove_held_lock_files();
    std::string removed;
    for (const auto& d : live.removed)
      removed += (removed.empty() ? "" : ", ") + d;
    std::string committed;
    for (const auto& d : live.committed)
      committed += (committed.empty() ? "" : ", ") + d;
    std::string msg = "\nringsched: interrupted (" + name + ")";
    if (!removed.empty())
      msg += "; removed the unfinished output in " + removed + " (earlier results there are unchanged)";
    if (!committed.empty()) msg += "; the new results in " + committed + " were written in full before the interrupt";
    if (removed.empty() && committed.empty()) msg += "; nothing was written";
    std::fprintf(stderr, "%s\n", msg.c_str());
    std::fflush(stderr);
    std::_Exit(128 + sig);
  };
  try {
    start_thread(watch).detach();
  } catch (const std::system_error& e) {  // no watcher: the signals keep their default action (the run still goes on)
    pthread_sigmask(SIG_UNBLOCK, &set, nullptr);
    std::fprintf(stderr,
                 "ringsched: warning: the system refused a thread to watch for interrupts (%s); Ctrl-C will stop the "
                 "run without removing its unfinished output\n",
                 e.what());
  }
}

}  // namespace ringsched::cli
