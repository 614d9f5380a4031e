// workloads/catalog.h — catalogs of job classes: the JSON format, built-in catalogs (embedded at build time from
// workloads/catalogs/*.json) and loading by name or path.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "workloads/job_class.h"

namespace ringsched {

struct Catalog {
  std::string name;
  std::string description;
  std::string origin;  // "builtin:paper" or the file path
  std::vector<JobClass> classes;

  // Index of the class with this name, or -1.
  [[nodiscard]] int find(const std::string& class_name) const;
  [[nodiscard]] std::vector<std::string> class_names() const;
};

// Parses a catalog document; errors name `origin` and the JSON path (base_path prefixes paths, for catalogs
// embedded in an experiment config). base_dir resolves relative file names inside (measured tables).
Catalog parse_catalog(const nlohmann::json& doc, const std::string& origin, const std::string& base_path = "",
                      const std::string& base_dir = "");

// "paper" (or any built-in name) or a path to a catalog JSON file. Relative paths are resolved against base_dir.
Catalog load_catalog(const std::string& name_or_path, const std::string& base_dir = "");

[[nodiscard]] std::vector<std::string> builtin_catalog_names();
// The JSON text of a built-in catalog, or empty if unknown.
[[nodiscard]] std::string builtin_catalog_text(const std::string& name);

// Throws InputError if the class cannot run within [1, cluster_gpus] (names the class and field).
void check_catalog_fits_cluster(const Catalog& catalog, int cluster_gpus, const std::string& where);

}  // namespace ringsched
