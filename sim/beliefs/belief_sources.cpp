// sim/beliefs/belief_sources.cpp — the belief-source registry and the none, oracle and history belief sources, the
// held-out fitted history and exploration sources, and the online source (Eq. 1 refitted to a job's reported
// losses), each registered beside its class with the `beliefs.<name>` options it reads.
#include "sim/beliefs/belief_sources.h"

#include <algorithm>
#include <cmath>
#include <memory>
#include <stdexcept>
#include <vector>

#include "sim/beliefs/agent_belief.h"
#include "workloads/goodput_app.h"
#include "workloads/io/json_reader.h"

namespace ringsched {
namespace {

// Beliefs from a class model scaled by a speed factor with a given total work. The class is shared, not copied (one
// belief per job: a million-job trace must not hold a million catalog entries); `source` is a string literal.
class ClassModelBelief final : public Belief {
 public:
  ClassModelBelief(std::shared_ptr<const JobClass> cls, double speed_factor, double work, const char* source)
      : cls_(std::move(cls)), factor_(speed_factor), work_(work), source_(source) {}
  [[nodiscard]] double throughput(int w, int nodes) const override {
    return class_throughput(*cls_, w, nodes, factor_);
  }
  // The class model's speed on that GPU type; a class model without one (a history fit: not per type yet) believes
  // the type runs as its reference speed.
  [[nodiscard]] double throughput_on(const std::string& gpu_type, int w, int nodes) const override {
    if (speed_on(*cls_, gpu_type) == nullptr) return throughput(w, nodes);
    return class_throughput_on(*cls_, gpu_type, w, nodes, factor_);
  }
  [[nodiscard]] double total_work() const override { return work_; }
  [[nodiscard]] std::string source() const override { return source_; }
  [[nodiscard]] bool fixed() const override { return true; }
  [[nodiscard]] bool observes() const override { return false; }

 private:
  std::shared_ptr<const JobClass> cls_;
  double factor_;
  double work_;
  const char* source_;
};

// The truth of an epoch-scheduled job (Shockwave traces, workloads/epoch_schedule.h): its class model times the
// factor of the phase its progress is in, as Shockwave's simulator gives Gavel's policies the throughput of the batch
// a job runs at now (scheduler.py _scale_bs_and_iters). Progress is reported before every snapshot that shows it.
class EpochScheduleBelief final : public Belief {
 public:
  EpochScheduleBelief(std::shared_ptr<const JobClass> cls, double speed_factor, double work,
                      std::shared_ptr<const EpochSchedule> schedule)
      : cls_(std::move(cls)), factor_(speed_factor), work_(work), schedule_(std::move(schedule)) {}
  [[nodiscard]] double throughput(int w, int nodes) const override {
    return class_throughput(*cls_, w, nodes, factor_ * phase_factor_);
  }
  [[nodiscard]] double throughput_on(const std::string& gpu_type, int w, int nodes) const override {
    if (speed_on(*cls_, gpu_type) == nullptr) return throughput(w, nodes);
    return class_throughput_on(*cls_, gpu_type, w, nodes, factor_ * phase_factor_);
  }
  [[nodiscard]] double total_work() const override { return work_; }
  [[nodiscard]] std::string source() const override { return "oracle"; }
  void observe_progress(double work_done) override { phase_factor_ = schedule_->factor_at(work_done); }

