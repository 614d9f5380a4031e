// sim/fitting/fit_command.cpp — `ringsched fit`: inputs, fit, class entry and quality.
#include "sim/fitting/fit_command.h"

#include <algorithm>
#include <cstdio>
#include <ostream>

#include "models/fit.h"
#include "models/net_interval.h"
#include "models/phys_posterior.h"
#include "sim/fitting/fit_study.h"
#include "sim/fitting/phys_fit.h"
#include "sim/fitting/speed_fit.h"
#include "workloads/io/atomic_write.h"
#include "workloads/io/json_reader.h"
#include "workloads/io/number_text.h"
#include "workloads/measurement/measurement.h"
#include "workloads/measurement/points_csv.h"
#include "workloads/pollux.h"

namespace ringsched {

namespace {

// What one input gives: the measured points and the facts of the class entry.
struct FitInput {
  std::vector<models::SpeedPoint> points;
  double model_size = 0.0;
  std::string origin;
  std::string name;
  std::string description;   // completed with " under protocol P" once the protocol is known
  std::string speed_source;  // "Speed: protocol P on <speed_source>."
  std::vector<std::string> derivation;
  BatchMode mode = BatchMode::kFixedGlobal;
  double batch = 0.0;
  double work = 0.0;
  nlohmann::json eq1 = nullptr;
  profiler::HardwareFacts hardware;  // measurement files' `hardware` keys
};

FitInput pollux_input(const FitCommandOptions& o, const std::string& dir) {
  FitInput in;
  const auto app = pollux_app(dir, o.pollux);
  in.origin = app->dir;
  in.points = pollux_speed_points(*app);
  in.model_size = o.model_size > 0.0 ? o.model_size : pollux_model_size(o.pollux);
  const PolluxClassChoice ch = pollux_class_choice(*app);
  in.name = o.name.empty() ? o.pollux : o.name;
  in.description = "Pollux " + o.pollux + " fitted";
  in.mode = BatchMode::kFixedPerWorker;
  in.batch = ch.local_batch;
  in.work = o.work_samples > 0.0 ? o.work_samples : pollux_work_samples(*app, ch.validation_batch);
  in.speed_source = in.origin + "/placements.csv + scalability.csv";
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

FitInput csv_input(const FitCommandOptions& o) {
  FitInput in;
  const bool text = o.csv.empty();
  in.origin = text ? o.csv_origin : o.csv;
  in.points = text ? parse_points_csv_text(o.csv_text, o.csv_origin) : read_points_csv(o.csv);
  in.model_size = o.model_size;  // required unless the model ignores it (checked once the protocol is known)
  in.name = o.name.empty() ? "fitted" : o.name;
  in.description = "Fitted from " + in.origin;
  in.batch = in.points.front().global_batch;
  in.work = o.work_samples;
  in.speed_source = in.origin;
  return in;
}

FitInput measurement_input(const FitCommandOptions& o) {
  FitInput in;
  std::vector<profiler::Measurement> ms;
  for (const auto& f : o.measurements)
    ms.push_back(profiler::load_measurement(f));
  in.points = profiler::measurement_points(ms);
  in.model_size = o.model_size > 0.0 ? o.model_size : profiler::measurement_model_size(ms) / 1e6;
  in.origin = o.measurements.front();
  in.name = o.name.empty() ? "fitted" : o.name;
  in.description = "Fitted from profiler measurements";
  in.mode = BatchMode::kFixedPerWorker;
  in.batch = in.points.front().global_batch / in.points.front().w;
  in.work = o.work_samples;
  in.speed_source = std::to_string(o.measurements.size()) + " measurement file(s)";
  in.hardware = profiler::measurement_hardware(ms);
  return in;
}

}  // namespace

namespace {

// `auto`: two-node when the points include a 2-node measurement and one on a single node, else net-all when any
// point spans several nodes (neither needs a model size), else paper when they hold enough one-node power-of-two
// counts, else eq5-all. The reason goes to stderr and quality.protocol_choice.
FitProtocol choose_protocol(const std::vector<models::SpeedPoint>& pts, int g, bool probes, std::string& why) {
  const bool one = std::any_of(pts.begin(), pts.end(), [](const auto& p) { return p.nodes == 1; });
  const bool two = std::any_of(pts.begin(), pts.end(), [](const auto& p) { return p.nodes == 2; });
  if (one && two) {
    why =
        probes
            ? "the probes include measurements on one node and on 2 nodes, so the --model family of two-node is fitted "
              "on them"
            : "the points include measurements on one node and on 2 nodes, so two-node fits the --model family on "
              "every point spanning at most 2 nodes";
    return FitProtocol::kTwoNode;
  }
  const bool multi = std::any_of(pts.begin(), pts.end(), [](const auto& p) { return p.nodes > 1; });
  if (multi && static_cast<int>(pts.size()) >= protocol_min_points(FitProtocol::kNetAll)) {
    why = std::string(probes ? "the probes include " : "the points include ") +
          (one ? "one-node and multi-node measurements but none on exactly 2 nodes"
               : "multi-node measurements and none on one node") +
          ", so net-all fits the --model family on every point (net needs no model size)";
    return FitProtocol::kNetAll;
  }
  int paper = 0;
  for (const auto& p : pts)
    if (protocol_profiles(FitProtocol::kPaper, p.w, p.nodes, g)) ++paper;
  if (paper >= protocol_min_points(FitProtocol::kPaper)) {
    why = std::string(probes ? "the probes have no " : "the points have no ") +
          (one ? "2-node measurement" : "one-node measurement") +
          (probes ? ", so Eq. 5 (paper's model) is fitted on them"
                  : ", so paper fits Eq. 5 on the power-of-two GPU counts of one node");
    return FitProtocol::kPaper;
  }
  why = "too few points on one or two nodes for two-node or paper, so eq5-all fits Eq. 5 on every point";
  return FitProtocol::kEq5All;
}

}  // namespace

namespace {

void report_intervals(const FitOutcome& fo, std::ostream& err) {
  const IntervalQuality& iq = fo.quality.intervals;
  if (!iq.available || iq.points_32 == 0) return;
  char buf[320];
  std::snprintf(buf, sizeof buf,
                "ringsched fit: 90%% intervals (quality.unprofiled predicted_lo_s..predicted_hi_s; probes on <= %d "
                "node(s), noise widening %.1f%%): the measured step is inside for %.1f%% of the %d points at 32+ "
                "GPUs (%.1f%% of all unprofiled), median width %.1f%% of the measured step\n",
                iq.probe_nodes, iq.noise_pct, iq.coverage_32_pct, iq.points_32, iq.coverage_pct,
                iq.median_width_32_pct);
  err << buf;
}

// --suggest-probe: targets are the unprofiled points at 32+ GPUs (the packed 32 and 64 GPUs at the probes' most
// common per-GPU batch when the table has none); candidates go up to the node count the largest job could span.
// The targets of probe planning and the node count a candidate may reach.
std::vector<models::SpeedPoint> plan_targets(const FitOutcome& fo, const std::vector<models::SpeedPoint>& all,
                                             int max_gpus, int& max_nodes) {
  const int g = fo.quality.gpus_per_node;
  std::vector<models::SpeedPoint> targets;
  for (const auto& u : fo.quality.unprofiled)
    if (u.w >= 32) targets.push_back(models::SpeedPoint{u.w, u.nodes, u.global_batch, u.measured_s});
  max_nodes = std::max(1, max_gpus / std::max(1, g));
  for (const auto& p : all)
    max_nodes = std::max(max_nodes, p.nodes);
  if (targets.empty()) {
    const double b = fo.fitted.front().global_batch / fo.fitted.front().w;
    for (int w : {32, 64})
      targets.push_back(models::SpeedPoint{w, (w + g - 1) / g, b * w, 1.0});
  }
  return targets;
}

// --suggest-probe / --budget N on a phys model: the greedy plan from the posterior (models/phys_posterior.h).
nlohmann::json plan_probes(const FitOutcome& fo, const std::vector<models::SpeedPoint>& all, int max_gpus, int budget,
                           std::ostream& err) {
  int max_nodes = 1;
  const auto targets = plan_targets(fo, all, max_gpus, max_nodes);
  int smallest_target = 1 << 30;
  for (const auto& t : targets)
    smallest_target = std::min(smallest_target, t.w);
  std::vector<models::PhysProbeCandidate> measured;  // a table's own rows can check the plan
  for (const auto& u : fo.quality.unprofiled)
    if (u.w < smallest_target) measured.push_back(models::PhysProbeCandidate{u.w, u.nodes});
  const auto candidates = models::phys_probe_candidates(fo.fitted, measured, fo.quality.gpus_per_node, max_nodes);
  const models::PhysProbePlan plan = models::plan_phys_probes(fo.fitted, targets, fo.fit.physfit.selected,
                                                              fo.fit.physfit.hardware, candidates, budget);
  if (plan.steps.empty()) {
    err << "ringsched fit: probe plan: the probes already span " << max_nodes << " nodes\n";
    return nullptr;
  }
  nlohmann::json steps = nlohmann::json::array();
  char buf[320];
  for (const auto& st : plan.steps) {
    std::snprintf(buf, sizeof buf,
                  "ringsched fit: planned probe %zu: %d GPUs on %d nodes (per-GPU batch %.6g): expected mean width of "
                  "the 32+ intervals %.1f%% -> %.1f%%\n",
                  steps.size() + 1, st.gpus, st.nodes, st.global_batch / st.gpus, 100.0 * plan.width_before,
                  100.0 * st.width_after);
    err << buf;
    steps.push_back({{"gpus", st.gpus},
                     {"nodes", st.nodes},
                     {"global_batch", st.global_batch},
                     {"mean_width_32plus_pct_expected_after", 100.0 * st.width_after}});
  }
  return {{"mean_width_32plus_pct_before", 100.0 * plan.width_before}, {"steps", steps}};
}

nlohmann::json suggest_probe(const FitOutcome& fo, const std::vector<models::SpeedPoint>& all, int max_gpus,
                             std::ostream& err) {
  if (fo.fit.phys) {
    nlohmann::json plan = plan_probes(fo, all, max_gpus, 1, err);
    if (plan.is_null()) return plan;
    nlohmann::json s = plan["steps"][0];
    s["mean_width_32plus_pct_before"] = plan["mean_width_32plus_pct_before"];
    return s;
  }
  if (!fo.fit.net) {
    err << "ringsched fit: --suggest-probe: only for net and phys models (protocols two-node and net-all)\n";
    return nullptr;
  }
  const int g = fo.quality.gpus_per_node;
  int max_nodes = 1;
  const auto targets = plan_targets(fo, all, max_gpus, max_nodes);
  const models::ProbeSuggestion s = models::suggest_net_probe(fo.fitted, targets, g, max_nodes);
  if (s.gpus == 0) {
    err << "ringsched fit: --suggest-probe: the probes already span " << max_nodes << " nodes\n";
    return nullptr;
  }
  char buf[320];
  std::snprintf(buf, sizeof buf,
                "ringsched fit: suggested probe: %d GPUs on %d nodes (per-GPU batch %.6g): expected mean width of the "
                "32+ intervals %.1f%% -> %.1f%%\n",
                s.gpus, s.nodes, s.global_batch / s.gpus, 100.0 * s.width_before, 100.0 * s.width_after);
  err << buf;
  return {{"gpus", s.gpus},
          {"nodes", s.nodes},
          {"global_batch", s.global_batch},
          {"mean_width_32plus_pct_before", 100.0 * s.width_before},
          {"mean_width_32plus_pct_expected_after", 100.0 * s.width_after}};
}

// `--protocol auto`: the protocol the points (or the probed ones) support; `why` says which and why.
FitProtocol choose_protocol_for(const FitRequest& req, const std::vector<models::SpeedPoint>& points, int gpus_per_node,
                                std::string& why) {
  const int g = gpus_per_node > 0 ? gpus_per_node : infer_gpus_per_node(points);
  std::vector<models::SpeedPoint> pool = points;
  if (!req.probes.empty()) {
    pool.clear();
    for (const auto& q : points)
      for (const auto& pr : req.probes)
        if (pr.matches(q.w, q.nodes, g)) {
          pool.push_back(q);
          break;
        }
  }
  const FitProtocol p = choose_protocol(pool, g, !req.probes.empty(), why);
  why = "protocol " + to_string(p) + " chosen automatically: " + why;
  return p;
}

// The class entry's description and derivation for the chosen protocol, and its placeholders (model size for the
// net model, work), each named in the derivation; a model that needs the model size without one is an error.
void complete_entry(FitRequest& req, const std::vector<std::string>& probe_tokens, FitInput& in) {
  in.description += " under protocol " + to_string(req.protocol);
  in.derivation.insert(in.derivation.begin(),
                       "Speed: protocol " + to_string(req.protocol) + " on " + in.speed_source + ".");
  if (!(in.model_size > 0.0)) {
    if (protocol_model(req.protocol) != "net") {
      throw InputError("--model-size: required (> 0, millions of parameters) with --csv for the " +
                       protocol_model(req.protocol) + " model of protocol " + to_string(req.protocol) +
                       " (the net model of two-node and net-all does not use it)");
    }
    // The entry must load as it is (a catalog needs a positive model size): 1, which the net model never reads.
    in.model_size = 1.0;
    req.model_size = in.model_size;
    in.derivation.push_back("model_size_mparams: PLACEHOLDER 1 (the net model does not use it); pass --model-size.");
  }
  if (!req.probes.empty()) {
    std::string list;
    for (const auto& t : probe_tokens)
      list += (list.empty() ? "" : ",") + t;
    in.derivation.push_back("Probes: " + list + " (the " + protocol_model(req.protocol) + " model of protocol " +
                            to_string(req.protocol) + ").");
  }
  if (!(in.work > 0.0)) {
    in.work = 1e6;
    in.derivation.push_back("Work: PLACEHOLDER 1e6 samples; pass --work-samples or edit work.samples.");
  }
}

}  // namespace

namespace {

// --suggest-probe and --budget: quality.suggested_probe and quality.probe_plan.
void add_probe_planning(const FitCommandOptions& o, const FitOutcome& fo, const std::vector<models::SpeedPoint>& all,
                        nlohmann::json& quality, std::ostream& err) {
  if (o.suggest_probe) quality["suggested_probe"] = suggest_probe(fo, all, o.max_gpus, err);
  if (o.budget <= 0) return;
  if (fo.fit.phys) {
    quality["probe_plan"] = plan_probes(fo, all, o.max_gpus, o.budget, err);
    return;
  }
  err << "ringsched fit: --budget: only for phys models (--model phys, or auto when phys wins); the fit chose "
      << fo.fit.model_name() << "\n";
  quality["probe_plan"] = nullptr;
}

// --model and the hardware flags; a rate the flags leave unset comes from the measurement files.
SpeedModelChoice speed_model_choice(const FitCommandOptions& o, const FitInput& in) {
  SpeedModelChoice c;
  c.model = o.model;
  if (c.model != "net" && c.model != "phys" && c.model != "auto")
    throw InputError("--model: must be net, phys or auto, got '" + c.model + "'");
  models::PhysHardware& hw = c.hardware;
  // A rate given on the command line must be a rate: 0 there is refused (below), not read as "not declared".
  hw.nic_gbps = o.nic_gbps ? *o.nic_gbps : in.hardware.nic_gbps;
  hw.intra_gbps = o.intra_gbps ? *o.intra_gbps : in.hardware.intra_gbps;
  if (o.nic_gbps && !(*o.nic_gbps > 0.0))
    throw InputError("fit: --nic-gbps (Gb/s per node): must be > 0, got " + number_text(*o.nic_gbps));
  if (o.intra_gbps && !(*o.intra_gbps > 0.0))
    throw InputError("fit: --intra-gbps (Gb/s per GPU): must be > 0, got " + number_text(*o.intra_gbps));
  hw.model_mparams = in.model_size;  // before complete_entry's placeholder: 0 when unknown
  hw.bytes_per_param = o.bytes_per_param;
  hw.bucket_mb = o.bucket_mb;
  hw.hop_latency_us = o.hop_latency_us;
  hw.overlap = o.overlap;
  check_phys_hardware(hw, "fit: ");
  if (o.budget < 0 || o.budget > 64)
    throw InputError("--budget: must be between 0 and 64 probes, got " + std::to_string(o.budget));
  return c;
}

}  // namespace

int run_fit_command(const FitCommandOptions& o, std::ostream& out, std::ostream& err) {
  const int sources =
      (o.pollux.empty() ? 0 : 1) + (o.csv.empty() && o.csv_text.empty() ? 0 : 1) + (o.measurements.empty() ? 0 : 1);
  if (sources != 1) throw InputError("fit: give exactly one of --pollux, --csv or --measurement");
  const std::string dir = o.pollux_dir.empty() ? default_pollux_dir() : o.pollux_dir;
  if (o.pollux == "all") {
    if (!o.probes.empty() || !o.add_probes.empty() || o.protocol != "auto" || o.model != "net") {
      throw InputError(
          "--pollux all prints the fixed study (every protocol); --protocol, --probes, --add-probes and --model apply "
          "to one "
          "input (--pollux APP, --csv or --measurement)");
    }
    out << render_pollux_protocol_table(dir, {FitProtocol::kPaper, FitProtocol::kTwoLevel, FitProtocol::kMultiNode})
        << render_pollux_heldout_summary(dir) << render_two_node_study(dir);
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
  if (!o.out.empty()) check_output_file(o.out, "--out");
  FitRequest req;
  for (const auto& t : o.probes)
    req.probes.push_back(parse_probe_token(t, "--probes"));
  if (!o.probes.empty() && !o.add_probes.empty())
    throw InputError("--add-probes: adds to the protocol's points; with --probes, list every position there instead");
  for (const auto& t : o.add_probes)
    req.added_probes.push_back(parse_probe_token(t, "--add-probes"));
  const bool automatic = o.protocol == "auto";
  const FitProtocol named = automatic ? FitProtocol::kTwoNode : parse_fit_protocol(o.protocol, "--protocol");
  FitInput in = !o.pollux.empty()                       ? pollux_input(o, dir)
                : !o.csv.empty() || !o.csv_text.empty() ? csv_input(o)
                                                        : measurement_input(o);
  req.gpus_per_node = o.gpus_per_node > 0 ? o.gpus_per_node : in.hardware.gpus_per_node;
  req.model_size = in.model_size;
  req.origin = in.origin;
  req.speed_model = speed_model_choice(o, in);
  std::string why;
  req.protocol = automatic ? choose_protocol_for(req, in.points, req.gpus_per_node, why) : named;
  if (req.speed_model.model != "net" && protocol_model(req.protocol) != "net") {
    throw InputError("--model " + req.speed_model.model +
                     ": only with the net protocols (two-node, net-all); protocol " + to_string(req.protocol) +
                     " fits the " + protocol_model(req.protocol) + " model");
  }
  complete_entry(req, o.probes, in);
  FitOutcome fo;
  try {
    fo = fit_with_request(req, in.points);
  } catch (const std::invalid_argument& e) {  // the model library's own checks, as input errors naming the source
    throw InputError(in.origin + ": cannot fit: " + e.what());
  }
  if (!why.empty()) err << "ringsched fit: " << why << " (--protocol chooses)\n";
  if (fo.quality.gpus_per_node_inferred) {
    err << "ringsched fit: " << fo.quality.gpus_per_node << " GPUs per node, inferred from the points "
        << "(--gpus-per-node sets it)\n";
  }
  for (const auto& w : fo.quality.warnings)
    err << "ringsched fit: warning: " << w << "\n";
  nlohmann::json quality = quality_json(fo.quality);
  quality["protocol_choice"] = why.empty() ? nlohmann::json("given by --protocol") : nlohmann::json(why);
  report_intervals(fo, err);
  add_probe_planning(o, fo, in.points, quality, err);
  nlohmann::json doc{{"class", class_entry_json(in.name, in.description, fo.fit, in.mode, in.batch, in.work, o.max_gpus,
                                                in.derivation)},
                     {"quality", quality},
                     {"eq1", in.eq1}};
  const std::string text = doc.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
  if (!o.out.empty()) write_file_atomic(o.out, text);
  out << text;
  return 0;
}

}  // namespace ringsched
