// workloads/pollux.cpp — the catalogs built from the Pollux artifact's tables (measured-table truth, goodput model).
#include "workloads/pollux.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <limits>
#include <map>
#include <set>
#include <stdexcept>

#include "workloads/data_catalogs.h"
#include "workloads/goodput_app.h"
#include "workloads/pollux_data.h"

namespace ringsched {
namespace fs = std::filesystem;

PolluxClassChoice pollux_class_choice(const PolluxApp& app) {
  std::map<std::pair<int, int>, std::set<double>> groups;
  for (const auto& r : app.steps)
    groups[{r.w, r.nodes}].insert(r.local_batch);
  std::set<double> common = groups.begin()->second;
  for (const auto& [k, s] : groups) {
    std::set<double> keep;
    for (double b : common)
      if (s.count(b) != 0) keep.insert(b);
    common = keep;
  }
  if (common.empty()) throw InputError(app.dir + ": no per-GPU batch is measured at every placement");
  PolluxClassChoice c;
  c.local_batch = static_cast<int>(*common.rbegin());
  double best = std::numeric_limits<double>::infinity();
  for (const auto& r : app.runs) {
    const double d = std::abs(std::log(static_cast<double>(r.batch) / (8.0 * c.local_batch)));
    if (d < best - 1e-12) {
      best = d;
      c.validation_batch = r.batch;
    }
  }
  return c;
}

JobClass pollux_job_class(const PolluxApp& app, double work_sigma) {
  const PolluxClassChoice choice = pollux_class_choice(app);
  JobClass c;
  c.name = app.name;
  c.description = "Pollux artifact " + app.name + ": measured step-time table, per-GPU batch " +
                  std::to_string(choice.local_batch) + ", work from validation-" +
                  std::to_string(choice.validation_batch) + ".csv";
  c.speed = app.table;
  c.batch_mode = BatchMode::kFixedPerWorker;
  c.batch_size = choice.local_batch;
  c.model_size_mparams = pollux_model_size(app.name);
  c.work_samples = pollux_work_samples(app, choice.validation_batch);
  {
    auto losses = pollux_loss_points(app, choice.validation_batch);
    c.loss_interval_samples = losses.back().k / static_cast<double>(losses.size());
    try {
      c.convergence = std::make_shared<const LossCurve>(std::move(losses));
    } catch (const std::invalid_argument& e) {
      throw InputError(app.dir + "/validation-" + std::to_string(choice.validation_batch) + ".csv: " + e.what());
    }
    c.target_loss = pollux_target_loss(app);
  }
  c.work_sigma = work_sigma;
  c.weight = 1.0;
  c.min_gpus = 1;
  c.max_gpus = 64;
  return c;
}

Catalog pollux_catalog(const std::string& dir, double work_sigma) {
  Catalog cat;
  cat.name = "pollux";
  cat.description = "The six Pollux (OSDI'21) artifact applications with measured step-time tables";
  cat.origin = dir;
  for (const auto& n : pollux_app_names())
    cat.classes.push_back(pollux_job_class(*pollux_app(dir, n), work_sigma));
  return cat;
}

Catalog pollux_goodput_catalog(const std::string& dir) {
  struct Setting {
    const char* name;
    int max_epochs;
    double max_local_bsz;
    bool adaptive;
  };
  const Setting settings[] = {{"cifar10", 100, 0.0, true}, {"imagenet", 90, 0.0, true}, {"bert", 2, 0.0, true},
                              {"ncf", 10, 0.0, false},     {"yolov3", 50, 8.0, true},   {"deepspeech2", 80, 0.0, true}};
  Catalog cat;
  cat.name = "pollux-goodput";
  cat.description = "The six Pollux (OSDI'21) artifact applications with the goodput job model (docs/fidelity.md)";
  cat.origin = dir;
  for (const Setting& s : settings) {
    GoodputLimits limits;
    limits.max_epochs = s.max_epochs;
    limits.max_local_bsz = s.max_local_bsz;
    auto app = GoodputApp::load(s.name, (fs::path(dir) / "traces" / s.name).string(), limits);
    JobClass c = goodput_job_class(s.name, app, 0.0, 64, s.adaptive);
    c.model_size_mparams = pollux_model_size(s.name);
    cat.classes.push_back(std::move(c));
  }
  return cat;
}

// The two catalogs built from a Pollux data folder (workloads/data_catalogs.h).
const DataCatalogRegistrar pollux_data_catalog{
    {"pollux", "pollux_dir", default_pollux_dir, [](const std::string& d) { return pollux_catalog(d, 0.0); }}, 10};
const DataCatalogRegistrar pollux_goodput_data_catalog{
    {"pollux-goodput", "pollux_dir", default_pollux_dir, pollux_goodput_catalog}, 20};

}  // namespace ringsched
