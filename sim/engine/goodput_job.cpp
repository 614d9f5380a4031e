// sim/engine/goodput_job.cpp — a goodput job's epoch, batch, rate and AdaptDL agent.
#include "sim/engine/goodput_job.h"

#include <algorithm>
#include <mutex>
#include <stdexcept>
#include <string>
#include <unordered_map>

namespace ringsched {

GoodputJob::GoodputJob(std::shared_ptr<const GoodputApp> app, double target_batch, bool adaptive)
    : app_(std::move(app)), target_batch_(adaptive ? 0.0 : target_batch), adaptive_(adaptive) {
  if (!adaptive_ && !(target_batch_ > 0.0)) throw std::logic_error("goodput job without a batch size");
  report_.init_batch = app_->init_batch_size();
  report_.max_batch = app_->max_batch_size();
  report_.min_local_bsz = app_->min_local_bsz();
  report_.max_local_bsz = app_->max_local_bsz();
  report_.target_batch = target_batch_;
}

void GoodputJob::choose_config() {
  int replicas = 0;
  for (int g : placement_)
    replicas += g;
  if (replicas == 0) {
    cfg_ = models::BatchConfig{};
    return;
  }
  const int nodes = static_cast<int>(placement_.size());
  if (adaptive_) ensure_fit();
  if (adaptive_ && report_.fitted) {
    models::GoodputModel m{report_.perf,           report_.grad,          app_->init_batch_size(),
                           app_->max_batch_size(), app_->min_local_bsz(), app_->max_local_bsz()};
    models::BatchConfig c{replicas, 0, 0};
    m.optimize(nodes, replicas, c);
    cfg_ = c;
    const int count = replicas * (cfg_.accum_steps + 1);
    cfg_.atomic_bsz = std::min(cfg_.atomic_bsz, static_cast<int>(app_->max_batch_size() / count));
    return;
  }
  const double batch = adaptive_ ? std::max(app_->init_batch_size(), app_->min_local_bsz() * replicas) : target_batch_;
  cfg_ = app_->fixed_batch(batch, replicas);
}

void GoodputJob::reallocate(const std::vector<int>& placement) {
  placement_.clear();
  for (int g : placement)
    if (g > 0) placement_.push_back(g);
  choose_config();
}

void GoodputJob::observe() {
  if (cfg_.replicas == 0) return;
  const int nodes = static_cast<int>(placement_.size());
  report_.grad = app_->grad_stats(cfg_.batch_size(), epoch_);
  for (const auto& p : profile_) {
    if (p.nodes == nodes && p.replicas == cfg_.replicas && p.atomic_bsz == cfg_.atomic_bsz) return;
  }
  const models::StepSync s = app_->step_time(placement_, cfg_.atomic_bsz);
  profile_.push_back(models::ProfilePoint{nodes, cfg_.replicas, static_cast<double>(cfg_.atomic_bsz), s.step, s.sync});
  report_.max_profiled_replicas = std::max(report_.max_profiled_replicas, cfg_.replicas);
  stale_fit_ = true;
}

namespace {

// Fits by profile, shared by every job and run in the process: jobs of one application that ran the same
// configurations have the same profile (every cifar10 job starts on one GPU at the initial batch), and a fit is
// a pure function of its profile, so a remembered fit is the fit. Bounded; thread-safe.
class FitMemo {
 public:
  models::PerfParams fit(const std::vector<models::ProfilePoint>& profile) {
    std::string key;
    key.reserve(profile.size() * sizeof(models::ProfilePoint));
    for (const auto& p : profile) {
      const double fields[5] = {static_cast<double>(p.nodes), static_cast<double>(p.replicas), p.atomic_bsz, p.step,
                                p.sync};
      key.append(reinterpret_cast<const char*>(fields), sizeof fields);
    }
    {
      const std::lock_guard<std::mutex> lock(mu_);
      const auto it = memo_.find(key);
      if (it != memo_.end()) return it->second;
    }
    const models::PerfParams perf = models::fit_perf_params(profile);
    const std::lock_guard<std::mutex> lock(mu_);
    if (memo_.size() >= kMax) memo_.clear();
    memo_.emplace(std::move(key), perf);
    return perf;
  }

 private:
  static constexpr std::size_t kMax = 1 << 16;
  std::mutex mu_;
  std::unordered_map<std::string, models::PerfParams> memo_;
};

FitMemo& fit_memo() {
  static FitMemo memo;
  return memo;
}

}  // namespace

void GoodputJob::ensure_fit() {
  if (!stale_fit_) return;
  report_.perf = fit_memo().fit(profile_);
  report_.fitted = true;
  stale_fit_ = false;
}

const GoodputReport& GoodputJob::report() {
  ensure_fit();
  if (!app_->gpu_type().empty()) report_types();
  return report_;
}

// The fit on each type the job has profiled, by type name (the current type's from report_).
void GoodputJob::report_types() {
  report_.by_type.clear();
  if (!profile_.empty()) {
    report_.by_type.push_back({app_->gpu_type(), report_.fitted, report_.perf, report_.max_profiled_replicas,
                               app_->min_local_bsz(), app_->max_local_bsz()});
  }
  for (const ParkedAgent& a : parked_) {
    if (a.profile.empty()) continue;
    report_.by_type.push_back(
        {a.app->gpu_type(), a.fitted, a.perf, a.max_profiled_replicas, a.app->min_local_bsz(), a.app->max_local_bsz()});
  }
  std::sort(report_.by_type.begin(), report_.by_type.end(),
            [](const models::GoodputTypeFit& a, const models::GoodputTypeFit& b) { return a.gpu_type < b.gpu_type; });
}

void GoodputJob::use_app(std::shared_ptr<const GoodputApp> app) {
  if (app == app_) return;
  if (!app->same_progress(*app_)) {
    throw std::logic_error("goodput job of " + app_->name() + ": the tables of GPU types '" + app_->gpu_type() +
                           "' and '" + app->gpu_type() + "' count progress differently");
  }
  ensure_fit();
  ParkedAgent now{app_, std::move(profile_), report_.perf, report_.fitted, report_.max_profiled_replicas};
  const auto it =
      std::find_if(parked_.begin(), parked_.end(), [&](const ParkedAgent& a) { return a.app.get() == app.get(); });
  ParkedAgent next{app, {}, {}, false, 0};
  if (it != parked_.end()) {
    next = std::move(*it);
    parked_.erase(it);
  }
  parked_.push_back(std::move(now));
  app_ = std::move(app);
  profile_ = std::move(next.profile);
  report_.perf = next.perf;
  report_.fitted = next.fitted;
  report_.max_profiled_replicas = next.max_profiled_replicas;
  report_.min_local_bsz = app_->min_local_bsz();
  report_.max_local_bsz = app_->max_local_bsz();
  stale_fit_ = false;
}

bool GoodputJob::retune() {
  if (!adaptive_ || cfg_.replicas == 0) return false;
  const models::BatchConfig before = cfg_;
  choose_config();
  return cfg_.atomic_bsz != before.atomic_bsz || cfg_.accum_steps != before.accum_steps;
}

void GoodputJob::next_epoch() {
  ++epoch_;
  choose_config();
}

double GoodputJob::rate() const {
  if (cfg_.replicas == 0) return 0.0;
  return app_->goodput(placement_, cfg_, epoch_) * app_->init_batch_size();
}

double GoodputJob::epoch_end() const {
  return app_->progress_at(epoch_ + 1) * app_->init_batch_size();
}

double GoodputJob::total() const {
  return app_->total_progress() * app_->init_batch_size();
}

}  // namespace ringsched
