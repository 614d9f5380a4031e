// test/sim/engine/test_event_queue.cpp — the engine's event queue (sim/engine/event_queue.h, issue 35 saturation):
// it pops in the order of one std::priority_queue over every event, with early arrivals kept apart and stale job
// events dropped (and counted) once the heap has doubled.
#include <catch2/catch.hpp>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <queue>
#include <vector>

#include "sim/engine/event_queue.h"
#include "sim/engine/job_runtime.h"

using namespace ringsched;
using ringsched::engine_detail::Event;
using ringsched::engine_detail::EventQueue;
using ringsched::engine_detail::EvKind;
using ringsched::engine_detail::Runtime;

namespace {

std::vector<Event> event_queue_drain(EventQueue& q) {
  std::vector<Event> out;
  while (!q.empty()) {
    out.push_back(q.top());
    q.pop();
  }
  return out;
}

bool event_queue_same(const Event& a, const Event& b) {
  return a.time == b.time && a.kind == b.kind && a.job == b.job && a.version == b.version && a.seq == b.seq;
}

}  // namespace

TEST_CASE("sim::EventQueue: pops by time, then kind, then push order, arrivals kept apart included", "[sim][engine]") {
  std::vector<Runtime> rt(3);
  EventQueue q;
  std::uint64_t seq = 0;
  // Early arrivals out of time order, two at time 5 (pushed as job 2 then job 0).
  for (const auto& [t, job] : std::vector<std::pair<double, int>>{{5.0, 2}, {1.0, 1}, {5.0, 0}})
    REQUIRE(q.push({t, EvKind::kArrival, job, 0, seq++}, rt) == 0);
  REQUIRE(q.push({5.0, EvKind::kTick, -1, 0, seq++}, rt) == 0);
  REQUIRE(q.push({5.0, EvKind::kCompletion, 1, 0, seq++}, rt) == 0);
  REQUIRE(q.top().time == 1.0);                                    // the first look sorts the early arrivals
  REQUIRE(q.push({3.0, EvKind::kArrival, 2, 0, seq++}, rt) == 0);  // a later arrival: on the heap
  const std::vector<Event> got = event_queue_drain(q);
  REQUIRE(got.size() == 6);
  // Hand-ordered: (1, arrival 1), (3, arrival 2, seq 5), then at 5: completion, arrival job 2 (seq 0), arrival job 0
  // (seq 2), tick.
  CHECK(got[0].job == 1);
  CHECK(got[1].time == 3.0);
  CHECK(got[2].kind == EvKind::kCompletion);
  CHECK((got[3].kind == EvKind::kArrival && got[3].job == 2 && got[3].seq == 0));
  CHECK((got[4].kind == EvKind::kArrival && got[4].job == 0));
  CHECK(got[5].kind == EvKind::kTick);
}

TEST_CASE(
    "sim::EventQueue: stale completions and restart ends are dropped at 4096 events and counted, the rest pop "
    "as one heap pops them",
    "[sim][engine]") {
  // Job 0 is at version 1 (its version-0 events are stale), job 1 is finished, job 2 is live at version 0.
  std::vector<Runtime> rt(3);
  rt[0].version = 1;
  rt[1].done = true;
  EventQueue q;
  std::priority_queue<Event, std::vector<Event>, std::greater<>> reference;
  std::uint64_t seq = 0;
  std::size_t dropped = 0;
  std::size_t stale = 0;
  for (int i = 0; i < 4095; ++i) {
    const int job = i % 3;
    const EvKind kind = i % 2 == 0 ? EvKind::kCompletion : EvKind::kRestartEnd;
    const Event e{static_cast<double>((i * 7919) % 1000), kind, job, 0, seq++};
    if (job != 2) ++stale;
    dropped += q.push(e, rt);
    if (job == 2) reference.push(e);
  }
  CHECK(dropped == 0);                                    // 4095 events: below the first clean
  const Event wake{10.0, EvKind::kWakeup, -1, 0, seq++};  // never stale here
  dropped += q.push(wake, rt);
  reference.push(wake);
  CHECK(dropped == stale);  // 4096 events: 2730 stale (jobs 0 and 1) dropped
  CHECK(stale == 2730);
  const std::vector<Event> got = event_queue_drain(q);
  REQUIRE(got.size() == reference.size());
  for (const Event& e : got) {
    CHECK(event_queue_same(e, reference.top()));
    reference.pop();
  }
}
