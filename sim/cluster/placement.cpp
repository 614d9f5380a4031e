// sim/cluster/placement.cpp — cluster GPU ownership, the placement policies, the Placer and ring-derived speeds.
#include "sim/cluster/placement.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <stdexcept>

#include "models/speed_model.h"
#include "models/step_time_model.h"

namespace ringsched {

ClusterState::ClusterState(std::shared_ptr<const Topology> topo) : topo_(std::move(topo)) {
  owner_.assign(static_cast<std::size_t>(topo_->gpus()), -1);
  free_.resize(static_cast<std::size_t>(topo_->nodes()));
  for (int n = 0; n < topo_->nodes(); ++n)
    free_[static_cast<std::size_t>(n)] = topo_->gpus_on(n);
  total_free_ = topo_->gpus();
}

void ClusterState::take_free(int node, int k, std::vector<int>& out) const {
  const int first = topo_->first_gpu(node);
  const int last = first + topo_->gpus_on(node);
  for (int g = first; g < last && k > 0; ++g) {
    if (owner_[static_cast<std::size_t>(g)] == kFree) {
      out.push_back(g);
      --k;
    }
  }
  if (k > 0) throw std::logic_error("placement: node has fewer free GPUs than asked");
}

void ClusterState::assign(int gpu, int job) {
  int& o = owner_[static_cast<std::size_t>(gpu)];
  if (o != kFree) throw std::logic_error("placement: GPU " + std::to_string(gpu) + " is already taken");
  o = job;
  --free_[static_cast<std::size_t>(topo_->node_of(gpu))];
  --total_free_;
}

void ClusterState::release(int gpu) {
  int& o = owner_[static_cast<std::size_t>(gpu)];
  if (o < 0) throw std::logic_error("placement: GPU " + std::to_string(gpu) + " is already free");
  o = -1;
  ++free_[static_cast<std::size_t>(topo_->node_of(gpu))];
  ++total_free_;
}

void ClusterState::set_down(int node, bool down) {
  const int first = topo_->first_gpu(node);
  const int n = topo_->gpus_on(node);
  for (int g = first; g < first + n; ++g) {
    int& o = owner_[static_cast<std::size_t>(g)];
    if (o != (down ? kFree : kDown)) throw std::logic_error("placement: node " + std::to_string(node) + " is busy");
    o = down ? kDown : kFree;
  }
  free_[static_cast<std::size_t>(node)] = down ? 0 : n;
  total_free_ += down ? -n : n;
}

int ClusterState::fragmented_free() const {
  int sum = 0;
  for (int n = 0; n < topo_->nodes(); ++n) {
    const int f = free_[static_cast<std::size_t>(n)];
    if (f > 0 && f < topo_->gpus_on(n)) sum += f;
  }
  return sum;
}

std::vector<int> packed_choice(const ClusterState& st, std::vector<int> nodes, int count) {
  std::vector<int> out;
  out.reserve(static_cast<std::size_t>(count));
  int best = -1;
  for (int n : nodes) {
    const int f = st.free_on(n);
    if (f >= count && (best < 0 || f < st.free_on(best))) best = n;
  }
  if (best >= 0) {
    st.take_free(best, count, out);
    return out;
  }
  std::stable_sort(nodes.begin(), nodes.end(), [&](int a, int b) { return st.free_on(a) > st.free_on(b); });
  int left = count;
  std::size_t i = 0;
  // Whole nodes while the next one does not finish the job.
  while (i < nodes.size() && st.free_on(nodes[i]) < left) {
    st.take_free(nodes[i], st.free_on(nodes[i]), out);
    left -= st.free_on(nodes[i]);
    ++i;
  }
  if (left > 0) {
    // Best fit for the last piece among the remaining nodes (sorted by free desc: the last one that fits).
    std::size_t pick = nodes.size();
    for (std::size_t k = i; k < nodes.size() && st.free_on(nodes[k]) >= left; ++k)
      pick = k;
    if (pick == nodes.size()) throw std::logic_error("placement: not enough free GPUs");
    st.take_free(nodes[pick], left, out);
  }
  return out;
}

std::vector<int> nodes_with_free(const ClusterState& st) {
  std::vector<int> nodes;
  for (int n = 0; n < st.topology().nodes(); ++n) {
    if (st.free_on(n) > 0) nodes.push_back(n);
  }
  return nodes;
}

std::vector<int> group_members(const Topology& t, const std::vector<int>& nodes, std::size_t level, int group) {
  std::vector<int> members;
  for (int n : nodes) {
    if (t.group_of(level, n) == group) members.push_back(n);
  }
  return members;
}

std::vector<int> group_free(const ClusterState& st, const std::vector<int>& nodes, std::size_t level) {
  const Topology& t = st.topology();
  std::vector<int> sums(static_cast<std::size_t>(t.group_count(level)), 0);
  for (int n : nodes)
    sums[static_cast<std::size_t>(t.group_of(level, n))] += st.free_on(n);
  return sums;
}

bool wider_ring(const RingComm& a, const RingComm& b) {
  if (a.bandwidth != b.bandwidth) return a.bandwidth > b.bandwidth;
  return a.nodes < b.nodes;
}

namespace {

class Packed final : public PlacementPolicy {
 public:
  [[nodiscard]] std::string name() const override { return "packed"; }
  [[nodiscard]] std::vector<int> choose(const ClusterState& st, int count) const override {
    return packed_choice(st, nodes_with_free(st), count);
  }
  [[nodiscard]] bool better(const RingComm& a, const RingComm& b) const override { return a.nodes < b.nodes; }
};
const PlacementPolicyRegistrar packed_placement_registrar{"packed", make_policy<Packed>};

class Spread final : public PlacementPolicy {
 public:
  [[nodiscard]] std::string name() const override { return "spread"; }
  [[nodiscard]] std::vector<int> choose(const ClusterState& st, int count) const override {
    std::vector<int> nodes = nodes_with_free(st);
    std::stable_sort(nodes.begin(), nodes.end(), [&](int a, int b) { return st.free_on(a) > st.free_on(b); });
    std::vector<int> per(nodes.size(), 0);
    int left = count;
    while (left > 0) {
      bool any = false;
      for (std::size_t i = 0; i < nodes.size() && left > 0; ++i) {
        if (per[i] < st.free_on(nodes[i])) {
          ++per[i];
          --left;
          any = true;
        }
      }
      if (!any) throw std::logic_error("placement: not enough free GPUs");
    }
    std::vector<int> out;
    for (std::size_t i = 0; i < nodes.size(); ++i) {
      if (per[i] > 0) st.take_free(nodes[i], per[i], out);
    }
    return out;
  }
  [[nodiscard]] bool better(const RingComm&, const RingComm&) const override { return false; }
};
const PlacementPolicyRegistrar spread_placement_registrar{"spread", make_policy<Spread>};

class TopologyAware final : public PlacementPolicy {
 public:
  [[nodiscard]] std::string name() const override { return "topology"; }
  [[nodiscard]] std::vector<int> choose(const ClusterState& st, int count) const override {
    const Topology& t = st.topology();
    std::vector<int> all = nodes_with_free(st);
    for (int n : all) {
      if (st.free_on(n) >= count) return packed_choice(st, all, count);  // one node: best fit
    }
    // The widest bandwidth level with a group of nodes that holds the job; best fit among those groups.
    for (std::size_t k = 0; k < t.levels().size(); ++k) {
      const std::vector<int> sums = group_free(st, all, k);
      int best = -1;
      for (std::size_t gi = 0; gi < sums.size(); ++gi) {
        if (sums[gi] >= count && (best < 0 || sums[gi] < sums[static_cast<std::size_t>(best)])) {
          best = static_cast<int>(gi);
        }
      }
      if (best < 0) continue;
      return packed_choice(st, group_members(t, all, k, best), count);
    }
    throw std::logic_error("placement: not enough free GPUs");
  }
  [[nodiscard]] bool better(const RingComm& a, const RingComm& b) const override { return wider_ring(a, b); }
};
const PlacementPolicyRegistrar topology_placement_registrar{"topology", make_policy<TopologyAware>};

}  // namespace

// The Pollux artifact's Optimus and Tiresias placement (collections.Counter.most_common on free GPUs per node).
class MostFree final : public PlacementPolicy {
 public:
  [[nodiscard]] std::string name() const override { return "most_free"; }
  [[nodiscard]] std::vector<int> choose(const ClusterState& st, int count) const override {
    const int nodes = st.topology().nodes();
    std::vector<int> free(static_cast<std::size_t>(nodes));
    for (int n = 0; n < nodes; ++n)
      free[static_cast<std::size_t>(n)] = st.free_on(n);
    std::vector<int> out;
    int left = count;
    while (left > 0) {
      int best = -1;
      for (int n = 0; n < nodes; ++n) {
        if (free[static_cast<std::size_t>(n)] > 0 &&
            (best < 0 || free[static_cast<std::size_t>(n)] > free[static_cast<std::size_t>(best)])) {
          best = n;
        }
      }
      if (best < 0) throw std::logic_error("placement: not enough free GPUs");
      const int take = std::min(left, free[static_cast<std::size_t>(best)]);
      st.take_free(best, take, out);
      free[static_cast<std::size_t>(best)] -= take;
      left -= take;
    }
    return out;
  }
  [[nodiscard]] bool better(const RingComm& a, const RingComm& b) const override { return a.nodes < b.nodes; }
};
const PlacementPolicyRegistrar most_free_placement_registrar{"most_free", make_policy<MostFree>};

namespace {

// The registry of placement policies, in name order: every policy registers itself beside its class (above, or in a
// file of its own) with a PlacementPolicyRegistrar (docs/extending.md).
struct PolicyRegistry {
  std::map<std::string, std::unique_ptr<PlacementPolicy> (*)()> makers;
  std::vector<std::string> registered_twice;
};

PolicyRegistry& policy_registry() {
  static PolicyRegistry registry;
  return registry;
}

const PolicyRegistry& checked_policy_registry() {
  const auto& r = policy_registry();
  if (!r.registered_twice.empty())
    throw std::logic_error("placement policy '" + r.registered_twice.front() +
                           "' is registered twice (PlacementPolicyRegistrar)");
  return r;
}

}  // namespace

PlacementPolicyRegistrar::PlacementPolicyRegistrar(const std::string& name,
                                                   std::unique_ptr<PlacementPolicy> (*make)()) {
  auto& r = policy_registry();
  if (r.makers.count(name)) r.registered_twice.push_back(name);
  r.makers[name] = make;
}

std::unique_ptr<PlacementPolicy> make_placement_policy(const std::string& name) {
  const auto& makers = checked_policy_registry().makers;
  auto it = makers.find(name);
  if (it != makers.end()) return it->second();
  throw std::invalid_argument("unknown placement policy '" + name + "'");
}

std::vector<std::string> placement_policy_names() {
  std::vector<std::string> out;
  for (const auto& [name, make] : checked_policy_registry().makers)
    out.push_back(name);
  return out;
}

Placer::Placer(std::shared_ptr<const Topology> topo, std::unique_ptr<PlacementPolicy> policy, bool defragment)
    : state_(std::move(topo)), policy_(std::move(policy)), defragment_(defragment) {}

std::vector<int>& Placer::slot(int job) {
  const auto i = static_cast<std::size_t>(job);
  if (i >= held_.size()) {
    held_.resize(i + 1);
    placement_.resize(i + 1);
    span_.resize(i + 1, 0);
  }
  return held_[i];
}

const std::vector<int>& Placer::gpus_of(int job) const {
  static const std::vector<int> kNone;
  const auto i = static_cast<std::size_t>(job);
  return i < held_.size() ? held_[i] : kNone;
}

RingComm Placer::ring_of(int job) const {
  return topology().ring(gpus_of(job));
}

void Placer::clock(double now) {
  if (clock_started_ && now > last_t_) {
    const double dt = now - last_t_;
    totals_.fragmented_gpu_seconds += static_cast<double>(state_.fragmented_free()) * dt;
    totals_.node_span_seconds += static_cast<double>(span_sum_) * dt;
    totals_.holding_job_seconds += static_cast<double>(holders_) * dt;
  }
  clock_started_ = true;
  last_t_ = std::max(last_t_, now);
}

void Placer::release(int job) {
  std::vector<int>& g = slot(job);
  if (g.empty()) return;
  for (int gpu : g)
    state_.release(gpu);
  g.clear();
  placement_[static_cast<std::size_t>(job)].clear();
  span_sum_ -= span_[static_cast<std::size_t>(job)];
  span_[static_cast<std::size_t>(job)] = 0;
  --holders_;
}

void Placer::place(int job, int count) {
  std::vector<int>& g = slot(job);
  if (!g.empty()) throw std::logic_error("placement: job already holds GPUs");
  if (count <= 0) return;
  if (count > state_.total_free()) throw std::logic_error("placement: not enough free GPUs");
  g = policy_->choose(state_, count);
  // GPUs per node in the order the policy took the nodes (the goodput model's tables key on it).
  std::vector<int>& pl = placement_[static_cast<std::size_t>(job)];
  pl.clear();
  for (std::size_t i = 0; i < g.size(); ++i) {
    if (i == 0 || topology().node_of(g[i]) != topology().node_of(g[i - 1])) {
      pl.push_back(1);
    } else {
      ++pl.back();
    }
  }
  account(job);
}

void Placer::place_on(int job, const std::vector<int>& per_node) {
  std::vector<int>& g = slot(job);
  if (!g.empty()) throw std::logic_error("placement: job already holds GPUs");
  std::vector<int>& pl = placement_[static_cast<std::size_t>(job)];
  pl.clear();
  for (std::size_t n = 0; n < per_node.size(); ++n) {
    const int k = per_node[n];
    if (k <= 0) continue;
    if (k > state_.free_on(static_cast<int>(n))) throw std::logic_error("placement: node has too few free GPUs");
    state_.take_free(static_cast<int>(n), k, g);
    pl.push_back(k);
  }
  if (g.empty()) return;
  account(job);
}

void Placer::account(int job) {
  std::vector<int>& g = slot(job);
  std::sort(g.begin(), g.end());
  for (int gpu : g)
    state_.assign(gpu, job);
  int nodes = 0;
  for (std::size_t i = 0; i < g.size(); ++i) {
    if (i == 0 || topology().node_of(g[i]) != topology().node_of(g[i - 1])) ++nodes;
  }
  span_[static_cast<std::size_t>(job)] = nodes;
  span_sum_ += nodes;
  ++holders_;
}

const std::vector<int>& Placer::placement_of(int job) const {
  static const std::vector<int> kNone;
  const auto i = static_cast<std::size_t>(job);
  return i < placement_.size() ? placement_[i] : kNone;
}

std::vector<int> Placer::node_counts(int job) const {
  std::vector<int> out(static_cast<std::size_t>(topology().nodes()), 0);
  for (int gpu : gpus_of(job))
    ++out[static_cast<std::size_t>(topology().node_of(gpu))];
  return out;
}

bool Placer::try_improve(int job) {
  if (!defragment_) return false;
  const std::vector<int> old = gpus_of(job);
  const std::vector<int> old_placement = placement_of(job);
  if (old.empty()) return false;
  const RingComm before = topology().ring(old);
  release(job);
  place(job, static_cast<int>(old.size()));
  if (policy_->better(ring_of(job), before)) {
    ++totals_.migrations;
    return true;
  }
  // Not better: put the job back where it was.
  release(job);
  std::vector<int>& g = slot(job);
  g = old;
  placement_[static_cast<std::size_t>(job)] = old_placement;
  for (int gpu : g)
    state_.assign(gpu, job);
  span_[static_cast<std::size_t>(job)] = before.nodes;
  span_sum_ += before.nodes;
  ++holders_;
  return false;
}

double ring_throughput(const JobClass& c, const RingComm& ring, const RingComm& ref, double speed_factor) {
  return ring_throughput(c, *c.speed, ring, ref, speed_factor);
}

double ring_throughput(const JobClass& c, const models::StepTimeModel& speed, const RingComm& ring, const RingComm& ref,
                       double speed_factor) {
  const int w = ring.gpus;
  if (w <= 0) return 0.0;
  const double m = global_batch(c, w);
  const double step = speed.step_on_ring(w, ring.nodes, m, {ring.alpha, ring.bandwidth}, {ref.alpha, ref.bandwidth});
  double rate = m / step * speed_factor;
  if (c.large_batch_penalty > 0.0 && c.batch_mode == BatchMode::kFixedPerWorker && w > 1) {
    rate /= 1.0 + c.large_batch_penalty * std::log2(static_cast<double>(w));
  }
  return rate;
}

}  // namespace ringsched
