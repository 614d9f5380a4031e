// python/py_control.cpp — stop requests (Ctrl-C, KeyboardInterrupt/SystemExit from a strategy, interpreter exit),
// the experiment run off the GIL with signals checked on the main thread, and the exit hook that waits for running
// simulations before Python finalises.
#include "py_control.h"

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <exception>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <system_error>
#include <thread>

namespace ringsched::python {
namespace {

struct State {
  std::mutex mu;
  std::condition_variable cv;
  bool exiting = false;  // the exit hook ran (guarded by mu; `exiting_now` mirrors it for lock-free reads)
  std::atomic<bool> exiting_now{false};
  int active = 0;  // PythonCall objects alive (calls from Python that may call back into Python from C++)
  std::atomic<std::uint64_t> epoch{0};
  // The first KeyboardInterrupt/SystemExit a strategy raised, for the simulate() that sees it (made and destroyed with
  // the GIL held).
  std::unique_ptr<py::error_already_set> pending;
};

// Never destroyed: C++ threads abandoned at exit may still hold a pointer to it while static destructors run.
State& state() {
  static State* const s = new State;
  return *s;
}

// A thread left behind at interpreter exit: it holds no GIL and never touches Python again; the process's exit ends
// it (as Python ends daemon threads).
[[noreturn]] void abandon_thread() {
  for (;;)
    std::this_thread::sleep_for(std::chrono::hours(24));
}

bool on_main_thread() {
  const py::module_ threading = py::module_::import("threading");
  return threading.attr("main_thread")().is(threading.attr("current_thread")());
}

// The exit hook (atexit, GIL held): no new simulation starts, running ones stop at their next decision or run, and
// they are waited for with the GIL released (a worker waiting for the GIL gets it, sees the stop and gives it back).
void on_exit() {
  State& s = state();
  {
    const std::lock_guard<std::mutex> lock(s.mu);
    s.exiting = true;
    s.exiting_now = true;
  }
  ++s.epoch;
  {
    py::gil_scoped_release release;
    std::unique_lock<std::mutex> lock(s.mu);
    s.cv.wait(lock, [&s] { return s.active == 0; });
  }
  std::unique_ptr<py::error_already_set> pending;
  {
    const std::lock_guard<std::mutex> lock(s.mu);
    pending = std::move(s.pending);
  }
}

}  // namespace

std::uint64_t stop_epoch() {
  return state().epoch.load();
}

bool interpreter_exiting() {
  return state().exiting_now.load();
}

void check_not_stopped(std::uint64_t epoch) {
  if (interpreter_exiting()) throw std::runtime_error("stopped: the Python interpreter is exiting");
  if (stop_epoch() != epoch) throw std::runtime_error("stopped: KeyboardInterrupt or SystemExit");
}

bool stops_experiment(const py::error_already_set& e) {
  if (e.matches(PyExc_Exception)) return false;
  State& s = state();
  auto copy = std::make_unique<py::error_already_set>(e);
  {
    const std::lock_guard<std::mutex> lock(s.mu);
    if (!s.pending && !s.exiting) s.pending = std::move(copy);
  }
  ++s.epoch;
  return true;  // `copy`, when not kept, is destroyed here with the GIL held
}

PythonCall::PythonCall() : main_(on_main_thread()) {
  State& s = state();
  std::unique_lock<std::mutex> lock(s.mu);
  if (s.exiting) {
    if (main_) throw std::runtime_error("the Python interpreter is exiting: no new simulation starts");
    lock.unlock();
    PyEval_SaveThread();
    abandon_thread();
  }
  ++s.active;
}

PythonCall::~PythonCall() {
  State& s = state();
  const std::lock_guard<std::mutex> lock(s.mu);
  --s.active;
  s.cv.notify_all();
}

void run_without_gil(const PythonCall& call, const std::function<void()>& fn, std::uint64_t epoch) {
  State& s = state();
  const bool main = call.main_;
  struct Shared {
    std::mutex mu;
    std::condition_variable cv;
    bool done = false;
    std::exception_ptr error;
  };
  const auto shared = std::make_shared<Shared>();
  std::unique_ptr<py::error_already_set> interrupt;
  PyThreadState* ts = PyEval_SaveThread();
  std::thread worker;
  try {
    worker = std::thread([shared, &fn] {
      try {
        fn();
      } catch (...) {
        shared->error = std::current_exception();
      }
      const std::lock_guard<std::mutex> lock(shared->mu);
      shared->done = true;
      shared->cv.notify_all();
    });
  } catch (const std::system_error&) {  // no thread to be had: run here (signals are then seen when it returns)
    try {
      fn();
    } catch (...) {
      shared->error = std::current_exception();
    }
  }
  if (worker.joinable()) {
    std::unique_lock<std::mutex> lock(shared->mu);
    while (!shared->cv.wait_for(lock, std::chrono::milliseconds(50), [&shared] { return shared->done; })) {
      if (!main || interrupt) continue;
      lock.unlock();
      PyEval_RestoreThread(ts);
      if (PyErr_CheckSignals() != 0) {  // a handler raised (Ctrl-C: KeyboardInterrupt): stop everything
        interrupt = std::make_unique<py::error_already_set>();
        ++s.epoch;
      }
      ts = PyEval_SaveThread();
      lock.lock();
    }
    lock.unlock();
    worker.join();
  }
  {
    std::unique_lock<std::mutex> lock(s.mu);
    if (s.exiting && !main) {  // Python is finalising or about to: never take the GIL again (`call` stays alive)
      --s.active;
      s.cv.notify_all();
      lock.unlock();
      abandon_thread();
    }
  }
  // The exit hook, if it starts now, waits for `call` (still counted) with the GIL released: this gets it.
  PyEval_RestoreThread(ts);
  std::unique_ptr<py::error_already_set> pending;
  {
    const std::lock_guard<std::mutex> lock(s.mu);
    if (stop_epoch() != epoch) pending = std::move(s.pending);
  }
  if (interrupt) throw py::error_already_set(*interrupt);
  if (pending) throw py::error_already_set(*pending);
  if (shared->error) std::rethrow_exception(shared->error);
}

void install_exit_hook() {
  py::module_::import("atexit").attr("register")(py::cpp_function(&on_exit));
}

}  // namespace ringsched::python
