// models/lr_rule.cpp — Eq. 7.
#include "models/lr_rule.h"

namespace ringsched::models {

double scaled_learning_rate(double lr_last, int w_last, int w_new) {
  return lr_last * static_cast<double>(w_new) / static_cast<double>(w_last);
}

}  // namespace ringsched::models