 private:
  std::shared_ptr<const JobClass> cls_;
  double factor_;
  double work_;
  std::shared_ptr<const EpochSchedule> schedule_;
  double phase_factor_ = schedule_->factor.front();
};

// A catalog's class without ownership: the catalog (the workload's, held by the caller for as long as its beliefs
// live: the engine or the prediction-error pass) outlives the belief.
std::shared_ptr<const JobClass> borrowed(const JobClass& c) {
  return std::shared_ptr<const JobClass>(std::shared_ptr<const JobClass>{}, &c);
}

// The truth of a goodput-model job at its fixed batch, as the Pollux artifact's Optimus plans (optimus.py): in
// optimiser steps. throughput(w, nodes) = 1 / seconds per accumulated step on the packed placement of w GPUs (at
// least one accumulation step on one GPU, as its predict_step_time does; `nodes` is not used); remaining work = the
// steps left at the job's batch from the end of its completed epochs to its last epoch (1 once there), so that
// remaining / throughput = the artifact's steps left x step time.
// On a cluster with GPU types (a class with goodput.by_type): throughput_on answers with the type's tables on that
// type's packed placement (BeliefContext::gpus_per_node_by_type); the steps left are the same on every type (the
// types share the validation runs).
class GoodputOracleBelief final : public Belief {
 public:
  GoodputOracleBelief(const JobClass& c, double batch, const BeliefContext& ctx, double speed_factor)
      : app_(c.goodput), batch_(batch), gpn_(std::max(1, ctx.gpus_per_node)), factor_(speed_factor) {
    for (const auto& [type, gpn] : ctx.gpus_per_node_by_type) {
      if (auto app = goodput_on(c, type)) types_.push_back({type, std::move(app), std::max(1, gpn), {}});
    }
    GoodputOracleBelief::observe_progress(0.0);
  }
  [[nodiscard]] double throughput(int w, int /*nodes*/) const override { return steps_per_s(*app_, gpn_, cache_, w); }
  [[nodiscard]] double throughput_on(const std::string& gpu_type, int w, int nodes) const override {
    for (const TypeTables& t : types_)
      if (t.gpu_type == gpu_type) return steps_per_s(*t.app, t.gpus_per_node, t.cache, w);
    return throughput(w, nodes);
  }
  [[nodiscard]] double total_work() const override { return done_ + remaining_; }
  [[nodiscard]] std::string source() const override { return "oracle"; }
  void observe_progress(double work_done) override {
    done_ = work_done;
    const double unit = app_->init_batch_size();
    int epoch = 0;
    while (epoch < app_->max_epochs() && app_->progress_at(epoch + 1) * unit <= work_done)
      ++epoch;
    const int last = app_->max_epochs() - 1;
    remaining_ = last <= epoch ? 1.0 : app_->iteration_at(batch_, last) - app_->iteration_at(batch_, epoch);
  }

 private:
  struct TypeTables {
    std::string gpu_type;
    std::shared_ptr<const GoodputApp> app;
    int gpus_per_node;
    mutable std::vector<double> cache;
  };
  // Optimiser steps per second of the job's batch on w GPUs packed on nodes of `gpn`, under `app`'s tables.
  double steps_per_s(const GoodputApp& app, int gpn, std::vector<double>& cache, int w) const {
    if (w <= 0) return 0.0;
    const auto i = static_cast<std::size_t>(w);
    if (i >= cache.size()) cache.resize(i + 1, -1.0);
    if (cache[i] < 0.0) {
      const models::BatchConfig cfg =
          models::fixed_batch_config(batch_, w, app.init_batch_size(), app.max_batch_size(), app.max_local_bsz(), true);
      const models::StepSync s = app.step_time(packed_placement(w, gpn), cfg.atomic_bsz);
      cache[i] = factor_ / models::accumulated_step(s, cfg.accum_steps);
    }
    return cache[i];
  }

