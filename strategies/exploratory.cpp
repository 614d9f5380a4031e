// strategies/exploratory.cpp — `exploratory`: a new job first runs `phase_s` (default 150 s = 2.5 min) at each of
// 1, 2, 4, 8 GPUs while holding a reservation of 8 (progress counts; each change costs a restart), its noisy
// measured speeds are fitted with Eq. 5 (NNLS), and then it joins the doubling heuristic with that fitted speed
// and the remaining work of its belief source (history by default). Exploration has priority: with reclaim on
// (default) it takes GPUs from running jobs; with reclaim off it waits for free GPUs.
#include <algorithm>
#include <map>
#include <numeric>

#include "models/fit.h"
#include "strategies/allocation.h"
#include "strategies/registry.h"

namespace ringsched {
namespace {

class ExploredBelief final : public Belief {
 public:
  ExploredBelief(models::Eq5Coeffs c, const JobPublic& pub) : c_(c), pub_(pub) {}
  void set_work_source(const Belief* b) { work_ = b; }
  [[nodiscard]] double throughput(int w, int /*nodes*/) const override {
    const double m = pub_.cls.batch_mode == BatchMode::kFixedGlobal ? pub_.cls.batch_size
                                                                    : pub_.cls.batch_size * static_cast<double>(w);
    const double t = models::eq5_step_time(c_, static_cast<double>(w), m, pub_.cls.model_size_mparams);
    return t > 0.0 ? m / t : 0.0;
  }
  [[nodiscard]] double total_work() const override { return work_ ? work_->total_work() : 1.0; }
  [[nodiscard]] std::string source() const override { return "exploration"; }

 private:
  models::Eq5Coeffs c_;
  JobPublic pub_;
  const Belief* work_ = nullptr;
};

struct ExploreState {
  int phase = -1;  // -1 not started, 0..n-1 exploring at widths[phase], n = done
  double phase_end = 0.0;
  std::vector<models::SpeedPoint> points;
  std::unique_ptr<ExploredBelief> fitted;
};

class Exploratory final : public Strategy {
 public:
  Exploratory(std::vector<int> widths, double phase_s, bool reclaim, double sigma)
      : widths_(std::move(widths)), phase_s_(phase_s), reclaim_(reclaim), sigma_(sigma) {}

  [[nodiscard]] std::string name() const override { return "exploratory"; }
  void on_finish(int job_id) override { state_.erase(job_id); }

  Decision decide(const Snapshot& s) override {
    const int n = static_cast<int>(widths_.size());
    const double eps = 1e-9;
    // 1. Phase ends: measure, move on, fit after the last width.
    for (const auto& j : s.jobs) {
      auto& st = state_[j.pub->id];
      if (st.phase >= 0 && st.phase < n && st.phase_end <= s.now + eps) {
        const int w = j.gpus;
        const double thr = s.probe->measure_throughput(j.pub->id, sigma_);
        if (w > 0 && thr > 0.0) {
          const double m = j.pub->cls.batch_mode == BatchMode::kFixedGlobal
                               ? j.pub->cls.batch_size
                               : j.pub->cls.batch_size * static_cast<double>(w);
          st.points.push_back({w, packed_nodes(w, s.gpus_per_node), m, m / thr});
        }
        ++st.phase;
        st.phase_end = s.now + phase_s_;
        if (st.phase == n) {
          models::Eq5Coeffs c;
          if (!st.points.empty()) c = models::fit_eq5(st.points, j.pub->cls.model_size_mparams).coeffs;
          st.fitted = std::make_unique<ExploredBelief>(c, *j.pub);
        }
      }
    }
    // 2. Allocation: exploring jobs first (arrival order), then doubling over explored jobs.
    Decision d;
    d.gpus.assign(s.jobs.size(), 0);
    int budget = s.total_gpus;
    int free_now = s.total_gpus;
    for (const auto& j : s.jobs)
      free_now -= j.gpus;
    std::vector<int> explored;
    for (std::size_t i = 0; i < s.jobs.size(); ++i) {
      const auto& j = s.jobs[i];
      auto& st = state_[j.pub->id];
      const int reserve = reservation(*j.pub);
      if (st.phase >= 0 && st.phase < n) {
        budget -= reserve;
        d.gpus[i] = phase_width(*j.pub, st.phase);
      } else if (st.phase < 0) {
        const bool room = reclaim_ ? reserve <= budget : reserve <= std::min(budget, free_now);
        if (room) {
          st.phase = 0;
          st.phase_end = s.now + phase_s_;
          budget -= reserve;
          free_now -= reserve;
          d.gpus[i] = phase_width(*j.pub, 0);
        }
      } else {
        explored.push_back(static_cast<int>(i));
      }
    }
    if (budget > 0 && !explored.empty()) {
      views_.assign(s.jobs.begin(), s.jobs.end());
      for (int idx : explored) {
        auto& st = state_[s.jobs[static_cast<std::size_t>(idx)].pub->id];
        st.fitted->set_work_source(s.jobs[static_cast<std::size_t>(idx)].belief);
        views_[static_cast<std::size_t>(idx)].belief = st.fitted.get();
      }
      Snapshot sub = s;
      sub.jobs = views_;
      const auto alloc = doubling_allocation(sub, explored, budget);
      for (std::size_t k = 0; k < explored.size(); ++k)
        d.gpus[static_cast<std::size_t>(explored[k])] = alloc[k];
    }
    for (const auto& j : s.jobs) {
      const auto& st = state_[j.pub->id];
      if (st.phase >= 0 && st.phase < n) d.wakeup_at = std::min(d.wakeup_at, st.phase_end);
    }
    return d;
  }

 private:
  int phase_width(const JobPublic& p, int phase) const {
    return std::clamp(widths_[static_cast<std::size_t>(phase)], p.cls.min_gpus, p.cls.max_gpus);
  }
  int reservation(const JobPublic& p) const {
    const int widest = *std::max_element(widths_.begin(), widths_.end());
    return std::clamp(widest, p.cls.min_gpus, p.cls.max_gpus);
  }

  std::vector<int> widths_;
  double phase_s_;
  bool reclaim_;
  double sigma_;
  std::map<int, ExploreState> state_;
  std::vector<JobView> views_;
};

}  // namespace

StrategyInfo exploratory_strategy_info() {
  StrategyInfo info;
  info.name = "exploratory";
  info.description =
      "A new job runs phase_s seconds at each of `widths` GPUs (holding the widest as a reservation), fits Eq. 5 to "
      "its noisy measured speeds, then joins the doubling heuristic. Params: widths (default [1,2,4,8]), phase_s "
      "(default 150), reclaim (default true: exploration takes GPUs from running jobs), measurement_sigma "
      "(lognormal noise on each measured speed, default 0.05).";
  info.default_beliefs = "history";
  info.params = {"widths", "phase_s", "reclaim", "measurement_sigma"};
  info.make = [](const JsonReader& p) -> std::unique_ptr<Strategy> {
    std::vector<int> widths = {1, 2, 4, 8};
    if (auto wr = p.maybe("widths")) {
      widths.clear();
      for (const auto& e : wr->non_empty_elements())
        widths.push_back(static_cast<int>(e.as_integer_in(1, 1 << 20)));
    }
    const double phase_s = p.positive_or("phase_s", 150.0);
    const double sigma = p.non_negative_or("measurement_sigma", 0.05);
    if (sigma > 2.0) p.at("measurement_sigma").fail("must be <= 2");
    return std::make_unique<Exploratory>(widths, phase_s, p.bool_or("reclaim", true), sigma);
  };
  return info;
}

}  // namespace ringsched
