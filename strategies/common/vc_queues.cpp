// strategies/common/vc_queues.cpp — the per-virtual-cluster scheduler (see the header).
#include "strategies/common/vc_queues.h"

#include <algorithm>
#include <numeric>
#include <stdexcept>
#include <string>

namespace ringsched {

VcQueues::VcQueues(std::function<double(int)> priority, std::function<int(const JobPublic&)> size, bool preemptive,
                   bool backfill)
    : priority_(std::move(priority)), size_(std::move(size)), preemptive_(preemptive), backfill_(backfill) {}

std::vector<std::pair<int, int>> VcQueues::consolidate(const std::vector<int>& free, int gpus_per_node, int gpus) {
  std::vector<std::pair<int, int>> out;
  const int g = gpus_per_node;
  if (std::accumulate(free.begin(), free.end(), 0) < gpus) return out;  // the artifact's total free check
  std::vector<int> avail;                                               // nodes with a free GPU, in node order
  for (std::size_t n = 0; n < free.size(); ++n)
    if (free[n] > 0) avail.push_back(static_cast<int>(n));
  const auto free_of = [&free](int n) { return free[static_cast<std::size_t>(n)]; };
  if (gpus <= g) {
    // Best fit: the fewest free GPUs that still hold it; the first such node on ties (a stable ascending sort).
    int best = -1;
    for (int n : avail)
      if (free_of(n) >= gpus && (best < 0 || free_of(n) < free_of(best))) best = n;
    if (best >= 0) out.emplace_back(best, gpus);
    return out;
  }
  // Larger jobs walk the nodes by free GPUs, most first (stable: node order on ties).
  std::stable_sort(avail.begin(), avail.end(), [&](int a, int b) { return free_of(a) > free_of(b); });
  if (gpus % g == 0) {
    // k x G: the first k nodes must be wholly free.
    int left = gpus / g;
    for (int n : avail) {
      if (free_of(n) < g) break;
      out.emplace_back(n, g);
      if (--left == 0) return out;
    }
    out.clear();
    return out;
  }
  // k x G + r: k wholly free nodes, then the remainder r on the next node in that order (the one with the most free
  // GPUs left: worst fit, and it may be a whole free node) if it has r free; anything else fails.
  int pieces = gpus / g + 1;
  for (int n : avail) {
    if (free_of(n) == g && pieces > 1) {
      out.emplace_back(n, g);
      --pieces;
      continue;
    }
    if (free_of(n) >= gpus % g && pieces == 1) {
      out.emplace_back(n, gpus % g);
      return out;
    }
    break;
  }
  out.clear();
  return out;
}

std::vector<std::pair<int, int>> VcQueues::first_fit(const std::vector<int>& free, int gpus) {
  std::vector<std::pair<int, int>> out;
  if (std::accumulate(free.begin(), free.end(), 0) < gpus) return out;
  int left = gpus;
  for (std::size_t n = 0; n < free.size() && left > 0; ++n) {
    if (free[n] <= 0) continue;
    const int take = std::min(free[n], left);
    out.emplace_back(static_cast<int>(n), take);
    left -= take;
  }
  return out;
}

void VcQueues::init(const Snapshot& s) {
  ready_ = true;
  gpus_per_node_ = s.gpus_per_node;
  consolidate_ = s.vc_placement != "random";
  int nodes = 0;
  for (const VirtualClusterInfo& v : s.vcs) {
    Vc vc;
    vc.first_node = v.first_node;
    vc.nodes = v.nodes;
    vc.gpus = v.gpus;
    vc.free = v.gpus;
    vcs_.push_back(std::move(vc));
    nodes = std::max(nodes, v.first_node + v.nodes);
  }
  nodes_ = s.cluster != nullptr ? s.cluster->nodes() : nodes;
  node_free_.assign(static_cast<std::size_t>(nodes_), gpus_per_node_);
  touched_.assign(vcs_.size(), 0);
}

VcQueues::Job& VcQueues::job(int id) {
  if (jobs_.size() <= static_cast<std::size_t>(id)) jobs_.resize(static_cast<std::size_t>(id) + 1);
  return jobs_[static_cast<std::size_t>(id)];
}

void VcQueues::enqueue(int id) {
  Job& j = job(id);
  j.key = priority_(id);
  j.where = Where::kWaiting;
  Vc& vc = vcs_[static_cast<std::size_t>(j.vc)];
  vc.waiting.insert({j.key, id});
  ++vc.waiting_sizes[j.size];
}

void VcQueues::unqueue(int id) {
  const Job& j = job(id);
  Vc& vc = vcs_[static_cast<std::size_t>(j.vc)];
  vc.waiting.erase({j.key, id});
  const auto it = vc.waiting_sizes.find(j.size);
  if (--it->second == 0) vc.waiting_sizes.erase(it);
}

void VcQueues::release(int id) {
  Job& j = job(id);
  Vc& vc = vcs_[static_cast<std::size_t>(j.vc)];
  if (j.where == Where::kWaiting) unqueue(id);
  if (j.where == Where::kRunning) {
    for (const auto& [node, gpus] : j.held)
      node_free_[static_cast<std::size_t>(node)] += gpus;
    vc.free += j.size;
    vc.running.erase(std::find(vc.running.begin(), vc.running.end(), id));
  }
  j.held.clear();
  j.held.shrink_to_fit();
  j.where = Where::kNone;
}

bool VcQueues::try_start(Decision& d, int id) {
  Job& j = job(id);
  Vc& vc = vcs_[static_cast<std::size_t>(j.vc)];
  if (vc.free < j.size) return false;
  const auto first = node_free_.begin() + vc.first_node;
  const std::vector<int> free(first, first + vc.nodes);
  const auto pieces = consolidate_ ? consolidate(free, gpus_per_node_, j.size) : first_fit(free, j.size);
  if (pieces.empty()) return false;
  Change c{id, j.size, 0, std::vector<int>(static_cast<std::size_t>(nodes_), 0)};
  for (const auto& [n, gpus] : pieces) {
    const int node = vc.first_node + n;
    node_free_[static_cast<std::size_t>(node)] -= gpus;
    c.nodes[static_cast<std::size_t>(node)] += gpus;
    j.held.emplace_back(node, gpus);
  }
  vc.free -= j.size;
  unqueue(id);
  vc.running.push_back(id);
  j.where = Where::kRunning;
  d.changes.push_back(std::move(c));
  return true;
}

void VcQueues::preempt(Decision& d, int id) {
  release(id);
  enqueue(id);
  d.changes.push_back({id, 0});
}

// Head-of-line blocking: waiting jobs in priority order while each can be placed (with backfill: all that can).
void VcQueues::fill(Decision& d, Vc& vc) {
  for (auto it = vc.waiting.begin(); it != vc.waiting.end() && vc.free >= vc.smallest_waiting();) {
    const int id = it->second;
    ++it;  // try_start erases the job's entry
    if (!try_start(d, id) && !backfill_) break;
  }
}

// The artifact's SRTF step: every job of the VC in priority order, taken while its GPUs fit in the VC's total; running
// jobs not taken are preempted, then the taken waiting jobs are placed in order (those that cannot be placed wait).
void VcQueues::preemptive_pass(Decision& d, Vc& vc) {
  std::vector<std::pair<double, int>> run;
  run.reserve(vc.running.size());
  for (int id : vc.running) {
    job(id).key = priority_(id);
    run.emplace_back(job(id).key, id);
  }
  std::sort(run.begin(), run.end());
  int quota = vc.gpus;
  std::vector<int> take;
  std::vector<int> stop;
  std::size_t r = 0;
  auto w = vc.waiting.begin();
  // Once the running jobs are walked, no waiting job smaller than the smallest waiting size is left to take.
  while (quota > 0 && (r < run.size() || (w != vc.waiting.end() && quota >= vc.smallest_waiting()))) {
    const bool running = r < run.size() && (w == vc.waiting.end() || run[r] < *w);
    const int id = running ? run[r++].second : (w++)->second;
    const int size = job(id).size;
    if (size <= quota) {
      quota -= size;
      if (!running) take.push_back(id);
    } else if (running) {
      stop.push_back(id);
    }
  }
  for (; r < run.size(); ++r)
    stop.push_back(run[r].second);
  for (int id : stop)
    preempt(d, id);
  for (int id : take)
    try_start(d, id);
}

Decision VcQueues::decide(const Snapshot& s) {
  current_ = &s;
  if (!ready_) init(s);
  Decision d;
  for (int id : s.finished) {
    if (static_cast<std::size_t>(id) >= jobs_.size() || jobs_[static_cast<std::size_t>(id)].where == Where::kNone)
      continue;
    touched_[static_cast<std::size_t>(job(id).vc)] = 1;
    release(id);
  }
  for (int id : s.arrived) {
    const JobPublic& p = *s.views->view(id).pub;
    if (p.vc < 0 || static_cast<std::size_t>(p.vc) >= vcs_.size())
      throw std::logic_error("job " + p.name + " has no virtual cluster on a cluster with VCs");
    Job& j = job(id);
    j.vc = p.vc;
    j.size = std::min(size_(p), vcs_[static_cast<std::size_t>(p.vc)].gpus);
    enqueue(id);
    touched_[static_cast<std::size_t>(j.vc)] = 1;
  }
  for (std::size_t v = 0; v < vcs_.size(); ++v) {
    if (touched_[v] == 0) continue;
    touched_[v] = 0;
    if (preemptive_) {
      preemptive_pass(d, vcs_[v]);
    } else {
      fill(d, vcs_[v]);
    }
  }
  current_ = nullptr;
  return d;
}

}  // namespace ringsched
