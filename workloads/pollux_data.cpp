// workloads/pollux_data.cpp — reading the Pollux artifact tables: steps, validation runs, the work rule.
#include "workloads/pollux_data.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <limits>
#include <map>
#include <mutex>
#include <set>
#include <stdexcept>
#include <system_error>

#include "workloads/io/csv.h"
#include "workloads/io/json_reader.h"

namespace ringsched {
namespace fs = std::filesystem;

std::vector<std::string> pollux_app_names() {
  return {"cifar10", "imagenet", "bert", "ncf", "yolov3", "deepspeech2"};
}

std::string default_pollux_dir() {
  if (const char* env = std::getenv("RINGSCHED_POLLUX_DIR"); env != nullptr && *env != '\0') return env;
  return std::string(RINGSCHED_SOURCE_DIR) + "/workloads/data/pollux";
}

namespace {

void check_name(const std::string& name, const std::string& where) {
  const auto names = pollux_app_names();
  if (std::find(names.begin(), names.end(), name) == names.end()) {
    throw InputError(where + "unknown Pollux application '" + name + "' (known: " + join_names(names) + ")");
  }
}

}  // namespace

void read_pollux_step_file(const std::string& path, bool placements, bool typed, std::vector<PolluxStepRow>& out) {
  const CsvTable t = read_csv_file(path);
  if (t.rows.empty()) throw InputError(path + ":2: empty table (no measured rows)");
  const int c_type = typed ? t.require_column("gpu_type") : t.column("gpu_type");
  if (!typed && c_type >= 0) {
    throw InputError(path +
                     ":1: a 'gpu_type' column: the rows of several GPU types in one table; read it per type "
                     "(a goodput class's goodput.by_type \"column\", docs/config.md), not as one type's table");
  }
  const int c_place = placements ? t.require_column("placement") : -1;
  const int c_nodes = placements ? -1 : t.require_column("num_nodes");
  const int c_reps = placements ? -1 : t.require_column("num_replicas");
  const int c_bsz = t.require_column("local_bsz");
  const int c_step = t.require_column("step_time");
  const int c_sync = t.require_column("sync_time");
  for (const CsvRow& row : t.rows) {
    PolluxStepRow r;
    r.file = path;
    r.line = row.line;
    if (typed) {
      r.gpu_type = t.text(row, c_type);
      if (r.gpu_type.empty()) t.fail(row, "column 'gpu_type': empty (every row names its GPU type)");
    }
    if (placements) {
      r.placement = t.text(row, c_place);
      if (r.placement.empty()) t.fail(row, "column 'placement': empty");
      r.w = 0;
      for (char ch : r.placement) {
        if (ch < '1' || ch > '9') {
          t.fail(row, "column 'placement': expected digits 1-9 (GPUs per node), got '" + r.placement + "'");
        }
        r.w += ch - '0';
      }
      r.nodes = static_cast<int>(r.placement.size());
    } else {
      r.nodes = t.integer_in(row, c_nodes, 1, 100000);
      r.w = t.integer_in(row, c_reps, 1, 1000000);
      if (r.nodes > r.w)
        t.fail(row, "num_nodes " + std::to_string(r.nodes) + " exceeds num_replicas " + std::to_string(r.w));
    }
    r.local_batch = t.positive(row, c_bsz);
    r.step_seconds = t.positive(row, c_step);
    // A step between a nanosecond and a year, as for measured points (workloads/measurement/points_csv.cpp).
    if (r.step_seconds < 1e-9 || r.step_seconds > 3.2e7) {
      t.fail(row, "column 'step_time': must be between 1e-9 and 3.2e7 s, got " + t.text(row, c_step));
    }
    r.sync_seconds = t.non_negative(row, c_sync);
    if (r.sync_seconds > r.step_seconds) {
      t.fail(row, "sync_time " + t.text(row, c_sync) + " exceeds step_time " + t.text(row, c_step));
    }
    out.push_back(r);
  }
}

namespace {

PolluxRun read_run(const std::string& path, int batch) {
  const CsvTable t = read_csv_file(path);
  if (t.rows.empty()) throw InputError(path + ":2: empty table (no epochs)");
  const int c_prog = t.require_column("progress");
  const int c_iter = t.require_column("iteration");
  const int c_metric = t.require_column("metric");
  PolluxRun run;
  run.batch = batch;
  run.file = path;
  double last_iter = 0.0;
  for (const CsvRow& row : t.rows) {
    PolluxEpoch e;
    e.progress = t.non_negative(row, c_prog);
    e.iteration = t.positive(row, c_iter);
    e.metric = t.number(row, c_metric);
    if (e.iteration <= last_iter) {
      t.fail(row, "column 'iteration': must increase from row to row, got " + t.text(row, c_iter) + " after " +
                      std::to_string(static_cast<long long>(last_iter)));
    }
    last_iter = e.iteration;
    run.epochs.push_back(e);
  }
  return run;
}

}  // namespace

std::vector<std::pair<long, std::string>> validation_files(const std::string& folder) {
  std::vector<std::pair<long, std::string>> files;
  std::error_code ec;
  for (fs::directory_iterator it(folder, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string f = it->path().filename().string();
    if (f.rfind("validation-", 0) != 0 || it->path().extension() != ".csv") continue;
    const std::string num = f.substr(11, f.size() - 11 - 4);
    char* stop = nullptr;
    const long b = std::strtol(num.c_str(), &stop, 10);
    if (num.empty() || *stop != '\0' || b <= 0 || b > 100000000) {
      throw InputError(it->path().string() + ": expected validation-<global batch>.csv");
    }
    files.emplace_back(b, it->path().string());
  }
  if (ec) throw InputError(folder + ": cannot list the folder: " + ec.message());
  std::sort(files.begin(), files.end());
  return files;
}

PolluxApp load_pollux_app(const std::string& dir, const std::string& name) {
  check_name(name, "");
  PolluxApp app;
  app.name = name;
  app.dir = (fs::path(dir) / "traces" / name).string();
  if (!fs::is_directory(app.dir)) {
    throw InputError(app.dir + ": no such directory (Pollux data folder: " + dir +
                     "; set RINGSCHED_POLLUX_DIR or --pollux-dir)");
  }
  read_pollux_step_file((fs::path(app.dir) / "placements.csv").string(), true, false, app.steps);
  read_pollux_step_file((fs::path(app.dir) / "scalability.csv").string(), false, false, app.steps);
  const auto files = validation_files(app.dir);
  if (files.empty()) throw InputError(app.dir + ": no validation-<B>.csv files");
  for (const auto& [b, path] : files)
    app.runs.push_back(read_run(path, static_cast<int>(b)));

  std::vector<models::TablePoint> pts;
  pts.reserve(app.steps.size());
  for (const auto& r : app.steps)
    pts.push_back(models::TablePoint{r.w, r.nodes, r.local_batch, r.step_seconds});
  app.table = std::make_shared<const models::TableStepTime>(pts);

  double trend = 0.0;
  for (const auto& run : app.runs)
    trend += run.epochs.back().metric - run.epochs.front().metric;
  app.higher_is_better = trend >= 0.0;
  double target =
      app.higher_is_better ? std::numeric_limits<double>::infinity() : -std::numeric_limits<double>::infinity();
  for (const auto& run : app.runs) {
    double best = run.epochs.front().metric;
    for (const auto& e : run.epochs)
      best = app.higher_is_better ? std::max(best, e.metric) : std::min(best, e.metric);
    target = app.higher_is_better ? std::min(target, best) : std::max(target, best);
  }
  app.target_metric = target;
  return app;
}

std::shared_ptr<const PolluxApp> pollux_app(const std::string& dir, const std::string& name) {
  static std::mutex mutex;
  static std::map<std::pair<std::string, std::string>, std::shared_ptr<const PolluxApp>> cache;
  std::lock_guard<std::mutex> lock(mutex);
  auto& slot = cache[{dir, name}];
  if (!slot) slot = std::make_shared<const PolluxApp>(load_pollux_app(dir, name));
  return slot;
}

namespace {

const PolluxRun& find_run(const PolluxApp& app, int batch) {
  std::vector<std::string> batches;
  for (const auto& r : app.runs) {
    if (r.batch == batch) return r;
    batches.push_back(std::to_string(r.batch));
  }
  throw InputError(app.dir + ": no validation-" + std::to_string(batch) + ".csv (batches: " + join_names(batches) +
                   ")");
}

}  // namespace

double pollux_work_samples(const PolluxApp& app, int batch) {
  const PolluxRun& run = find_run(app, batch);
  for (const auto& e : run.epochs) {
    const bool reached = app.higher_is_better ? e.metric >= app.target_metric : e.metric <= app.target_metric;
    if (reached) return e.iteration * batch;
  }
  return run.epochs.back().iteration * batch;
}

namespace {
// Loss-like value of a metric: the metric when lower is better, else ceiling - metric (ceiling 1 for metrics in
// [0, 1], 100 otherwise).
double loss_like(const PolluxApp& app, double metric) {
  if (!app.higher_is_better) return metric;
  double max_metric = 0.0;
  for (const auto& r : app.runs)
    for (const auto& e : r.epochs)
      max_metric = std::max(max_metric, e.metric);
  const double ceiling = max_metric <= 1.0 ? 1.0 : 100.0;
  return ceiling - metric;
}
}  // namespace

std::vector<models::LossPoint> pollux_loss_points(const PolluxApp& app, int batch) {
  const PolluxRun& run = find_run(app, batch);
  std::vector<models::LossPoint> out;
  for (const auto& e : run.epochs)
    out.push_back(models::LossPoint{e.iteration * batch, loss_like(app, e.metric)});
  return out;
}

double pollux_target_loss(const PolluxApp& app) {
  return loss_like(app, app.target_metric);
}

std::vector<models::SpeedPoint> pollux_speed_points(const PolluxApp& app) {
  std::vector<models::SpeedPoint> out;
  out.reserve(app.steps.size());
  for (const auto& r : app.steps)
    out.push_back(models::SpeedPoint{r.w, r.nodes, r.local_batch * r.w, r.step_seconds});
  return out;
}

double pollux_model_size(const std::string& name) {
  // Millions of parameters: ResNet-18 (CIFAR) 11.2, ResNet-50 25.6, BERT-base 110, NeuMF (MovieLens-20M, approx.)
  // 5.0, YOLOv3 61.9, DeepSpeech2 (approx.) 38.
  if (name == "cifar10") return 11.2;
  if (name == "imagenet") return 25.6;
  if (name == "bert") return 110.0;
  if (name == "ncf") return 5.0;
  if (name == "yolov3") return 61.9;
  if (name == "deepspeech2") return 38.0;
  check_name(name, "");
  return 1.0;
}

std::vector<PolluxStepRow> read_pollux_step_tables(const std::string& folder) {
  const fs::path placements = fs::path(folder) / "placements.csv";
  const fs::path scalability = fs::path(folder) / "scalability.csv";
  std::error_code ec;
  const bool has_p = fs::is_regular_file(placements, ec);
  const bool has_s = fs::is_regular_file(scalability, ec);
  if (!has_p && !has_s) {
    throw InputError(folder + ": no placements.csv or scalability.csv here (the Pollux table format, docs/heldout.md)");
  }
  std::vector<PolluxStepRow> rows;
  if (has_p) read_pollux_step_file(placements.string(), true, false, rows);
  if (has_s) read_pollux_step_file(scalability.string(), false, false, rows);
  return rows;
}

void check_pollux_app_name(const std::string& name) {
  check_name(name, "");
}

}  // namespace ringsched
