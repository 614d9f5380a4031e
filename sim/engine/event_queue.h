// sim/engine/event_queue.h — the engine's event queue: the events in the order std::priority_queue with
// std::greater<Event> pops them (time, then kind, then push order), kept small. On the 1.07 M-job Philly trace a
// single heap held every arrival and about a million stale completions (each change of a job's GPUs schedules a new
// one and leaves the old one behind), so that a pop sifted through a heap of tens of MB: most of the engine's time.
// Here the arrivals pushed before the first look wait in one sorted array, and stale job events are dropped from
// the heap whenever it has doubled since it was last cleaned.
#pragma once

#include <algorithm>
#include <cstddef>
#include <functional>
#include <vector>

#include "sim/engine/job_runtime.h"

namespace ringsched::engine_detail {

// Events are unique under Event's order (every push has its own seq), so the two fronts together pop exactly what
// one heap over every event pops, and dropping events that would be popped and ignored changes nothing else.
class EventQueue {
 public:
  // Pushes e; returns the stale events dropped now (handled as the engine would: counted, nothing else).
  std::size_t push(const Event& e, const std::vector<Runtime>& rt) {
    if (!sorted_ && e.kind == EvKind::kArrival) {
      arrivals_.push_back(e);
      return 0;
    }
    heap_.push_back(e);
    std::push_heap(heap_.begin(), heap_.end(), std::greater<>{});
    return heap_.size() < clean_at_ ? 0 : drop_stale(rt);
  }
  [[nodiscard]] bool empty() {
    settle();
    return heap_.empty() && head_ == arrivals_.size();
  }
  // The first event (the queue is not empty).
  [[nodiscard]] const Event& top() {
    settle();
    return from_arrivals() ? arrivals_[head_] : heap_.front();
  }
  void pop() {
    settle();
    if (from_arrivals()) {
      ++head_;
    } else {
      std::pop_heap(heap_.begin(), heap_.end(), std::greater<>{});
      heap_.pop_back();
    }
  }

 private:
  // Before the first look: the early arrivals sorted once (later arrivals go to the heap).
  void settle() {
    if (sorted_) return;
    std::sort(arrivals_.begin(), arrivals_.end(), [](const Event& a, const Event& b) { return b > a; });
    sorted_ = true;
  }
  [[nodiscard]] bool from_arrivals() const {
    if (head_ == arrivals_.size()) return false;
    return heap_.empty() || heap_.front() > arrivals_[head_];
  }
  // A completion or restart end of an older version of its job, or of a finished job: the engine ignores it when
  // popped (Engine::handle), and it stays so (versions only grow, a finished job stays finished).
  static bool stale(const Event& e, const std::vector<Runtime>& rt) {
    if (e.kind != EvKind::kCompletion && e.kind != EvKind::kRestartEnd) return false;
    const Runtime& r = rt[static_cast<std::size_t>(e.job)];
    return e.version != r.version || r.done;
  }
  std::size_t drop_stale(const std::vector<Runtime>& rt) {
    const std::size_t before = heap_.size();
    std::erase_if(heap_, [&](const Event& e) { return stale(e, rt); });
    std::make_heap(heap_.begin(), heap_.end(), std::greater<>{});
    clean_at_ = std::max(kFirstClean, 2 * heap_.size());
    return before - heap_.size();
  }

  static constexpr std::size_t kFirstClean = 4096;
  std::vector<Event> heap_;      // a binary heap under std::greater<Event>
  std::vector<Event> arrivals_;  // sorted ascending from head_ once sorted_
  std::size_t head_ = 0;
  bool sorted_ = false;
  std::size_t clean_at_ = kFirstClean;  // the heap size at which stale events are dropped
};

}  // namespace ringsched::engine_detail
