// sim/engine/belief_scoring.cpp — beliefs against the truth at decision time (see the header).
#include "sim/engine/belief_scoring.h"

#include <cmath>

namespace ringsched {

void BeliefScorer::score(BeliefScore& out, int id, const Belief& b, const JobClass& cls, int class_index,
                         const JobPublic& p, double speed_factor, double work, std::uint32_t observations) {
  Cached& sc = cache_[static_cast<std::size_t>(id)];
  if (sc.version != observations) {
    sc.version = observations;
    double sum = 0.0;
    double sum16 = 0.0;
    int n16 = 0;
    for (int w = 1; w <= p.cls.max_gpus; ++w) {
      const int nodes = packed_nodes(w, gpus_per_node_);
      const double truth = class_throughput(cls, w, nodes, speed_factor);
      const double ape = truth > 0.0 ? std::abs(b.throughput(w, nodes) - truth) / truth : 0.0;
      sum += ape;
      if (w >= 16) {
        sum16 += ape;
        ++n16;
      }
    }
    sc.ape = p.cls.max_gpus > 0 ? sum / p.cls.max_gpus : 0.0;
    sc.ape16 = n16 > 0 ? sum16 / n16 : -1.0;
  }
  auto& cells = out.by_class;
  const auto k = static_cast<std::size_t>(class_index);
  if (cells.size() <= k) cells.resize(k + 1);
  BeliefScore::Cell& bs = cells[k];
  if (!sc.counted) {
    sc.counted = true;
    ++bs.jobs;
  }
  bs.ape_sum += sc.ape;
  bs.work_ape_sum += std::abs(b.total_work() - work) / work;
  ++bs.job_decisions;
  if (sc.ape16 >= 0.0) {
    bs.ape16_sum += sc.ape16;
    ++bs.job_decisions16;
  }
}

}  // namespace ringsched
