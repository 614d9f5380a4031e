// workloads/data_catalogs.h — the catalogs a config names that are built from a shipped data folder rather than
// embedded as JSON: `pollux` and `pollux-goodput` (workloads/pollux.h) and `gavel` (workloads/gavel.h), each with the
// workload key that points it at another folder.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "workloads/catalog.h"

namespace ringsched {

struct DataCatalogInfo {
  std::string name;
  std::string dir_key;                       // the workload key giving another folder ("pollux_dir", "gavel_dir")
  std::function<std::string()> default_dir;  // the shipped folder
  std::function<Catalog(const std::string& dir)> build;
};

// A data catalog registers itself in the file that builds it, with one object at namespace scope (unique name):
//   const DataCatalogRegistrar gavel_data_catalog{{"gavel", "gavel_dir", default_gavel_dir, gavel_catalog}, 30};
// `rank` orders `ringsched catalogs` after the embedded ones (pollux 10, pollux-goodput 20, gavel 30; ties by name).
struct DataCatalogRegistrar {
  DataCatalogRegistrar(DataCatalogInfo info, int rank);
};

// Every data catalog, unless a built-in (embedded) catalog takes its name; by rank.
const std::vector<DataCatalogInfo>& data_catalogs();
std::vector<std::string> data_folder_catalog_names();
// The entry of `name`, or null.
const DataCatalogInfo* find_data_catalog(const std::string& name);
bool is_data_folder_catalog(const std::string& name);
// The catalog `name` from `dir` (InputError for an unknown name).
Catalog data_folder_catalog(const std::string& name, const std::string& dir);

}  // namespace ringsched
