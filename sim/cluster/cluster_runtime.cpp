// sim/cluster/cluster_runtime.cpp — the running cluster (see the header).
#include "sim/cluster/cluster_runtime.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

#include "models/goodput_step_time.h"

namespace ringsched {

ClusterRuntime::ClusterRuntime(const ClusterConfig& c, const std::vector<JobClass>& classes,
                               const std::vector<JobTruth>& jobs, std::uint64_t seed)
    : typed_(c.typed()), job_pool_(jobs.size(), 0), classes_(&classes), jobs_(&jobs), contention_(c.contention()) {
  if (typed_ && c.topology) {
    throw std::logic_error("cluster runtime: a cluster-wide topology with GPU pools (each pool has its own)");
  }
  placed_ = c.topology != nullptr || !c.placement.empty() ||
            std::any_of(c.pools.begin(), c.pools.end(), [](const GpuPool& p) { return p.topology != nullptr; });
  for (const GpuPool& g : c.effective_pools()) {
    Pool p;
    p.gpu_type = g.gpu_type;
    p.gpus = g.gpus();
    p.gpus_per_node = g.gpus_per_node;
    p.first_node = nodes_;
    p.nodes = g.nodes;
    nodes_ += g.nodes;
    total_gpus_ += p.gpus;
    if (placed_) {
      // One placer per pool over the pool's own nodes, on its topology if it has one (else a uniform two-level one:
      // placement then only decides the nodes a ring spans).
      auto topo = g.topology ? g.topology
                             : std::make_shared<const Topology>(Topology::two_level(
                                   g.nodes, g.gpus_per_node, LinkClass{1.0, 0.0}, LinkClass{1.0, 0.0}));
      if (topo->gpus() != p.gpus) throw std::logic_error("cluster runtime: topology GPUs != nodes x gpus_per_node");
      p.placer = std::make_unique<Placer>(topo, make_placement_policy(c.placement.empty() ? "packed" : c.placement),
                                          c.defragment);
      p.ring_speed = g.topology != nullptr;
      p.reference = topo->reference_ring();
      p.topology = topo;
      if (contention_) p.network = std::make_unique<net::NetworkState>(*topo, *c.network);
    }
    pools_.push_back(std::move(p));
  }
  if (contention_) {
    bytes_per_param_ = c.network->bytes_per_param;
    contention_of_.resize(jobs.size());
  }
  if (c.failures) {
    if (!placed_ || typed_) throw std::logic_error("cluster runtime: failures need one placed pool");
    failures_ = std::make_unique<fail::FailureProcess>(*c.failures, nodes_, pools_.front().topology.get(), seed);
    held_since_.assign(jobs.size(), 0.0);
  }
  if (c.virtual_clusters) {
    vcs_ = c.virtual_clusters->infos(c.gpus_per_node);
    vc_placement_ = c.virtual_clusters->placement;
  }
  speed_.reserve(classes.size() * pools_.size());
  for (const JobClass& cls : classes)
    for (const Pool& p : pools_)
      speed_.push_back(typed_ ? speed_on(cls, p.gpu_type) : cls.speed.get());
}

std::span<const PoolInfo> ClusterRuntime::strategy_pools() {
  if (!typed_) return {};
  view_.assign(pools_.begin(), pools_.end());  // slices each Pool to its PoolInfo, in_use as of now
  return view_;
}

void ClusterRuntime::describe(Snapshot& s) {
  s.total_gpus = usable_gpus();
  s.cluster = placed_ ? this : nullptr;
  s.pools = strategy_pools();
  s.vcs = vcs_;
  s.vc_placement = vc_placement_;
  s.gpus_in_use = gpus_in_use();
}

void ClusterRuntime::hold(int id, int from, int to, int pool) {
  int& mine = job_pool_[static_cast<std::size_t>(id)];
  in_use_ += to - from;
  pools_[static_cast<std::size_t>(mine)].in_use -= from;
  if (to > 0) mine = pool;
  pools_[static_cast<std::size_t>(mine)].in_use += to;
  if (failures_) expose(id, from, to);
}

double ClusterRuntime::true_rate(int id, const JobClass& cls, int class_index, int gpus, double speed_factor) const {
  const double alone = alone_rate(id, cls, class_index, gpus, speed_factor);
  return contention_ ? alone / slowdown(id) : alone;
}

double ClusterRuntime::alone_rate(int id, const JobClass& cls, int class_index, int gpus, double speed_factor) const {
  const auto pool = static_cast<std::size_t>(pool_of(id));
  const models::StepTimeModel* speed = speed_[static_cast<std::size_t>(class_index) * pools_.size() + pool];
  if (speed == nullptr) return 0.0;
  const Pool& p = pools_[pool];
  if (!placed_) return model_throughput(cls, *speed, gpus, packed_nodes(gpus, p.gpus_per_node), speed_factor);
  const RingComm ring = p.placer->ring_of(id);
  if (p.ring_speed) return ring_throughput(cls, *speed, ring, p.reference, speed_factor);
  return model_throughput(cls, *speed, ring.gpus, ring.nodes, speed_factor);
}

int ClusterRuntime::nodes_spanned(int id, int gpus) const {
  if (placed_) return placer_of(id).ring_of(id).nodes;
  return packed_nodes(gpus, pools_[static_cast<std::size_t>(pool_of(id))].gpus_per_node);
}

std::vector<int> ClusterRuntime::placement(int id, int gpus) const {
  if (placed_) return placer_of(id).placement_of(id);
  return packed_placement(gpus, pools_[static_cast<std::size_t>(pool_of(id))].gpus_per_node);
}

Placer& ClusterRuntime::placer_of(int id) const {
  return *pools_[static_cast<std::size_t>(pool_of(id))].placer;
}

void ClusterRuntime::clock(double now) {
  now_ = now;
  for (Pool& p : pools_) {
    if (p.placer) p.placer->clock(now);
    if (p.network) p.network->clock(now);
  }
}

void ClusterRuntime::release(int id) {
  placer_of(id).release(id);
  touch(id);
}

bool ClusterRuntime::try_improve(int id) {
  const bool moved = placer_of(id).try_improve(id);
  if (moved) touch(id);
  return moved;
}

void ClusterRuntime::place(std::span<const int> ids, std::span<const int> held, const Decision& d,
                           std::vector<int>& moved) {
  const bool explicit_nodes = !d.jobs.empty() && !d.jobs.front().nodes.empty();
  std::vector<std::size_t> to_place;
  for (std::size_t k = 0; k < d.jobs.size(); ++k) {
    const int id = ids[k];
    const Assignment& a = d.jobs[k];
    const bool count_changes = a.gpus != held[k];
    const bool pool_changes = a.gpus > 0 && held[k] > 0 && a.pool != pool_of(id);
    const bool nodes_change = explicit_nodes && !count_changes && !pool_changes && node_gpus(id) != a.nodes;
    if (!count_changes && !nodes_change && !pool_changes) continue;
    placer_of(id).release(id);
    touch(id);
    if (a.gpus > 0) to_place.push_back(k);
    if (nodes_change && a.gpus > 0) moved.push_back(id);
  }
  place_moved(to_place, ids, d);
}

void ClusterRuntime::place_changes(double now, std::span<const Change> changes, const std::function<int(int)>& held,
                                   std::vector<int>& moved) {
  clock(now);
  std::vector<const Change*> to_place;
  for (const Change& c : changes) {
    const int before = held(c.job);
    const bool count_changes = c.gpus != before;
    const bool pool_changes = c.gpus > 0 && before > 0 && c.pool != pool_of(c.job);
    const bool nodes_change = !c.nodes.empty() && !count_changes && !pool_changes && node_gpus(c.job) != c.nodes;
    if (!count_changes && !nodes_change && !pool_changes) continue;
    placer_of(c.job).release(c.job);
    touch(c.job);
    if (c.gpus > 0) to_place.push_back(&c);
    if (nodes_change && c.gpus > 0) moved.push_back(c.job);
  }
  for (const Change* c : to_place) {
    const Pool& p = pools_[static_cast<std::size_t>(c->pool)];
    if (c->nodes.empty()) {
      p.placer->place(c->job, c->gpus);
      continue;
    }
    const auto first = c->nodes.begin() + p.first_node;
    p.placer->place_on(c->job, std::vector<int>(first, first + p.nodes));
  }
}

int ClusterRuntime::node_in_use(int node) const {
  if (!placed_) return 0;
  for (const Pool& p : pools_) {
    if (node < p.first_node || node >= p.first_node + p.nodes) continue;
    return p.gpus_per_node - p.placer->state().free_on(node - p.first_node);
  }
  return 0;
}

// Places the released jobs: on the decision's nodes (each pool's slice of them), else by their pool's policy in
// the decision's order or largest first (ties: snapshot order).
void ClusterRuntime::place_moved(std::vector<std::size_t>& to_place, std::span<const int> ids, const Decision& d) {
  const auto pool_placer = [&](std::size_t k) -> Placer& {
    return *pools_[static_cast<std::size_t>(d.jobs[k].pool)].placer;
  };
  if (!d.jobs.empty() && !d.jobs.front().nodes.empty()) {
    // With failures a strategy may name a failed node: such a job is placed by the policy, after the others.
    std::vector<std::size_t> unfit;
    for (std::size_t k : to_place) {
      const Pool& p = pools_[static_cast<std::size_t>(d.jobs[k].pool)];
      const auto first = d.jobs[k].nodes.begin() + p.first_node;
      const std::vector<int> per_node(first, first + p.nodes);
      bool fits = true;
      for (std::size_t n = 0; failures_ && n < per_node.size(); ++n)
        fits = fits && per_node[n] <= pool_placer(k).state().free_on(static_cast<int>(n));
      if (fits) pool_placer(k).place_on(ids[k], per_node);
      if (!fits) unfit.push_back(k);
    }
    for (std::size_t k : unfit)
      pool_placer(k).place(ids[k], d.jobs[k].gpus);
    return;
  }
  if (!d.place_order.empty()) {
    std::vector<std::size_t> rank(d.jobs.size(), d.jobs.size());
    for (std::size_t i = 0; i < d.place_order.size(); ++i) {
      const auto k = static_cast<std::size_t>(d.place_order[i]);
      if (k < rank.size()) rank[k] = std::min(rank[k], i);
    }
    std::stable_sort(to_place.begin(), to_place.end(), [&](std::size_t a, std::size_t b) { return rank[a] < rank[b]; });
  } else {
    std::stable_sort(to_place.begin(), to_place.end(),
                     [&](std::size_t a, std::size_t b) { return d.jobs[a].gpus > d.jobs[b].gpus; });
  }
  for (std::size_t k : to_place)
    pool_placer(k).place(ids[k], d.jobs[k].gpus);
}

double ClusterRuntime::next_health_change() const {
  return failures_ ? failures_->next_time() : std::numeric_limits<double>::infinity();
}

std::vector<int> ClusterRuntime::health_step(double now) {
  clock(now);
  const fail::HealthChange ch = failures_->step(now);
  Placer& placer = *pools_.front().placer;
  const Topology& t = placer.topology();
  std::vector<std::pair<int, bool>> hit;  // (job, whether this node's notice sufficed)
  for (std::size_t k = 0; k < ch.down.size(); ++k) {
    const int node = ch.down[k];
    const bool ok = failures_->notice_suffices(ch.notice[k]);
    for (int g = t.first_gpu(node); g < t.first_gpu(node) + t.gpus_on(node); ++g) {
      if (placer.state().owner(g) >= 0) hit.emplace_back(placer.state().owner(g), ok);
    }
  }
  std::sort(hit.begin(), hit.end());
  std::vector<int> evicted;
  noticed_.clear();
  for (std::size_t k = 0; k < hit.size();) {
    const int id = hit[k].first;
    bool noticed = true;
    for (; k < hit.size() && hit[k].first == id; ++k)
      noticed = noticed && hit[k].second;
    evicted.push_back(id);
    if (noticed) noticed_.push_back(id);
    if (!noticed) ++by_size_[static_cast<int>(placer.gpus_of(id).size())].failures;
    release(id);
  }
  for (int node : ch.down) {
    placer.set_node_down(node, true);
    down_gpus_ += t.gpus_on(node);
  }
  for (int node : ch.up) {
    placer.set_node_down(node, false);
    down_gpus_ -= t.gpus_on(node);
  }
  return evicted;
}

void ClusterRuntime::expose(int id, int from, int to) {
  double& since = held_since_[static_cast<std::size_t>(id)];
  if (from > 0) by_size_[from].exposure_s += now_ - since;
  if (to > 0) since = now_;
}

std::vector<FailureSize> ClusterRuntime::failure_sizes() const {
  std::vector<FailureSize> out;
  for (const auto& [gpus, s] : by_size_) {
    out.push_back(s);
    out.back().gpus = gpus;
  }
  return out;
}

PlacementTotals ClusterRuntime::placement_totals() const {
  PlacementTotals sum;
  for (const Pool& p : pools_) {
    if (!p.placer) continue;
    const PlacementTotals& t = p.placer->totals();
    sum.migrations += t.migrations;
    sum.fragmented_gpu_seconds += t.fragmented_gpu_seconds;
    sum.node_span_seconds += t.node_span_seconds;
    sum.holding_job_seconds += t.holding_job_seconds;
  }
  return sum;
}

void ClusterRuntime::touch(int id) {
  if (contention_) touched_.push_back(id);
}

double ClusterRuntime::mean_slowdown(int id) const {
  if (!contention_) return 1.0;
  const JobContention& j = contention_of_[static_cast<std::size_t>(id)];
  return j.held > 0.0 ? std::max(1.0, j.weighted / j.held) : 1.0;
}

// Adds the time since the job's last change at its slowdown then (while its flows were on a network).
void ClusterRuntime::close_interval(int id, double now) {
  JobContention& j = contention_of_[static_cast<std::size_t>(id)];
  if (j.pool >= 0 && now > j.since) {
    j.weighted += j.slowdown * (now - j.since);
    j.held += now - j.since;
  }
  j.since = now;
}

// The job's flows follow its placement: off the network it was on, onto its pool's when it holds GPUs there. The
// traffic model's inputs: gradient bytes = the class's model size x bytes per parameter; its iteration time alone
// = the global batch / its speed alone (the large-batch penalty divides progress, not steps: undone here).
void ClusterRuntime::resend_flows(int id, double now) {
  JobContention& j = contention_of_[static_cast<std::size_t>(id)];
  close_interval(id, now);
  if (j.pool >= 0) pools_[static_cast<std::size_t>(j.pool)].network->remove_job(id);
  j.pool = -1;
  j.slowdown = 1.0;
  const Pool& p = pools_[static_cast<std::size_t>(pool_of(id))];
  const std::vector<int>& gpus = p.placer->gpus_of(id);
  if (gpus.empty()) return;
  const JobTruth& t = (*jobs_)[static_cast<std::size_t>(id)];
  const JobClass& cls = (*classes_)[static_cast<std::size_t>(t.class_index)];
  const int w = static_cast<int>(gpus.size());
  double rate = alone_rate(id, cls, t.class_index, w, t.speed_factor);
  if (!(rate > 0.0)) return;  // the class cannot run here: no traffic (the engine refuses such a start)
  if (cls.large_batch_penalty > 0.0 && cls.batch_mode == BatchMode::kFixedPerWorker && w > 1)
    rate *= 1.0 + cls.large_batch_penalty * std::log2(static_cast<double>(w));
  net::JobComm comm;
  comm.gpus = gpus;
  comm.gradient_bytes = cls.model_size_mparams * 1e6 * bytes_per_param_;
  comm.iteration_s = global_batch(cls, w) / rate;
  p.network->set_job(id, comm);
  j.pool = pool_of(id);
}

// The jobs re-sent (their speed was last computed before their flows moved) and those whose share the update
// changed all take their new slowdown.
std::vector<int> ClusterRuntime::settle(double now) {
  if (!contention_ || touched_.empty()) return {};
  std::vector<int> changed;
  changed.swap(touched_);
  std::sort(changed.begin(), changed.end());
  changed.erase(std::unique(changed.begin(), changed.end()), changed.end());
  for (int id : changed)
    resend_flows(id, now);
  for (const Pool& p : pools_) {
    if (!p.network) continue;
    const std::vector<int> moved = p.network->update();
    changed.insert(changed.end(), moved.begin(), moved.end());
  }
  std::sort(changed.begin(), changed.end());
  changed.erase(std::unique(changed.begin(), changed.end()), changed.end());
  for (int id : changed) {
    JobContention& j = contention_of_[static_cast<std::size_t>(id)];
    if (j.pool < 0) continue;
    const net::NetworkState& n = *pools_[static_cast<std::size_t>(j.pool)].network;
    close_interval(id, now);
    j.slowdown = n.slowdown(id);
    j.shared = j.shared || n.on_shared_link(id);
  }
  return changed;
}

std::vector<std::pair<std::string, double>> ClusterRuntime::link_utilisation() const {
  std::vector<std::pair<std::string, double>> out;
  for (const Pool& p : pools_) {
    if (!p.network) continue;
    const net::NetworkState::Totals t = p.network->totals();
    for (std::size_t k = 0; k < t.level.size(); ++k)
      out.emplace_back(typed_ ? p.gpu_type + "/" + t.level[k] : t.level[k], t.utilisation[k]);
  }
  return out;
}

ContentionTotals ClusterRuntime::contention_totals() const {
  ContentionTotals t;
  for (std::size_t id = 0; id < contention_of_.size(); ++id) {
    t.slowdown.push_back(mean_slowdown(static_cast<int>(id)));
    t.shared.push_back(contention_of_[id].shared ? 1 : 0);
  }
  t.links = link_utilisation();
  return t;
}

std::vector<int> ClusterRuntime::node_gpus(int job_id) const {
  std::vector<int> all(static_cast<std::size_t>(nodes_), 0);
  if (!placed_) return all;
  const Pool& p = pools_[static_cast<std::size_t>(pool_of(job_id))];
  const std::vector<int> mine = p.placer->node_counts(job_id);
  std::copy(mine.begin(), mine.end(), all.begin() + p.first_node);
  return all;
}

}  // namespace ringsched
