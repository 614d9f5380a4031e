// workloads/table_sources.cpp — the registry of measured-table sources and the built-in ones.
#include "workloads/table_sources.h"

#include <filesystem>
#include <map>
#include <mutex>
#include <stdexcept>

#include "workloads/measurement/points_csv.h"
#include "workloads/pollux_data.h"
#include "workloads/speed_registry.h"

namespace ringsched {
namespace {

std::vector<models::TablePoint> from_points(const JsonReader& value, const JsonReader&, const std::string&) {
  std::vector<models::TablePoint> pts;
  for (const auto& p : value.non_empty_elements()) {
    const auto xs = p.elements();
    if (xs.size() != 4) p.fail("expected [w, nodes, local_batch, step_seconds]");
    models::TablePoint tp;
    tp.w = static_cast<int>(xs[0].as_integer_in(1, 1 << 20));
    tp.nodes = static_cast<int>(xs[1].as_integer_in(1, tp.w));
    tp.local_batch = xs[2].as_positive();
    tp.step_seconds = xs[3].as_positive();
    pts.push_back(tp);
  }
  return pts;
}

std::vector<models::TablePoint> rows_to_points(const std::vector<PolluxStepRow>& rows) {
  std::vector<models::TablePoint> pts;
  pts.reserve(rows.size());
  for (const auto& r : rows)
    pts.push_back(models::TablePoint{r.w, r.nodes, r.local_batch, r.step_seconds});
  return pts;
}

std::vector<models::TablePoint> from_pollux_app(const JsonReader& value, const JsonReader& spec,
                                                const std::string& base_dir) {
  const std::string dir =
      spec.has("pollux_dir") ? resolve_input_path(spec.at("pollux_dir").as_string(), base_dir) : default_pollux_dir();
  const std::string name = value.as_string();
  check_pollux_app_name(name);
  return rows_to_points(pollux_app(dir, name)->steps);
}

std::vector<models::TablePoint> from_pollux_tables(const JsonReader& value, const JsonReader&,
                                                   const std::string& base_dir) {
  return rows_to_points(read_pollux_step_tables(resolve_input_path(value.as_string(), base_dir)));
}

std::vector<models::TablePoint> from_csv(const JsonReader& value, const JsonReader& spec, const std::string& base_dir) {
  std::vector<models::TablePoint> pts;
  const std::string type = spec.has("gpu_type") ? spec.at("gpu_type").as_string() : std::string();
  if (spec.has("gpu_type") && type.empty()) spec.at("gpu_type").fail("empty: name a GPU type of the table");
  for (const auto& p : read_points_csv(resolve_input_path(value.as_string(), base_dir), type))
    pts.push_back(models::TablePoint{p.w, p.nodes, p.global_batch / p.w, p.step_seconds});
  return pts;
}

struct Source {
  TableSourceReader reader;
  std::vector<std::string> companions;
};

struct TableSourceRegistry {
  std::mutex mutex;
  std::map<std::string, Source> sources;
  TableSourceRegistry() {
    sources["points"] = {from_points, {}};
    sources["pollux"] = {from_pollux_app, {"pollux_dir"}};
    sources["pollux_tables"] = {from_pollux_tables, {}};
    sources["csv"] = {from_csv, {"gpu_type"}};
  }
};

TableSourceRegistry& table_source_registry() {
  static TableSourceRegistry r;
  return r;
}

}  // namespace

void register_table_source(const std::string& name, TableSourceReader reader, std::vector<std::string> companions) {
  auto& r = table_source_registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  r.sources[name] = Source{std::move(reader), std::move(companions)};
}

std::vector<std::string> table_source_names() {
  auto& r = table_source_registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  std::vector<std::string> names;
  for (const auto& [name, s] : r.sources)
    names.push_back(name);
  return names;
}

models::StepTimeModelPtr make_table_speed_from_json(const JsonReader& spec, const JobClass& /*cls*/,
                                                    const std::string& base_dir) {
  std::map<std::string, Source> sources;
  {
    auto& r = table_source_registry();
    std::lock_guard<std::mutex> lock(r.mutex);
    sources = r.sources;
  }
  std::vector<std::string> allowed = {"kind"};
  std::vector<std::string> given;
  for (const auto& [name, s] : sources) {
    allowed.push_back(name);
    for (const auto& c : s.companions)
      allowed.push_back(c);
    if (spec.has(name)) given.push_back(name);
  }
  spec.expect_object(allowed);
  if (given.size() != 1) {
    spec.fail("give exactly one source of measured points (" + join_names(table_source_names()) + "), got " +
              (given.empty() ? std::string("none") : join_names(given)));
  }
  const Source& src = sources.at(given.front());
  for (const auto& [name, s] : sources) {
    if (name == given.front()) continue;
    for (const auto& c : s.companions) {
      const auto& own = src.companions;
      if (spec.has(c) && std::find(own.begin(), own.end(), c) == own.end()) {
        spec.at(c).fail("only with \"" + name + "\"");
      }
    }
  }
  const auto value = spec.at(given.front());
  std::vector<models::TablePoint> pts;
  try {
    pts = src.reader(value, spec, base_dir);
  } catch (const InputError& e) {
    const std::string msg = e.what();
    if (msg.rfind(spec.file() + ": ", 0) == 0) throw;  // already names this file and path
    value.fail(msg);  // a table file's own error (file:line), under the JSON path that named the file
  }
  try {
    return std::make_shared<const models::TableStepTime>(pts);
  } catch (const std::invalid_argument& e) {
    value.fail(e.what());
  }
}

// The `table` speed kind: measured tables (registered here, beside its factory).
const SpeedKindRegistrar table_speed_registrar{"table", make_table_speed_from_json};

}  // namespace ringsched
