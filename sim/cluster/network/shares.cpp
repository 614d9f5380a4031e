// sim/cluster/network/shares.cpp — the rates, shared iteration times and slowdowns of one component's jobs.
#include "sim/cluster/network/shares.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>

#include "sim/cluster/network/max_min.h"

namespace ringsched::net {
namespace {

constexpr double kSharesInf = std::numeric_limits<double>::infinity();
// A rate within this (relative) of the alone rate is the alone rate: rounding must not slow a job down.
constexpr double kSnap = 1e-12;
constexpr double kSettled = 1e-9;
// The fixed point's damping, per job: its mean moves by step x (target - mean); the step halves (down to kMinStep)
// when the gap changes sign (an oscillation) and grows by kStepGrowth (up to 1) when it does not.
constexpr double kMinStep = 1.0 / 64.0;
constexpr double kStepGrowth = 1.2;

Share share_of(const ShareJob& j, double rate, double overlap) {
  Share s;
  rate = std::min(rate, j.alone_rate);
  if (rate >= j.alone_rate * (1.0 - kSnap)) rate = j.alone_rate;
  s.rate = rate;
  s.iteration_s = j.iteration_s;
  if (rate < j.alone_rate && j.flow_bytes > 0.0) {
    const double extra = j.flow_bytes / rate - j.flow_bytes / j.alone_rate;
    s.iteration_s = j.iteration_s + (1.0 - overlap) * extra;
    s.slowdown = s.iteration_s / j.iteration_s;
  }
  s.mean_rate = j.flow_bytes > 0.0 ? std::min(rate, j.flow_bytes / s.iteration_s) : 0.0;
  return s;
}

std::vector<double> always_rates(std::span<const double> capacity, std::span<const ShareJob> jobs) {
  std::vector<FlowSpec> specs;
  specs.reserve(jobs.size());
  for (const ShareJob& j : jobs)  // a job that sends nothing takes nothing
    specs.push_back({j.links, j.weight, j.flow_bytes > 0.0 ? kSharesInf : 0.0});
  return weighted_max_min(capacity, specs);
}

// The component's links as lists of the jobs crossing them (each job once per link).
std::vector<std::vector<int>> jobs_by_link(std::size_t links, std::span<const ShareJob> jobs) {
  std::vector<std::vector<int>> on(links);
  for (std::size_t j = 0; j < jobs.size(); ++j) {
    for (int l : jobs[j].links) {
      auto& v = on[static_cast<std::size_t>(l)];
      if (v.empty() || v.back() != static_cast<int>(j)) v.push_back(static_cast<int>(j));
    }
  }
  return on;
}

// Job j's rate with every competitor on j's links an entity capped at its mean rate (restricted to j's links).
class Perspective {
 public:
  Perspective(std::span<const double> capacity, std::span<const ShareJob> jobs)
      : capacity_(capacity),
        jobs_(jobs),
        on_(jobs_by_link(capacity.size(), jobs)),
        sub_(capacity.size(), -1),
        seen_(jobs.size(), 0) {
    for (const ShareJob& j : jobs) {
      std::vector<int> d = j.links;
      std::sort(d.begin(), d.end());
      d.erase(std::unique(d.begin(), d.end()), d.end());
      distinct_.push_back(std::move(d));
    }
  }

  double rate(std::size_t j, const std::vector<double>& mean) {
    ++call_;
    cap_.clear();
    for (int l : distinct_[j]) {
      sub_[static_cast<std::size_t>(l)] = static_cast<int>(cap_.size());
      cap_.push_back(capacity_[static_cast<std::size_t>(l)]);
    }
    std::size_t used = 0;
    add(used, jobs_[j], kSharesInf);
    for (int l : distinct_[j]) {
      for (int g : on_[static_cast<std::size_t>(l)]) {
        const auto gi = static_cast<std::size_t>(g);
        if (gi == j || seen_[gi] == call_) continue;
        seen_[gi] = call_;
        add(used, jobs_[gi], mean[gi]);
      }
    }
    for (int l : distinct_[j])
      sub_[static_cast<std::size_t>(l)] = -1;
    return weighted_max_min(cap_, std::span<const FlowSpec>(specs_.data(), used))[0];
  }

