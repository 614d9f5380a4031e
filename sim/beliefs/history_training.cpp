// sim/beliefs/history_training.cpp — training runs, their profiled points and the fitted `history` catalog.
#include "sim/beliefs/history_training.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <tuple>

#include <boost/random/normal_distribution.hpp>

#include "models/net_interval.h"
#include "models/table_speed.h"
#include "workloads/io/json_reader.h"
#include "workloads/rng.h"

namespace ringsched {
namespace {

double lognormal(double sigma, double z) {
  return std::exp(sigma * z - 0.5 * sigma * sigma);
}

// Repeated runs at the same position add noise, not information: the model needs enough distinct (w, nodes, batch)
// positions, and a multi-node model at least one position spanning several nodes.
void check_enough_positions(const std::vector<models::SpeedPoint>& pts, const TrainingSpec& spec,
                            const std::string& where) {
  std::vector<std::tuple<int, int, double>> pos;
  bool multi = false;
  for (const auto& p : pts) {
    pos.emplace_back(p.w, p.nodes, p.global_batch);
    multi = multi || p.nodes > 1;
  }
  std::sort(pos.begin(), pos.end());
  pos.erase(std::unique(pos.begin(), pos.end()), pos.end());
  const int need = protocol_min_points(spec.protocol);
  const bool needs_multi = protocol_needs_multi_node(spec.protocol);
  if (static_cast<int>(pos.size()) >= need && (multi || !needs_multi)) return;
  std::string what = "the profiled points leave " + std::to_string(pos.size()) + " distinct measured position(s)";
  if (needs_multi && !multi) what += ", none spanning several nodes";
  throw InputError(where + ": too few points to fit: " + what + "; the " + to_string(spec.protocol) +
                   " model needs at least " + std::to_string(need) + " distinct (GPUs, nodes, batch) positions" +
                   (needs_multi ? " with at least 1 spanning several nodes" : "") +
                   ": add probes (more GPU counts, or a multi-node point such as {\"gpus\": " +
                   std::to_string(2 * spec.gpus_per_node) + ", \"nodes\": 2}) or use a protocol with more points");
}

}  // namespace

bool TrainingSpec::profiles(int w, int nodes) const {
  if (probes.empty()) return protocol_profiles(protocol, w, nodes, gpus_per_node);
  return std::any_of(probes.begin(), probes.end(),
                     [&](const ProbePoint& p) { return p.matches(w, nodes, gpus_per_node); });
}

std::string TrainingSpec::describe() const {
  std::string out = "protocol " + to_string(protocol);
  if (speed_high) out += " (speed: high end of the 90% interval)";
  if (probes.empty()) return out;
  out += " on probes ";
  for (std::size_t i = 0; i < probes.size(); ++i) {
    if (i > 0) out += ", ";
    out += probes[i].text();
  }
  return out;
}

std::vector<models::SpeedPoint> measurable_points(const JobClass& c, const TrainingSpec& spec) {
  return measurable_points(c, *c.speed, spec);
}

std::vector<models::SpeedPoint> measurable_points(const JobClass& c, const models::StepTimeModel& speed,
                                                  const TrainingSpec& spec) {
  std::vector<models::SpeedPoint> out;
  if (const auto* table = dynamic_cast<const models::TableStepTime*>(&speed)) {
    for (const auto& p : table->points())
      out.push_back(models::SpeedPoint{p.w, p.nodes, p.local_batch * p.w, p.step_seconds});
    return out;
  }
  const int g = std::max(1, spec.gpus_per_node);
  const int top = std::max(1, std::min(c.max_gpus, spec.max_gpus));
  auto add = [&](int w, int nodes) {
    if (w < 1 || w > top || nodes < 1 || nodes > w || w > nodes * g) return;
    for (const auto& q : out)
      if (q.w == w && q.nodes == nodes) return;
    const double m = global_batch(c, w);
    out.push_back(models::SpeedPoint{w, nodes, m, speed.step_seconds(w, nodes, m)});
  };
  for (int w = 1; w <= top; ++w)
    add(w, packed_nodes(w, g));
  add(2, 2);
  add(2 * g, 2);
  add(4 * g, 4);
  for (const auto& p : spec.probes)
    add(p.w, p.packed ? packed_nodes(p.w, g) : p.nodes);
  return out;
}

TrainingData make_training_data(const Catalog& truth, const TrainingSpec& spec) {
  TrainingData d;
  d.points.resize(truth.classes.size());
  d.work.resize(truth.classes.size());
  d.points_by_type.resize(truth.classes.size());
  boost::random::normal_distribution<double> gauss(0.0, 1.0);
  for (std::size_t ci = 0; ci < truth.classes.size(); ++ci) {
    const JobClass& c = truth.classes[ci];
    const auto measured = measurable_points(c, spec);
    const double work_sigma = spec.work_sigma.value_or(c.work_sigma);
    Rng rng = make_rng(spec.seed, Stream::kTraining, ci);
    for (int r = 0; r < spec.runs; ++r) {
      const double speed = lognormal(spec.speed_sigma, gauss(rng));
      d.work[ci].push_back(c.work_samples * lognormal(work_sigma, gauss(rng)));
      for (const auto& p : measured) {
        const double z = gauss(rng);  // drawn for every point: keeps the stream independent of the selection
        if (!spec.profiles(p.w, p.nodes)) continue;
        d.points[ci].push_back(models::SpeedPoint{p.w, p.nodes, p.global_batch,
                                                  p.step_seconds / speed * lognormal(spec.measurement_sigma, z)});
      }
    }
    for (std::size_t ti = 0; ti < c.speed_by_type.size(); ++ti) {
      const auto& [type, model] = c.speed_by_type[ti];
      const auto on_type = measurable_points(c, *model, spec);
      Rng typed = make_rng(spec.seed, Stream::kTraining, ((static_cast<std::uint64_t>(ti) + 1) << 32) | ci);
      std::vector<models::SpeedPoint> pts;
      for (int r = 0; r < spec.runs; ++r) {
        const double speed = lognormal(spec.speed_sigma, gauss(typed));
        for (const auto& p : on_type) {
          const double z = gauss(typed);
          if (!spec.profiles(p.w, p.nodes)) continue;
          pts.push_back(models::SpeedPoint{p.w, p.nodes, p.global_batch,
                                           p.step_seconds / speed * lognormal(spec.measurement_sigma, z)});
        }
      }
      d.points_by_type[ci].emplace_back(type, std::move(pts));
    }
  }
  return d;
}

Catalog fit_history_catalog(const std::vector<ClassFacts>& classes_public, const TrainingData& data,
                            const TrainingSpec& spec, const std::string& origin) {
  Catalog cat;
  cat.name = "history";
  cat.description = "fitted on training runs (" + spec.describe() + ")";
  cat.origin = origin;
  for (std::size_t i = 0; i < classes_public.size(); ++i) {
    const ClassFacts& pub = classes_public[i];
    JobClass c;
    static_cast<ClassFacts&>(c) = pub;  // the public facts as stated; the truth below is fitted
    c.description = "history fit of " + pub.name;
    const std::string where = origin + ": class '" + pub.name + "' (" + spec.describe() + ")";
    check_enough_positions(data.points.at(i), spec, where);
    const SpeedFit fit = fit_speed_points(spec.protocol, data.points.at(i), pub.model_size_mparams, where);
    if (spec.speed_high && !fit.net) {
      throw InputError(where + ": speed \"high\" plans with the upper end of the net model's intervals; protocol " +
                       to_string(spec.protocol) + " fits " + fit.model_name() + " (use two-node or net-all)");
    }
    c.speed = spec.speed_high ? std::make_shared<models::NetHighStepTime>(models::NetEnvelope(data.points.at(i)))
                              : fit.model();
    if (i < data.points_by_type.size()) {
      for (const auto& [type, pts] : data.points_by_type[i]) {
        const std::string on = where + " on GPU type '" + type + "'";
        check_enough_positions(pts, spec, on);
        const SpeedFit typed = fit_speed_points(spec.protocol, pts, pub.model_size_mparams, on);
        c.speed_by_type.emplace_back(type, spec.speed_high
                                               ? std::make_shared<models::NetHighStepTime>(models::NetEnvelope(pts))
                                               : typed.model());
      }
    }
    if (data.work.at(i).empty()) throw InputError(where + ": no training runs");
    double sum = 0.0;
    for (double w : data.work.at(i))
      sum += w;
    c.work_samples = sum / static_cast<double>(data.work.at(i).size());
    cat.classes.push_back(std::move(c));
  }
  return cat;
}

}  // namespace ringsched
