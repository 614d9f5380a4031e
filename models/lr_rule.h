// models/lr_rule.h — Eq. 7 learning-rate rule on resize (Goyal et al. linear scaling).
#pragma once

namespace ringsched::models {

// lr_new = (w_new / w_last) * lr_last, per-worker batch fixed.
double scaled_learning_rate(double lr_last, int w_last, int w_new);

}  // namespace ringsched::models
