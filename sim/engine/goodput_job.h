// sim/engine/goodput_job.h — the runtime truth of one job under the goodput model (workloads/goodput_app.h): its
// epoch, batch configuration and placement, its progress rate, and its AdaptDL agent (what the job measures of
// itself and the step-time model it fits; with batch adaptation on, the agent picks the goodput-maximising batch for
// each allocation, as the artifact's simulator does in Job.update_local_bsz). The engine asks it for rates and epoch
// boundaries; beliefs learn what the agent reports (GoodputReport), never this object.
#pragma once

#include <memory>
#include <vector>

#include "models/goodput.h"
#include "workloads/goodput_app.h"

namespace ringsched {

using GoodputReport = models::GoodputReport;

class GoodputJob {
 public:
  // target_batch > 0: keep that global batch; adaptive: choose it from the agent's model (target_batch ignored).
  GoodputJob(std::shared_ptr<const GoodputApp> app, double target_batch, bool adaptive);

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
  // What the agent reports, its model fitted to the profile so far.
  [[nodiscard]] const GoodputReport& report();

 private:
  void choose_config();
  void ensure_fit();

  std::shared_ptr<const GoodputApp> app_;
  double target_batch_;
  bool adaptive_;
  int epoch_ = 0;
  std::vector<int> placement_;
  models::BatchConfig cfg_;
  std::vector<models::ProfilePoint> profile_;
  GoodputReport report_;
  bool stale_fit_ = false;  // the profile grew since the last fit
};

}  // namespace ringsched
