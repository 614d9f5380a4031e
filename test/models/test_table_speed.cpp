// test/models/test_table_speed.cpp — measured step-time tables: exact at measured points, linear (monotone) between
// them, clamped and counted outside, repeats averaged, bad points rejected.
#include <catch2/catch.hpp>

#include <cstdint>
#include <stdexcept>
#include <thread>

#include "models/table_speed.h"

using ringsched::models::reset_thread_table_stats;
using ringsched::models::TablePoint;
using ringsched::models::TableStepTime;
using ringsched::models::thread_table_stats;

namespace {

// Synthetic table: step(w, nodes, b) = 0.1 + 0.01 b + 0.05 (w - 1) + 0.2 (nodes - 1) at w in {1, 2, 4, 8},
// every node count 1..w/2 (and 1), b in {8, 16, 32}.
double synth(int w, int nodes, double b) {
  return 0.1 + 0.01 * b + 0.05 * (w - 1) + 0.2 * (nodes - 1);
}

std::vector<TablePoint> synth_points() {
  std::vector<TablePoint> pts;
  for (int w : {1, 2, 4, 8}) {
    for (int nodes = 1; nodes <= std::max(1, w / 2); ++nodes) {
      for (double b : {8.0, 16.0, 32.0})
        pts.push_back(TablePoint{w, nodes, b, synth(w, nodes, b)});
    }
  }
  return pts;
}

}  // namespace

TEST_CASE("ringsched::models::TableStepTime: exact at every measured point, without clamping", "[table_speed]") {
  const TableStepTime t(synth_points());
  reset_thread_table_stats();
  for (const auto& p : synth_points()) {
    bool clamped = true;
    CHECK(t.lookup(p.w, p.nodes, p.local_batch, &clamped) == p.step_seconds);
    CHECK_FALSE(clamped);
    CHECK(t.step_seconds(p.w, p.nodes, p.local_batch * p.w) == p.step_seconds);
  }
  CHECK(thread_table_stats().lookups == synth_points().size());
  CHECK(thread_table_stats().clamped == 0);
}

TEST_CASE("ringsched::models::TableStepTime: linear and monotone between measured batches, nodes and GPU counts",
          "[table_speed]") {
  const TableStepTime t(synth_points());
  // The synthetic step is linear in b and nodes, so interpolation must reproduce it exactly between points.
  CHECK(t.lookup(4, 1, 12.0, nullptr) == Approx(synth(4, 1, 12.0)));
  CHECK(t.lookup(8, 2.5, 16.0, nullptr) == Approx(0.5 * (synth(8, 2, 16) + synth(8, 3, 16))));
  // Unmeasured w = 6 at 3 nodes: w=4 at 2 nodes (same GPUs per node) and w=8 at 4 nodes, halfway.
  CHECK(t.lookup(6, 3, 16.0, nullptr) == Approx(0.5 * (synth(4, 2, 16) + synth(8, 4, 16))));
  // Monotone between neighbours along b (a non-linear, decreasing series).
  const TableStepTime d({{1, 1, 1.0, 4.0}, {1, 1, 2.0, 1.0}, {1, 1, 4.0, 0.5}});
  double last = 5.0;
  for (double b = 1.0; b <= 4.0; b += 0.125) {
    const double v = d.lookup(1, 1, b, nullptr);
    CHECK(v <= last);
    CHECK(v >= 0.5);
    last = v;
  }
  CHECK(d.lookup(1, 1, 1.5, nullptr) == Approx(2.5));
}

TEST_CASE("ringsched::models::TableStepTime: outside the measured range clamps to the edge and counts",
          "[table_speed]") {
  const TableStepTime t(synth_points());
  bool clamped = false;
  CHECK(t.lookup(1, 1, 64.0, &clamped) == synth(1, 1, 32.0));
  CHECK(clamped);
  CHECK(t.lookup(1, 1, 2.0, &clamped) == synth(1, 1, 8.0));
  CHECK(clamped);
  CHECK(t.lookup(16, 8, 8.0, &clamped) == synth(8, 4, 8.0));  // w beyond the table, same GPUs per node
  CHECK(clamped);
  reset_thread_table_stats();
  (void)t.step_seconds(2, 1, 2.0 * 16.0);   // inside
  (void)t.step_seconds(2, 1, 2.0 * 64.0);   // batch too large
  (void)t.step_seconds(16, 8, 16.0 * 8.0);  // too many GPUs
  CHECK(thread_table_stats().lookups == 3);
  CHECK(thread_table_stats().clamped == 2);
  // Another thread's lookups are its own.
  std::uint64_t other_lookups = 0;
  std::thread other([&t, &other_lookups] {
    (void)t.step_seconds(2, 1, 2.0 * 64.0);
    other_lookups = thread_table_stats().lookups;
  });
  other.join();
  CHECK(other_lookups == 1);
  CHECK(thread_table_stats().lookups == 3);
}

TEST_CASE("ringsched::models::TableStepTime: repeats averaged, empty or invalid tables rejected", "[table_speed]") {
  const TableStepTime t({{2, 1, 8.0, 1.0}, {2, 1, 8.0, 3.0}});
  CHECK(t.lookup(2, 1, 8.0, nullptr) == 2.0);
  CHECK(t.points().size() == 1);
  CHECK_THROWS_AS(TableStepTime(std::vector<TablePoint>{}), std::invalid_argument);
  CHECK_THROWS_WITH(TableStepTime({{1, 1, 8.0, 1.0}, {2, 1, 8.0, -1.0}}), Catch::Contains("point 1"));
  CHECK_THROWS_AS(TableStepTime({{2, 3, 8.0, 1.0}}), std::invalid_argument);  // more nodes than GPUs
}

TEST_CASE("ringsched::models::TableStepTime: clamped lookups are counted per table with the range they asked for",
          "[models][table]") {
  const ringsched::models::TableStepTime t({{1, 1, 32, 1.0}, {2, 1, 32, 0.6}, {4, 2, 32, 0.5}});
  const ringsched::models::TableStepTime other({{1, 1, 16, 2.0}});
  ringsched::models::reset_thread_table_stats();
  (void)t.step_seconds(2, 1, 64);   // measured: not clamped
  (void)t.step_seconds(8, 2, 256);  // beyond 4 GPUs
  (void)t.step_seconds(1, 1, 8);    // per-GPU batch 8 below 32
  (void)other.step_seconds(1, 1, 16);
  const auto per = ringsched::models::thread_table_clamps();
  REQUIRE(per.size() == 2);
  const auto& mine = per[0].first == &t ? per[0].second : per[1].second;
  CHECK(mine.lookups == 3);
  CHECK(mine.clamped == 2);
  CHECK(mine.w_min == 1);
  CHECK(mine.w_max == 8);
  CHECK(mine.nodes_min == 1);
  CHECK(mine.nodes_max == 2);
  CHECK(mine.batch_min == 8.0);
  CHECK(mine.batch_max == 32.0);
  CHECK(ringsched::models::thread_table_stats().lookups == 4);
  CHECK(ringsched::models::thread_table_stats().clamped == 2);
  const ringsched::models::TableRange r = t.range();
  CHECK(r.w_min == 1);
  CHECK(r.w_max == 4);
  CHECK(r.nodes_min == 1);
  CHECK(r.nodes_max == 2);
  CHECK(r.batch_min == 32.0);
  CHECK(r.batch_max == 32.0);
  ringsched::models::reset_thread_table_stats();
  CHECK(ringsched::models::thread_table_clamps().empty());
}
