// workloads/goodput_app.cpp — reading an application's tables and validation runs, and the goodput model on them.
#include "workloads/goodput_app.h"

#include <algorithm>
#include <array>
#include <atomic>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <limits>
#include <mutex>
#include <stdexcept>
#include <tuple>
#include <unordered_map>

#include "models/table_speed.h"
#include "workloads/io/csv.h"
#include "workloads/io/json_reader.h"
#include "workloads/pollux_data.h"

namespace ringsched {
namespace fs = std::filesystem;

std::vector<int> normalise_placement(const std::vector<int>& placement) {
  std::vector<int> p;
  for (int g : placement)
    if (g > 0) p.push_back(g);
  std::vector<int> best = p;
  for (std::size_t i = 1; i < p.size(); ++i) {
    std::vector<int> rot(p.begin() + static_cast<std::ptrdiff_t>(i), p.end());
    rot.insert(rot.end(), p.begin(), p.begin() + static_cast<std::ptrdiff_t>(i));
    if (rot < best) best = rot;
  }
  return best;
}

namespace {

struct ValidationRun {
  double batch = 0.0;
  std::vector<double> progress;
  std::vector<double> iteration;
  std::vector<double> grad_sqr;
  std::vector<double> grad_var;
};

ValidationRun read_validation(const std::string& path, double batch) {
  const CsvTable t = read_csv_file(path);
  if (t.rows.empty()) throw InputError(path + ":2: empty table (no epochs)");
  const int c_prog = t.require_column("progress");
  const int c_iter = t.require_column("iteration");
  const int c_sqr = t.require_column("grad_sqr");
  const int c_var = t.require_column("grad_var");
  ValidationRun run;
  run.batch = batch;
  for (const CsvRow& row : t.rows) {
    run.progress.push_back(t.non_negative(row, c_prog));
    run.iteration.push_back(t.positive(row, c_iter));
    run.grad_sqr.push_back(t.non_negative(row, c_sqr));
    run.grad_var.push_back(t.non_negative(row, c_var));
    if (run.progress.size() > 1 && run.progress.back() < run.progress[run.progress.size() - 2]) {
      t.fail(row, "column 'progress': must not decrease from epoch to epoch");
    }
  }
  return run;
}

std::vector<ValidationRun> read_validation_runs(const std::string& folder) {
  const auto files = validation_files(folder);
  if (files.empty()) throw InputError(folder + ": no validation-<B>.csv files (the goodput model needs them)");
  std::vector<ValidationRun> runs;
  for (const auto& [b, path] : files)
    runs.push_back(read_validation(path, static_cast<double>(b)));
  return runs;
}

double lerp(double x, double x0, double x1, double y0, double y1) {
  // The artifact's form: ((x - x0) y1 + (x1 - x) y0) / (x1 - x0).
  return ((x - x0) * y1 + (x1 - x) * y0) / (x1 - x0);
}

}  // namespace

// What identifies a loaded application: its name, limits, folder and the folder's files as they are now.
std::string goodput_load_key(const std::string& name, const std::string& folder, const GoodputLimits& limits) {
  std::string key = name + '\n' + folder + '\n' + std::to_string(limits.max_epochs) + ',' +
                    std::to_string(limits.init_batch_size) + ',' + std::to_string(limits.max_batch_size) + ',' +
                    std::to_string(limits.min_local_bsz) + ',' + std::to_string(limits.max_local_bsz) +
                    (limits.interpolate_when_needed ? ",when_needed" : "");
  std::error_code ec;
  std::vector<std::string> files;
  for (const auto& entry : fs::directory_iterator(folder, ec)) {
    const auto size = entry.file_size(ec);
    const auto mtime = entry.last_write_time(ec).time_since_epoch().count();
    files.push_back(entry.path().filename().string() + ':' + std::to_string(size) + ':' + std::to_string(mtime));
  }
  std::sort(files.begin(), files.end());
  for (const auto& f : files)
    key += '\n' + f;
  return key;
}

namespace {

std::mutex& load_mutex() {
  static std::mutex m;
  return m;
}

std::map<std::string, std::shared_ptr<const GoodputApp>>& loaded_apps() {
  static std::map<std::string, std::shared_ptr<const GoodputApp>> apps;
  return apps;
}

// A thread's memo of step-time answers, per application (by uid): the Delaunay point location is the costly part
// of a goodput run and schedulers ask the same (placement, per-GPU batch) again and again.
struct StepMemoKey {
  std::uint64_t app;
  double bsz;
  std::vector<int> placement;
  bool operator==(const StepMemoKey& o) const { return app == o.app && bsz == o.bsz && placement == o.placement; }
};
struct StepMemoHash {
  std::size_t operator()(const StepMemoKey& k) const {
    std::size_t h = std::hash<std::uint64_t>()(k.app) ^ (std::hash<double>()(k.bsz) * 0x9e3779b97f4a7c15ULL);
    for (int g : k.placement)
      h = h * 1099511628211ULL ^ static_cast<std::size_t>(g);
    return h;
  }
};
struct StepMemoValue {
  models::StepSync value;
  bool clamped;
};
constexpr std::size_t kStepMemoMax = 1 << 16;  // entries per thread before the memo starts over

}  // namespace

std::shared_ptr<const GoodputApp> GoodputApp::load(const std::string& name, const std::string& folder,
                                                   const GoodputLimits& limits) {
  if (!fs::is_directory(folder)) throw InputError(folder + ": no such directory (an application's tables)");
  const std::string key = goodput_load_key(name, folder, limits);
  {
    const std::lock_guard<std::mutex> lock(load_mutex());
    const auto it = loaded_apps().find(key);
    if (it != loaded_apps().end()) return it->second;
  }
  auto app = read(name, folder, limits);
  const std::lock_guard<std::mutex> lock(load_mutex());
  return loaded_apps().emplace(key, std::move(app)).first->second;
}

std::shared_ptr<const GoodputApp> GoodputApp::read(const std::string& name, const std::string& folder,
                                                   const GoodputLimits& limits) {
  return from_rows(name, folder, folder + "/placements.csv", read_pollux_step_tables(folder), limits, "");
}

std::shared_ptr<const GoodputApp> GoodputApp::from_rows(const std::string& name, const std::string& folder,
                                                        const std::string& tables,
                                                        const std::vector<PolluxStepRow>& rows,
                                                        const GoodputLimits& limits, const std::string& gpu_type) {
  static std::atomic<std::uint64_t> next_uid{1};
  auto app = std::shared_ptr<GoodputApp>(new GoodputApp());
  app->uid_ = next_uid++;
  app->name_ = name;
  app->folder_ = folder;
  app->gpu_type_ = gpu_type;
  // Exact placements keep their own rows; the spread interpolation uses the means per (nodes, GPUs, batch) of the
  // placements, sorted by that key, then the scalability rows in file order (as the artifact's pandas code does).
  std::map<std::tuple<int, int, double>, std::pair<std::array<double, 2>, int>> means;
  std::vector<const PolluxStepRow*> scal;
  double min_local = std::numeric_limits<double>::infinity();
  double max_local = 0.0;
  for (const auto& r : rows) {
    if (r.placement.empty()) {
      scal.push_back(&r);
      continue;
    }
    std::vector<int> key;
    for (char ch : r.placement)
      key.push_back(ch - '0');
    app->placements_[key].push_back({r.local_batch, r.step_seconds, r.sync_seconds});
    auto& m = means[{r.nodes, r.w, r.local_batch}];
    m.first[0] += r.step_seconds;
    m.first[1] += r.sync_seconds;
    ++m.second;
    min_local = std::min(min_local, r.local_batch);
    max_local = std::max(max_local, r.local_batch);
  }
  if (app->placements_.empty()) throw InputError(tables + ": no rows (the goodput model needs them)");
  for (auto& [key, rs] : app->placements_) {
    std::sort(rs.begin(), rs.end(), [](const Row& a, const Row& b) { return a.local_bsz < b.local_bsz; });
    for (std::size_t i = 1; i < rs.size(); ++i) {
      if (rs[i].local_bsz == rs[i - 1].local_bsz) {
        throw InputError(tables + ": placement measured twice at local_bsz " + std::to_string(rs[i].local_bsz));
      }
    }
  }
  const auto n = static_cast<Eigen::Index>(means.size() + scal.size());
  Eigen::MatrixXd pts(n, 3);
  Eigen::MatrixXd vals(n, 2);
  Eigen::Index i = 0;
  for (const auto& [key, m] : means) {
    pts.row(i) << std::get<0>(key), std::get<1>(key), std::get<2>(key);
    vals.row(i) << m.first[0] / m.second, m.first[1] / m.second;
    ++i;
  }
  for (const PolluxStepRow* r : scal) {
    pts.row(i) << r->nodes, r->w, r->local_batch;
    vals.row(i) << r->step_seconds, r->sync_seconds;
    ++i;
  }
  app->spread_points_ = pts;
  app->spread_values_ = vals;
  try {
    app->spread_ = std::make_unique<models::DelaunayInterpolator>(pts, vals);
  } catch (const std::invalid_argument& e) {
    if (!limits.interpolate_when_needed) {
      throw InputError(folder + ": the measured points cannot be interpolated (" + e.what() + ")");
    }
  }
  for (ValidationRun& v : read_validation_runs(folder))
    app->runs_.push_back(
        Run{v.batch, std::move(v.progress), std::move(v.iteration), std::move(v.grad_sqr), std::move(v.grad_var)});
  std::size_t shortest = app->runs_.front().progress.size();
  for (const Run& r : app->runs_)
    shortest = std::min(shortest, r.progress.size());
  app->init_batch_ = limits.init_batch_size > 0.0 ? limits.init_batch_size : app->runs_.front().batch;
  app->max_batch_ = limits.max_batch_size > 0.0 ? limits.max_batch_size : app->runs_.back().batch;
  app->min_local_ = limits.min_local_bsz > 0.0 ? limits.min_local_bsz : min_local;
  app->max_local_ = limits.max_local_bsz > 0.0 ? limits.max_local_bsz : max_local;
  app->max_epochs_ = limits.max_epochs > 0 ? limits.max_epochs : static_cast<int>(shortest);
  if (static_cast<std::size_t>(app->max_epochs_) > shortest) {
    throw InputError(folder + ": max_epochs " + std::to_string(app->max_epochs_) +
                     " exceeds the shortest validation run (" + std::to_string(shortest) + " epochs)");
  }
  if (app->max_batch_ < app->min_local_ || app->init_batch_ > app->max_batch_ || app->min_local_ > app->max_local_) {
    throw InputError(folder + ": inconsistent limits (init batch " + std::to_string(app->init_batch_) + ", max batch " +
                     std::to_string(app->max_batch_) + ", local batch " + std::to_string(app->min_local_) + ".." +
                     std::to_string(app->max_local_) + ")");
  }
  return app;
}

bool GoodputApp::same_progress(const GoodputApp& o) const {
  if (init_batch_ != o.init_batch_ || max_epochs_ != o.max_epochs_ || runs_.size() != o.runs_.size()) return false;
  for (std::size_t i = 0; i < runs_.size(); ++i) {
    if (runs_[i].batch != o.runs_[i].batch || runs_[i].progress != o.runs_[i].progress ||
        runs_[i].iteration != o.runs_[i].iteration) {
      return false;
    }
  }
  return true;
}

std::vector<double> GoodputApp::validated_batches() const {
  std::vector<double> out;
  for (const Run& r : runs_)
    out.push_back(r.batch);
  return out;
}

models::StepSync GoodputApp::measured_placement(const std::vector<Row>& rows, double bsz, bool& clamped) const {
  if (bsz <= rows.front().local_bsz || rows.size() == 1) {
    clamped = clamped || bsz != rows.front().local_bsz;
    return {rows.front().step, rows.front().sync};
  }
  if (bsz >= rows.back().local_bsz) {
    clamped = clamped || bsz != rows.back().local_bsz;
    return {rows.back().step, rows.back().sync};
  }
  std::size_t hi = 1;
  while (rows[hi].local_bsz < bsz)
    ++hi;
  const Row& a = rows[hi - 1];
  const Row& b = rows[hi];
  // scipy.interpolate.interp1d: y0 + (x - x0) (y1 - y0) / (x1 - x0).
  const double t = (bsz - a.local_bsz) / (b.local_bsz - a.local_bsz);
  return {a.step + t * (b.step - a.step), a.sync + t * (b.sync - a.sync)};
}

models::StepSync GoodputApp::interpolated(int nodes, int replicas, double bsz, bool& clamped) const {
  Eigen::VectorXd q(3);
  q << std::min(nodes, 16), replicas, bsz;
  if (spread_ != nullptr) {  // null: no triangulation (goodput.interpolation when_needed): the nearest point
    if (auto v = (*spread_)(q)) return {(*v)[0], (*v)[1]};
  }
  // Outside the measured hull (the artifact would get NaN here): clamp the batch into the measured per-GPU range
  // and try again; failing that, the nearest measured point (each coordinate scaled by its measured range, the
  // batch on a log scale). Either way the lookup counts as clamped.
  clamped = true;
  q[2] = std::clamp(bsz, min_local_, max_local_);
  if (spread_ != nullptr) {
    if (auto v = (*spread_)(q)) return {(*v)[0], (*v)[1]};
  }
  const Eigen::MatrixXd& pts = spread_points_;
  const Eigen::VectorXd lo = pts.colwise().minCoeff().transpose();
  const Eigen::VectorXd hi = pts.colwise().maxCoeff().transpose();
  auto span = [&](Eigen::Index k) { return hi[k] > lo[k] ? hi[k] - lo[k] : 1.0; };
  const double log_span = max_local_ > min_local_ ? std::log(max_local_ / min_local_) : 1.0;
  Eigen::Index best = 0;
  double best_d = std::numeric_limits<double>::infinity();
  for (Eigen::Index i = 0; i < pts.rows(); ++i) {
    const double dn = (pts(i, 0) - q[0]) / span(0);
    const double dr = (pts(i, 1) - q[1]) / span(1);
    const double db = std::log(pts(i, 2) / q[2]) / log_span;
    const double d = dn * dn + dr * dr + db * db;
    if (d < best_d) {
      best_d = d;
      best = i;
    }
  }
  return {spread_values_(best, 0), spread_values_(best, 1)};
}

models::StepSync GoodputApp::step_time(const std::vector<int>& placement, double atomic_bsz) const {
  thread_local std::unordered_map<StepMemoKey, StepMemoValue, StepMemoHash> memo;
  StepMemoKey k{uid_, atomic_bsz, normalise_placement(placement)};
  const auto it = memo.find(k);
  if (it != memo.end()) {
    models::count_table_lookup(it->second.clamped);
    return it->second.value;
  }
  bool clamped = false;
  const models::StepSync out = compute_step_time(k.placement, atomic_bsz, clamped);
  models::count_table_lookup(clamped);
  if (memo.size() >= kStepMemoMax) memo.clear();
  memo.emplace(std::move(k), StepMemoValue{out, clamped});
  return out;
}

models::StepSync GoodputApp::compute_step_time(const std::vector<int>& key, double atomic_bsz, bool& clamped) const {
  models::StepSync out;
  const auto it = placements_.find(key);
  if (it != placements_.end()) {
    out = measured_placement(it->second, atomic_bsz, clamped);
  } else {
    int replicas = 0;
    for (int g : key)
      replicas += g;
    out = interpolated(static_cast<int>(key.size()), replicas, atomic_bsz, clamped);
  }
  return out;
}

void GoodputApp::bracket(double batch, std::size_t& lo, std::size_t& hi, bool& clamped) const {
  if (batch <= runs_.front().batch) {
    clamped = batch < runs_.front().batch;
    lo = hi = 0;
    return;
  }
  if (batch >= runs_.back().batch) {
    clamped = batch > runs_.back().batch;
    lo = hi = runs_.size() - 1;
    return;
  }
  hi = 0;
  while (runs_[hi].batch < batch)
    ++hi;
  lo = runs_[hi].batch == batch ? hi : hi - 1;
}

double GoodputApp::run_column(double batch_size, int epoch, std::vector<double> Run::*column) const {
  std::size_t lo = 0;
  std::size_t hi = 0;
  bool clamped = false;
  bracket(batch_size, lo, hi, clamped);
  const auto e = static_cast<std::size_t>(std::clamp(epoch, 0, max_epochs_ - 1));
  const Run& a = runs_[lo];
  const Run& b = runs_[hi];
  if (lo == hi) return (a.*column)[e];
  return lerp(batch_size, a.batch, b.batch, (a.*column)[e], (b.*column)[e]);
}

models::GradStats GoodputApp::grad_stats(double batch_size, int epoch) const {
  return {run_column(batch_size, epoch, &Run::grad_sqr), run_column(batch_size, epoch, &Run::grad_var)};
}

double GoodputApp::progress_at(int epoch) const {
  if (epoch <= 0) return 0.0;
  const auto e = static_cast<std::size_t>(std::min(epoch, max_epochs_) - 1);
  double p = std::numeric_limits<double>::infinity();
  for (const Run& r : runs_)
    p = std::min(p, r.progress[e]);
  return p;
}

double GoodputApp::iteration_at(double batch_size, int epoch) const {
  return run_column(batch_size, epoch, &Run::iteration);
}

models::BatchConfig GoodputApp::fixed_batch(double batch_size, int replicas) const {
  return models::fixed_batch_config(batch_size, replicas, init_batch_, max_batch_, max_local_);
}

double GoodputApp::goodput(const std::vector<int>& placement, const models::BatchConfig& cfg, int epoch) const {
  const double batch = cfg.batch_size();
  const models::StepSync s = step_time(placement, cfg.atomic_bsz);
  const double gain = models::efficiency_gain(grad_stats(batch, epoch), batch, init_batch_);
  return gain / models::accumulated_step(s, cfg.accum_steps);
}

JobClass goodput_job_class(const std::string& name, std::shared_ptr<const GoodputApp> app, double batch_size,
                           int max_gpus, bool adaptive_batch) {
  JobClass c;
  c.name = name;
  c.description = "goodput model of " + app->folder();
  c.batch_mode = BatchMode::kFixedGlobal;
  c.batch_size = batch_size > 0.0 ? batch_size : app->init_batch_size();
  c.work_samples = app->total_progress() * app->init_batch_size();
  c.work_sigma = 0.0;
  c.min_gpus = 1;
  c.max_gpus = max_gpus;
  c.model_size_mparams = 1.0;
  c.speed = std::make_shared<GoodputStepTime>(app);
  c.goodput = std::move(app);
  c.adaptive_batch = adaptive_batch;
  return c;
}

}  // namespace ringsched