  std::shared_ptr<const GoodputApp> app_;
  double batch_;
  int gpn_;
  double factor_;
  double done_ = 0.0;
  double remaining_ = 1.0;
  mutable std::vector<double> cache_;
  std::vector<TypeTables> types_;
};

class NoneSource final : public BeliefSource {
 public:
  [[nodiscard]] std::string name() const override { return "none"; }
  [[nodiscard]] std::unique_ptr<Belief> make(const JobPublic&, const BeliefContext&, const JobTruth*) const override {
    return nullptr;
  }
};

class OracleSource final : public BeliefSource {
 public:
  [[nodiscard]] std::string name() const override { return "oracle"; }
  [[nodiscard]] bool needs_truth() const override { return true; }
  [[nodiscard]] std::unique_ptr<Belief> make(const JobPublic& pub, const BeliefContext& ctx,
                                             const JobTruth* truth) const override {
    const JobClass& c = ctx.catalog->classes[static_cast<std::size_t>(truth->class_index)];
    if (c.goodput) {
      const double batch = pub.cls.batch_size > 0.0 ? pub.cls.batch_size : c.goodput->init_batch_size();
      return std::make_unique<GoodputOracleBelief>(c, batch, ctx, truth->speed_factor);
    }
    if (truth->schedule && !truth->schedule->factor.empty())
      return std::make_unique<EpochScheduleBelief>(borrowed(c), truth->speed_factor, truth->work_samples,
                                                   truth->schedule);
    return std::make_unique<ClassModelBelief>(borrowed(c), truth->speed_factor, truth->work_samples, "oracle");
  }
};

class HistorySource final : public BeliefSource {
 public:
  [[nodiscard]] std::string name() const override { return "history"; }
  [[nodiscard]] std::unique_ptr<Belief> make(const JobPublic& pub, const BeliefContext& ctx,
                                             const JobTruth*) const override {
    const int idx = ctx.catalog->find(pub.cls.name);
    const JobClass& c = ctx.catalog->classes[static_cast<std::size_t>(idx)];
    return std::make_unique<ClassModelBelief>(borrowed(c), 1.0, c.work_samples, "history");
  }
};

}  // namespace

namespace {

// `agent` (sim/beliefs/agent_belief.h): the prior is the class of `prior_` (a fitted history catalog), or of the
// BeliefContext's catalog when null (in-sample, where history is the catalog).
class AgentSource final : public BeliefSource {
 public:
  AgentSource(std::shared_ptr<const Catalog> prior, double sigma) : prior_(std::move(prior)), sigma_(sigma) {}
  [[nodiscard]] std::string name() const override { return "agent"; }
  [[nodiscard]] std::unique_ptr<Belief> make(const JobPublic& pub, const BeliefContext& ctx,
                                             const JobTruth*) const override {
    const Catalog* cat = prior_ ? prior_.get() : ctx.catalog;
    const int idx = cat->find(pub.cls.name);
    if (idx < 0) return nullptr;
    const JobClass& c = cat->classes[static_cast<std::size_t>(idx)];
    return make_agent_belief(prior_ ? std::shared_ptr<const JobClass>(prior_, &c) : borrowed(c), sigma_);
  }

 private:
  std::shared_ptr<const Catalog> prior_;
  double sigma_;
};

}  // namespace

std::shared_ptr<const BeliefSource> make_agent_source(std::shared_ptr<const Catalog> prior, double measurement_sigma) {
  return std::make_shared<AgentSource>(std::move(prior), measurement_sigma);
}

namespace {

class CatalogHistorySource final : public BeliefSource {
 public:
  explicit CatalogHistorySource(std::shared_ptr<const Catalog> history) : fitted_(std::move(history)) {}
  [[nodiscard]] std::string name() const override { return "history"; }
  [[nodiscard]] std::unique_ptr<Belief> make(const JobPublic& pub, const BeliefContext&,
                                             const JobTruth*) const override {
    const int idx = fitted_->find(pub.cls.name);
    if (idx < 0) return nullptr;
    const JobClass& c = fitted_->classes[static_cast<std::size_t>(idx)];
    // Shares ownership of the fitted catalog: the belief keeps it alive.
    return std::make_unique<ClassModelBelief>(std::shared_ptr<const JobClass>(fitted_, &c), 1.0, c.work_samples,
                                              "history");
  }

 private:
  std::shared_ptr<const Catalog> fitted_;
};

class ExplorationSource final : public BeliefSource {
 public:
  ExplorationSource(SpeedMeasurer measure, std::shared_ptr<const Catalog> work_history)
      : measure_(std::move(measure)), history_(std::move(work_history)) {}
  [[nodiscard]] std::string name() const override { return "exploration"; }
  [[nodiscard]] std::unique_ptr<Belief> make(const JobPublic& pub, const BeliefContext&,
                                             const JobTruth*) const override {
    const int idx = history_->find(pub.cls.name);
    if (idx < 0) return nullptr;
    JobClass c = history_->classes[static_cast<std::size_t>(idx)];
    const models::Eq5Fit fit = models::fit_eq5(measure_(pub.id), pub.cls.model_size_mparams);
    c.speed = std::make_shared<models::Eq5StepTime>(fit.coeffs, pub.cls.model_size_mparams);
    const double work = c.work_samples;
    return std::make_unique<ClassModelBelief>(std::make_shared<const JobClass>(std::move(c)), 1.0, work, "exploration");
  }

