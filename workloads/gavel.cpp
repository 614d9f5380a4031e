// workloads/gavel.cpp — reading Gavel's throughputs file and building the `gavel` catalog from it.
#include "workloads/gavel.h"

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstdlib>
#include <memory>

#include "models/input_error.h"
#include "models/scale_table.h"
#include "workloads/data_catalogs.h"
#include "workloads/io/json_reader.h"

namespace ringsched {
namespace {

// The longest job type and GPU type names read (Gavel's are at most 28 characters).
constexpr std::size_t kMaxGavelName = 256;

bool is_digit(char c) {
  return c >= '0' && c <= '9';
}

// "('ResNet-18 (batch size 64)', 2)" -> ("ResNet-18 (batch size 64)", 2); false when malformed. The form is
// ^\('(.+)', (\d{1,4})\)$ with the model running to the last "', " (no line break in it), scanned by hand in one
// linear pass: a regex engine recurses per character and overflows the stack on a long key.
bool parse_job_type(const std::string& key, std::string& model, int& scale_factor) {
  if (key.size() < 8 || key.compare(0, 2, "('") != 0 || key.back() != ')') return false;
  std::size_t digits_begin = key.size() - 1;
  while (digits_begin > 0 && is_digit(key[digits_begin - 1]))
    --digits_begin;
  const std::size_t digits = key.size() - 1 - digits_begin;
  if (digits < 1 || digits > 4 || digits_begin < 5 || key.compare(digits_begin - 3, 3, "', ") != 0) return false;
  const std::size_t model_end = digits_begin - 3;
  if (model_end <= 2) return false;
  model = key.substr(2, model_end - 2);
  if (model.find_first_of("\n\r") != std::string::npos) return false;
  scale_factor = std::stoi(key.substr(digits_begin, digits));
  return scale_factor >= 1;
}

// A key for messages: at most 60 characters of it.
std::string short_key(const std::string& key) {
  return key.size() > 60 ? key.substr(0, 57) + "..." : key;
}

bool ends_with(const std::string& s, const std::string& tail) {
  return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

}  // namespace

GavelThroughputs read_gavel_throughputs(const std::string& path, bool leave_out_unrunnable) {
  const nlohmann::json doc = read_json_file(path);
  const JsonReader top(doc, path);
  if (!top.is_object()) top.fail("expected an object of GPU type -> job type -> throughputs");
  GavelThroughputs t;
  t.file = path;
  std::map<std::string, std::vector<std::string>> keys_by_type;
  for (const auto& [type, jobs] : doc.items()) {
    if (ends_with(type, "_unconsolidated")) continue;  // not read by Gavel's simulator
    if (type.size() > kMaxGavelName) {
      top.fail("GPU type '" + short_key(type) + "' is " + std::to_string(type.size()) + " characters long; at most " +
               std::to_string(kMaxGavelName));
    }
    const JsonReader by_job = top.at(type);
    if (!by_job.is_object()) by_job.fail("expected an object of job type -> throughputs");
    t.gpu_types.push_back(type);
    for (const auto& [key, entry] : jobs.items()) {
      std::string model;
      int sf = 0;
      if (key.size() > kMaxGavelName + 10) {  // "('" + model + "', NNNN)"
        throw InputError(path + ": " + type + "." + short_key(key) + ": job type is " + std::to_string(key.size()) +
                         " characters long; a key ('<model>', <scale factor>) takes at most " +
                         std::to_string(kMaxGavelName) + " for the model");
      }
      const JsonReader e = by_job.at(key);
      if (!parse_job_type(key, model, sf)) e.fail("not a job type of the form ('<model>', <scale factor>)");
      if (model.size() > kMaxGavelName) {
        e.fail("job type '" + short_key(model) + "' is " + std::to_string(model.size()) + " characters long; at most " +
               std::to_string(kMaxGavelName));
      }
      if (!e.is_object() || !e.has("null")) e.fail("no isolated throughput (\"null\")");
      const double tput = e.at("null").as_non_negative();
      t.isolated[model][type].emplace_back(sf, tput);
      keys_by_type[type].push_back(key);
    }
  }
  if (t.gpu_types.empty()) top.fail("no GPU type");
  for (const auto& [model, by_type] : t.isolated) {
    t.models.push_back(model);
    for (const auto& type : t.gpu_types) {
      if (by_type.count(type) == 0) top.at(type).fail("no entry for job type '" + model + "'");
    }
  }
  for (auto& [model, by_type] : t.isolated)
    for (auto& [type, points] : by_type)
      std::sort(points.begin(), points.end());
  // Values: a throughput below the smallest normal double has a step time that overflows, and the reference type
  // (gavel_catalog's: v100, else the first) defines durations, so a 0 there leaves the job type no duration.
  const bool has_v100 = std::find(t.gpu_types.begin(), t.gpu_types.end(), "v100") != t.gpu_types.end();
  const std::string reference = has_v100 ? "v100" : t.gpu_types.front();
  for (const auto& type : t.gpu_types) {
    for (const auto& [key, entry] : doc.at(type).items()) {
      const double tput = entry.at("null").get<double>();
      if (tput > 0.0 && tput < DBL_MIN) top.at(type).at(key).at("null").fail("a throughput below 2.2e-308 steps/s");
      if (type == reference && tput == 0.0) {
        if (leave_out_unrunnable) continue;
        top.at(type).at(key).at("null").fail("throughput 0 on the reference GPU type " + reference +
                                             ", where job durations are defined (a job type must run there)");
      }
    }
  }
  if (leave_out_unrunnable) {  // job types with throughput 0 on the reference type at every scale factor
    std::erase_if(t.models, [&](const std::string& model) {
      const auto& points = t.isolated.at(model).at(reference);
      return std::all_of(points.begin(), points.end(), [](const auto& p) { return p.second == 0.0; });
    });
  }
  return t;
}

std::string default_gavel_dir() {
  if (const char* env = std::getenv("RINGSCHED_GAVEL_DIR"); env != nullptr && *env != '\0') return env;
  return std::string(RINGSCHED_SOURCE_DIR) + "/workloads/data/gavel";
}

Catalog gavel_catalog(const std::string& dir) {
  return catalog_of_throughputs(
      read_gavel_throughputs(dir + "/simulation_throughputs.json"), "gavel",
      "Gavel's (OSDI'20) 26 job types with their measured throughputs per GPU type and scale factor", "Gavel");
}

Catalog catalog_of_throughputs(const GavelThroughputs& t, const std::string& name, const std::string& description,
                               const std::string& peer) {
  const std::string reference =
      std::find(t.gpu_types.begin(), t.gpu_types.end(), "v100") != t.gpu_types.end() ? "v100" : t.gpu_types.front();
  Catalog cat;
  cat.name = name;
  cat.description = description;
  cat.origin = t.file;
  for (const std::string& model : t.models) {
    JobClass c;
    c.name = model;
    c.description = peer + " job type " + model + " (scale_table per GPU type from " + t.file + ")";
    c.batch_mode = BatchMode::kFixedGlobal;
    c.batch_size = 1.0;  // one sample = one step
    c.model_size_mparams = 1.0;
    c.min_gpus = 1;
    const auto& by_type = t.isolated.at(model);
    c.max_gpus = by_type.at(reference).back().first;
    for (const auto& type : t.gpu_types) {
      try {
        c.speed_by_type.emplace_back(type, std::make_shared<const models::ScaleTableStepTime>(by_type.at(type)));
      } catch (const std::invalid_argument& e) {
        throw InputError(t.file + ": " + type + ": job type '" + model + "': " + e.what());
      }
    }
    for (const auto& [type, model_ptr] : c.speed_by_type)
      if (type == reference) c.speed = model_ptr;
    const double v100_1 = by_type.at(reference).front().second;
    c.work_samples = std::max(1.0, v100_1 * 60362.0);
    c.weight = 1.0;
    cat.classes.push_back(std::move(c));
  }
  return cat;
}

// The catalog built from Gavel's data folder (workloads/data_catalogs.h).
const DataCatalogRegistrar gavel_data_catalog{{"gavel", "gavel_dir", default_gavel_dir, gavel_catalog}, 30};

}  // namespace ringsched
