// test/sim/linear_catalog.h — the engine tests' hand-computable catalog: one class "lin", fixed global batch 100, step
// = 0.01 x 100 / w = 1/w s, i.e. 100 w samples/s on w GPUs (perfect scaling, max 4), 1,000 samples of work
// (log-normal sigma `work_sigma`, 0 by default).
#pragma once

#include <memory>
#include <string>

#include "workloads/catalog.h"
#include "workloads/io/json_reader.h"

namespace ringsched::test {

inline std::shared_ptr<const Catalog> linear_catalog(double work_sigma = 0.0) {
  const std::string sigma = work_sigma == 0.0 ? "" : ", \"sigma\": " + std::to_string(work_sigma);
  const std::string text = R"({"name": "lin", "classes": [
    {"name": "lin", "batch": {"mode": "fixed_global", "size": 100}, "model_size_mparams": 1,
     "work": {"samples": 1000)" +
                           sigma + R"(}, "gpus": {"max": 4},
     "speed": {"kind": "eq5", "t0": 0.01, "t1": 0, "t2": 0, "t3": 0}}
  ]})";
  return std::make_shared<const Catalog>(parse_catalog(parse_json_text(text, "lin.json"), "lin.json"));
}

}  // namespace ringsched::test
