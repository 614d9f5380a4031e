// sim/cluster/failures/failure_process.cpp — the failure and repair timeline of the cluster's nodes (see the header).
#include "sim/cluster/failures/failure_process.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include <boost/random/uniform_01.hpp>

namespace ringsched::fail {

FailureProcess::FailureProcess(const FailureOptions& options, int nodes, const Topology* topology, std::uint64_t seed)
    : options_(options), rng_(make_rng(seed, Stream::kFailures)), holds_(static_cast<std::size_t>(nodes), 0) {
  // Weibull with shape k and mean M: scale M / Gamma(1 + 1/k).
  if (options_.weibull) weibull_scale_ = options_.node_mtbf_s / std::tgamma(1.0 + 1.0 / options_.shape);
  if (options_.node_mtbf_s > 0.0) {
    for (int n = 0; n < nodes; ++n)
      push(node_lifetime(), Kind::kNodeFail, n);
  }
  if (options_.switch_mtbf_s > 0.0 && topology != nullptr) {
    const auto level = static_cast<std::size_t>(options_.switch_level);
    switch_nodes_.resize(static_cast<std::size_t>(topology->group_count(level)));
    for (int n = 0; n < nodes; ++n)
      switch_nodes_[static_cast<std::size_t>(topology->group_of(level, n))].push_back(n);
    for (std::size_t s = 0; s < switch_nodes_.size(); ++s)
      push(exponential(options_.switch_mtbf_s), Kind::kSwitchFail, static_cast<int>(s));
  }
  rows_ = options_.trace;
  rows_.insert(rows_.end(), options_.preemptions.begin(), options_.preemptions.end());
  for (std::size_t i = 0; i < rows_.size(); ++i)
    push(rows_[i].time_s, Kind::kTraceFail, static_cast<int>(i));
}

double FailureProcess::next_time() const {
  return queue_.empty() ? std::numeric_limits<double>::infinity() : queue_.top().time;
}

void FailureProcess::push(double time, Kind kind, int target) {
  queue_.push({time, kind, target, seq_++});
}

double FailureProcess::exponential(double mean) {
  boost::random::uniform_01<double> u01;
  return -mean * std::log1p(-u01(rng_));  // u in [0, 1): 1 - u in (0, 1]
}

double FailureProcess::node_lifetime() {
  if (!options_.weibull) return exponential(options_.node_mtbf_s);
  boost::random::uniform_01<double> u01;
  return weibull_scale_ * std::pow(-std::log1p(-u01(rng_)), 1.0 / options_.shape);
}

void FailureProcess::hold(int node, int delta, std::vector<int>& touched, double notice) {
  const auto n = static_cast<std::size_t>(node);
  int& h = holds_[n];
  if (was_down_.empty()) {
    was_down_.assign(holds_.size(), 0);
    notice_.assign(holds_.size(), 0.0);
  }
  if (std::find(touched.begin(), touched.end(), node) == touched.end()) {
    touched.push_back(node);
    was_down_[n] = h > 0 ? 1 : 0;
    notice_[n] = std::numeric_limits<double>::infinity();
  }
  if (delta > 0) notice_[n] = std::min(notice_[n], notice);
  h += delta;
}

void FailureProcess::apply(const Item& it, std::vector<int>& touched) {
  switch (it.kind) {
    case Kind::kNodeFail:
      hold(it.target, 1, touched);
      push(it.time + options_.repair_s, Kind::kNodeRepair, it.target);
      return;
    case Kind::kNodeRepair:
      hold(it.target, -1, touched);
      push(it.time + node_lifetime(), Kind::kNodeFail, it.target);
      return;
    case Kind::kSwitchFail:
    case Kind::kSwitchRepair: {
      const bool fails = it.kind == Kind::kSwitchFail;
      for (int n : switch_nodes_[static_cast<std::size_t>(it.target)])
        hold(n, fails ? 1 : -1, touched);
      if (fails) push(it.time + options_.repair_s, Kind::kSwitchRepair, it.target);
      if (!fails) push(it.time + exponential(options_.switch_mtbf_s), Kind::kSwitchFail, it.target);
      return;
    }
    case Kind::kTraceFail: {
      const TraceFailure& f = rows_[static_cast<std::size_t>(it.target)];
      hold(f.node, 1, touched, f.notice_s);
      push(it.time + f.duration_s, Kind::kTraceRepair, it.target);
      return;
    }
    case Kind::kTraceRepair:
      hold(rows_[static_cast<std::size_t>(it.target)].node, -1, touched);
      return;
  }
}

HealthChange FailureProcess::step(double now) {
  std::vector<int> touched;
  while (!queue_.empty() && queue_.top().time <= now) {
    const Item it = queue_.top();
    queue_.pop();
    apply(it, touched);
  }
  std::sort(touched.begin(), touched.end());
  HealthChange out;
  for (int n : touched) {
    const bool before = was_down_[static_cast<std::size_t>(n)] != 0;
    if (down(n) && !before) {
      out.down.push_back(n);
      out.notice.push_back(notice_[static_cast<std::size_t>(n)]);
    }
    if (!down(n) && before) out.up.push_back(n);
  }
  return out;
}

}  // namespace ringsched::fail
