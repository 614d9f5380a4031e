// sim/cluster/failures/failure_config.cpp — parsing and validating cluster.failures and failure traces.
#include "sim/cluster/failures/failure_config.h"

#include <string>

#include "models/input_error.h"
#include "workloads/io/csv.h"
#include "workloads/io/input_path.h"
#include "workloads/io/number_text.h"

namespace ringsched::fail {
namespace {

// An MTBF of more than a million years is a typo (and would never fail within the simulated horizon).
constexpr double kMaxMtbfH = 1e10;

// Hours, > 0 and at most `cap` (beyond it: a typo), as seconds.
double hours_in_s(const JsonReader& r, double cap) {
  const double h = r.as_positive();
  if (h > cap) r.fail("more than " + number_text(cap) + " hours is absurd");
  return h * 3600.0;
}

CheckpointPolicy parse_checkpoint_policy(const JsonReader& r) {
  r.expect_object({"interval_s", "interval", "cost_s"});
  CheckpointPolicy p;
  p.enabled = true;
  p.cost_s = r.at("cost_s").as_non_negative();
  const bool fixed = r.has("interval_s");
  if (fixed == r.has("interval")) r.fail("give either \"interval_s\" (seconds) or \"interval\": \"young_daly\"");
  if (fixed) {
    p.interval_s = r.at("interval_s").as_positive();
    if (p.cost_s >= p.interval_s) {
      r.at("cost_s").fail("a checkpoint cost of " + number_text(p.cost_s) + " s is not shorter than the interval (" +
                          number_text(p.interval_s) + " s): the job would never progress");
    }
    return p;
  }
  const auto name = r.at("interval");
  if (name.as_string() != "young_daly") name.fail("unknown interval '" + name.as_string() + "' (valid: young_daly)");
  p.young_daly = true;
  if (!(p.cost_s > 0.0)) r.at("cost_s").fail("young_daly needs a checkpoint cost > 0 (the interval is sqrt(2 C M))");
  return p;
}

// failures.trace or failures.preemptions: a file relative to the config, read with or without notices.
void parse_trace_key(const JsonReader& r, const std::string& key, std::string& file, std::vector<TraceFailure>& rows,
                     int nodes) {
  const auto t = r.at(key);
  try {
    file = resolve_input_path(t.as_string(), current_input_base_dir());
  } catch (const InputError& e) {
    t.fail(e.what());
  }
  rows = key == "preemptions" ? read_preemption_trace(file, nodes) : read_failure_trace(file, nodes);
}

}  // namespace

FailureOptions parse_failures(const JsonReader& r, int nodes, int switch_levels) {
  r.expect_object({"node_mtbf_h", "distribution", "shape", "repair_h", "switch_mtbf_h", "switch_level", "trace",
                   "preemptions", "checkpoint"});
  FailureOptions o;
  if (auto m = r.maybe("node_mtbf_h")) o.node_mtbf_s = hours_in_s(*m, kMaxMtbfH);
  if (auto d = r.maybe("distribution")) {
    const std::string name = d->as_string();
    if (name != "exponential" && name != "weibull")
      d->fail("unknown distribution '" + name + "' (valid: exponential, weibull)");
    if (!r.has("node_mtbf_h")) d->fail("a distribution needs \"node_mtbf_h\"");
    o.weibull = name == "weibull";
  }
  if (auto k = r.maybe("shape")) {
    if (!o.weibull) k->fail("\"shape\" is the Weibull shape: only with \"distribution\": \"weibull\"");
    o.shape = k->as_number_in(0.05, 100.0);
  } else if (o.weibull) {
    r.fail("\"distribution\": \"weibull\" needs \"shape\" (k; k < 1: failures cluster early, k = 1: exponential)");
  }
  if (auto h = r.maybe("repair_h")) o.repair_s = hours_in_s(*h, 1e6);
  if (auto s = r.maybe("switch_mtbf_h")) {
    if (switch_levels == 0) s->fail("switch failures need a cluster.topology (its switches take their nodes down)");
    o.switch_mtbf_s = hours_in_s(*s, kMaxMtbfH);
  }
  if (auto l = r.maybe("switch_level")) {
    if (!r.has("switch_mtbf_h")) l->fail("\"switch_level\" only with \"switch_mtbf_h\"");
    o.switch_level = static_cast<int>(l->as_integer_in(0, switch_levels - 1));
  }
  if (r.has("trace")) parse_trace_key(r, "trace", o.trace_file, o.trace, nodes);
  if (r.has("preemptions")) parse_trace_key(r, "preemptions", o.preemptions_file, o.preemptions, nodes);
  if (o.node_mtbf_s == 0.0 && o.switch_mtbf_s == 0.0 && o.trace_file.empty() && o.preemptions_file.empty()) {
    r.fail("no source of failures: give \"node_mtbf_h\", \"switch_mtbf_h\", \"trace\" or \"preemptions\"");
  }
  if (auto c = r.maybe("checkpoint")) {
    o.checkpoint = parse_checkpoint_policy(*c);
    if (o.checkpoint.young_daly && o.node_mtbf_s == 0.0) {
      c->at("interval").fail("young_daly needs \"node_mtbf_h\" (the interval comes from the node failure rate)");
    }
  }
  return o;
}

std::string describe_failures(const FailureOptions& o) {
  std::string out;
  const auto add = [&out](const std::string& part) { out += (out.empty() ? "" : ", ") + part; };
  if (o.node_mtbf_s > 0.0) {
    add("nodes fail every " + number_text(o.node_mtbf_s / 3600.0) + " h on average (" +
        (o.weibull ? "Weibull, shape " + number_text(o.shape) : std::string("exponential")) + ")");
  }
  if (o.switch_mtbf_s > 0.0) {
    add("switches of level " + std::to_string(o.switch_level) + " every " + number_text(o.switch_mtbf_s / 3600.0) +
        " h");
  }
  if (!o.trace_file.empty()) add(std::to_string(o.trace.size()) + " failures from " + o.trace_file);
  if (!o.preemptions_file.empty()) {
    add(std::to_string(o.preemptions.size()) + " preemptions with notice from " + o.preemptions_file);
  }
  add("repairs take " + number_text(o.repair_s / 3600.0) + " h");
  if (!o.checkpoint.enabled) {
    add("no checkpoints");
  } else {
    add(std::string("checkpoints ") +
        (o.checkpoint.young_daly ? "at Young/Daly's interval"
                                 : "every " + number_text(o.checkpoint.interval_s) + " s") +
        " costing " + number_text(o.checkpoint.cost_s) + " s");
  }
  return out + "; docs/failures.md";
}

std::vector<TraceFailure> parse_failure_trace(const std::string& text, const std::string& origin, int nodes,
                                              bool notice) {
  const CsvTable t = parse_csv(text, origin);
  const int time_c = t.require_column("time_s");
  const int node_c = t.require_column("node");
  const int dur_c = t.require_column("duration_s");
  const int notice_c = notice ? t.require_column("notice_s") : -1;
  if (t.header.size() != (notice ? 4u : 3u)) {
    throw InputError(origin + (notice ? ":1: a preemption trace has exactly the columns time_s,node,duration_s,notice_s"
                                      : ":1: a failure trace has exactly the columns time_s,node,duration_s"));
  }
  std::vector<TraceFailure> out;
  out.reserve(t.rows.size());
  for (const CsvRow& row : t.rows) {
    TraceFailure f;
    f.time_s = t.non_negative(row, time_c);
    f.node = t.integer_in(row, node_c, 0, nodes - 1);
    f.duration_s = t.positive(row, dur_c);
    if (notice) f.notice_s = t.non_negative(row, notice_c);
    if (!out.empty() && f.time_s < out.back().time_s) {
      t.fail(row, "time_s " + number_text(f.time_s) + " is earlier than the row before (" +
                      number_text(out.back().time_s) + "): rows must be sorted by time");
    }
    out.push_back(f);
  }
  return out;
}

std::vector<TraceFailure> read_failure_trace(const std::string& path, int nodes) {
  return parse_failure_trace(read_input_file(path, "failure trace"), path, nodes);
}

std::vector<TraceFailure> read_preemption_trace(const std::string& path, int nodes) {
  return parse_failure_trace(read_input_file(path, "preemption trace"), path, nodes, true);
}

}  // namespace ringsched::fail
