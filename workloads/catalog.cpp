// workloads/catalog.cpp — catalog parsing and validation.
#include "workloads/catalog.h"

#include <algorithm>
#include <filesystem>

#include "models/table_speed.h"
#include "workloads/builtin_catalogs.h"
#include "workloads/goodput_app.h"
#include "workloads/io/json_reader.h"
#include "workloads/speed_registry.h"
#include "workloads/table_sources.h"

namespace ringsched {

int Catalog::find(const std::string& class_name) const {
  for (std::size_t i = 0; i < classes.size(); ++i) {
    if (classes[i].name == class_name) return static_cast<int>(i);
  }
  return -1;
}

std::vector<std::string> Catalog::class_names() const {
  std::vector<std::string> out;
  for (const auto& c : classes)
    out.push_back(c.name);
  return out;
}

namespace {

// A measured table must cover the class's GPU range: a lookup outside it is a clamp (the edge value), fine for a
// stray placement but not for every allocation above the largest measured count.
void check_table_covers(const JsonReader& r, const JobClass& c) {
  const auto* table = dynamic_cast<const models::TableStepTime*>(c.speed.get());
  if (table == nullptr) return;
  int lo = 1 << 30;
  int hi = 0;
  for (const auto& p : table->points()) {
    lo = std::min(lo, p.w);
    hi = std::max(hi, p.w);
  }
  if (lo > c.min_gpus || hi < c.max_gpus) {
    r.at("gpus").fail("the measured table of class '" + c.name + "' covers " + std::to_string(lo) + ".." +
                      std::to_string(hi) + " GPUs but gpus is " + std::to_string(c.min_gpus) + ".." +
                      std::to_string(c.max_gpus) + ": measure the missing GPU counts or narrow gpus.min / gpus.max");
  }
}

// goodput.by_type: the application on each GPU type of its folder; the reference (goodput.reference_type, default
// the first type by name) is the class's `goodput`.
GoodputAppsByType load_goodput_types(const JsonReader& g, const std::string& name, const std::string& folder,
                                     const GoodputLimits& limits, std::shared_ptr<const GoodputApp>& reference) {
  const auto layout_at = g.at("by_type");
  const std::string layout = layout_at.as_string();
  if (layout != "files" && layout != "column") {
    layout_at.fail("unknown layout '" + layout +
                   "' (valid: files, Sia's placements-<type>.csv per type; column, one placements.csv with a "
                   "gpu_type column)");
  }
  GoodputAppsByType apps;
  try {
    apps = GoodputApp::load_by_type(name, folder, limits,
                                    layout == "files" ? GoodputTypeLayout::kFiles : GoodputTypeLayout::kColumn);
  } catch (const InputError& e) {
    g.at("tables").fail(e.what());
  }
  const std::string ref = g.has("reference_type") ? g.at("reference_type").as_string() : apps.front().first;
  std::vector<std::string> types;
  for (const auto& [type, app] : apps) {
    types.push_back(type);
    if (type == ref) reference = app;
  }
  if (reference == nullptr) {
    g.at("reference_type").fail("no GPU type '" + ref + "' in the tables (types: " + join_names(types) + ")");
  }
  return apps;
}

// A class whose truth is the goodput model of a measured application (workloads/goodput_app.h).
JobClass parse_goodput_class(const JsonReader& r, const std::string& base_dir) {
  r.expect_object({"name", "description", "weight", "batch", "model_size_mparams", "gpus", "goodput", "derivation"});
  const auto g = r.at("goodput");
  g.expect_object({"tables", "max_epochs", "init_batch_size", "max_batch_size", "min_local_bsz", "max_local_bsz",
                   "adaptive_batch", "by_type", "reference_type", "slowdown", "restart_s", "interpolation"});
  if (g.has("reference_type") && !g.has("by_type")) g.at("reference_type").fail("needs goodput.by_type");
  GoodputLimits limits;
  limits.max_epochs = static_cast<int>(g.at("max_epochs").as_integer_in(1, 100000));
  limits.init_batch_size = g.positive_or("init_batch_size", 0.0);
  limits.max_batch_size = g.positive_or("max_batch_size", 0.0);
  limits.min_local_bsz = g.positive_or("min_local_bsz", 0.0);
  limits.max_local_bsz = g.positive_or("max_local_bsz", 0.0);
  const std::string interpolation = g.string_or("interpolation", "at_load");
  if (interpolation != "at_load" && interpolation != "when_needed") {
    g.at("interpolation").fail("must be \"at_load\" or \"when_needed\", not \"" + interpolation + "\"");
  }
  limits.interpolate_when_needed = interpolation == "when_needed";
  const std::string name = r.at("name").as_string();
  if (name.empty()) r.at("name").fail("must not be empty");
  std::shared_ptr<const GoodputApp> app;
  GoodputAppsByType by_type;
  const std::string folder = resolve_input_path(g.at("tables").as_string(), base_dir);
  if (g.has("by_type")) {
    by_type = load_goodput_types(g, name, folder, limits, app);
  } else {
    try {
      app = GoodputApp::load(name, folder, limits);
    } catch (const InputError& e) {
      g.at("tables").fail(e.what());
    }
  }
  double batch = 0.0;
  if (auto b = r.maybe("batch")) {
    b->expect_object({"size"});
    batch = b->at("size").as_positive();
    if (batch < app->init_batch_size() || batch > app->max_batch_size()) {
      b->at("size").fail("must be within the validated batch sizes " + std::to_string(app->init_batch_size()) + ".." +
                         std::to_string(app->max_batch_size()));
    }
  }
  const auto gpus = r.at("gpus");
  gpus.expect_object({"min", "max"});
  JobClass c = goodput_job_class(name, app, batch, static_cast<int>(gpus.at("max").as_integer_in(1, 1 << 20)),
                                 g.bool_or("adaptive_batch", true));
  c.min_gpus = static_cast<int>(gpus.integer_in_or("min", 1, 1 << 20, 1));
  if (c.min_gpus > c.max_gpus) gpus.at("min").fail("must be <= gpus.max (" + std::to_string(c.max_gpus) + ")");
  if (by_type.empty()) by_type.emplace_back("", app);
  for (const auto& [type, a] : by_type) {
    if (c.max_gpus > a->max_measured_gpus()) {
      gpus.at("max").fail("the measured tables of class '" + name + "'" +
                          (type.empty() ? "" : " on GPU type '" + type + "'") + " go up to " +
                          std::to_string(a->max_measured_gpus()) + " GPUs but gpus.max is " +
                          std::to_string(c.max_gpus) + ": measure more GPUs (scalability.csv) or lower gpus.max");
    }
    if (type.empty()) continue;
    c.goodput_by_type.emplace_back(type, a);
    c.speed_by_type.emplace_back(type, std::make_shared<GoodputStepTime>(a));
  }
  c.description = r.string_or("description", c.description);
  c.weight = r.positive_or("weight", 1.0);
  c.model_size_mparams = r.positive_or("model_size_mparams", 1.0);
  c.goodput_slowdown = g.positive_or("slowdown", 1.0);
  if (g.has("restart_s")) c.restart_cost_s = g.at("restart_s").as_number_in(0.0, 86400.0);
  return c;
}

constexpr double kMaxBatch = 1e9;         // samples per batch
constexpr double kMaxWorkSamples = 1e18;  // samples to convergence

JobClass parse_class(const JsonReader& r, const std::string& base_dir) {
  if (r.is_object() && r.has("goodput")) return parse_goodput_class(r, base_dir);
  r.expect_object({"name", "description", "weight", "batch", "model_size_mparams", "work", "gpus", "speed",
                   "speed_by_type", "derivation", "convergence", "goodput"});
  JobClass c;
  c.name = r.at("name").as_string();
  if (c.name.empty()) r.at("name").fail("must not be empty");
  c.description = r.string_or("description", "");
  if (auto d = r.maybe("derivation")) {
    if (!d->is_string() && !d->is_array()) d->fail("must be a string or an array of strings");
  }
  c.weight = r.positive_or("weight", 1.0);

  const auto batch = r.at("batch");
  batch.expect_object({"mode", "size", "large_batch_penalty"});
  const auto mode = batch.at("mode");
  const std::string mode_name = mode.as_string();
  if (mode_name == "fixed_global") {
    c.batch_mode = BatchMode::kFixedGlobal;
  } else if (mode_name == "fixed_per_worker") {
    c.batch_mode = BatchMode::kFixedPerWorker;
  } else {
    mode.fail("unknown batch mode '" + mode_name + "' (valid: fixed_global, fixed_per_worker)");
  }
  c.batch_size = batch.at("size").as_positive();
  if (c.batch_size > kMaxBatch) batch.at("size").fail("must be <= 1e9 samples (a larger batch is absurd)");
  c.large_batch_penalty = batch.non_negative_or("large_batch_penalty", 0.0);

  c.model_size_mparams = r.at("model_size_mparams").as_positive();
  if (c.model_size_mparams > 1e7) r.at("model_size_mparams").fail("must be <= 1e7 (ten trillion parameters)");

  const auto work = r.at("work");
  work.expect_object({"samples", "epochs", "dataset_samples", "sigma"});
  if (work.has("samples")) {
    if (work.has("epochs") || work.has("dataset_samples")) work.fail("give either samples or epochs + dataset_samples");
    c.work_samples = work.at("samples").as_positive();
  } else {
    c.work_samples = work.at("epochs").as_positive() * work.at("dataset_samples").as_positive();
  }
  if (!(c.work_samples <= kMaxWorkSamples)) {
    work.fail("the work is " + std::to_string(c.work_samples) +
              " samples; at most 1e18 (a job longer than any "
              "simulated horizon)");
  }
  c.work_sigma = work.non_negative_or("sigma", 0.0);
  if (c.work_sigma > 3.0) work.at("sigma").fail("must be <= 3 (a lognormal sigma above 3 is absurd)");

  const auto gpus = r.at("gpus");
  gpus.expect_object({"min", "max"});
  c.min_gpus = static_cast<int>(gpus.integer_in_or("min", 1, 1 << 20, 1));
  c.max_gpus = static_cast<int>(gpus.at("max").as_integer_in(1, 1 << 20));
  if (c.min_gpus > c.max_gpus) gpus.at("min").fail("must be <= gpus.max (" + std::to_string(c.max_gpus) + ")");

  c.speed = make_speed_model(r.at("speed"), c, base_dir);
  check_table_covers(r, c);
  // Speeds per GPU type (cluster.pools): an object of type name -> speed object, each read as `speed` is.
  if (auto by_type = r.maybe("speed_by_type")) {
    if (!by_type->is_object()) by_type->fail("must be an object of GPU type -> speed (e.g. {\"v100\": {...}})");
    if (by_type->value().empty()) by_type->fail("empty: give at least one GPU type");
    for (const auto& [type, unused] : by_type->value().items()) {
      (void)unused;
      if (type.empty()) by_type->fail("a GPU type name is empty");
      c.speed_by_type.emplace_back(type, make_speed_model(by_type->at(type), c, base_dir));
    }
  }

  // Optional loss curve for the `online` belief source: measured [samples, loss] points; the target loss is the
  // curve's loss at work.samples (so a job converges exactly when its work is done).
  if (auto conv = r.maybe("convergence")) {
    conv->expect_object({"points", "interval_samples"});
    std::vector<models::LossPoint> pts;
    for (const auto& e : conv->at("points").non_empty_elements()) {
      const auto pair = e.elements();
      if (pair.size() != 2) e.fail("must be [samples, loss]");
      pts.push_back(models::LossPoint{pair[0].as_non_negative(), pair[1].as_positive()});
    }
    try {
      c.convergence = std::make_shared<const LossCurve>(std::move(pts));
    } catch (const std::invalid_argument& e) {
      conv->at("points").fail(std::string(e.what()).substr(std::string("loss curve: ").size()));
    }
    c.loss_interval_samples = conv->at("interval_samples").as_positive();
    if (c.loss_interval_samples > c.work_samples) {
      conv->at("interval_samples")
          .fail("must be <= work.samples (" + std::to_string(c.work_samples) +
                "): a job would report no loss before it converges");
    }
    c.target_loss = c.convergence->loss(c.work_samples);
  }
  return c;
}

}  // namespace

Catalog parse_catalog(const nlohmann::json& doc, const std::string& origin, const std::string& base_path,
                      const std::string& base_dir) {
  JsonReader r(doc, origin, base_path);
  r.expect_object({"name", "description", "classes", "derivation", "source", "allow_parent_paths"});
  const ParentPathsAllowed parent_paths(r.bool_or("allow_parent_paths", false));
  Catalog cat;
  cat.origin = origin;
  cat.name = r.at("name").as_string();
  cat.description = r.string_or("description", "");
  for (const auto& cr : r.at("classes").non_empty_elements()) {
    JobClass c = parse_class(cr, base_dir);
    if (cat.find(c.name) >= 0) cr.at("name").fail("duplicate class name '" + c.name + "'");
    cat.classes.push_back(std::move(c));
  }
  return cat;
}

Catalog load_catalog(const std::string& name_or_path, const std::string& base_dir) {
  const std::string text = builtin_catalog_text(name_or_path);
  if (!text.empty()) return parse_catalog(parse_json_text(text, "builtin:" + name_or_path), "builtin:" + name_or_path);
  const std::filesystem::path p(resolve_input_path(name_or_path, base_dir));
  if (!std::filesystem::exists(p)) {
    throw InputError(name_or_path + ": no such catalog file and not a built-in catalog (built-in: " +
                     join_names(builtin_catalog_names()) + ")");
  }
  return parse_catalog(read_json_file(p.string()), p.string(), "", p.parent_path().string());
}

std::vector<std::string> builtin_catalog_names() {
  return embedded_catalog_names();
}

std::string builtin_catalog_text(const std::string& name) {
  return embedded_catalog_text(name);
}

void check_catalog_fits_cluster(const Catalog& catalog, int cluster_gpus, const std::string& where) {
  for (const auto& c : catalog.classes) {
    if (c.min_gpus > cluster_gpus) {
      throw InputError(where + ": class '" + c.name + "': gpus.min = " + std::to_string(c.min_gpus) +
                       " exceeds the cluster's " + std::to_string(cluster_gpus) + " GPUs");
    }
  }
}

}  // namespace ringsched
