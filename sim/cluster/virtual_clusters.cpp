// sim/cluster/virtual_clusters.cpp — parsing cluster.virtual_clusters (see the header).
#include "sim/cluster/virtual_clusters.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <functional>

#include "models/input_error.h"
#include "workloads/io/csv.h"
#include "workloads/io/input_path.h"

namespace ringsched {

int VirtualClusters::index_of(const std::string& name) const {
  for (std::size_t i = 0; i < table.size(); ++i)
    if (table[i].name == name) return static_cast<int>(i);
  return -1;
}

std::string VirtualClusters::names() const {
  std::string out;
  for (std::size_t i = 0; i < table.size() && i < 20; ++i)
    out += (i > 0 ? ", " : "") + table[i].name;
  if (table.size() > 20) out += " and " + std::to_string(table.size() - 20) + " more";
  return out;
}

std::string VirtualClusters::refusal(const std::string& vc) const {
  const std::string known = "cluster.virtual_clusters (" + origin + ": " + names() + ")";
  if (vc.empty()) return "names no virtual cluster; a cluster with " + known + " runs only jobs of its VCs";
  if (std::find(idle.begin(), idle.end(), vc) != idle.end())
    return "virtual cluster '" + vc + "' has no GPUs on " + date + " in " + origin;
  return "virtual cluster '" + vc + "' is not in " + known;
}

std::vector<VirtualClusterInfo> VirtualClusters::infos(int gpus_per_node) const {
  std::vector<VirtualClusterInfo> out;
  int first = 0;
  for (const VirtualClusterSpec& v : table) {
    out.push_back({v.name, first, v.nodes, v.nodes * gpus_per_node});
    first += v.nodes;
  }
  return out;
}

long VirtualClusters::total_nodes() const {
  long n = 0;
  for (const VirtualClusterSpec& v : table)
    n += v.nodes;
  return n;
}

namespace {

constexpr int kMaxVcs = 10000;
constexpr int kMaxVcNodes = 100000;

void add_vc(VirtualClusters& vcs, const std::string& name, int nodes, const std::function<void(std::string)>& fail) {
  if (name.empty()) fail("empty VC name");
  if (vcs.index_of(name) >= 0) fail("VC '" + name + "' appears twice");
  if (vcs.table.size() >= static_cast<std::size_t>(kMaxVcs)) fail("more than " + std::to_string(kMaxVcs) + " VCs");
  vcs.table.push_back({name, nodes});
}

// The Helios artifact's philly_vc.csv: `vc,node num`, one VC a row.
void read_vc_node_table(const CsvTable& t, VirtualClusters& vcs) {
  const int name_col = t.require_column("vc");
  const int nodes_col = t.require_column("node num");
  for (const CsvRow& row : t.rows) {
    const int nodes = t.integer_in(row, nodes_col, 1, kMaxVcNodes);
    add_vc(vcs, t.text(row, name_col), nodes, [&](const std::string& m) { t.fail(row, m); });
  }
}

// HeliosData's cluster_gpu_number.csv: `date,<vc>...,total`, GPUs per VC per day; the row of `date`. VCs with no GPUs
// that day are left out (their jobs are then refused as of no VC); the `total` column is not a VC.
void read_vc_gpu_table(const CsvTable& t, const std::string& date, int gpus_per_node, VirtualClusters& vcs,
                       const JsonReader& date_r) {
  const int date_col = t.require_column("date");
  for (const CsvRow& row : t.rows) {
    if (t.text(row, date_col) != date) continue;
    for (std::size_t c = 0; c < t.header.size(); ++c) {
      const int col = static_cast<int>(c);
      if (col == date_col || t.header[c] == "total") continue;
      const int gpus = t.integer_in(row, col, 0, kMaxVcNodes * 1024);
      if (gpus == 0) {
        vcs.idle.push_back(t.header[c]);
        continue;
      }
      if (gpus % gpus_per_node != 0) {
        t.fail(row, "column '" + t.header[c] + "': " + std::to_string(gpus) +
                        " GPUs is not a whole number of nodes of cluster.gpus_per_node " +
                        std::to_string(gpus_per_node));
      }
      add_vc(vcs, t.header[c], gpus / gpus_per_node, [&](const std::string& m) { t.fail(row, m); });
    }
    if (vcs.table.empty()) t.fail(row, "no VC has GPUs on " + date);
    vcs.date = date;
    return;
  }
  date_r.fail("date '" + date + "' is not in '" + t.file + "'");
}

void read_vc_file(const JsonReader& r, int gpus_per_node, VirtualClusters& vcs) {
  const JsonReader file_r = r.at("file");
  std::string path;
  try {
    path = resolve_input_path(file_r.as_string(), current_input_base_dir());
  } catch (const InputError& e) {
    file_r.fail(e.what());
  }
  CsvTable t;
  try {
    t = read_csv_file(path);
  } catch (const InputError& e) {
    file_r.fail(e.what());
  }
  vcs.origin = path;
  if (t.column("date") >= 0) {
    if (!r.has("date")) file_r.fail("'" + path + "' lists GPUs per VC per day: give \"date\": \"YYYY-MM-DD\"");
    read_vc_gpu_table(t, r.at("date").as_string(), gpus_per_node, vcs, r.at("date"));
    return;
  }
  if (r.has("date")) r.at("date").fail("only with a file of GPUs per day (a `date` column); '" + path + "' has none");
  read_vc_node_table(t, vcs);
  if (vcs.table.empty()) file_r.fail("'" + path + "' lists no VC");
}

}  // namespace

VirtualClusters parse_virtual_clusters(const JsonReader& r, int cluster_nodes, int gpus_per_node) {
  r.expect_object({"table", "file", "date", "placement"});
  VirtualClusters vcs;
  if (r.has("table") == r.has("file")) r.fail("give either \"table\" or \"file\" (the VCs and their nodes)");
  if (r.has("table")) {
    vcs.origin = r.at("table").where();
    if (r.has("date")) r.at("date").fail("only with \"file\"");
    for (const JsonReader& item : r.at("table").non_empty_elements()) {
      item.expect_object({"name", "nodes"});
      const int nodes = static_cast<int>(item.at("nodes").as_integer_in(1, kMaxVcNodes));
      add_vc(vcs, item.at("name").as_string(), nodes, [&](const std::string& m) { item.at("name").fail(m); });
    }
  } else {
    read_vc_file(r, gpus_per_node, vcs);
  }
  if (auto p = r.maybe("placement")) {
    vcs.placement = p->as_string();
    if (vcs.placement != "consolidate" && vcs.placement != "random")
      p->fail("unknown placement '" + vcs.placement + "' (valid: consolidate, random)");
  }
  const long sum = vcs.total_nodes();
  if (sum > cluster_nodes) {
    (r.has("table") ? r.at("table") : r.at("file"))
        .fail("the VCs hold " + std::to_string(sum) + " nodes, more than cluster.nodes (" +
              std::to_string(cluster_nodes) + ")");
  }
  return vcs;
}

}  // namespace ringsched
