// python/py_control.h — stopping simulations from Python: Ctrl-C (KeyboardInterrupt) and a strategy that raises
// KeyboardInterrupt or SystemExit stop the whole experiment and the exception reaches the caller; at interpreter exit,
// simulations still running (in daemon threads) are stopped and waited for before Python finalises, so that no C++
// thread touches a finalising interpreter (docs/python.md, "Interrupting and exiting").
#pragma once

#include <cstdint>
#include <functional>

#include <pybind11/pybind11.h>

namespace ringsched::python {

namespace py = pybind11;

// A count raised by every stop request (Ctrl-C, a KeyboardInterrupt or SystemExit from a strategy, interpreter exit).
// A simulation stops when it differs from the count at its start.
std::uint64_t stop_epoch();

// Whether the interpreter is exiting (the exit hook ran): C++ threads must not take the GIL any more.
bool interpreter_exiting();

// Throws std::runtime_error (a failed run) if the interpreter is exiting or a stop was requested since `epoch`; call
// before taking the GIL from a C++ thread, and again with it held.
void check_not_stopped(std::uint64_t epoch);

// True for an exception that is no Exception (KeyboardInterrupt, SystemExit, GeneratorExit): it stops the whole
// experiment. Then the error is kept (the first one) for the simulate() call that sees it, and a stop is requested.
// GIL held.
bool stops_experiment(const py::error_already_set& e);

// Held (GIL held) by every call from Python that may call back into Python from C++ (simulate, validate: strategies'
// constructors and decisions): the exit hook waits until none is held. At interpreter exit a new one from the main
// thread raises RuntimeError, and one from another thread never returns (its thread is abandoned, as Python abandons
// daemon threads at exit).
class PythonCall {
 public:
  PythonCall();
  ~PythonCall();
  PythonCall(const PythonCall&) = delete;
  PythonCall& operator=(const PythonCall&) = delete;

 private:
  bool main_;
  friend void run_without_gil(const PythonCall& call, const std::function<void()>& fn, std::uint64_t epoch);
};

// Runs `fn` (the experiment) without the GIL: on its own thread while this thread, when it is Python's main thread,
// checks for signals every 50 ms (Ctrl-C requests a stop and its KeyboardInterrupt is raised once `fn` returned).
// Rethrows fn's exception, or a KeyboardInterrupt/SystemExit a strategy raised since `epoch`. GIL held on entry and
// return; if the interpreter began exiting meanwhile, a call from a thread other than the main one never returns.
void run_without_gil(const PythonCall& call, const std::function<void()>& fn, std::uint64_t epoch);

// Registers the exit hook (atexit) that stops running simulations and waits for them.
void install_exit_hook();

}  // namespace ringsched::python
