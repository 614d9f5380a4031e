// workloads/job_class.cpp — batch size and throughput of a job class.
#include "workloads/job_class.h"

#include <cmath>
#include <stdexcept>

namespace ringsched {

std::vector<ClassFacts> class_facts(const std::vector<JobClass>& classes) {
  return {classes.begin(), classes.end()};
}

std::string to_string(BatchMode mode) {
  return mode == BatchMode::kFixedGlobal ? "fixed_global" : "fixed_per_worker";
}

double global_batch(const JobClass& c, int w) {
  return c.batch_mode == BatchMode::kFixedGlobal ? c.batch_size : c.batch_size * static_cast<double>(w);
}

double model_throughput(const JobClass& c, const models::StepTimeModel& speed, int w, int nodes, double speed_factor) {
  if (w <= 0) return 0.0;
  const double m = global_batch(c, w);
  double rate = m / speed.step_seconds(w, nodes, m) * speed_factor;
  if (c.large_batch_penalty > 0.0 && c.batch_mode == BatchMode::kFixedPerWorker && w > 1) {
    rate /= 1.0 + c.large_batch_penalty * std::log2(static_cast<double>(w));
  }
  return rate;
}

double class_throughput(const JobClass& c, int w, int nodes, double speed_factor) {
  return model_throughput(c, *c.speed, w, nodes, speed_factor);
}

const models::StepTimeModel* speed_on(const JobClass& c, const std::string& gpu_type) {
  if (gpu_type.empty()) return c.speed.get();
  for (const auto& [type, model] : c.speed_by_type)
    if (type == gpu_type) return model.get();
  return nullptr;
}

std::shared_ptr<const GoodputApp> goodput_on(const JobClass& c, const std::string& gpu_type) {
  if (gpu_type.empty()) return c.goodput;
  for (const auto& [type, app] : c.goodput_by_type)
    if (type == gpu_type) return app;
  return nullptr;
}

double class_throughput_on(const JobClass& c, const std::string& gpu_type, int w, int nodes, double speed_factor) {
  const models::StepTimeModel* speed = speed_on(c, gpu_type);
  if (speed == nullptr) throw std::logic_error("class " + c.name + " has no speed on GPU type " + gpu_type);
  return model_throughput(c, *speed, w, nodes, speed_factor);
}

int packed_nodes(int w, int gpus_per_node) {
  if (w <= 0) return 0;
  return (w + gpus_per_node - 1) / gpus_per_node;
}

}  // namespace ringsched
