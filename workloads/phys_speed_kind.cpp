// workloads/phys_speed_kind.cpp — the catalog speed kind `phys` (models/phys_model.h; written by `ringsched fit
// --model phys`), registered here beside its factory: coefficients in seconds, the variant, the overlap and the
// hardware the fit was bounded by, checked against the class's model size.
#include <array>
#include <cstdio>
#include <string>
#include <vector>

#include "models/phys_model.h"
#include "workloads/job_class.h"
#include "workloads/speed_registry.h"

namespace ringsched {
namespace {

// `hardware`: nic_gbps and intra_gbps (optional, (0, 1e5] Gb/s) and bytes_per_param ((0, 16], default 4). With a
// rate, the class's gradient bytes per that rate is the least its bandwidth coefficient may be: a smaller one
// contradicts the hardware (a file edited by hand, or a model size that is not the fitted one).
void check_phys_hardware_keys(const JsonReader& spec, const JobClass& cls, const std::array<double, 6>& c) {
  const auto hw = spec.maybe("hardware");
  if (!hw) return;
  hw->expect_object({"nic_gbps", "intra_gbps", "bytes_per_param"});
  const double bpp = hw->has("bytes_per_param") ? hw->at("bytes_per_param").as_number_in(1e-3, 16.0) : 4.0;
  const double bytes = cls.model_size_mparams * 1e6 * bpp;
  const std::array<std::pair<const char*, std::size_t>, 2> rates{{{"intra_gbps", 2}, {"nic_gbps", 4}}};
  for (const auto& [key, col] : rates) {
    if (!hw->has(key)) continue;
    const double gbps = hw->at(key).as_number_in(1e-6, 1e5);
    const double floor_s = bytes * 8.0 / (gbps * 1e9);
    if (c[col] < floor_s * (1.0 - 1e-9)) {
      char buf[320];
      std::snprintf(buf, sizeof buf,
                    "is %.6g s, below the %.6g s that %g M parameters x %g bytes take at %g Gb/s (hardware.%s): the "
                    "coefficients contradict the declared hardware",
                    c[col], floor_s, cls.model_size_mparams, bpp, gbps, key);
      spec.at(std::string(models::phys_coefficient_names()[col]) + "_s").fail(buf);
    }
  }
}

models::StepTimeModelPtr make_phys(const JsonReader& spec, const JobClass& cls, const std::string& /*base_dir*/) {
  std::vector<std::string> keys{"kind", "variant", "overlap", "hardware"};
  for (const char* n : models::phys_coefficient_names())
    keys.push_back(std::string(n) + "_s");
  spec.expect_object(keys);
  const models::PhysVariant v = models::parse_phys_variant(spec.at("variant").as_string(), spec.at("variant").where());
  std::array<double, models::kPhysColumns> c{};
  for (std::size_t j = 0; j < c.size(); ++j) {
    const std::string key = keys[j + 4];
    c[j] = spec.non_negative_or(key, 0.0);
    if (c[j] > 1e9) spec.at(key).fail("must be <= 1e9 seconds");
  }
  if (!(c[0] > 0.0 || c[1] > 0.0)) spec.fail("per_sample_s or per_step_s must be > 0 (one GPU must take time)");
  const double overlap = spec.has("overlap") ? spec.at("overlap").as_number_in(0.0, 0.99) : 0.0;
  check_phys_hardware_keys(spec, cls, c);
  return std::make_shared<models::PhysStepTime>(v, c, overlap);
}

const SpeedKindRegistrar phys_speed_registrar{"phys", make_phys};

}  // namespace
}  // namespace ringsched
