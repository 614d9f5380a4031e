// models/goodput_step_time.cpp — the `goodput` speed model's step time and the packed placement.
#include "models/goodput_step_time.h"

#include <algorithm>

namespace ringsched {

std::vector<int> packed_placement(int w, int per_node) {
  std::vector<int> p;
  while (w > 0) {
    p.push_back(std::min(w, per_node));
    w -= p.back();
  }
  return p;
}

double GoodputStepTime::step_seconds(int w, int nodes, double global_batch) const {
  const int n = std::clamp(nodes, 1, std::max(1, w));
  const int per_node = (w + n - 1) / n;
  std::vector<int> placement = packed_placement(w, per_node);
  const models::BatchConfig cfg = app_->fixed_batch(global_batch, w);
  const double batch = cfg.batch_size();
  const double total = models::accumulated_step(app_->step_time(placement, cfg.atomic_bsz), cfg.accum_steps);
  const double gain = models::efficiency_gain(app_->grad_stats(batch, 0), batch, app_->init_batch_size());
  return global_batch * total / (app_->init_batch_size() * gain);
}

}  // namespace ringsched
