// traces/trace.cpp — what every trace format shares: time units, tiling, oversize settings.
#include "traces/trace.h"

#include <algorithm>
#include <stdexcept>

#include "workloads/io/json_reader.h"

namespace ringsched {

double time_unit_seconds(const std::string& unit, const std::string& where) {
  if (unit == "s") return 1.0;
  if (unit == "ms") return 1e-3;
  if (unit == "min") return 60.0;
  if (unit == "h") return 3600.0;
  throw InputError(where + ": unknown time unit '" + unit + "' (valid: s, ms, min, h)");
}

Trace repeat_trace(const Trace& trace, int copies, double every) {
  if (copies < 1) throw std::invalid_argument("repeat_trace: copies must be >= 1");
  // Order by (time, copy, row): the order a stable sort of the copies appended one after the other gives, found on
  // small keys instead of moving whole rows.
  struct Key {
    double t;
    int copy;
    std::size_t row;
  };
  std::vector<Key> keys;
  keys.reserve(trace.jobs.size() * static_cast<std::size_t>(copies));
  for (int k = 0; k < copies; ++k) {
    const double shift = static_cast<double>(k) * every;
    for (std::size_t i = 0; i < trace.jobs.size(); ++i)
      keys.push_back({trace.jobs[i].submit_s + shift, k, i});
  }
  std::sort(keys.begin(), keys.end(), [](const Key& a, const Key& b) {
    if (a.t != b.t) return a.t < b.t;
    if (a.copy != b.copy) return a.copy < b.copy;
    return a.row < b.row;
  });
  Trace out;
  out.file = trace.file;
  out.format = trace.format;
  out.skipped = trace.skipped;
  out.gpus_rounded_up = trace.gpus_rounded_up;
  if (trace.file_rows > trace.jobs.size()) out.file_rows = trace.file_rows * static_cast<std::size_t>(copies);
  out.jobs.reserve(keys.size());
  for (const Key& key : keys) {
    TraceJob c = trace.jobs[key.row];
    c.submit_s = key.t;
    if (key.copy > 0) c.name += "~" + std::to_string(key.copy);
    out.jobs.push_back(std::move(c));
  }
  return out;
}

std::string to_string(JobOutcome o) {
  switch (o) {
    case JobOutcome::kCompleted:
      return "completed";
    case JobOutcome::kFailed:
      return "failed";
    case JobOutcome::kKilled:
      return "killed";
    case JobOutcome::kUnknown:
      break;
  }
  return "unknown";
}

std::string to_string(Oversize o) {
  switch (o) {
    case Oversize::kError:
      return "error";
    case Oversize::kClamp:
      return "clamp";
    case Oversize::kDrop:
      return "drop";
  }
  return "error";
}

Oversize parse_oversize(const std::string& name, const std::string& where) {
  if (name == "error") return Oversize::kError;
  if (name == "clamp") return Oversize::kClamp;
  if (name == "drop") return Oversize::kDrop;
  throw InputError(where + ": unknown value '" + name + "' (valid: error, clamp, drop)");
}

void sort_and_rebase(Trace& trace) {
  std::stable_sort(trace.jobs.begin(), trace.jobs.end(),
                   [](const TraceJob& a, const TraceJob& b) { return a.submit_s < b.submit_s; });
  if (trace.jobs.empty()) return;
  const double t0 = trace.jobs.front().submit_s;
  for (auto& j : trace.jobs)
    j.submit_s -= t0;
}

namespace {
bool held_before(double t_a, std::size_t seq_a, double t_b, std::size_t seq_b) {
  return t_a != t_b ? t_a < t_b : seq_a < seq_b;
}
}  // namespace

void TraceRows::add(TraceJob job) {
  if (keep_ == 0 && rows_ >= uncapped_limit_) {
    throw InputError(file_ + ":" + std::to_string(job.line) + ": more than " + std::to_string(uncapped_limit_) +
                     " rows, and no job cap: a run keeps at most 2e7 job results; set workload.jobs (or --jobs) to "
                     "run the first N jobs");
  }
  const std::size_t seq = rows_++;
  auto less = [](const Held& a, const Held& b) { return held_before(a.job.submit_s, a.seq, b.job.submit_s, b.seq); };
  if (keep_ == 0 || held_.size() < keep_) {
    held_.push_back({std::move(job), seq});
    if (keep_ > 0 && held_.size() == keep_) std::make_heap(held_.begin(), held_.end(), less);
    return;
  }
  // Full: the row replaces the latest held one if it comes before it (a later row never ties ahead: seq grows).
  if (!held_before(job.submit_s, seq, held_.front().job.submit_s, held_.front().seq)) return;
  std::pop_heap(held_.begin(), held_.end(), less);
  held_.back() = {std::move(job), seq};
  std::push_heap(held_.begin(), held_.end(), less);
}

void TraceRows::finish(Trace& trace, bool rebase) {
  std::sort(held_.begin(), held_.end(),
            [](const Held& a, const Held& b) { return held_before(a.job.submit_s, a.seq, b.job.submit_s, b.seq); });
  trace.jobs.clear();
  trace.jobs.reserve(held_.size());
  for (Held& h : held_)
    trace.jobs.push_back(std::move(h.job));
  held_.clear();
  trace.file_rows = rows_ > trace.jobs.size() ? rows_ : 0;
  if (rebase) sort_and_rebase(trace);
}

}  // namespace ringsched
