// sim/engine/decision_check.cpp — the one decision contract (see the header).
#include "sim/engine/decision_check.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <vector>

#include "workloads/io/number_text.h"

namespace ringsched {

namespace {

[[noreturn]] void decision_fail(const std::string& who, const std::string& what) {
  throw std::logic_error(who + " " + what);
}

void check_count(const JobPublic& p, int w, const std::string& who) {
  if (w < 0 || (w > 0 && (w < p.cls.min_gpus || w > p.cls.max_gpus))) {
    decision_fail(who, "gave job " + p.name + " " + std::to_string(w) + " GPUs (limits " +
                           std::to_string(p.cls.min_gpus) + ".." + std::to_string(p.cls.max_gpus) + ")");
  }
}

void check_pool(const Snapshot& s, const JobPublic& p, int pool, const std::string& who) {
  if (s.pools.empty()) {
    if (pool != 0)
      decision_fail(
          who, "chose GPU pool " + std::to_string(pool) + " for job " + p.name + " on a cluster without cluster.pools");
    return;
  }
  if (pool < 0 || static_cast<std::size_t>(pool) >= s.pools.size()) {
    decision_fail(who,
                  "put job " + p.name + " in pool " + std::to_string(pool) + " of " + std::to_string(s.pools.size()));
  }
}

// No pool over its GPUs (typed clusters), given the GPUs each pool holds after the decision.
void check_pool_use(const Snapshot& s, const std::vector<long>& used, const std::string& who) {
  for (std::size_t p = 0; p < s.pools.size(); ++p) {
    if (used[p] > s.pools[p].gpus) {
      decision_fail(who, "allocated " + std::to_string(used[p]) + " " + s.pools[p].gpu_type + " GPUs of " +
                             std::to_string(s.pools[p].gpus));
    }
  }
}

void check_total(const Snapshot& s, long total, const std::string& who) {
  if (total > s.total_gpus)
    decision_fail(who, "allocated " + std::to_string(total) + " GPUs of " + std::to_string(s.total_gpus));
}

// Explicit placements: from every job or none, with a placement policy, one count per node summing to the job's
// GPUs (in its pool's nodes on a typed cluster), no node over its GPUs.
void check_nodes(const Snapshot& s, const Decision& d, const std::string& who) {
  const auto given = [](const Assignment& a) { return !a.nodes.empty(); };
  if (std::none_of(d.jobs.begin(), d.jobs.end(), given)) return;
  if (s.cluster == nullptr) decision_fail(who, "placed jobs on nodes, but the engine has no placement policy");
  if (!std::all_of(d.jobs.begin(), d.jobs.end(), given)) decision_fail(who, "gave node placements for some jobs only");
  const std::vector<int> capacity = node_capacities(s);
  std::vector<int> per_node(capacity.size(), 0);
  std::vector<int> first(s.pools.size() + 1, 0);  // typed: each pool's first node
  for (std::size_t p = 0; p < s.pools.size(); ++p)
    first[p + 1] = first[p] + s.pools[p].gpus / std::max(1, s.pools[p].gpus_per_node);
  for (std::size_t k = 0; k < d.jobs.size(); ++k) {
    const Assignment& a = d.jobs[k];
    const std::string job = "job " + s.jobs[k].pub->name;
    if (a.nodes.size() != per_node.size()) {
      decision_fail(who, "gave " + job + " a placement of " + std::to_string(a.nodes.size()) +
                             " nodes; the cluster has " + std::to_string(per_node.size()));
    }
    int sum = 0;
    for (std::size_t n = 0; n < a.nodes.size(); ++n) {
      if (a.nodes[n] < 0) decision_fail(who, "placed a negative GPU count for " + job);
      const bool other_pool = !s.pools.empty() && (static_cast<int>(n) < first[static_cast<std::size_t>(a.pool)] ||
                                                   static_cast<int>(n) >= first[static_cast<std::size_t>(a.pool) + 1]);
      if (a.nodes[n] > 0 && a.gpus > 0 && other_pool) {
        decision_fail(
            who, "placed " + job + " on node " + std::to_string(n) + ", outside its pool " + std::to_string(a.pool));
      }
      sum += a.nodes[n];
      per_node[n] += a.nodes[n];
    }
    if (sum != a.gpus) decision_fail(who, "placed a job on other GPUs than it allocated (" + job + ")");
  }
  for (std::size_t n = 0; n < per_node.size(); ++n) {
    if (per_node[n] > capacity[n]) {
      decision_fail(who, "placed " + std::to_string(per_node[n]) + " GPUs on node " + std::to_string(n) +
                             ", which has " + std::to_string(capacity[n]));
    }
  }
}

// The nodes an incremental decision names (Change::nodes; `ch` in job-id order): as check_nodes, per change, and with
// virtual clusters every change to GPUs names nodes of its job's VC only.
void check_change_nodes(const Snapshot& s, const std::vector<Change>& ch, const ChangeContext& jobs,
                        const std::string& who) {
  const bool vcs = !s.vcs.empty();
  const auto named = [](const Change& c) { return !c.nodes.empty(); };
  if (!vcs && std::none_of(ch.begin(), ch.end(), named)) return;
  if (s.cluster == nullptr) decision_fail(who, "placed jobs on nodes, but the engine has no placement policy");
  const std::vector<int> capacity = node_capacities(s);
  std::vector<long> delta(capacity.size(), 0);
  std::vector<int> touched;
  for (const Change& c : ch) {
    const JobPublic& p = jobs.pub(c.job);
    const std::string job = "job " + p.name;
    if (jobs.held(c.job) > 0) {  // its GPUs now are released first
      const std::vector<int> before = s.cluster->node_gpus(c.job);
      for (std::size_t n = 0; n < before.size() && n < delta.size(); ++n)
        delta[n] -= before[n];
    }
    if (c.nodes.empty()) {
      if (vcs && c.gpus > 0) decision_fail(who, "gave " + job + " GPUs without its nodes on a cluster with VCs");
      continue;
    }
    if (c.nodes.size() != capacity.size()) {
      decision_fail(who, "gave " + job + " a placement of " + std::to_string(c.nodes.size()) +
                             " nodes; the cluster has " + std::to_string(capacity.size()));
    }
    const VirtualClusterInfo* vc = vcs && p.vc >= 0 ? &s.vcs[static_cast<std::size_t>(p.vc)] : nullptr;
    int sum = 0;
    for (std::size_t n = 0; n < c.nodes.size(); ++n) {
      if (c.nodes[n] < 0) decision_fail(who, "placed a negative GPU count for " + job);
      const int node = static_cast<int>(n);
      if (c.nodes[n] > 0 && vc != nullptr && (node < vc->first_node || node >= vc->first_node + vc->nodes)) {
        decision_fail(who, "placed " + job + " on node " + std::to_string(n) + ", outside its virtual cluster " +
                               vc->name + " (nodes " + std::to_string(vc->first_node) + ".." +
                               std::to_string(vc->first_node + vc->nodes - 1) + ")");
      }
      sum += c.nodes[n];
      delta[n] += c.nodes[n];
      if (c.nodes[n] > 0) touched.push_back(node);
    }
    if (sum != c.gpus) decision_fail(who, "placed a job on other GPUs than it allocated (" + job + ")");
  }
  for (int n : touched) {
    const long after = jobs.node_in_use(n) + delta[static_cast<std::size_t>(n)];
    if (after > capacity[static_cast<std::size_t>(n)]) {
      decision_fail(who, "placed " + std::to_string(after) + " GPUs on node " + std::to_string(n) + ", which has " +
                             std::to_string(capacity[static_cast<std::size_t>(n)]));
    }
  }
}

}  // namespace

std::vector<int> node_capacities(const Snapshot& s) {
  std::vector<int> out;
  if (s.pools.empty()) {
    const int nodes =
        s.cluster != nullptr ? s.cluster->nodes() : std::max(1, s.total_gpus / std::max(1, s.gpus_per_node));
    out.assign(static_cast<std::size_t>(nodes), s.gpus_per_node);
    return out;
  }
  for (const PoolInfo& p : s.pools)
    out.insert(out.end(), static_cast<std::size_t>(p.gpus / std::max(1, p.gpus_per_node)), p.gpus_per_node);
  return out;
}

void check_decision(const Snapshot& s, const Decision& d, const std::string& who) {
  if (d.jobs.size() != s.jobs.size()) {
    decision_fail(who, "returned " + std::to_string(d.jobs.size()) + " allocations for " +
                           std::to_string(s.jobs.size()) + " jobs");
  }
  if (!d.changes.empty()) decision_fail(who, "returned changes from decide (only decide_changes returns changes)");
  long total = 0;
  std::vector<long> used(s.pools.size(), 0);
  for (std::size_t k = 0; k < d.jobs.size(); ++k) {
    const Assignment& a = d.jobs[k];
    const JobPublic& p = *s.jobs[k].pub;
    check_count(p, a.gpus, who);
    total += a.gpus;
    if (a.gpus == 0) continue;
    check_pool(s, p, a.pool, who);
    if (!s.pools.empty()) used[static_cast<std::size_t>(a.pool)] += a.gpus;
  }
  check_total(s, total, who);
  check_pool_use(s, used, who);
  check_nodes(s, d, who);
  check_wakeup(s, d, who);
}

void check_changes(const Snapshot& s, const Decision& d, const ChangeContext& jobs, const std::string& who) {
  if (!d.jobs.empty() || !d.place_order.empty()) decision_fail(who, "returned a dense decision from decide_changes");
  std::vector<Change> ch = d.changes;
  std::sort(ch.begin(), ch.end(), [](const Change& a, const Change& b) { return a.job < b.job; });
  long total = s.gpus_in_use;
  std::vector<long> used(s.pools.size(), 0);
  for (std::size_t p = 0; p < s.pools.size(); ++p)
    used[p] = s.pools[p].in_use;
  for (std::size_t k = 0; k < ch.size(); ++k) {
    const Change& c = ch[k];
    if (!jobs.active(c.job)) decision_fail(who, "changed job " + std::to_string(c.job) + ", which is not active");
    if (k > 0 && ch[k - 1].job == c.job)
      decision_fail(who, "changed job " + std::to_string(c.job) + " twice in one decision");
    const JobPublic& p = jobs.pub(c.job);
    check_count(p, c.gpus, who);
    if (c.gpus > 0) check_pool(s, p, c.pool, who);
    const int before = jobs.held(c.job);
    total += c.gpus - before;
    if (s.pools.empty()) continue;
    if (before > 0) used[static_cast<std::size_t>(jobs.pool_of(c.job))] -= before;
    if (c.gpus > 0) used[static_cast<std::size_t>(c.pool)] += c.gpus;
  }
  check_total(s, total, who);
  check_pool_use(s, used, who);
  check_change_nodes(s, ch, jobs, who);
  check_wakeup(s, d, who);
}

void check_wakeup(const Snapshot& s, const Decision& d, const std::string& who) {
  if (d.wakeup_at < std::numeric_limits<double>::infinity() && !(d.wakeup_at > s.now)) {
    decision_fail(who, "asked to be woken at " + number_text(d.wakeup_at) + " s, not in the future (now " +
                           number_text(s.now) + " s)");
  }
}

}  // namespace ringsched
