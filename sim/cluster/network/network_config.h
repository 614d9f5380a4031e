// sim/cluster/network/network_config.h — the `cluster.network` config key: whether jobs share the network's links
// and the options of the contention model (docs/network.md), with file + JSON-path messages (InputError, exit 2).
#pragma once

#include <string>
#include <vector>

#include "workloads/io/json_reader.h"

namespace ringsched::net {

struct NetworkOptions {
  bool contention = false;  // off by default: then nothing changes anywhere
  double overlap = 0.0;     // fraction of the extra communication time hidden behind compute, [0, 1]
  // "expected": a competitor counts with its mean throughput (it communicates only part of the time);
  // "always": every flow always on (the worst case).
  std::string activity = "expected";
  std::string allreduce = "hierarchical";  // or "ring" (one flat ring across all the job's GPUs)
  std::string priority = "none";           // or "gpu_intensity" (Crux-style priority levels)
  double bytes_per_param = 4.0;            // gradient bytes per parameter (fp32 = 4, fp16 = 2)
};

// Valid names of the string options.
const std::vector<std::string>& activity_names();
const std::vector<std::string>& allreduce_names();
const std::vector<std::string>& priority_names();

// The largest bytes_per_param accepted (fp64 gradients are 8; anything above 64 is a typo).
inline constexpr double kMaxBytesPerParam = 64.0;

// `r` is cluster.network: {"contention": bool, "overlap": [0, 1], "activity": name, "allreduce": name,
// "priority": name, "bytes_per_param": (0, 64]}, every key optional.
NetworkOptions parse_network(const JsonReader& r);

}  // namespace ringsched::net
