// test/fuzz/fuzz_network.cpp — the `hosts_network` fuzz target (issue 36): a host list with switch names (Lingjun's
// topo.csv format) read into a topology, its links and routes built, and a network of jobs placed across its nodes
// solved under both activities; a bad list may be refused (InputError, or the topology's std::invalid_argument that
// the config reader maps to one), anything else is a finding, and so is a slowdown below 1 or not finite.
#include <algorithm>
#include <cmath>
#include <fstream>
#include <memory>
#include <sstream>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "models/input_error.h"
#include "sim/cluster/hosts_topology.h"
#include "sim/cluster/network/link_set.h"
#include "sim/cluster/network/network_state.h"
#include "test/fuzz/fuzz_entries.h"

namespace ringsched::fuzz {
namespace {

// Jobs of 1-4 nodes spread over the first nodes (two GPUs each), some removed again: every component solved.
void solve_jobs_on(const Topology& topo, bool always) {
  net::NetworkOptions o;
  o.contention = true;
  o.activity = always ? "always" : "expected";
  net::NetworkState st(topo, o);
  const int nodes = topo.nodes();
  for (int id = 0; id < std::min(nodes, 24); ++id) {
    net::JobComm j;
    const int span = 1 + id % 4;
    for (int k = 0; k < span; ++k) {
      const int node = (id * 7 + k * 3) % nodes;
      const int g = topo.first_gpu(node) + id % topo.gpus_on(node);
      if (std::find(j.gpus.begin(), j.gpus.end(), g) == j.gpus.end()) j.gpus.push_back(g);
    }
    std::sort(j.gpus.begin(), j.gpus.end());
    j.gradient_bytes = 1e8 * (1 + id % 5);
    j.iteration_s = 0.1 * (1 + id % 3);
    st.set_job(id, j);
    if (id % 5 == 4) st.remove_job(id - 2);
    (void)st.update();
  }
  for (int id = 0; id < std::min(nodes, 24); ++id) {
    const double s = st.slowdown(id);
    if (!(s >= 1.0) || !std::isfinite(s)) throw std::logic_error("hosts_network: slowdown " + std::to_string(s));
  }
}

void run_hosts_network(std::string_view data) {
  HostsTable table;
  try {
    table = parse_hosts_csv(std::string(data), "hosts.csv");
  } catch (const InputError&) {
    return;
  }
  const std::size_t hosts = std::min<std::size_t>(table.hosts.size(), 48);
  const HostsLinks links{{300e9, 1e-6}, {100e9, 2e-6}, {50e9, 2e-6}, {200e9, 2e-6}};
  const SwitchNames names = data.size() % 2 == 0 ? SwitchNames::kPerParent : SwitchNames::kGlobal;
  TopologySpec spec;
  try {
    spec = hosts_topology_spec(table, hosts, 2, names, links);
  } catch (const InputError&) {
    return;
  }
  std::unique_ptr<Topology> topo;
  try {
    topo = std::make_unique<Topology>(spec);
  } catch (const std::invalid_argument&) {
    return;  // e.g. a disconnected graph: the config reader refuses it naming cluster.topology
  }
  if (net::LinkSet(*topo).unroutable_pair()) return;  // refused by the config reader for contention
  solve_jobs_on(*topo, data.size() % 3 == 0);
}

std::vector<std::string> hosts_network_seeds() {
  std::vector<std::string> out;
  const std::string src = RINGSCHED_SOURCE_DIR;
  for (const char* f : {"/test/fixtures/hosts/six-hosts.csv", "/test/fixtures/hosts/loop.csv"}) {
    std::ifstream in(src + f, std::ios::binary);
    std::ostringstream s;
    s << in.rdbuf();
    out.push_back(s.str());
  }
  std::ifstream in(src + "/workloads/data/lingjun/topo.csv");
  std::string line;
  std::string head;
  for (int k = 0; k < 41 && std::getline(in, line); ++k)
    head += line + "\n";
  out.push_back(head);
  return out;
}

const TargetRegistrar hosts_network_fuzz_target{
    {"hosts_network", "host list with switch names into a topology, its links and a network of jobs", run_hosts_network,
     hosts_network_seeds}};

}  // namespace
}  // namespace ringsched::fuzz
