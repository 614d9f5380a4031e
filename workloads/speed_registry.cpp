// workloads/speed_registry.cpp — the registry of speed model kinds (each kind registers itself with a
// SpeedKindRegistrar in the file of its factory) and the built-in `eq5`, `allreduce` and `net` (sim/beliefs' two-node
// fits) kinds; `table` registers in workloads/table_sources.cpp.
#include "workloads/speed_registry.h"

#include <array>
#include <map>
#include <mutex>
#include <stdexcept>
#include <string>
#include <vector>

#include "models/network_model.h"
#include "workloads/job_class.h"

namespace ringsched {
namespace {

models::StepTimeModelPtr make_eq5(const JsonReader& spec, const JobClass& cls, const std::string& /*base_dir*/) {
  spec.expect_object({"kind", "t0", "t1", "t2", "t3"});
  models::Eq5Coeffs c;
  c.t0 = spec.at("t0").as_non_negative();
  c.t1 = spec.at("t1").as_non_negative();
  c.t2 = spec.at("t2").as_non_negative();
  c.t3 = spec.at("t3").as_non_negative();
  if (c.t0 + c.t1 + c.t2 + c.t3 <= 0.0) spec.fail("at least one of t0..t3 must be > 0");
  return std::make_shared<models::Eq5StepTime>(c, cls.model_size_mparams);
}

models::AllreduceParams read_params(const JsonReader& r) {
  r.expect_object({"alpha_s", "beta_s_per_byte", "gamma_s_per_byte"});
  models::AllreduceParams p;
  p.alpha = r.at("alpha_s").as_non_negative();
  p.beta = r.at("beta_s_per_byte").as_non_negative();
  p.gamma = r.non_negative_or("gamma_s_per_byte", 0.0);
  return p;
}

models::StepTimeModelPtr make_allreduce(const JsonReader& spec, const JobClass& cls, const std::string& /*base_dir*/) {
  spec.expect_object(
      {"kind", "compute_per_sample_s", "overhead_s", "algorithm", "intra_node", "inter_node", "gradient_bytes"});
  models::AllreduceStepSpec s;
  s.compute_per_sample_s = spec.at("compute_per_sample_s").as_positive();
  s.overhead_s = spec.non_negative_or("overhead_s", 0.0);
  const auto algo = spec.at("algorithm");
  if (!models::parse_allreduce_algo(algo.as_string(), s.algo)) {
    algo.fail("unknown all-reduce algorithm '" + algo.as_string() +
              "' (valid: " + join_names(models::allreduce_algo_names()) + ")");
  }
  s.intra_node = read_params(spec.at("intra_node"));
  if (auto inter = spec.maybe("inter_node")) {
    s.inter_node = read_params(*inter);
    s.has_inter_node = true;
  }
  // Default gradient size: 4 bytes (fp32) per parameter.
  s.gradient_bytes =
      spec.has("gradient_bytes") ? spec.at("gradient_bytes").as_positive() : cls.model_size_mparams * 1e6 * 4.0;
  return std::make_shared<models::AllreduceStepTime>(s);
}

// The `net` kind (models/network_model.h): coefficients in seconds, each in [0, 1e9], per_sample_s or per_step_s
// > 0.
models::StepTimeModelPtr make_net(const JsonReader& spec, const JobClass& /*cls*/, const std::string& /*base_dir*/) {
  std::vector<std::string> keys{"kind"};
  for (const char* n : models::net_coefficient_names())
    keys.push_back(std::string(n) + "_s");
  spec.expect_object(keys);
  std::array<double, models::kNetColumns> a{};
  for (std::size_t j = 0; j < a.size(); ++j) {
    a[j] = spec.non_negative_or(keys[j + 1], 0.0);
    if (a[j] > 1e9) spec.at(keys[j + 1]).fail("must be <= 1e9 seconds");
  }
  if (!(a[0] > 0.0 || a[1] > 0.0)) spec.fail("per_sample_s or per_step_s must be > 0 (one GPU must take time)");
  return std::make_shared<models::NetStepTime>(models::net_coeffs_from(a));
}

struct Registry {
  std::mutex mutex;
  std::map<std::string, SpeedFactory> factories;
  std::vector<std::string> registered_twice;  // kinds two registrars claimed (look-ups then throw)
};

Registry& registry() {
  static Registry r;
  return r;
}

// Every look-up first checks that no kind was registered twice (caller holds the mutex).
void check_speed_kinds_unique(const Registry& r) {
  if (!r.registered_twice.empty())
    throw std::logic_error("speed model kind '" + r.registered_twice.front() +
                           "' is registered twice (SpeedKindRegistrar)");
}

// The built-in kinds of this file (each kind registers itself beside its factory).
const SpeedKindRegistrar eq5_speed_registrar{"eq5", make_eq5};
const SpeedKindRegistrar allreduce_speed_registrar{"allreduce", make_allreduce};
const SpeedKindRegistrar net_speed_registrar{"net", make_net};

}  // namespace

SpeedKindRegistrar::SpeedKindRegistrar(const std::string& kind, SpeedFactory factory) {
  auto& r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  if (r.factories.count(kind)) r.registered_twice.push_back(kind);
  r.factories[kind] = std::move(factory);
}

void register_speed_kind(const std::string& kind, SpeedFactory factory) {
  auto& r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  r.factories[kind] = std::move(factory);
}

std::vector<std::string> speed_kind_names() {
  auto& r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  check_speed_kinds_unique(r);
  std::vector<std::string> names;
  for (const auto& [name, f] : r.factories)
    names.push_back(name);
  return names;
}

models::StepTimeModelPtr make_speed_model(const JsonReader& spec, const JobClass& cls, const std::string& base_dir) {
  if (!spec.is_object()) spec.fail("must be an object with a \"kind\"");
  const auto kind_reader = spec.at("kind");
  const std::string kind = kind_reader.as_string();
  SpeedFactory factory;
  {
    auto& r = registry();
    std::lock_guard<std::mutex> lock(r.mutex);
    check_speed_kinds_unique(r);
    auto it = r.factories.find(kind);
    if (it != r.factories.end()) factory = it->second;
  }
  if (!factory)
    kind_reader.fail("unknown speed model kind '" + kind + "' (valid: " + join_names(speed_kind_names()) + ")");
  return factory(spec, cls, base_dir);
}

}  // namespace ringsched