 private:
  SpeedMeasurer measure_;
  std::shared_ptr<const Catalog> history_;
};

}  // namespace

std::shared_ptr<const BeliefSource> make_history_source(std::shared_ptr<const Catalog> history) {
  return std::make_shared<CatalogHistorySource>(std::move(history));
}

std::shared_ptr<const BeliefSource> make_exploration_source(SpeedMeasurer measure,
                                                            std::shared_ptr<const Catalog> work_history) {
  return std::make_shared<ExplorationSource>(std::move(measure), std::move(work_history));
}

namespace {

class OnlineBelief final : public Belief {
 public:
  OnlineBelief(JobClass cls, const JobPublic& pub, LossObserver observe)
      : cls_(std::move(cls)),
        observe_(std::move(observe)),
        id_(pub.id),
        target_(pub.cls.target_loss),
        interval_(pub.cls.loss_interval_samples),
        prior_(cls_.work_samples),
        estimate_(prior_),
        work_(prior_) {}
  [[nodiscard]] double throughput(int w, int nodes) const override { return class_throughput(cls_, w, nodes, 1.0); }
  [[nodiscard]] double total_work() const override { return work_; }
  [[nodiscard]] std::string source() const override { return "online"; }

  void observe_progress(double work_done) override {
    if (!(interval_ > 0.0)) return;
    while (static_cast<double>(losses_.size() + 1) * interval_ <= work_done) {
      const int n = static_cast<int>(losses_.size()) + 1;
      losses_.push_back(models::LossPoint{static_cast<double>(n) * interval_, observe_(id_, n)});
    }
    const std::size_t have = losses_.size();
    if (have >= static_cast<std::size_t>(kOnlineMinLosses) && 4 * have >= 5 * fitted_on_) {
      fitted_on_ = have;
      constexpr int kOnlineGrid = 40;
      const models::Eq1Fit fit = models::fit_eq1(losses_, kOnlineGrid);
      const double steps = models::eq1_steps_to_loss(fit.coeffs, target_);
      estimate_ = std::min(std::isfinite(steps) ? steps : prior_, kOnlineCapFactor * prior_);
    }
    // Still running, so not converged: at least half an interval to go, whatever the last fit said.
    work_ = std::max(estimate_, work_done + 0.5 * interval_);
  }

 private:
  JobClass cls_;
  LossObserver observe_;
  int id_;
  double target_;
  double interval_;
  double prior_;
  double estimate_;  // the last fit's work (the prior before the first fit)
  double work_;      // estimate_, floored by the progress seen
  std::vector<models::LossPoint> losses_;
  std::size_t fitted_on_ = 0;
};

class OnlineSource final : public BeliefSource {
 public:
  OnlineSource(LossObserver observe, std::shared_ptr<const Catalog> history)
      : observe_(std::move(observe)), history_(std::move(history)) {}
  [[nodiscard]] std::string name() const override { return "online"; }
  [[nodiscard]] std::unique_ptr<Belief> make(const JobPublic& pub, const BeliefContext& ctx,
                                             const JobTruth*) const override {
    const Catalog* cat = history_ ? history_.get() : ctx.catalog;
    const int idx = cat->find(pub.cls.name);
    if (idx < 0) return nullptr;
    return std::make_unique<OnlineBelief>(cat->classes[static_cast<std::size_t>(idx)], pub, observe_);
  }

