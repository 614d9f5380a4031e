// sim/engine/failure_book.cpp — each job's checkpoints and what failures cost it (see the header).
#include "sim/engine/failure_book.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace ringsched::engine_detail {

FailureBook::FailureBook(const std::optional<fail::FailureOptions>& options, std::size_t jobs)
    : on_(options.has_value()) {
  if (!on_) return;
  checkpoint_ = options->checkpoint;
  node_rate_ = options->node_rate();
  jobs_.resize(jobs);
}

void FailureBook::running(int id, double now, double work, int gpus, int nodes) {
  if (!on_) return;
  Job& j = jobs_[static_cast<std::size_t>(id)];
  if (j.open) close(j, now, now - j.start);
  j.open = true;
  j.start = now;
  j.start_work = work;
  j.gpus = gpus;
  double interval = std::numeric_limits<double>::infinity();
  if (checkpoint_.enabled && !checkpoint_.young_daly) interval = checkpoint_.interval_s;
  if (checkpoint_.young_daly) {
    // Young/Daly: sqrt(2 C M), M the job's MTTF 1 / (nodes x node rate).
    const double mttf = 1.0 / (static_cast<double>(std::max(1, nodes)) * node_rate_);
    interval = std::sqrt(2.0 * checkpoint_.cost_s * mttf);
  }
  const double cost = checkpoint_.enabled ? checkpoint_.cost_s : 0.0;
  j.cycle = interval + cost;
  j.factor = std::isinf(interval) ? 1.0 : interval / j.cycle;
}

// Ends the job's stretch at `now`: `saved_s` of its running time are kept (whole checkpoint cycles, or all of it
// when it stopped cleanly); the rest was computed for nothing.
void FailureBook::close(Job& j, double now, double saved_s) {
  const double s = now - j.start;
  const double g = static_cast<double>(j.gpus);
  j.f.run_s += s;
  j.f.productive_s += saved_s * j.factor;
  j.f.recompute_gpu_s += (s - saved_s) * j.factor * g;
  j.f.checkpoint_gpu_s += s * (1.0 - j.factor) * g;
  j.open = false;
}

void FailureBook::stop(int id, double now) {
  if (!on_) return;
  Job& j = jobs_[static_cast<std::size_t>(id)];
  if (j.open) close(j, now, now - j.start);
}

double FailureBook::fail(int id, double now, double work, int gpus, bool noticed) {
  Job& j = jobs_[static_cast<std::size_t>(id)];
  ++(noticed ? j.f.preemptions : j.f.failures);
  j.evicted = true;
  j.evicted_at = now;
  j.evicted_gpus = gpus;
  if (!j.open) return work;  // restarting: it resumes from the checkpoint it restarts from
  if (noticed) {             // a checkpoint written within the notice: every second run is kept
    j.f.checkpoint_gpu_s += (checkpoint_.enabled ? checkpoint_.cost_s : 0.0) * static_cast<double>(gpus);
    close(j, now, now - j.start);
    return work;
  }
  const double s = now - j.start;
  // Whole cycles since the stretch began were checkpointed; progress is taken as even over the stretch.
  const double kept_s = std::isinf(j.cycle) ? 0.0 : std::floor(s / j.cycle) * j.cycle;
  const double saved = s > 0.0 ? j.start_work + (work - j.start_work) * (kept_s / s) : work;
  j.f.lost_work += work - saved;
  close(j, now, kept_s);
  return saved;
}

void FailureBook::restarting(int id, double now, double cost_s, int gpus) {
  if (!on_) return;
  Job& j = jobs_[static_cast<std::size_t>(id)];
  if (!j.evicted) return;
  j.f.wait_gpu_s += (now - j.evicted_at) * static_cast<double>(j.evicted_gpus);
  j.f.restart_gpu_s += cost_s * static_cast<double>(gpus);
  j.evicted = false;
}

std::vector<JobFailureStats> FailureBook::stats() const {
  std::vector<JobFailureStats> out;
  out.reserve(jobs_.size());
  for (const Job& j : jobs_)
    out.push_back(j.f);
  return out;
}

}  // namespace ringsched::engine_detail
