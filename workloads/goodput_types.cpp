// workloads/goodput_types.cpp — an application's goodput tables per GPU type (GoodputApp::load_by_type): Sia's
// (SOSP'23) per-type files placements-<type>.csv / scalability-<type>.csv, or one placements.csv (and scalability.csv)
// with a gpu_type column; every type with the folder's shared validation runs. Missing or inconsistent rows are
// InputErrors naming the file (and line).
#include <filesystem>
#include <map>
#include <mutex>
#include <stdexcept>
#include <system_error>

#include "workloads/goodput_app.h"

namespace ringsched {
namespace fs = std::filesystem;

namespace {

// One GPU type's step rows (placements first, then scalability) and the name of its placements table.
struct TypeRows {
  std::string tables;
  std::vector<PolluxStepRow> placements;
  std::vector<PolluxStepRow> scalability;
};

// The type in a per-type file name `<prefix><type>.csv`, or "" when the name is not one.
std::string type_of_file(const std::string& file, const std::string& prefix) {
  const std::string ext = ".csv";
  if (file.size() <= prefix.size() + ext.size() || file.rfind(prefix, 0) != 0) return "";
  if (file.compare(file.size() - ext.size(), ext.size(), ext) != 0) return "";
  return file.substr(prefix.size(), file.size() - prefix.size() - ext.size());
}

// Sia's layout: placements-<type>.csv for every type; scalability-<type>.csv for every type or for none.
std::map<std::string, TypeRows> rows_from_files(const std::string& folder) {
  std::map<std::string, std::pair<bool, bool>> found;  // type -> (placements, scalability)
  std::error_code ec;
  for (fs::directory_iterator it(folder, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string f = it->path().filename().string();
    if (const std::string t = type_of_file(f, "placements-"); !t.empty()) found[t].first = true;
    if (const std::string t = type_of_file(f, "scalability-"); !t.empty()) found[t].second = true;
  }
  if (ec) throw InputError(folder + ": cannot list the folder: " + ec.message());
  if (found.empty()) {
    throw InputError(folder +
                     ": no placements-<gpu type>.csv files (goodput.by_type \"files\" reads Sia's per-type tables; "
                     "\"column\" reads one placements.csv with a gpu_type column)");
  }
  std::string with_scalability;
  for (const auto& [type, has] : found)
    if (has.second && with_scalability.empty()) with_scalability = type;
  std::map<std::string, TypeRows> out;
  for (const auto& [type, has] : found) {
    const std::string p = (fs::path(folder) / ("placements-" + type + ".csv")).string();
    const std::string sc = (fs::path(folder) / ("scalability-" + type + ".csv")).string();
    if (!has.first) throw InputError(sc + ": GPU type '" + type + "' has no placements-" + type + ".csv");
    if (!has.second && !with_scalability.empty()) {
      throw InputError(p + ": GPU type '" + type + "' has no scalability-" + type + ".csv but type '" +
                       with_scalability + "' has one (give every type both files, or no type a scalability file)");
    }
    TypeRows& r = out[type];
    r.tables = p;
    read_pollux_step_file(p, true, false, r.placements);
    if (has.second) read_pollux_step_file(sc, false, false, r.scalability);
  }
  return out;
}

// One placements.csv (and optional scalability.csv) with a gpu_type column: the same types in both files.
std::map<std::string, TypeRows> rows_from_column(const std::string& folder) {
  const std::string p = (fs::path(folder) / "placements.csv").string();
  const std::string sc = (fs::path(folder) / "scalability.csv").string();
  std::error_code ec;
  if (!fs::is_regular_file(p, ec)) {
    throw InputError(p + ": no such file (goodput.by_type \"column\" reads one placements.csv with a gpu_type column)");
  }
  std::vector<PolluxStepRow> rows;
  read_pollux_step_file(p, true, true, rows);
  std::map<std::string, TypeRows> out;
  for (PolluxStepRow& r : rows) {
    TypeRows& t = out[r.gpu_type];
    t.tables = p + " (GPU type " + r.gpu_type + ")";
    t.placements.push_back(std::move(r));
  }
  if (!fs::is_regular_file(sc, ec)) return out;
  rows.clear();
  read_pollux_step_file(sc, false, true, rows);
  for (PolluxStepRow& r : rows) {
    const auto it = out.find(r.gpu_type);
    if (it == out.end()) {
      throw InputError(sc + ":" + std::to_string(r.line) + ": GPU type '" + r.gpu_type + "' has no rows in " + p);
    }
    it->second.scalability.push_back(std::move(r));
  }
  for (const auto& [type, t] : out) {
    if (t.scalability.empty()) {
      throw InputError(p + ":" + std::to_string(t.placements.front().line) + ": GPU type '" + type +
                       "' has no rows in " + sc + " (give every type rows in both files, or no scalability.csv)");
    }
  }
  return out;
}

std::mutex& typed_mutex() {
  static std::mutex m;
  return m;
}

std::map<std::string, GoodputAppsByType>& typed_apps() {
  static std::map<std::string, GoodputAppsByType> apps;
  return apps;
}

}  // namespace

GoodputAppsByType GoodputApp::load_by_type(const std::string& name, const std::string& folder,
                                           const GoodputLimits& limits, GoodputTypeLayout layout) {
  if (!fs::is_directory(folder)) throw InputError(folder + ": no such directory (an application's tables)");
  const std::string key = goodput_load_key(name, folder, limits) +
                          (layout == GoodputTypeLayout::kFiles ? "\nby_type:files" : "\nby_type:column");
  {
    const std::lock_guard<std::mutex> lock(typed_mutex());
    const auto it = typed_apps().find(key);
    if (it != typed_apps().end()) return it->second;
  }
  const auto by_type = layout == GoodputTypeLayout::kFiles ? rows_from_files(folder) : rows_from_column(folder);
  GoodputAppsByType out;
  for (const auto& [type, t] : by_type) {
    std::vector<PolluxStepRow> rows = t.placements;
    rows.insert(rows.end(), t.scalability.begin(), t.scalability.end());
    out.emplace_back(type, from_rows(name, folder, t.tables, rows, limits, type));
  }
  // Every type read the same validation runs with the same limits: the same progress, checked all the same (a job
  // moving between types keeps its progress on that assumption).
  for (const auto& [type, app] : out) {
    if (!app->same_progress(*out.front().second)) {
      throw std::logic_error(folder + ": GPU types " + out.front().first + " and " + type + " count progress apart");
    }
  }
  const std::lock_guard<std::mutex> lock(typed_mutex());
  return typed_apps().emplace(key, std::move(out)).first->second;
}

}  // namespace ringsched
