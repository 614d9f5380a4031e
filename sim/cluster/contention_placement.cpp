// sim/cluster/contention_placement.cpp — the `contention` placement policy (issue 36, docs/network.md): as
// `topology` (one node if the job fits one, else the widest-bandwidth group of nodes that holds it), but among the
// groups that hold it, the one fewest other jobs cross (a job crosses a group when it holds GPUs inside and outside
// it: its ring then uses the group's upper links); and when the job must span sub-groups of that group, the
// sub-groups fewest jobs cross first (most free GPUs on ties). So a job's inter-node flows share the fewest upper
// links with other jobs' flows. A heuristic over the topology's node groups, not an optimisation over links.
#include <algorithm>
#include <map>
#include <set>
#include <stdexcept>

#include "sim/cluster/placement.h"

namespace ringsched {
namespace {

// For each group of `level`: the number of jobs that hold GPUs inside it and outside it.
std::vector<int> crossers(const ClusterState& st, std::size_t level) {
  const Topology& t = st.topology();
  std::map<int, std::set<int>> job_groups;  // job -> the groups it holds GPUs in
  for (int g = 0; g < t.gpus(); ++g) {
    const int job = st.owner(g);
    if (job < 0) continue;
    const int group = t.group_of(level, t.node_of(g));
    job_groups[job].insert(group);
  }
  std::vector<int> out(static_cast<std::size_t>(t.group_count(level)), 0);
  for (const auto& [job, groups] : job_groups) {
    if (groups.size() < 2) continue;
    for (int group : groups)
      ++out[static_cast<std::size_t>(group)];
  }
  return out;
}

// Nodes of `members` grouped by their group at `level` (one level finer than the chosen group), taken group by
// group, fewest crossers first (most free GPUs, then lowest group, on ties), until they hold `count`.
std::vector<int> fewest_crossed_nodes(const ClusterState& st, const std::vector<int>& members, std::size_t level,
                                      int count) {
  const Topology& t = st.topology();
  const std::vector<int> cross = crossers(st, level);
  std::map<int, std::pair<int, std::vector<int>>> by_group;  // group -> (free GPUs, nodes)
  for (int n : members) {
    auto& entry = by_group[t.group_of(level, n)];
    entry.first += st.free_on(n);
    entry.second.push_back(n);
  }
  std::vector<int> order;
  for (const auto& [group, entry] : by_group)
    order.push_back(group);
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) {
    const int ca = cross[static_cast<std::size_t>(a)];
    const int cb = cross[static_cast<std::size_t>(b)];
    if (ca != cb) return ca < cb;
    return by_group[a].first > by_group[b].first;
  });
  std::vector<int> chosen;
  int held = 0;
  for (int group : order) {
    const auto& entry = by_group[group];
    chosen.insert(chosen.end(), entry.second.begin(), entry.second.end());
    held += entry.first;
    if (held >= count) break;
  }
  std::sort(chosen.begin(), chosen.end());
  return chosen;
}

class ContentionAware final : public PlacementPolicy {
 public:
  [[nodiscard]] std::string name() const override { return "contention"; }
  [[nodiscard]] std::vector<int> choose(const ClusterState& st, int count) const override {
    const Topology& t = st.topology();
    const std::vector<int> all = nodes_with_free(st);
    for (int n : all) {
      if (st.free_on(n) >= count) return packed_choice(st, all, count);  // one node: best fit
    }
    for (std::size_t k = 0; k < t.levels().size(); ++k) {
      const std::vector<int> sums = group_free(st, all, k);
      const std::vector<int> cross = crossers(st, k);
      int best = -1;
      for (std::size_t gi = 0; gi < sums.size(); ++gi) {
        if (sums[gi] < count) continue;
        const auto b = static_cast<std::size_t>(best);
        if (best < 0 || cross[gi] < cross[b] || (cross[gi] == cross[b] && sums[gi] < sums[b])) {
          best = static_cast<int>(gi);
        }
      }
      if (best < 0) continue;
      std::vector<int> members = group_members(t, all, k, best);
      if (k > 0) members = fewest_crossed_nodes(st, members, k - 1, count);
      return packed_choice(st, members, count);
    }
    throw std::logic_error("placement: not enough free GPUs");
  }
  [[nodiscard]] bool better(const RingComm& a, const RingComm& b) const override { return wider_ring(a, b); }
};
const PlacementPolicyRegistrar contention_placement_registrar{"contention", make_policy<ContentionAware>};

}  // namespace
}  // namespace ringsched
