// sim/engine/public_facts.cpp — a job's public facts (see the header).
#include "sim/engine/public_facts.h"

#include <algorithm>
#include <cmath>

#include "models/input_error.h"

namespace ringsched {

JobPublic public_facts(const JobTruth& t, const JobClass& c, int total_gpus) {
  JobPublic p;
  p.id = t.id;
  p.name = t.name;
  p.arrival = t.arrival;
  p.requested_gpus = t.requested_gpus;
  p.priority_weight = t.priority_weight;
  p.user = t.user;
  p.cls = c;  // the class's public part (ClassFacts): its truth does not fit
  p.cls.max_gpus = std::min(c.max_gpus, total_gpus);
  if (!c.convergence) {
    p.cls.target_loss = 0.0;
    p.cls.loss_interval_samples = 0.0;
  }
  return p;
}

JobPublic with_vc(JobPublic p, const JobTruth& t, const ClusterConfig& cluster) {
  if (!cluster.virtual_clusters) return p;
  const VirtualClusters& vcs = *cluster.virtual_clusters;
  p.vc = vcs.index_of(t.vc);
  if (p.vc < 0) {
    throw InputError("job '" + t.name + "': " + vcs.refusal(t.vc));
  }
  const int gpus = vcs.table[static_cast<std::size_t>(p.vc)].nodes * cluster.gpus_per_node;
  if (p.cls.min_gpus > gpus) {
    throw InputError("job '" + t.name + "' needs at least " + std::to_string(p.cls.min_gpus) +
                     " GPUs (its class's minimum); its virtual cluster '" + t.vc + "' has " + std::to_string(gpus));
  }
  p.cls.max_gpus = std::min(p.cls.max_gpus, gpus);
  return p;
}

// A goodput job's public facts: the batch it was submitted with (0 when it adapts its batch), and at most as many
// GPUs as that batch (the application's largest, when adapting) has smallest per-GPU batches.
JobPublic goodput_public_facts(JobPublic p, const GoodputApp& app, double batch) {
  p.cls.batch_size = batch;
  const double cap = batch > 0.0 ? batch : app.max_batch_size();
  const int most = std::max(1, static_cast<int>(std::floor(cap / app.min_local_bsz() + 1e-9)));
  p.cls.max_gpus = std::max(p.cls.min_gpus, std::min(p.cls.max_gpus, most));
  return p;
}

}  // namespace ringsched
