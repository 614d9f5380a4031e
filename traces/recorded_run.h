// traces/recorded_run.h — what a row of a trace that records run times means (generic, philly_log, acme): every job
// belongs to workload.trace.class and does the work it did in the trace on the GPUs it had, so under an ideal
// schedule it ends as it ended in the trace. Shared by those formats (one definition of the work and offered load).
#pragma once

#include <string>

#include "traces/trace_format.h"

namespace ringsched {

class RecordedRunFormat : public TraceFormat {
 public:
  [[nodiscard]] bool reads_seconds() const override { return true; }
  // workload.trace.class (already in spec.class_name when set).
  [[nodiscard]] int row_class(const TraceJob& row, const Catalog& catalog, int default_class,
                              const std::string& at) const override;
  // The work the job did in the trace (row.duration_s, at least 1 s) at the size it asked for (also when it runs
  // clamped): duration x the class's throughput on `asked` GPUs packed on nodes of `gpus_per_node`.
  void fill_job(const TraceJob& row, const JobClass& cls, int asked, int gpus_per_node, double z_work,
                JobTruth& job) const override;
  // Duration (at least 1 s) x GPUs as recorded.
  [[nodiscard]] double offered_gpu_seconds(const TraceJob& row, const JobClass& cls, int asked,
                                           int gpus_per_node) const override;

 protected:
  // Reads workload.trace.class into spec.class_name, failing at its JSON path for a class not in the catalog.
  static void read_class_key(const JsonReader& options, const Catalog& catalog, TraceWorkloadSpec& spec);
};

}  // namespace ringsched
