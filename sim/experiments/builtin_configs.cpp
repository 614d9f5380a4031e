// sim/experiments/builtin_configs.cpp — the texts of the built-in table3 configs.
#include "sim/experiments/builtin_configs.h"

#include "workloads/io/json_reader.h"

namespace ringsched {
namespace {

constexpr const char* kInSample = R"({
  "description": "Table 3 of arXiv 1908.08082: 64 GPUs (8 nodes x 8), Poisson arrivals of ResNet-110/CIFAR-10 jobs, four contention levels, the paper's strategies plus optimus.",
  "cluster": {"nodes": 8, "gpus_per_node": 8},
  "workload": {
    "catalog": "paper",
    "jobs": 100,
    "arrival": {"process": "poisson"}
  },
  "levels": [
    {"name": "light", "load": 0.3},
    {"name": "moderate", "load": 0.6},
    {"name": "heavy", "load": 0.9},
    {"name": "extreme", "load": 1.5}
  ],
  "strategies": ["eight", "precompute", "exploratory", "optimus"],
  "restart": {"cost_s": 10},
  "seeds": 20,
  "base_seed": 1
}
)";

constexpr const char* kHeldOut = R"({
  "description": "Held-out Table 3 (docs/heldout.md): the six Pollux applications on 16 nodes x 4 GPUs, truth = the measured step-time tables and training runs with per-job noise; history beliefs fitted on 5 training runs per class (a disjoint seed) profiled under the paper's protocol.",
  "cluster": {"nodes": 16, "gpus_per_node": 4},
  "workload": {
    "catalog": "pollux",
    "jobs": 100,
    "arrival": {"process": "poisson"},
    "speed_sigma": 0.1,
    "work_sigma": 0.1,
    "loss_sigma": 0.02
  },
  "levels": [
    {"name": "light", "load": 0.3},
    {"name": "moderate", "load": 0.6},
    {"name": "heavy", "load": 0.9},
    {"name": "extreme", "load": 1.5}
  ],
  "strategies": [
    "eight",
    "precompute",
    "exploratory",
    "optimus",
    {"name": "precompute", "beliefs": "oracle"},
    {"name": "optimus", "beliefs": "online"}
  ],
  "beliefs": {
    "history": {
      "from": "training_runs",
      "runs": 5,
      "seed": 1000003,
      "measurement_sigma": 0.05,
      "protocol": "paper"
    },
    "exploration": {"measurement_sigma": 0.05}
  },
  "restart": {"cost_s": 10},
  "seeds": 20,
  "base_seed": 1,
  "output": {"events": "none", "prediction_errors": true}
}
)";

}  // namespace

std::vector<std::string> builtin_config_names() {
  return {"in-sample", "held-out"};
}

std::string builtin_config_text(const std::string& name) {
  if (name == "in-sample") return kInSample;
  if (name == "held-out") return kHeldOut;
  throw InputError("unknown built-in config '" + name + "' (valid: " + join_names(builtin_config_names()) + ")");
}

std::string builtin_config_origin(const std::string& name) {
  if (name == "in-sample") return "builtin:table3";
  if (name == "held-out") return "builtin:heldout";
  throw InputError("unknown built-in config '" + name + "' (valid: " + join_names(builtin_config_names()) + ")");
}

std::string builtin_config_name_of_origin(const std::string& origin) {
  if (origin == "builtin:table3") return "in-sample";
  if (origin == "builtin:heldout") return "held-out";
  return "";
}

std::string table3_config_text() {
  return kInSample;
}

}  // namespace ringsched
