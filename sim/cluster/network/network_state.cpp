// sim/cluster/network/network_state.cpp — job bookkeeping on the links, touched components, and their solution.
#include "sim/cluster/network/network_state.h"

#include <algorithm>
#include <utility>

#include "sim/cluster/network/priority.h"
#include "sim/cluster/network/shares.h"

namespace ringsched::net {

NetworkState::NetworkState(const Topology& topo, NetworkOptions opt) : links_(topo), opt_(std::move(opt)) {
  gpu_node_.reserve(static_cast<std::size_t>(topo.gpus()));
  for (int g = 0; g < topo.gpus(); ++g)
    gpu_node_.push_back(topo.node_of(g));
  on_link_.assign(links_.links().size(), {});
  local_of_.assign(links_.links().size(), -1);
  const auto levels = static_cast<std::size_t>(links_.levels());
  level_capacity_.assign(levels, 0.0);
  level_load_.assign(levels, 0.0);
  level_carried_.assign(levels, 0.0);
  for (const Link& l : links_.links())
    level_capacity_[static_cast<std::size_t>(l.level - 1)] += l.capacity;
}

void NetworkState::set_job(int id, const JobComm& job) {
  Job nj;
  nj.flows = job_flows(links_, gpu_node_, job, opt_.allreduce == "ring", static_cast<std::uint64_t>(id));
  nj.comm = job;
  nj.at_level.assign(level_load_.size(), 0);
  std::vector<double> cap;
  for (int l : nj.flows.links)
    cap.push_back(links_.links()[static_cast<std::size_t>(l)].capacity);
  std::vector<int> local_hops;
  for (const auto& f : nj.flows.flows) {
    for (int k : f) {
      const int l = nj.flows.links[static_cast<std::size_t>(k)];
      nj.hops.push_back(l);
      local_hops.push_back(k);
      ++nj.at_level[static_cast<std::size_t>(links_.links()[static_cast<std::size_t>(l)].level - 1)];
    }
  }
  nj.alone_rate = alone_rate(cap, local_hops);
  auto it = jobs_.find(id);
  if (it != jobs_.end()) {
    nj.slowdown = it->second.slowdown;  // what slowdown() reports until update()
    detach(id, it->second);
    it->second = std::move(nj);
  } else {
    it = jobs_.emplace(id, std::move(nj)).first;
  }
  for (int l : it->second.flows.links)
    on_link_[static_cast<std::size_t>(l)].push_back(id);
  dirty_jobs_.push_back(id);
}

void NetworkState::remove_job(int id) {
  auto it = jobs_.find(id);
  if (it == jobs_.end()) return;
  detach(id, it->second);
  jobs_.erase(it);
}

void NetworkState::detach(int id, Job& job) {
  for (int l : job.flows.links) {
    auto& on = on_link_[static_cast<std::size_t>(l)];
    auto at = std::find(on.begin(), on.end(), id);
    if (at != on.end()) {
      *at = on.back();
      on.pop_back();
    }
    dirty_links_.push_back(l);
  }
  set_load(job, 0.0);
}

void NetworkState::set_load(Job& job, double mean_rate) {
  for (std::size_t k = 0; k < job.at_level.size(); ++k)
    level_load_[k] += (mean_rate - job.mean_rate) * static_cast<double>(job.at_level[k]);
  job.mean_rate = mean_rate;
}

std::vector<int> NetworkState::update() {
  ++pass_;
  last_rounds_ = 0;
  std::vector<int> seeds;
  for (int id : dirty_jobs_) {
    if (jobs_.count(id) != 0U) seeds.push_back(id);
  }
  for (int l : dirty_links_) {
    const auto& on = on_link_[static_cast<std::size_t>(l)];
    seeds.insert(seeds.end(), on.begin(), on.end());
  }
  dirty_jobs_.clear();
  dirty_links_.clear();
  std::vector<int> changed;
  for (int id : seeds) {
    if (jobs_.at(id).mark == pass_) continue;
    const std::vector<int> ids = component(id);
    std::vector<double> before;
    for (int j : ids)
      before.push_back(jobs_.at(j).slowdown);
    solve(ids);
    for (std::size_t k = 0; k < ids.size(); ++k) {
      if (jobs_.at(ids[k]).slowdown != before[k]) changed.push_back(ids[k]);
    }
  }
  std::sort(changed.begin(), changed.end());
  return changed;
}

std::vector<int> NetworkState::component(int seed) {
  std::vector<int> ids{seed};
  jobs_.at(seed).mark = pass_;
  for (std::size_t i = 0; i < ids.size(); ++i) {
    for (int l : jobs_.at(ids[i]).flows.links) {
      for (int g : on_link_[static_cast<std::size_t>(l)]) {
        Job& other = jobs_.at(g);
        if (other.mark == pass_) continue;
        other.mark = pass_;
        ids.push_back(g);
      }
    }
  }
  std::sort(ids.begin(), ids.end());  // the solution must not depend on where the search started
  return ids;
}

void NetworkState::solve(const std::vector<int>& ids) {
  recomputed_ += ids.size();
  std::vector<Job*> js;
  std::vector<double> cap;
  std::vector<int> touched;
  for (int id : ids) {
    js.push_back(&jobs_.at(id));
    for (int l : js.back()->flows.links) {
      auto& local = local_of_[static_cast<std::size_t>(l)];
      if (local >= 0) continue;
      local = static_cast<int>(cap.size());
      cap.push_back(links_.links()[static_cast<std::size_t>(l)].capacity);
      touched.push_back(l);
    }
  }
  std::vector<ShareJob> sj(js.size());
  std::vector<double> intensity;
  for (std::size_t k = 0; k < js.size(); ++k) {
    const Job& j = *js[k];
    for (int l : j.hops)
      sj[k].links.push_back(local_of_[static_cast<std::size_t>(l)]);
    sj[k].flow_bytes = j.flows.flow_bytes;
    sj[k].iteration_s = j.comm.iteration_s;
    sj[k].alone_rate = j.alone_rate;
    const double comm_alone = j.hops.empty() ? 0.0 : j.flows.flow_bytes / j.alone_rate;
    intensity.push_back(gpu_intensity(static_cast<int>(j.comm.gpus.size()), j.comm.iteration_s, comm_alone,
                                      j.flows.flow_bytes * static_cast<double>(j.flows.flows.size())));
  }
  if (opt_.priority == "gpu_intensity") {
    const std::vector<double> w = gpu_intensity_weights(intensity);
    for (std::size_t k = 0; k < js.size(); ++k)
      sj[k].weight = w[k];
  }
  for (int l : touched)
    local_of_[static_cast<std::size_t>(l)] = -1;
  const ShareResult r = component_shares(cap, sj, opt_.overlap, opt_.activity == "always");
  last_rounds_ = std::max(last_rounds_, r.rounds);
  if (!r.settled) {
    ++unsettled_;
    worst_residual_ = std::max(worst_residual_, r.residual);
  }
  for (std::size_t k = 0; k < js.size(); ++k) {
    Job& j = *js[k];
    j.slowdown = j.hops.empty() ? 1.0 : r.jobs[k].slowdown;
    j.rate = r.jobs[k].rate;
    j.shared = false;
    for (int l : j.flows.links)
      j.shared = j.shared || on_link_[static_cast<std::size_t>(l)].size() > 1;
    set_load(j, j.hops.empty() ? 0.0 : r.jobs[k].mean_rate);
  }
}

double NetworkState::slowdown(int id) const {
  auto it = jobs_.find(id);
  return it == jobs_.end() ? 1.0 : it->second.slowdown;
}

double NetworkState::comm_alone_s(int id) const {
  auto it = jobs_.find(id);
  if (it == jobs_.end() || it->second.hops.empty()) return 0.0;
  return it->second.flows.flow_bytes / it->second.alone_rate;
}

double NetworkState::comm_shared_s(int id) const {
  auto it = jobs_.find(id);
  if (it == jobs_.end() || it->second.hops.empty() || !(it->second.rate > 0.0)) return comm_alone_s(id);
  return it->second.flows.flow_bytes / it->second.rate;
}

bool NetworkState::on_shared_link(int id) const {
  auto it = jobs_.find(id);
  return it != jobs_.end() && it->second.shared;
}

void NetworkState::clock(double now) {
  if (!(now > clock_)) return;
  for (std::size_t k = 0; k < level_load_.size(); ++k)
    level_carried_[k] += std::max(0.0, level_load_[k]) * (now - clock_);
  clock_ = now;
}

NetworkState::Totals NetworkState::totals() const {
  Totals t;
  t.level = links_.level_names();
  for (std::size_t k = 0; k < level_carried_.size(); ++k) {
    const double denom = level_capacity_[k] * clock_;
    t.utilisation.push_back(denom > 0.0 ? level_carried_[k] / denom : 0.0);
  }
  return t;
}

}  // namespace ringsched::net
