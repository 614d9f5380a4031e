// sim/cluster/network/job_flows.h — the communication model of one job: which inter-node flows its all-reduce makes
// on the cluster's links and how many bytes each carries per iteration (docs/network.md).
//
// A job on one node has no inter-node flow. On N > 1 nodes (its GPUs' nodes in ascending order, as its ring visits
// them):
// - "hierarchical": reduce-scatter inside each node, all-reduce across the nodes as a ring of the N nodes (node i ->
//   node i + 1, the last -> the first), all-gather inside; each node sends 2(N - 1)/N x gradient_bytes per iteration.
// - "ring": one flat ring over the job's n GPUs in ascending id; it crosses node boundaries at the same N node-to-
//   node hops, each carrying 2(n - 1)/n x gradient_bytes.
// Each hop is one flow over LinkSet::route(node i, node i + 1, salt = job id). The intra-node parts are never shared
// (a GPU belongs to one job), so they are not flows.
#pragma once

#include <cstdint>
#include <vector>

#include "sim/cluster/network/link_set.h"

namespace ringsched::net {

struct JobComm {
  std::vector<int> gpus;        // global GPU ids the job holds (its ring visits them in ascending id, node by node)
  double gradient_bytes = 0.0;  // bytes all-reduced per iteration
  double iteration_s = 0.0;     // its iteration time ALONE on these GPUs (compute + communication, > 0)
};

struct JobFlows {
  std::vector<int> links;               // the distinct directed link ids the job's flows cross, ascending
  std::vector<std::vector<int>> flows;  // per flow: indices into `links` along its route
  double flow_bytes = 0.0;              // bytes every flow carries per iteration
  int nodes = 0;                        // distinct nodes the job spans
};

// Throws std::invalid_argument on no GPUs, a GPU id outside [0, gpu_node.size()), a negative or non-finite
// gradient_bytes, or an iteration_s that is not > 0 and finite. `gpu_node` maps a GPU id to its node (Topology).
// `ring` selects the flat ring (else hierarchical).
JobFlows job_flows(const LinkSet& links, const std::vector<int>& gpu_node, const JobComm& job, bool ring,
                   std::uint64_t salt);

}  // namespace ringsched::net
