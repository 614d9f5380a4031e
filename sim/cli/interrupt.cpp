// sim/cli/interrupt.cpp — interrupts handled by a thread that waits for the signal (sigwait), so the clean-up runs as
// ordinary code instead of inside a signal handler.
#include "sim/cli/interrupt.h"

#include <pthread.h>
#include <signal.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <system_error>
#include <thread>

#include "sim/experiments/atomic_file.h"
#include "sim/experiments/parallel.h"

namespace ringsched::cli {

void handle_interrupts() {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGINT);
  sigaddset(&set, SIGTERM);
  if (pthread_sigmask(SIG_BLOCK, &set, nullptr) != 0) return;  // default handling stays
  auto watch = [set] {
    int sig = 0;
    if (sigwait(&set, &sig) != 0) return;
    const std::string name = sig == SIGINT ? "SIGINT" : "SIGTERM";
    const auto dirs = remove_live_staging();
    std::string where;
    for (const auto& d : dirs)
      where += (where.empty() ? "" : ", ") + d;
    if (where.empty()) {
      std::fprintf(stderr, "\nringsched: interrupted (%s); nothing was written\n", name.c_str());
    } else {
      std::fprintf(stderr,
                   "\nringsched: interrupted (%s); removed the unfinished output in %s (earlier results there "
                   "are unchanged)\n",
                   name.c_str(), where.c_str());
    }
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
