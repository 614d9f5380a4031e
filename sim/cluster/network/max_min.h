// sim/cluster/network/max_min.h — weighted max-min fair rates of flows over capacitated links (progressive filling,
// also called water-filling): the bandwidth-sharing rule of the network-contention model (docs/network.md).
#pragma once

#include <limits>
#include <span>
#include <vector>

namespace ringsched::net {

// One flow: the links it crosses (indices into the capacity array; a link listed k times carries k x the flow's rate,
// e.g. a ring whose k hops cross it), its weight (> 0) and an optional cap on its rate (bytes/s; infinity = none).
struct FlowSpec {
  std::vector<int> links;
  double weight = 1.0;
  double cap = std::numeric_limits<double>::infinity();
};

// Weighted max-min fair rates: rates[f] for every flow f. Every link's total stays <= its capacity; every flow is
// either at its cap or crosses a saturated link on which its rate / weight is the largest. A flow with no links gets
// its cap (infinity allowed). Progressive filling: all unfrozen flows rise at the same level t (rate = weight x t);
// the next event is the smallest of (a link's residual capacity / the weight of its unfrozen flows, each counted as
// often as listed) and (an unfrozen
// flow's cap / weight); flows at that event freeze; repeat. Cost: O(rounds x (links + flows)) with rounds <= the
// number of distinct bottlenecks. Throws std::invalid_argument on a weight <= 0, a negative capacity or cap, or a
// link index out of range.
std::vector<double> weighted_max_min(std::span<const double> capacity, std::span<const FlowSpec> flows);

}  // namespace ringsched::net
