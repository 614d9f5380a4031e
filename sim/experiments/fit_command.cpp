// sim/experiments/fit_command.cpp — `ringsched fit`: inputs, fit, class entry and quality.
#include "sim/experiments/fit_command.h"
#include "sim/experiments/fit_study.h"

#include <ostream>

#include "models/fit.h"
#include "sim/beliefs/speed_fit.h"
#include "sim/experiments/atomic_file.h"
#include "sim/experiments/fit_study.h"
#include "workloads/json_reader.h"
#include "workloads/points_csv.h"
#include "workloads/pollux.h"
#ifdef RINGSCHED_HAVE_MEASUREMENT
#include "profiler/measurement.h"
#endif

namespace ringsched {

bool fit_has_measurement_support() {
#ifdef RINGSCHED_HAVE_MEASUREMENT
  return true;
#else
  return false;
#endif
}

namespace {

// What one input gives: the measured points and the facts of the class entry.
struct FitInput {
  std::vector<models::SpeedPoint> points;
  double model_size = 0.0;
  std::string origin;
  std::string name;
  std::string description;
  std::vector<std::string> derivation;
  BatchMode mode = BatchMode::kFixedGlobal;
  double batch = 0.0;
  double work = 0.0;
  nlohmann::json eq1 = nullptr;
};

FitInput pollux_input(const FitCommandOptions& o, const std::string& dir, FitProtocol proto) {
  FitInput in;
  const auto app = pollux_app(dir, o.pollux);
  in.origin = app->dir;
  in.points = pollux_speed_points(*app);
  in.model_size = o.model_size > 0.0 ? o.model_size : pollux_model_size(o.pollux);
  const PolluxClassChoice ch = pollux_class_choice(*app);
  in.name = o.name.empty() ? o.pollux : o.name;
  in.description = "Pollux " + o.pollux + " fitted under protocol " + to_string(proto);
  in.mode = BatchMode::kFixedPerWorker;
  in.batch = ch.local_batch;
  in.work = o.work_samples > 0.0 ? o.work_samples : pollux_work_samples(*app, ch.validation_batch);
  in.derivation.push_back("Speed: protocol " + to_string(proto) + " on " + in.origin +
                          "/placements.csv + scalability.csv.");
  in.derivation.push_back("Work: samples to the target metric in validation-" + std::to_string(ch.validation_batch) +
                          ".csv (docs/heldout.md).");
  const auto loss = pollux_loss_points(*app, ch.validation_batch);
  if (loss.size() < 3) {
    in.eq1 = {
        {"error", "too few points to fit Eq. 1: needs at least 3 loss points, got " + std::to_string(loss.size())}};
  } else {
    const auto f1 = models::fit_eq1(loss);
    in.eq1 = {{"b0", f1.coeffs.b0}, {"b1", f1.coeffs.b1},  {"b2", f1.coeffs.b2}, {"r2", f1.r2},
              {"rmse", f1.rmse},    {"points", f1.points}, {"k_unit", "samples"}};
  }
  return in;
}

FitInput csv_input(const FitCommandOptions& o, FitProtocol proto) {
  FitInput in;
  in.origin = o.csv;
  in.points = read_points_csv(o.csv);
  if (!(o.model_size > 0.0)) throw InputError("--model-size: required (> 0, millions of parameters) with --csv");
  in.model_size = o.model_size;
  in.name = o.name.empty() ? "fitted" : o.name;
  in.description = "Fitted from " + o.csv + " under protocol " + to_string(proto);
  in.batch = in.points.front().global_batch;
  in.work = o.work_samples;
  in.derivation.push_back("Speed: protocol " + to_string(proto) + " on " + o.csv + ".");
  return in;
}

FitInput measurement_input(const FitCommandOptions& o, FitProtocol proto) {
#ifdef RINGSCHED_HAVE_MEASUREMENT
  FitInput in;
  std::vector<profiler::Measurement> ms;
  for (const auto& f : o.measurements)
    ms.push_back(profiler::load_measurement(f));
  in.points = profiler::measurement_points(ms);
  in.model_size = o.model_size > 0.0 ? o.model_size : profiler::measurement_model_size(ms) / 1e6;
  in.origin = o.measurements.front();
  in.name = o.name.empty() ? "fitted" : o.name;
  in.description = "Fitted from profiler measurements under protocol " + to_string(proto);
  in.mode = BatchMode::kFixedPerWorker;
  in.batch = in.points.front().global_batch / in.points.front().w;
  in.work = o.work_samples;
  in.derivation.push_back("Speed: protocol " + to_string(proto) + " on " + std::to_string(o.measurements.size()) +
                          " measurement file(s).");
  return in;
#else
  (void)o;
  (void)proto;
  throw InputError(
      "--measurement: this ringsched was built without the profiler's measurement library "
      "(configure with -DRINGSCHED_BUILD_PROFILER=ON); use --csv with gpus,nodes,global_batch,step_seconds");
#endif
}

}  // namespace

int run_fit_command(const FitCommandOptions& o, std::ostream& out) {
  const int sources = (o.pollux.empty() ? 0 : 1) + (o.csv.empty() ? 0 : 1) + (o.measurements.empty() ? 0 : 1);
  if (sources != 1) throw InputError("fit: give exactly one of --pollux, --csv or --measurement");
  const std::string dir = o.pollux_dir.empty() ? default_pollux_dir() : o.pollux_dir;
  if (o.pollux == "all") {
    out << render_pollux_protocol_table(dir, {FitProtocol::kPaper, FitProtocol::kTwoLevel, FitProtocol::kMultiNode})
        << render_pollux_heldout_summary(dir);
    return 0;
  }
  // Flags are numbers from a user: CLI11 accepts inf and nan, and absurd sizes overflow the fit.
  if (!(o.model_size >= 0.0 && o.model_size <= 1e7)) {
    throw InputError("--model-size: must be between 0 and 1e7 (millions of parameters), got " +
                     std::to_string(o.model_size));
  }
  if (!(o.work_samples >= 0.0 && o.work_samples <= 1e18)) {
    throw InputError("--work-samples: must be between 0 and 1e18 samples, got " + std::to_string(o.work_samples));
  }
  const FitProtocol proto = parse_fit_protocol(o.protocol, "--protocol");
  FitInput in = !o.pollux.empty() ? pollux_input(o, dir, proto)
                : !o.csv.empty()  ? csv_input(o, proto)
                                  : measurement_input(o, proto);
  if (!(in.work > 0.0)) {
    in.work = 1e6;
    in.derivation.push_back("Work: PLACEHOLDER 1e6 samples; pass --work-samples or edit work.samples.");
  }
  FitOutcome fo;
  try {
    fo = fit_with_protocol(proto, in.points, in.model_size, o.gpus_per_node, in.origin);
  } catch (const std::invalid_argument& e) {  // the model library's own checks, as input errors naming the source
    throw InputError(in.origin + ": cannot fit: " + e.what());
  }
  nlohmann::json doc{{"class", class_entry_json(in.name, in.description, fo.fit, in.mode, in.batch, in.work, o.max_gpus,
                                                in.derivation)},
                     {"quality", quality_json(fo.quality)},
                     {"eq1", in.eq1}};
  const std::string text = doc.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
  if (!o.out.empty()) write_file_atomic(o.out, text);
  out << text;
  return 0;
}

}  // namespace ringsched
