// traces/recorded_run.cpp — the work and offered load of a job that replays its recorded run time (generic,
// philly_log and acme traces).
#include "traces/recorded_run.h"

#include <algorithm>

namespace ringsched {

int RecordedRunFormat::row_class(const TraceJob& /*row*/, const Catalog& /*catalog*/, int default_class,
                                 const std::string& /*at*/) const {
  return default_class;
}

void RecordedRunFormat::fill_job(const TraceJob& row, const JobClass& c, int asked, int gpus_per_node,
                                 double /*z_work*/, JobTruth& job) const {
  const int gpn = std::max(1, gpus_per_node);
  job.work_samples = std::max(1.0, row.duration_s) * class_throughput(c, asked, packed_nodes(asked, gpn));
}

double RecordedRunFormat::offered_gpu_seconds(const TraceJob& row, const JobClass& /*cls*/, int asked,
                                              int /*gpus_per_node*/) const {
  return std::max(1.0, row.duration_s) * asked;
}

void RecordedRunFormat::read_class_key(const JsonReader& tr, const Catalog& cat, TraceWorkloadSpec& spec) {
  spec.class_name = tr.string_or("class", "");
  if (!spec.class_name.empty() && cat.find(spec.class_name) < 0) {
    tr.at("class").fail("class '" + spec.class_name + "' is not in catalog " + cat.name +
                        " (classes: " + join_names(cat.class_names()) + ")");
  }
}

}  // namespace ringsched
