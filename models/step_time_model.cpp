// models/step_time_model.cpp — evaluation of the eq5 and allreduce speed model kinds.
#include "models/step_time_model.h"

namespace ringsched::models {

double Eq5StepTime::step_seconds(int w, int /*nodes*/, double global_batch) const {
  return eq5_step_time(coeffs_, static_cast<double>(w), global_batch, model_size_);
}

double AllreduceStepTime::step_seconds(int w, int nodes, double global_batch) const {
  const AllreduceParams& p = (spec_.has_inter_node && nodes > 1) ? spec_.inter_node : spec_.intra_node;
  return spec_.compute_per_sample_s * global_batch / static_cast<double>(w) + spec_.overhead_s +
         allreduce_time(spec_.algo, w, spec_.gradient_bytes, p);
}

double Eq5StepTime::step_on_ring(int w, int /*nodes*/, double global_batch, const RingLinks& ring,
                                 const RingLinks& ref) const {
  Eq5Coeffs k = coeffs_;
  if (ref.alpha > 0.0) k.t1 *= ring.alpha / ref.alpha;
  k.t2 *= ref.bandwidth / ring.bandwidth;
  return eq5_step_time(k, static_cast<double>(w), global_batch, model_size_);
}

double AllreduceStepTime::step_on_ring(int w, int nodes, double global_batch, const RingLinks& ring,
                                       const RingLinks& /*ref*/) const {
  AllreduceStepSpec spec = spec_;
  spec.intra_node.alpha = ring.alpha;
  spec.intra_node.beta = 1.0 / ring.bandwidth;
  spec.has_inter_node = false;
  return AllreduceStepTime(spec).step_seconds(w, nodes, global_batch);
}

}  // namespace ringsched::models
