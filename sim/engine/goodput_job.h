// sim/engine/goodput_job.h — the runtime truth of one job under the goodput model (workloads/goodput_app.h): its
// epoch, batch configuration and placement, its progress rate, and its AdaptDL agent (what the job measures of
// itself and the step-time model it fits; with batch adaptation on, the agent picks the goodput-maximising batch for
// each allocation, as the artifact's simulator does in Job.update_local_bsz). The engine asks it for rates and epoch
// boundaries; beliefs learn what the agent reports (GoodputReport), never this object.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "models/goodput.h"
#include "workloads/goodput_app.h"

namespace ringsched {

using GoodputReport = models::GoodputReport;

class GoodputJob {
 public:
  // target_batch > 0: keep that global batch; adaptive: choose it from the agent's model (target_batch ignored).
  GoodputJob(std::shared_ptr<const GoodputApp> app, double target_batch, bool adaptive);

  // The job moves to GPUs of another type (a pool of cluster.pools): from now on its step times are `app`'s, the same
  // application's tables on that type. It keeps its epoch and progress, which are the application's, not the GPU's:
  // both tables read the same validation runs (checked: GoodputApp::same_progress, else std::logic_error). Its agent
  // keeps one profile and fit per type (a step time measured on one type says nothing of another), so on a type it
  // has not run on it starts unfitted, as a new job does. Call reallocate after it. No-op when `app` is the current.
  void use_app(std::shared_ptr<const GoodputApp> app);
  // The job got a new placement (GPUs per node, in allocation order; empty = none): choose its batch configuration.
  void reallocate(const std::vector<int>& placement);
  // The job runs its configuration from now on: the agent records the configuration's step time (once per
  // configuration) and the current gradient statistics. Its model is refitted when next needed (report(), or an
  // adaptive batch choice): a fit depends only on the recorded profile, so fitting late gives the same model.
  void observe();
  // Re-chooses an adaptive job's batch with the agent's latest model (the artifact does it after every interval and
  // epoch); returns true when the configuration changed.
  bool retune();
  // The job finished its current epoch: moves to the next, re-choosing an adaptive batch.
  void next_epoch();

  [[nodiscard]] double rate() const;  // samples-equivalent per second (progress units x init batch)
  // Samples-equivalent at the end of the current epoch, and in total.
  [[nodiscard]] double epoch_end() const;
  [[nodiscard]] double total() const;
  [[nodiscard]] int epoch() const { return epoch_; }
  [[nodiscard]] const models::BatchConfig& config() const { return cfg_; }
  [[nodiscard]] const std::vector<int>& placement() const { return placement_; }
  [[nodiscard]] const GoodputApp& app() const { return *app_; }
  // What the agent reports, its model fitted to the profile so far.
  [[nodiscard]] const GoodputReport& report();

 private:
  // The agent's state on a type the job is not on now.
  struct ParkedAgent {
    std::shared_ptr<const GoodputApp> app;
    std::vector<models::ProfilePoint> profile;
    models::PerfParams perf;
    bool fitted = false;
    int max_profiled_replicas = 0;
  };
  void choose_config();
  void ensure_fit();
  void report_types();

  std::shared_ptr<const GoodputApp> app_;
  double target_batch_;
  bool adaptive_;
  int epoch_ = 0;
  std::vector<int> placement_;
  models::BatchConfig cfg_;
  std::vector<models::ProfilePoint> profile_;
  GoodputReport report_;
  bool stale_fit_ = false;           // the profile grew since the last fit
  std::vector<ParkedAgent> parked_;  // the agent on the other GPU types it held (use_app), fitted
};

}  // namespace ringsched
