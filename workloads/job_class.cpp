// workloads/job_class.cpp — batch size and throughput of a job class.
#include "workloads/job_class.h"

#include <cmath>

namespace ringsched {

std::vector<ClassFacts> class_facts(const std::vector<JobClass>& classes) {
  return {classes.begin(), classes.end()};
}

std::string to_string(BatchMode mode) {
  return mode == BatchMode::kFixedGlobal ? "fixed_global" : "fixed_per_worker";
}

double global_batch(const JobClass& c, int w) {
  return c.batch_mode == BatchMode::kFixedGlobal ? c.batch_size : c.batch_size * static_cast<double>(w);
}

double class_throughput(const JobClass& c, int w, int nodes, double speed_factor) {
  if (w <= 0) return 0.0;
  const double m = global_batch(c, w);
  double rate = m / c.speed->step_seconds(w, nodes, m) * speed_factor;
  if (c.large_batch_penalty > 0.0 && c.batch_mode == BatchMode::kFixedPerWorker && w > 1) {
    rate /= 1.0 + c.large_batch_penalty * std::log2(static_cast<double>(w));
  }
  return rate;
}

int packed_nodes(int w, int gpus_per_node) {
  if (w <= 0) return 0;
  return (w + gpus_per_node - 1) / gpus_per_node;
}

}  // namespace ringsched
