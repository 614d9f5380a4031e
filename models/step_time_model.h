// models/step_time_model.h — the speed model kinds behind one interface: seconds per training step as a function of
// workers w, nodes spanned and global batch. Kinds: `eq5` (Eq. 5 coefficients) and `allreduce` (per-sample compute
// + constant overhead + the cost of a named all-reduce algorithm, Eqs. 2-4). Measured tables live in table_speed.h.
#pragma once

#include <memory>
#include <string>

#include "models/allreduce.h"
#include "models/speed_model.h"

namespace ringsched::models {

class StepTimeModel {
 public:
  virtual ~StepTimeModel() = default;
  // Seconds per step on w workers spread over `nodes` nodes with `global_batch` samples per step (all workers).
  [[nodiscard]] virtual double step_seconds(int w, int nodes, double global_batch) const = 0;
  [[nodiscard]] virtual std::string kind() const = 0;
};

using StepTimeModelPtr = std::shared_ptr<const StepTimeModel>;

// Eq. 5 with model size n (the unit t2 was fitted in; we use millions of parameters).
class Eq5StepTime final : public StepTimeModel {
 public:
  Eq5StepTime(Eq5Coeffs coeffs, double model_size) : coeffs_(coeffs), model_size_(model_size) {}
  [[nodiscard]] double step_seconds(int w, int nodes, double global_batch) const override;
  [[nodiscard]] std::string kind() const override { return "eq5"; }
  [[nodiscard]] const Eq5Coeffs& coeffs() const { return coeffs_; }
  [[nodiscard]] double model_size() const { return model_size_; }

 private:
  Eq5Coeffs coeffs_;
  double model_size_;
};

// step = compute_per_sample * global_batch / w + overhead + allreduce(algo, w, gradient_bytes).
// When inter_node is set and the ring spans more than one node, the all-reduce uses the inter-node parameters.
struct AllreduceStepSpec {
  double compute_per_sample_s = 0.0;
  double overhead_s = 0.0;
  AllreduceAlgo algo = AllreduceAlgo::kRing;
  AllreduceParams intra_node;
  AllreduceParams inter_node;
  bool has_inter_node = false;
  double gradient_bytes = 0.0;
};

class AllreduceStepTime final : public StepTimeModel {
 public:
  explicit AllreduceStepTime(AllreduceStepSpec spec) : spec_(spec) {}
  [[nodiscard]] double step_seconds(int w, int nodes, double global_batch) const override;
  [[nodiscard]] std::string kind() const override { return "allreduce"; }
  [[nodiscard]] const AllreduceStepSpec& spec() const { return spec_; }

 private:
  AllreduceStepSpec spec_;
};

}  // namespace ringsched::models