 private:
  // The next entity: `job` restricted to the current perspective's links (buffers reused between calls).
  void add(std::size_t& used, const ShareJob& job, double cap) {
    if (specs_.size() == used) specs_.emplace_back();
    FlowSpec& f = specs_[used++];
    f.links.clear();
    for (int k : job.links) {
      if (sub_[static_cast<std::size_t>(k)] >= 0) f.links.push_back(sub_[static_cast<std::size_t>(k)]);
    }
    f.weight = job.weight;
    f.cap = cap;
  }

  std::span<const double> capacity_;
  std::span<const ShareJob> jobs_;
  std::vector<std::vector<int>> on_;
  std::vector<std::vector<int>> distinct_;  // per job: its distinct links
  std::vector<int> sub_;                    // component link -> index among j's links, -1 = not j's
  std::vector<std::uint64_t> seen_;         // competitor -> the last call that added it
  std::uint64_t call_ = 0;
  std::vector<double> cap_;
  std::vector<FlowSpec> specs_;
};

}  // namespace

double alone_rate(std::span<const double> capacity, std::span<const int> links) {
  std::vector<int> sorted(links.begin(), links.end());
  std::sort(sorted.begin(), sorted.end());
  double r = kSharesInf;
  for (std::size_t i = 0; i < sorted.size();) {
    std::size_t k = i;
    while (k < sorted.size() && sorted[k] == sorted[i])
      ++k;
    r = std::min(r, capacity[static_cast<std::size_t>(sorted[i])] / static_cast<double>(k - i));
    i = k;
  }
  return r;
}

ShareResult component_shares(std::span<const double> capacity, std::span<const ShareJob> jobs, double overlap,
                             bool always) {
  ShareResult out;
  out.jobs.resize(jobs.size());
  if (jobs.size() == 1) {  // alone: exactly its alone speed
    out.jobs[0] = share_of(jobs[0], jobs[0].alone_rate, overlap);
    out.rounds = 1;
    return out;
  }
  if (always) {
    const std::vector<double> r = always_rates(capacity, jobs);
    for (std::size_t j = 0; j < jobs.size(); ++j)
      out.jobs[j] = share_of(jobs[j], r[j], overlap);
    out.rounds = 1;
    return out;
  }
  std::vector<double> mean(jobs.size());
  std::vector<double> target(jobs.size());
  for (std::size_t j = 0; j < jobs.size(); ++j)
    mean[j] = share_of(jobs[j], jobs[j].alone_rate, overlap).mean_rate;
  Perspective p(capacity, jobs);
  std::vector<double> step(jobs.size(), 1.0);
  std::vector<double> gap(jobs.size(), 0.0);
  for (out.rounds = 1; out.rounds <= kMaxRounds; ++out.rounds) {
    double change = 0.0;
    for (std::size_t j = 0; j < jobs.size(); ++j) {
      out.jobs[j] = share_of(jobs[j], p.rate(j, mean), overlap);
      target[j] = out.jobs[j].mean_rate;
      if (mean[j] > 0.0) change = std::max(change, std::abs(target[j] - mean[j]) / mean[j]);
    }
    out.residual = change;
    if (change <= kSettled) break;
    for (std::size_t j = 0; j < jobs.size(); ++j) {
      const double g = target[j] - mean[j];
      step[j] = g * gap[j] < 0.0 ? std::max(step[j] / 2.0, kMinStep) : std::min(1.0, step[j] * kStepGrowth);
      gap[j] = g;
      mean[j] += step[j] * g;
    }
  }
  if (out.rounds > kMaxRounds) {
    out.rounds = kMaxRounds;
    out.settled = false;
  }
  return out;
}

}  // namespace ringsched::net
