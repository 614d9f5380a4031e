// sim/engine/optimality_gap.h — the optimality-gap yardstick: a Strategy wrapper that, at every decision of the wrapped
// strategy, solves the same instantaneous problem exactly (strategies/optimal_allocation.h) and records the
// relative gap of the strategy's objective: gap = sum_j Q_j/f_j(w_j) / optimum - 1 over the jobs it served.
#pragma once

#include <memory>
#include <vector>

#include "strategies/strategy.h"

namespace ringsched {

class GapRecorder final : public Strategy {
 public:
  explicit GapRecorder(std::unique_ptr<Strategy> inner) : inner_(std::move(inner)) {}
  [[nodiscard]] std::string name() const override { return inner_->name(); }
  Decision decide(const Snapshot& s) override;
  void on_finish(int job_id) override { inner_->on_finish(job_id); }
  void on_finish_at(int job_id, double time) override { inner_->on_finish_at(job_id, time); }
  [[nodiscard]] bool adapts_batch() const override { return inner_->adapts_batch(); }
  // One entry per decision where every job had a belief and at least one job was served.
  [[nodiscard]] const std::vector<double>& gaps() const { return gaps_; }

 private:
  std::unique_ptr<Strategy> inner_;
  std::vector<double> gaps_;
};

// Gap of `gpus` (one count per snapshot job) against the optimum for the same served jobs (those with gpus > 0)
// and budget s.total_gpus. Returns NaN when it cannot be computed (a job without beliefs, none served).
double optimality_gap(const Snapshot& s, const std::vector<int>& gpus);

}  // namespace ringsched
