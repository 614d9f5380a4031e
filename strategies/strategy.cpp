// strategies/strategy.cpp — helpers shared by strategies.
#include "strategies/strategy.h"

#include <algorithm>
#include <stdexcept>

namespace ringsched {

double believed_remaining(const JobView& job) {
  if (job.belief == nullptr) return 1.0;
  return std::max(1.0, job.belief->total_work() - job.work_done);
}

Decision changes_to(const std::vector<int>& ids, const std::vector<int>& counts, std::map<int, int>& held) {
  std::map<int, int> next;
  for (std::size_t i = 0; i < ids.size(); ++i) {
    if (counts[i] > 0) next.emplace(ids[i], counts[i]);
  }
  Decision d;
  for (const auto& [id, g] : held) {
    if (!next.contains(id)) d.changes.emplace_back(id, 0);
  }
  for (const auto& [id, g] : next) {
    const auto it = held.find(id);
    if (it == held.end() || it->second != g) d.changes.emplace_back(id, g);
  }
  held = std::move(next);
  return d;
}

Decision Strategy::decide_changes(const Snapshot& /*snapshot*/) {
  throw std::logic_error("strategy '" + name() + "' is not incremental");
}

}  // namespace ringsched
