// sim/experiments/trace_outcome_report.cpp — a trace's recorded outcomes and left-out rows in the outputs.
#include "sim/experiments/trace_outcome_report.h"

#include <array>
#include <utility>

#include "sim/experiments/config.h"
#include "workloads/io/number_text.h"

namespace ringsched {

namespace {

constexpr std::array<std::pair<JobOutcome, const char*>, 3> kOutcomeNames{
    {{JobOutcome::kCompleted, "completed"}, {JobOutcome::kFailed, "failed"}, {JobOutcome::kKilled, "killed"}}};

}  // namespace

bool has_trace_outcomes(const ExperimentConfig& c) {
  return c.workload.trace != nullptr && c.workload.trace_notes.outcomes.known() > 0;
}

TraceOutcomeByName::TraceOutcomeByName(const ExperimentConfig& c) : on_(has_trace_outcomes(c)) {
  if (!on_) return;
  by_name_.reserve(c.workload.trace->jobs.size());
  for (const TraceJob& j : c.workload.trace->jobs)
    by_name_.emplace(j.name, j.outcome);
}

std::string TraceOutcomeByName::of(const std::string& name) const {
  const auto it = by_name_.find(name);
  return to_string(it == by_name_.end() ? JobOutcome::kUnknown : it->second);
}

std::string trace_outcomes_text(const TraceNotes& n) {
  std::string out;
  const TraceOutcomes& o = n.outcomes;
  if (o.known() > 0) {
    out += "  outcomes:";
    for (std::size_t k = 0; k < kOutcomeNames.size(); ++k) {
      const auto& [outcome, name] = kOutcomeNames[k];
      out += std::string(k == 0 ? " " : ", ") + name + " " + std::to_string(o.count(outcome)) + " (" +
             formatted("%.1f", o.gpu_time(outcome) / 3600.0) + " GPU-h)";
    }
    out += "; failed " + formatted("%.1f", 100.0 * o.failed_share_by_count()) + "% of jobs, " +
           formatted("%.1f", 100.0 * o.failed_share_by_gpu_time()) + "% of GPU time (as recorded)\n";
  }
  if (n.skipped.total() > 0) {
    out += "  rows left out: " + std::to_string(n.skipped.never_ran) + " never ran, " +
           std::to_string(n.skipped.still_running) + " still running, " + std::to_string(n.skipped.zero_gpus) +
           " with 0 GPUs";
    if (n.skipped.fractional_gpus > 0) {
      out += ", " + std::to_string(n.skipped.fractional_gpus) + " with fractional GPUs (fractional_gpus \"drop\")";
    }
    out += "\n";
  }
  if (n.gpus_rounded_up > 0) {
    out += "  fractional GPUs: " + std::to_string(n.gpus_rounded_up) +
           " jobs asked for a fractional number of GPUs, rounded up to whole GPUs (fractional_gpus \"ceil\")\n";
  }
  return out;
}

void add_trace_outcomes_json(const TraceNotes& n, nlohmann::json& trace) {
  const TraceOutcomes& o = n.outcomes;
  if (o.known() > 0) {
    nlohmann::json j = nlohmann::json::object();
    for (const auto& [outcome, name] : kOutcomeNames)
      j[name] = {{"jobs", o.count(outcome)}, {"gpu_seconds", o.gpu_time(outcome)}};
    j["failed_share_jobs"] = o.failed_share_by_count();
    j["failed_share_gpu_time"] = o.failed_share_by_gpu_time();
    trace["outcomes"] = j;
  }
  if (n.skipped.total() > 0) {
    trace["skipped"] = {{"never_ran", n.skipped.never_ran},
                        {"still_running", n.skipped.still_running},
                        {"zero_gpus", n.skipped.zero_gpus}};
    if (n.skipped.fractional_gpus > 0) trace["skipped"]["fractional_gpus"] = n.skipped.fractional_gpus;
  }
  if (n.gpus_rounded_up > 0) trace["gpus_rounded_up"] = n.gpus_rounded_up;
}

}  // namespace ringsched
