// sim/cluster/network/job_flows.cpp — a job's ring hops between nodes as routed flows.
#include "sim/cluster/network/job_flows.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

namespace ringsched::net {
namespace {

void check_job(const JobComm& job, std::size_t gpus) {
  if (job.gpus.empty()) throw std::invalid_argument("a job holds no GPUs");
  for (int g : job.gpus) {
    if (g < 0 || static_cast<std::size_t>(g) >= gpus) {
      throw std::invalid_argument("GPU " + std::to_string(g) + " is not in the topology (" + std::to_string(gpus) +
                                  " GPUs)");
    }
  }
  if (!(job.gradient_bytes >= 0.0) || !std::isfinite(job.gradient_bytes)) {
    throw std::invalid_argument("gradient bytes must be >= 0 and finite");
  }
  if (!(job.iteration_s > 0.0) || !std::isfinite(job.iteration_s)) {
    throw std::invalid_argument("iteration time must be > 0 and finite");
  }
}

}  // namespace

JobFlows job_flows(const LinkSet& links, const std::vector<int>& gpu_node, const JobComm& job, bool ring,
                   std::uint64_t salt) {
  check_job(job, gpu_node.size());
  std::vector<int> gpus = job.gpus;
  std::sort(gpus.begin(), gpus.end());
  gpus.erase(std::unique(gpus.begin(), gpus.end()), gpus.end());
  std::vector<int> nodes;
  for (int g : gpus)
    nodes.push_back(gpu_node[static_cast<std::size_t>(g)]);
  std::sort(nodes.begin(), nodes.end());
  nodes.erase(std::unique(nodes.begin(), nodes.end()), nodes.end());
  JobFlows out;
  out.nodes = static_cast<int>(nodes.size());
  if (nodes.size() < 2) return out;
  const double parts = ring ? static_cast<double>(gpus.size()) : static_cast<double>(nodes.size());
  out.flow_bytes = 2.0 * (parts - 1.0) / parts * job.gradient_bytes;
  std::vector<std::vector<int>> routes;
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    routes.push_back(links.route(nodes[i], nodes[(i + 1) % nodes.size()], salt));
    out.links.insert(out.links.end(), routes.back().begin(), routes.back().end());
  }
  std::sort(out.links.begin(), out.links.end());
  out.links.erase(std::unique(out.links.begin(), out.links.end()), out.links.end());
  for (const auto& r : routes) {
    std::vector<int> f;
    for (int id : r)
      f.push_back(static_cast<int>(std::lower_bound(out.links.begin(), out.links.end(), id) - out.links.begin()));
    out.flows.push_back(std::move(f));
  }
  return out;
}

}  // namespace ringsched::net
