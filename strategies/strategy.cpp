// strategies/strategy.cpp — helpers shared by strategies.
#include "strategies/strategy.h"

#include <algorithm>

namespace ringsched {

double believed_remaining(const JobView& job) {
  if (job.belief == nullptr) return 1.0;
  return std::max(1.0, job.belief->total_work() - job.work_done);
}

}  // namespace ringsched
