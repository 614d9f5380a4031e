// sim/cluster/network/max_min.cpp — progressive filling for weighted max-min fair rates.
#include "sim/cluster/network/max_min.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

namespace ringsched::net {
namespace {

constexpr double kMaxMinInf = std::numeric_limits<double>::infinity();
// Two events closer than this (relative) happen in the same round: rounding must not leave a saturated link live.
constexpr double kSameEvent = 1e-12;

void check_input(std::span<const double> capacity, std::span<const FlowSpec> flows) {
  for (std::size_t l = 0; l < capacity.size(); ++l) {
    if (!(capacity[l] >= 0.0)) throw std::invalid_argument("link " + std::to_string(l) + ": capacity must be >= 0");
  }
  for (std::size_t f = 0; f < flows.size(); ++f) {
    const FlowSpec& fl = flows[f];
    if (!(fl.weight > 0.0) || !std::isfinite(fl.weight)) {
      throw std::invalid_argument("flow " + std::to_string(f) + ": weight must be > 0 and finite");
    }
    if (!(fl.cap >= 0.0)) throw std::invalid_argument("flow " + std::to_string(f) + ": cap must be >= 0");
    for (int l : fl.links) {
      if (l < 0 || static_cast<std::size_t>(l) >= capacity.size()) {
        throw std::invalid_argument("flow " + std::to_string(f) + ": link " + std::to_string(l) + " out of range");
      }
    }
  }
}

// The filling state: residual capacity, unfrozen weight and unfrozen flow count per link; flows per link (CSR).
struct Filling {
  std::vector<double> residual;
  std::vector<double> weight;
  std::vector<int> active;
  std::vector<std::size_t> first;  // flows of link l: on[first[l] .. first[l + 1])
  std::vector<int> on;
  std::vector<int> live;  // links with unfrozen flows
};

Filling start_filling(std::span<const double> capacity, std::span<const FlowSpec> flows) {
  Filling s;
  const std::size_t nl = capacity.size();
  s.residual.assign(capacity.begin(), capacity.end());
  s.weight.assign(nl, 0.0);
  s.active.assign(nl, 0);
  s.first.assign(nl + 1, 0);
  for (const FlowSpec& f : flows) {
    for (int l : f.links)
      ++s.first[static_cast<std::size_t>(l) + 1];
  }
  for (std::size_t l = 0; l < nl; ++l)
    s.first[l + 1] += s.first[l];
  s.on.resize(s.first[nl]);
  std::vector<std::size_t> fill(s.first.begin(), s.first.end() - 1);
  for (std::size_t f = 0; f < flows.size(); ++f) {
    for (int l : flows[f].links) {
      const auto li = static_cast<std::size_t>(l);
      s.on[fill[li]++] = static_cast<int>(f);
      s.weight[li] += flows[f].weight;
      ++s.active[li];
    }
  }
  for (std::size_t l = 0; l < nl; ++l) {
    if (s.active[l] > 0) s.live.push_back(static_cast<int>(l));
  }
  return s;
}

void freeze(Filling& s, const FlowSpec& f, double rate) {
  for (int l : f.links) {
    const auto li = static_cast<std::size_t>(l);
    s.residual[li] = std::max(0.0, s.residual[li] - rate);
    s.weight[li] -= f.weight;
    if (--s.active[li] == 0) s.weight[li] = 0.0;
  }
}

}  // namespace

std::vector<double> weighted_max_min(std::span<const double> capacity, std::span<const FlowSpec> flows) {
  check_input(capacity, flows);
  std::vector<double> rate(flows.size(), 0.0);
  std::vector<char> frozen(flows.size(), 0);
  std::vector<int> unfrozen;
  for (std::size_t f = 0; f < flows.size(); ++f) {
    if (flows[f].links.empty()) {
      rate[f] = flows[f].cap;
      frozen[f] = 1;
    } else {
      unfrozen.push_back(static_cast<int>(f));
    }
  }
  Filling s = start_filling(capacity, flows);
  while (!unfrozen.empty()) {
    // The next event: the lowest level at which a link saturates or a flow reaches its cap.
    double level = kMaxMinInf;
    for (int l : s.live)
      level = std::min(level, s.residual[static_cast<std::size_t>(l)] / s.weight[static_cast<std::size_t>(l)]);
    for (int f : unfrozen) {
      const FlowSpec& fl = flows[static_cast<std::size_t>(f)];
      level = std::min(level, fl.cap / fl.weight);
    }
    const double at = level * (1.0 + kSameEvent);
    for (int f : unfrozen) {  // flows at their cap
      const auto fi = static_cast<std::size_t>(f);
      if (flows[fi].cap / flows[fi].weight <= at) {
        rate[fi] = flows[fi].cap;
        frozen[fi] = 1;
        freeze(s, flows[fi], rate[fi]);
      }
    }
    for (int l : s.live) {  // flows on saturated links
      const auto li = static_cast<std::size_t>(l);
      if (s.active[li] == 0 || s.residual[li] / s.weight[li] > at) continue;
      for (std::size_t k = s.first[li]; k < s.first[li + 1]; ++k) {
        const auto fi = static_cast<std::size_t>(s.on[k]);
        if (frozen[fi] != 0) continue;
        rate[fi] = flows[fi].weight * level;
        frozen[fi] = 1;
        freeze(s, flows[fi], rate[fi]);
      }
    }
    std::erase_if(unfrozen, [&](int f) { return frozen[static_cast<std::size_t>(f)] != 0; });
    std::erase_if(s.live, [&](int l) { return s.active[static_cast<std::size_t>(l)] == 0; });
  }
  return rate;
}

}  // namespace ringsched::net
