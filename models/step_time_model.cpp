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

}  // namespace ringsched::models
