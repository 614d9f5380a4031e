// traces/trace_workload.cpp — trace-driven workloads: each row's class, GPUs and work from its format, oversize
// requests, and the notes validate and the outputs print.
#include "traces/trace_workload.h"

#include <algorithm>
#include <cmath>

#include <boost/random/normal_distribution.hpp>

#include "traces/trace_format.h"
#include "workloads/io/json_reader.h"
#include "workloads/rng.h"

namespace ringsched {

namespace {

// How one trace row becomes a job: its class, the GPUs it asks for and the GPUs it runs at.
struct RowPlan {
  int cls = 0;
  int asked = 0;
  int gpus = 0;
  bool keep = true;
  bool clamped = false;
};

int generic_class_index(const Trace& trace, const Catalog& cat, const TraceWorkloadSpec& spec) {
  if (spec.class_name.empty()) return 0;
  const int c = cat.find(spec.class_name);
  if (c < 0) {
    throw InputError(trace.file + ": class '" + spec.class_name + "' is not in catalog " + cat.name +
                     " (classes: " + join_names(cat.class_names()) + ")");
  }
  return c;
}

RowPlan plan_row(const Trace& trace, const TraceJob& tj, const Catalog& cat, const TraceWorkloadSpec& spec,
                 int generic_class) {
  const std::string at = trace.file + ":" + std::to_string(tj.line) + ": ";
  RowPlan p;
  p.cls = trace.format->row_class(tj, cat, generic_class, at);
  const JobClass& c = cat.classes[static_cast<std::size_t>(p.cls)];
  p.asked = tj.gpus;
  const int hi = spec.max_gpus > 0 ? std::min(c.max_gpus, spec.max_gpus) : c.max_gpus;
  const int lo = std::min(c.min_gpus, hi);
  p.gpus = std::clamp(p.asked, lo, hi);
  if (p.gpus == p.asked) return p;
  switch (spec.oversize) {
    case Oversize::kError:
      throw InputError(at + "job '" + tj.name + "' asks for " + std::to_string(p.asked) + " GPUs; class " + c.name +
                       " runs on " + std::to_string(c.min_gpus) + ".." + std::to_string(c.max_gpus) +
                       (spec.max_gpus > 0 ? " and the cluster allows at most " + std::to_string(spec.max_gpus) : "") +
                       " (set workload.trace.oversize to \"clamp\" or \"drop\" to run such traces, counted in "
                       "the output)");
    case Oversize::kClamp:
      p.clamped = true;
      break;
    case Oversize::kDrop:
      p.keep = false;
      break;
  }
  return p;
}

std::size_t rows_used(const Trace& trace, const TraceWorkloadSpec& spec) {
  return spec.max_jobs > 0 ? std::min(trace.jobs.size(), static_cast<std::size_t>(spec.max_jobs)) : trace.jobs.size();
}

}  // namespace

Workload workload_from_trace(const Trace& trace, std::shared_ptr<const Catalog> catalog, const TraceWorkloadSpec& spec,
                             std::uint64_t seed) {
  Workload w;
  w.catalog = std::move(catalog);
  const Catalog& cat = *w.catalog;
  const int generic_class = generic_class_index(trace, cat, spec);
  Rng noise = make_rng(seed, Stream::kJobNoise);
  boost::random::normal_distribution<double> gauss(0.0, 1.0);
  const std::size_t n = rows_used(trace, spec);
  for (std::size_t i = 0; i < n; ++i) {
    const TraceJob& tj = trace.jobs[i];
    const RowPlan plan = plan_row(trace, tj, cat, spec, generic_class);
    // Both normals are drawn for every row, kept or not, so a dropped row does not shift the others' noise.
    const double zw = gauss(noise);
    const double zs = gauss(noise);
    if (!plan.keep) continue;
    JobTruth j;
    j.id = static_cast<int>(w.jobs.size());
    j.arrival = tj.submit_s * spec.time_scale;
    j.name = tj.name;
    j.class_index = plan.cls;
    const JobClass& c = cat.classes[static_cast<std::size_t>(plan.cls)];
    j.requested_gpus = plan.gpus;
    j.priority_weight = tj.priority_weight;
    j.user = tj.user;
    j.vc = tj.vc;
    trace.format->fill_job(tj, c, plan.asked, spec.gpus_per_node, zw, j);
    j.speed_factor = std::exp(spec.speed_sigma * zs - 0.5 * spec.speed_sigma * spec.speed_sigma) /
                     c.goodput_slowdown;  // goodput.slowdown: 1 unless set
    w.jobs.push_back(j);
  }
  if (w.jobs.empty()) throw InputError(trace.file + ": no job left (every request was dropped by oversize \"drop\")");
  return w;
}

TraceNotes trace_notes(const Trace& trace, const Catalog& cat, const TraceWorkloadSpec& spec, int total_gpus) {
  TraceNotes notes;
  notes.rows = trace.total_rows();
  const std::size_t n = rows_used(trace, spec);
  notes.truncated = notes.rows - n;
  notes.outcomes = trace_outcomes(trace, n);
  notes.skipped = trace.skipped;
  notes.gpus_rounded_up = trace.gpus_rounded_up;
  const int generic_class = generic_class_index(trace, cat, spec);
  const int gpn = std::max(1, spec.gpus_per_node);
  double gpu_seconds = 0.0;
  double first = 0.0;
  double last = 0.0;
  for (std::size_t i = 0; i < n; ++i) {
    const TraceJob& tj = trace.jobs[i];
    const RowPlan plan = plan_row(trace, tj, cat, spec, generic_class);
    if (!plan.keep) {
      ++notes.dropped;
      continue;
    }
    notes.clamped += plan.clamped ? 1 : 0;
    const double t = tj.submit_s * spec.time_scale;
    if (notes.jobs == 0) first = t;
    last = t;
    ++notes.jobs;
    const JobClass& c = cat.classes[static_cast<std::size_t>(plan.cls)];
    gpu_seconds += trace.format->offered_gpu_seconds(tj, c, plan.asked, gpn);
  }
  const double span = last - first;
  if (span > 0.0 && total_gpus > 0 && std::isfinite(gpu_seconds)) {
    notes.offered_load = gpu_seconds / (span * static_cast<double>(total_gpus));
  }
  return notes;
}

}  // namespace ringsched
