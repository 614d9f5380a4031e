// models/table_speed.cpp — measured step-time tables: grouping, interpolation, clamp counting.
#include "models/table_speed.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>
#include <tuple>

namespace ringsched::models {

namespace {
thread_local TableStats thread_stats;
}  // namespace

double interpolate_linear(const std::vector<double>& xs, const std::vector<double>& ys, double x, bool& clamped) {
  if (xs.size() == 1 || x <= xs.front()) {
    if (x != xs.front()) clamped = true;
    return ys.front();
  }
  if (x >= xs.back()) {
    if (x != xs.back()) clamped = true;
    return ys.back();
  }
  const auto it = std::upper_bound(xs.begin(), xs.end(), x);
  const auto hi = static_cast<std::size_t>(it - xs.begin());
  const std::size_t lo = hi - 1;
  if (xs[lo] == x) return ys[lo];
  const double f = (x - xs[lo]) / (xs[hi] - xs[lo]);
  return ys[lo] + f * (ys[hi] - ys[lo]);
}

TableStepTime::TableStepTime(const std::vector<TablePoint>& points) {
  if (points.empty()) throw std::invalid_argument("speed table: needs at least 1 measured point, got 0");
  // Sum repeats of the same (w, nodes, batch) so they can be averaged.
  std::map<std::tuple<int, int, double>, std::pair<double, int>> sums;
  for (std::size_t i = 0; i < points.size(); ++i) {
    const TablePoint& p = points[i];
    if (p.w < 1 || p.nodes < 1 || p.nodes > p.w || !(p.local_batch > 0.0) || !std::isfinite(p.local_batch) ||
        !(p.step_seconds > 0.0) || !std::isfinite(p.step_seconds)) {
      throw std::invalid_argument(
          "speed table: point " + std::to_string(i) +
          " needs w >= 1, 1 <= nodes <= w and positive, finite batch and step time (got w=" + std::to_string(p.w) +
          ", nodes=" + std::to_string(p.nodes) + ", batch=" + std::to_string(p.local_batch) +
          ", step_seconds=" + std::to_string(p.step_seconds) + ")");
    }
    auto& s = sums[{p.w, p.nodes, p.local_batch}];
    s.first += p.step_seconds;
    s.second += 1;
  }
  for (const auto& [key, sum] : sums) {
    const auto [w, nodes, b] = key;
    Row& row = rows_[w];
    if (row.empty() || row.back().nodes != nodes) row.push_back(Group{nodes, {}, {}});
    row.back().batch.push_back(b);
    row.back().seconds.push_back(sum.first / sum.second);
  }
}

double TableStepTime::row_value(const Row& row, double nodes, double b, bool& clamped) const {
  if (row.size() == 1 || nodes <= row.front().nodes) {
    if (nodes != row.front().nodes) clamped = true;
    return interpolate_linear(row.front().batch, row.front().seconds, b, clamped);
  }
  if (nodes >= row.back().nodes) {
    if (nodes != row.back().nodes) clamped = true;
    return interpolate_linear(row.back().batch, row.back().seconds, b, clamped);
  }
  std::size_t hi = 1;
  while (row[hi].nodes < nodes)
    ++hi;
  const Group& g_hi = row[hi];
  if (g_hi.nodes == nodes) return interpolate_linear(g_hi.batch, g_hi.seconds, b, clamped);
  const Group& g_lo = row[hi - 1];
  const double t_lo = interpolate_linear(g_lo.batch, g_lo.seconds, b, clamped);
  const double t_hi = interpolate_linear(g_hi.batch, g_hi.seconds, b, clamped);
  const double f = (nodes - g_lo.nodes) / static_cast<double>(g_hi.nodes - g_lo.nodes);
  return t_lo + f * (t_hi - t_lo);
}

double TableStepTime::lookup(double w, double nodes, double local_batch, bool* clamped) const {
  bool c = false;
  double t = 0.0;
  const int wi = static_cast<int>(std::lround(w));
  auto exact = (static_cast<double>(wi) == w) ? rows_.find(wi) : rows_.end();
  if (exact != rows_.end()) {
    t = row_value(exact->second, nodes, local_batch, c);
  } else if (w <= rows_.begin()->first) {
    c = true;
    const double wk = rows_.begin()->first;
    t = row_value(rows_.begin()->second, nodes * wk / w, local_batch, c);
  } else if (w >= rows_.rbegin()->first) {
    c = true;
    const double wk = rows_.rbegin()->first;
    t = row_value(rows_.rbegin()->second, nodes * wk / w, local_batch, c);
  } else {
    auto hi = rows_.upper_bound(static_cast<int>(std::floor(w)));
    auto lo = std::prev(hi);
    const double w_lo = lo->first;
    const double w_hi = hi->first;
    const double t_lo = row_value(lo->second, nodes * w_lo / w, local_batch, c);
    const double t_hi = row_value(hi->second, nodes * w_hi / w, local_batch, c);
    t = t_lo + (w - w_lo) / (w_hi - w_lo) * (t_hi - t_lo);
  }
  if (clamped != nullptr) *clamped = c;
  return t;
}

void TableClampStats::merge(const TableClampStats& o) {
  if (o.clamped > 0) {
    if (clamped == 0) {
      w_min = o.w_min;
      w_max = o.w_max;
      nodes_min = o.nodes_min;
      nodes_max = o.nodes_max;
      batch_min = o.batch_min;
      batch_max = o.batch_max;
    } else {
      w_min = std::min(w_min, o.w_min);
      w_max = std::max(w_max, o.w_max);
      nodes_min = std::min(nodes_min, o.nodes_min);
      nodes_max = std::max(nodes_max, o.nodes_max);
      batch_min = std::min(batch_min, o.batch_min);
      batch_max = std::max(batch_max, o.batch_max);
    }
  }
  lookups += o.lookups;
  clamped += o.clamped;
}

namespace {

// Per-table counts of this thread; a run touches a handful of tables, so a short vector with the last hit first.
thread_local std::vector<std::pair<const TableStepTime*, TableClampStats>> thread_clamps;

TableClampStats& clamps_of(const TableStepTime* t) {
  if (!thread_clamps.empty() && thread_clamps.front().first == t) return thread_clamps.front().second;
  for (auto& e : thread_clamps) {
    if (e.first == t) {
      std::swap(e, thread_clamps.front());
      return thread_clamps.front().second;
    }
  }
  thread_clamps.insert(thread_clamps.begin(), {t, TableClampStats{}});
  return thread_clamps.front().second;
}

}  // namespace

double TableStepTime::step_seconds(int w, int nodes, double global_batch) const {
  bool c = false;
  const double b = global_batch / w;
  const double t = lookup(w, nodes, b, &c);
  ++thread_stats.lookups;
  TableClampStats& mine = clamps_of(this);
  ++mine.lookups;
  if (c) {
    ++thread_stats.clamped;
    TableClampStats one;
    one.lookups = 0;
    one.clamped = 1;
    one.w_min = one.w_max = w;
    one.nodes_min = one.nodes_max = nodes;
    one.batch_min = one.batch_max = b;
    mine.merge(one);
  }
  return t;
}

TableRange TableStepTime::range() const {
  TableRange r;
  r.w_min = rows_.begin()->first;
  r.w_max = rows_.rbegin()->first;
  bool first = true;
  for (const auto& [w, row] : rows_) {
    for (const Group& g : row) {
      if (first) {
        r.nodes_min = r.nodes_max = g.nodes;
        r.batch_min = g.batch.front();
        r.batch_max = g.batch.back();
        first = false;
      }
      r.nodes_min = std::min(r.nodes_min, g.nodes);
      r.nodes_max = std::max(r.nodes_max, g.nodes);
      r.batch_min = std::min(r.batch_min, g.batch.front());
      r.batch_max = std::max(r.batch_max, g.batch.back());
    }
  }
  return r;
}

TableStats thread_table_stats() {
  return thread_stats;
}

std::vector<std::pair<const TableStepTime*, TableClampStats>> thread_table_clamps() {
  return thread_clamps;
}

void reset_thread_table_stats() {
  thread_stats = TableStats{};
  thread_clamps.clear();
}

void count_table_lookup(bool clamped) {
  ++thread_stats.lookups;
  if (clamped) ++thread_stats.clamped;
}

std::vector<TablePoint> TableStepTime::points() const {
  std::vector<TablePoint> out;
  for (const auto& [w, row] : rows_) {
    for (const Group& g : row) {
      for (std::size_t i = 0; i < g.batch.size(); ++i)
        out.push_back(TablePoint{w, g.nodes, g.batch[i], g.seconds[i]});
    }
  }
  return out;
}

}  // namespace ringsched::models