 private:
  LossObserver observe_;
  std::shared_ptr<const Catalog> history_;
};

}  // namespace

std::shared_ptr<const BeliefSource> make_online_source(LossObserver observe, std::shared_ptr<const Catalog> history) {
  return std::make_shared<OnlineSource>(std::move(observe), std::move(history));
}

namespace {

std::vector<BeliefSourceInfo>& belief_registrations() {
  static std::vector<BeliefSourceInfo> registrations;
  return registrations;
}

std::vector<BeliefSourceInfo> sorted_belief_sources() {
  auto out = belief_registrations();
  std::sort(out.begin(), out.end(),
            [](const BeliefSourceInfo& a, const BeliefSourceInfo& b) { return a.name < b.name; });
  for (std::size_t i = 1; i < out.size(); ++i)
    if (out[i].name == out[i - 1].name)
      throw std::logic_error("belief source '" + out[i].name + "' is registered twice (BeliefSourceRegistrar)");
  return out;
}

// `measurement_sigma` of a `beliefs.<source>` object: >= 0 and <= 3.
double read_measurement_sigma(const JsonReader& object, double fallback) {
  object.expect_object({"measurement_sigma"});
  const double sigma = object.non_negative_or("measurement_sigma", fallback);
  if (sigma > 3.0) object.at("measurement_sigma").fail("must be <= 3");
  return sigma;
}

// The built-in sources register here, beside their classes.
const BeliefSourceRegistrar agent_belief_registrar{
    {"agent",
     "what the job's own agent knows: the history class as a prior, corrected by the steps the job measured of its "
     "own runs (goodput-model jobs: their AdaptDL agent's fit)",
     [](const BeliefInputs& in) { return make_agent_source(in.history, in.agent_measurement_sigma); },
     "",
     [](const JsonReader& o, BeliefOptions& opts) {
       opts.agent_measurement_sigma = read_measurement_sigma(o, kDefaultAgentMeasurementSigma);
     },
     {}}};
const BeliefSourceRegistrar exploration_belief_registrar{
    {"exploration",
     "Eq. 5 fitted to the job's own measured speeds at 1, 2, 4, 8 GPUs; work from history",
     [](const BeliefInputs& in) -> std::shared_ptr<const BeliefSource> {
       if (!in.measure || !in.history) return nullptr;
       return make_exploration_source(in.measure, in.history);
     },
     "measured speeds",
     [](const JsonReader& o, BeliefOptions& opts) {
       opts.exploration_measurement_sigma = read_measurement_sigma(o, 0.05);
     },
     {}}};
const BeliefSourceRegistrar history_belief_registrar{
    {"history",
     "class models of completed runs: the catalog's, or fitted on training runs with beliefs.history",
     [](const BeliefInputs& in) -> std::shared_ptr<const BeliefSource> {
       if (in.history) return make_history_source(in.history);
       return std::make_shared<HistorySource>();
     },
     "",
     {},
     {}}};
const BeliefSourceRegistrar none_belief_registrar{{"none",
                                                   "no beliefs (rigid strategies)",
                                                   [](const BeliefInputs&) { return std::make_shared<NoneSource>(); },
                                                   "",
                                                   {},
                                                   {}}};
const BeliefSourceRegistrar online_belief_registrar{
    {"online",
     "Eq. 1 refitted to the losses the job reports; speed as history (needs a catalog with loss curves, e.g. pollux)",
     [](const BeliefInputs& in) -> std::shared_ptr<const BeliefSource> {
       if (!in.losses) return nullptr;
       return make_online_source(in.losses, in.history);
     },
     "loss observations",
     {},
     [](const Catalog& catalog) -> std::string {
       for (const auto& cls : catalog.classes) {
         if (!cls.convergence)
           return "needs a loss curve for every class; class '" + cls.name + "' of catalog '" + catalog.name +
                  "' has none (add \"convergence\" to the class, docs/config.md, or use the \"pollux\" catalog)";
       }
       return "";
     }}};
const BeliefSourceRegistrar oracle_belief_registrar{
    {"oracle",
     "the job's truth, for reference runs",
     [](const BeliefInputs&) { return std::make_shared<OracleSource>(); },
     "",
     {},
     {}}};

}  // namespace

BeliefSourceRegistrar::BeliefSourceRegistrar(BeliefSourceInfo info) {
  belief_registrations().push_back(std::move(info));
}

// Registrars run during static initialisation, before any look-up.
const std::vector<BeliefSourceInfo>& belief_source_registry() {
  static const std::vector<BeliefSourceInfo> registry = sorted_belief_sources();
  return registry;
}

std::vector<std::string> belief_source_names() {
  std::vector<std::string> out;
  for (const auto& i : belief_source_registry())
    out.push_back(i.name);
  return out;
}

std::shared_ptr<const BeliefSource> make_belief_source(const std::string& name, const BeliefInputs& inputs,
                                                       const std::string& where) {
  for (const auto& i : belief_source_registry()) {
    if (i.name != name) continue;
    auto source = i.make(inputs);
    if (!source) {
      throw InputError(where + ": belief source '" + name + "' needs the job's " + i.needs +
                       "; it is built by the experiment runner, not by name");
    }
    return source;
  }
  throw InputError(where + ": unknown belief source '" + name + "' (valid: " + join_names(belief_source_names()) + ")");
}

std::shared_ptr<const BeliefSource> make_belief_source(const std::string& name, const std::string& where) {
  return make_belief_source(name, BeliefInputs{}, where);
}

}  // namespace ringsched
