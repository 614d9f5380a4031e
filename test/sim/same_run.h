// test/sim/same_run.h — the engine tests' bit-for-bit comparison of two runs (incremental against dense decisions,
// skipped against walked idle rounds): every job's result, the allocation log, GPU-seconds, decisions and the last
// finish; the count of events handled only where both runs handle the same events.
#pragma once

#include <catch2/catch.hpp>

#include <cstddef>

#include "sim/engine/engine.h"

namespace ringsched::test {

enum class EventCount { kSame, kMayDiffer };

inline void require_same_run(const RunResult& a, const RunResult& b, EventCount events = EventCount::kSame) {
  REQUIRE(a.jobs.size() == b.jobs.size());
  for (std::size_t i = 0; i < a.jobs.size(); ++i) {
    INFO("job " << a.jobs[i].name);
    REQUIRE(a.jobs[i].first_start == b.jobs[i].first_start);
    REQUIRE(a.jobs[i].finish == b.jobs[i].finish);
    REQUIRE(a.jobs[i].restarts == b.jobs[i].restarts);
    REQUIRE(a.jobs[i].gpu_seconds == b.jobs[i].gpu_seconds);
    REQUIRE(a.jobs[i].max_gpus == b.jobs[i].max_gpus);
  }
  REQUIRE(a.events.size() == b.events.size());
  for (std::size_t i = 0; i < a.events.size(); ++i) {
    INFO("event " << i);
    REQUIRE(a.events[i].time == b.events[i].time);
    REQUIRE(a.events[i].job == b.events[i].job);
    REQUIRE(a.events[i].from == b.events[i].from);
    REQUIRE(a.events[i].to == b.events[i].to);
    REQUIRE(a.events[i].kind == b.events[i].kind);
  }
  REQUIRE(a.allocated_gpu_seconds == b.allocated_gpu_seconds);
  if (events == EventCount::kSame) REQUIRE(a.events_processed == b.events_processed);
  REQUIRE(a.decisions == b.decisions);
  REQUIRE(a.last_finish == b.last_finish);
}

}  // namespace ringsched::test
