// sim/cluster/virtual_clusters.h — cluster.virtual_clusters: the cluster's nodes divided among virtual clusters (VCs),
// as in Philly and Helios. Each VC owns a contiguous range of whole nodes (in table order from node 0), jobs name
// their VC (JobTruth::vc) and run only on its nodes, and VC-aware strategies queue jobs per VC and place them with
// the VCs' placement ("consolidate" or "random", docs/virtual_clusters.md). This file owns the table's type and its
// parsing (an inline table, the Helios artifact's `vc,node num` CSV, or HeliosData's per-day GPU counts).
#pragma once

#include <string>
#include <vector>

#include "strategies/strategy.h"
#include "workloads/io/json_reader.h"

namespace ringsched {

struct VirtualClusterSpec {
  std::string name;
  int nodes = 1;
};

struct VirtualClusters {
  std::vector<VirtualClusterSpec> table;  // in node order: the first VC owns nodes 0..nodes-1, and so on
  std::string placement = "consolidate";  // "consolidate" | "random"
  std::string origin;                     // where the table came from ("cluster.virtual_clusters.table" or a file)
  std::string date;                       // a per-day file's row (key "date"); "" otherwise
  std::vector<std::string> idle;          // a per-day file's VCs with no GPUs on `date` (not in the table)
  // Index of the VC named `name`, -1 if none.
  [[nodiscard]] int index_of(const std::string& name) const;
  // The VCs' names, comma-separated (for messages; the first 20, then a count).
  [[nodiscard]] std::string names() const;
  // Why a job naming VC `vc` (not in the table) cannot run here, for messages: it names no VC, its VC has no GPUs on
  // the file's date, or its VC is not in the table (listing the table's).
  [[nodiscard]] std::string refusal(const std::string& vc) const;
  // The VCs as strategies see them (Snapshot::vcs): name, first node, nodes, GPUs.
  [[nodiscard]] std::vector<VirtualClusterInfo> infos(int gpus_per_node) const;
  [[nodiscard]] long total_nodes() const;
};

// Parses cluster.virtual_clusters `r` for a cluster of `cluster_nodes` nodes of `gpus_per_node` GPUs: an object with
// either "table" (an array of {"name", "nodes"}) or "file" (a CSV: `vc,node num` rows, or `date,<vc>...,total` rows
// of GPUs per VC with "date" choosing the row), and an optional "placement". InputError naming the JSON path or the
// file and line: unknown keys, a VC of no or an absurd number of nodes, duplicate names, VCs holding more nodes than
// the cluster, a missing file, a date not in the file, GPUs not a multiple of gpus_per_node.
VirtualClusters parse_virtual_clusters(const JsonReader& r, int cluster_nodes, int gpus_per_node);

}  // namespace ringsched
