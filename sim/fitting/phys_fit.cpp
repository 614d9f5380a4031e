// sim/fitting/phys_fit.cpp — the phys family inside `ringsched fit`: family choice, speed JSON, hardware report and
// checks.
#include "sim/fitting/phys_fit.h"

#include <cmath>
#include <cstdio>
#include <limits>

#include "models/input_error.h"

namespace ringsched {

namespace {

double best_lopo(const std::vector<double>& lopos) {
  double best = std::numeric_limits<double>::infinity();
  for (double v : lopos)
    if (std::isfinite(v)) best = std::min(best, v);
  return best;
}

nlohmann::json bound_or_null(double v) {
  return std::isfinite(v) ? nlohmann::json(v) : nlohmann::json(nullptr);
}

void check_range(double v, double lo, bool lo_open, double hi, const std::string& where, const std::string& what) {
  const bool ok = std::isfinite(v) && (lo_open ? v > lo : v >= lo) && v <= hi;
  if (!ok) {
    char buf[200];
    std::snprintf(buf, sizeof buf, ": must be %s %g and <= %g, got %g", lo_open ? ">" : ">=", lo, hi, v);
    throw InputError(where + what + buf);
  }
}

}  // namespace

bool choose_phys_family(const models::NetFit& net, const std::vector<models::SpeedPoint>& points,
                        const SpeedModelChoice& choice, const std::string& origin, models::PhysFit& phys) {
  if (choice.model == "net") return false;
  if (choice.model != "phys" && choice.model != "auto")
    throw InputError(origin + ": unknown speed model '" + choice.model + "' (valid: net, phys, auto)");
  phys = models::fit_phys(points, choice.hardware);
  if (choice.model == "phys") return true;
  std::vector<double> n;
  for (const auto& c : net.candidates)
    n.push_back(c.lopo_mape_pct);
  std::vector<double> ph;
  for (const auto& c : phys.candidates)
    ph.push_back(c.lopo_mape_pct);
  return best_lopo(ph) < best_lopo(n) - 1e-9;
}

nlohmann::json phys_speed_json(const models::PhysFit& fit) {
  nlohmann::json j{{"kind", "phys"}, {"variant", models::to_string(fit.selected.variant)}};
  auto c = fit.selected.coeffs;
  // The catalog requires per_sample_s or per_step_s > 0; a fit that found no compute keeps a negligible one.
  if (!(c[0] > 0.0) && !(c[1] > 0.0)) c[1] = 1e-12;
  for (std::size_t i = 0; i < c.size(); ++i)
    j[std::string(models::phys_coefficient_names()[i]) + "_s"] = c[i];
  j["overlap"] = fit.hardware.overlap;
  nlohmann::json hw = nlohmann::json::object();
  if (fit.hardware.nic_gbps > 0.0) hw["nic_gbps"] = fit.hardware.nic_gbps;
  if (fit.hardware.intra_gbps > 0.0) hw["intra_gbps"] = fit.hardware.intra_gbps;
  hw["bytes_per_param"] = fit.hardware.bytes_per_param;
  j["hardware"] = hw;
  return j;
}

nlohmann::json phys_hardware_json(const models::PhysHardware& hw, int gpus_per_node) {
  const models::PhysBounds b = models::phys_bounds(hw);
  nlohmann::json lo = nlohmann::json::object();
  nlohmann::json hi = nlohmann::json::object();
  for (std::size_t j = 0; j < b.lo.size(); ++j) {
    const std::string name = std::string(models::phys_coefficient_names()[j]) + "_s";
    lo[name] = b.lo[j];
    hi[name] = bound_or_null(b.hi[j]);
  }
  return {{"nic_gbps", hw.nic_gbps > 0.0 ? nlohmann::json(hw.nic_gbps) : nlohmann::json(nullptr)},
          {"intra_gbps", hw.intra_gbps > 0.0 ? nlohmann::json(hw.intra_gbps) : nlohmann::json(nullptr)},
          {"gpus_per_node", gpus_per_node},
          {"model_size_mparams", hw.model_mparams > 0.0 ? nlohmann::json(hw.model_mparams) : nlohmann::json(nullptr)},
          {"bytes_per_param", hw.bytes_per_param},
          {"gradient_bytes", hw.gradient_bytes()},
          {"bucket_mb", hw.bucket_mb},
          {"hop_latency_us", hw.hop_latency_us},
          {"overlap", hw.overlap},
          {"lower_bounds", lo},
          {"upper_bounds", hi},
          {"assumed", b.assumed}};
}

void check_phys_hardware(const models::PhysHardware& hw, const std::string& where) {
  // 0 = not declared for the rates; anything given must be a real network (<= 100 Tb/s).
  if (hw.nic_gbps != 0.0) check_range(hw.nic_gbps, 0.0, true, 1e5, where, "--nic-gbps (Gb/s per node)");
  if (hw.intra_gbps != 0.0) check_range(hw.intra_gbps, 0.0, true, 1e5, where, "--intra-gbps (Gb/s per GPU)");
  check_range(hw.bytes_per_param, 0.0, true, 16.0, where, "--bytes-per-param");
  check_range(hw.bucket_mb, 0.0, true, 1e6, where, "--bucket-mb");
  check_range(hw.hop_latency_us, 0.0, true, 1e6, where, "--hop-latency-us");
  check_range(hw.overlap, 0.0, false, 0.99, where, "--overlap");
  check_range(hw.model_mparams, 0.0, false, 1e7, where, "--model-size (millions of parameters)");
}

void check_probes_against_hardware(const std::vector<models::SpeedPoint>& points, const models::PhysHardware& hw,
                                   const std::string& origin, std::vector<std::string>& warnings) {
  const double bytes = hw.gradient_bytes();
  if (!(hw.nic_gbps > 0.0) || !(bytes > 0.0)) return;
  int shorter = 0;
  double worst = 0.0;
  const models::SpeedPoint* worst_point = nullptr;
  for (const auto& p : points) {
    if (p.nodes < 2) continue;
    const double n = p.nodes;
    const double floor_s = 2.0 * (n - 1.0) / n * bytes * 8.0 / (hw.nic_gbps * 1e9);
    const double ratio = floor_s / p.step_seconds;
    if (ratio > 1.0) ++shorter;
    if (ratio > worst) {
      worst = ratio;
      worst_point = &p;
    }
  }
  if (shorter == 0 || worst_point == nullptr) return;
  char buf[480];
  std::snprintf(
      buf, sizeof buf,
      "%d multi-node step(s) are shorter than the declared NIC (%g Gb/s) can carry their all-reduce of "
      "%g bytes (%g bytes per parameter x %g M parameters); the worst, %d GPUs on %d nodes, by %.3gx (%.6g s measured, "
      ">= %.6g s needed)",
      shorter, hw.nic_gbps, bytes, hw.bytes_per_param, hw.model_mparams, worst_point->w, worst_point->nodes, worst,
      worst_point->step_seconds, worst_point->step_seconds * worst);
  if (worst > 10.0) {
    throw InputError(origin + ": " + buf +
                     ": more than 10x: check --nic-gbps, --model-size and --bytes-per-param (or the file's "
                     "hardware keys)");
  }
  warnings.push_back(std::string(buf) +
                     ": the data may be right (fp16 gradients, compression): the NIC bound is enforced in the fit");
}

}  // namespace ringsched
