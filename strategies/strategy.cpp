// strategies/strategy.cpp — helpers shared by strategies.
#include "strategies/strategy.h"

#include <algorithm>
#include <stdexcept>

namespace ringsched {

double believed_remaining(const JobView& job) {
  if (job.belief == nullptr) return 1.0;
  return std::max(1.0, job.belief->total_work() - job.work_done);
}

Decision Strategy::decide_changes(const Snapshot& /*snapshot*/) {
  throw std::logic_error("strategy '" + name() + "' is not incremental");
}

}  // namespace ringsched
