// models/step_time_model.h — the speed model kinds behind one interface: seconds per training step as a function of
// workers w, nodes spanned and global batch. Kinds: `eq5` (Eq. 5 coefficients) and `allreduce` (per-sample compute
// + constant overhead + the cost of a named all-reduce algorithm, Eqs. 2-4). Measured tables live in table_speed.h.
#pragma once

#include <memory>
#include <string>

#include "models/allreduce.h"
#include "models/speed_model.h"

namespace ringsched::models {

// The links a ring of workers runs over, as a topology measures them: the largest neighbour-path latency (seconds)
// and the bottleneck bandwidth (bytes/s).
struct RingLinks {
  double alpha = 0.0;
  double bandwidth = 0.0;
};

class StepTimeModel {
 public:
  virtual ~StepTimeModel() = default;
  // Seconds per step on w workers spread over `nodes` nodes with `global_batch` samples per step (all workers).
  [[nodiscard]] virtual double step_seconds(int w, int nodes, double global_batch) const = 0;
  [[nodiscard]] virtual std::string kind() const = 0;
  // The step on a concrete ring whose links are `ring`, for a model calibrated on links `ref` (a topology's
  // placement; sim/cluster). A kind that models communication rescales it to the ring's links; the default ignores
  // the links (a measured table or a fitted model already holds its network).
  [[nodiscard]] virtual double step_on_ring(int w, int nodes, double global_batch, const RingLinks& /*ring*/,
                                            const RingLinks& /*ref*/) const {
    return step_seconds(w, nodes, global_batch);
  }
};

using StepTimeModelPtr = std::shared_ptr<const StepTimeModel>;

// Eq. 5 with model size n (the unit t2 was fitted in; we use millions of parameters).
class Eq5StepTime final : public StepTimeModel {
 public:
  Eq5StepTime(Eq5Coeffs coeffs, double model_size) : coeffs_(coeffs), model_size_(model_size) {}
  [[nodiscard]] double step_seconds(int w, int nodes, double global_batch) const override;
  [[nodiscard]] std::string kind() const override { return "eq5"; }
  // t1 (per-hop latency) scaled by ring.alpha / ref.alpha, t2 (per byte) by ref.bandwidth / ring.bandwidth.
  [[nodiscard]] double step_on_ring(int w, int nodes, double global_batch, const RingLinks& ring,
                                    const RingLinks& ref) const override;
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
  // The all-reduce priced on the ring's own links (one link class, no separate inter-node parameters).
  [[nodiscard]] double step_on_ring(int w, int nodes, double global_batch, const RingLinks& ring,
                                    const RingLinks& ref) const override;
  [[nodiscard]] const AllreduceStepSpec& spec() const { return spec_; }

 private:
  AllreduceStepSpec spec_;
};

}  // namespace ringsched::models
