// workloads/data_catalogs.cpp — the registry of data-folder catalogs.
#include "workloads/data_catalogs.h"

#include "models/input_error.h"
#include "workloads/builtin_catalogs.h"
#include "workloads/gavel.h"
#include "workloads/json_reader.h"
#include "workloads/pollux.h"

namespace ringsched {

const std::vector<DataCatalogInfo>& data_catalogs() {
  static const std::vector<DataCatalogInfo> all = [] {
    std::vector<DataCatalogInfo> v = {
        {"pollux", "pollux_dir", default_pollux_dir, [](const std::string& d) { return pollux_catalog(d, 0.0); }},
        {"pollux-goodput", "pollux_dir", default_pollux_dir, pollux_goodput_catalog},
        {"gavel", "gavel_dir", default_gavel_dir, gavel_catalog},
    };
    std::erase_if(v, [](const DataCatalogInfo& i) { return !builtin_catalog_text(i.name).empty(); });
    return v;
  }();
  return all;
}

std::vector<std::string> data_folder_catalog_names() {
  std::vector<std::string> names;
  for (const auto& i : data_catalogs())
    names.push_back(i.name);
  return names;
}

const DataCatalogInfo* find_data_catalog(const std::string& name) {
  for (const auto& i : data_catalogs())
    if (i.name == name) return &i;
  return nullptr;
}

bool is_data_folder_catalog(const std::string& name) {
  return find_data_catalog(name) != nullptr;
}

Catalog data_folder_catalog(const std::string& name, const std::string& dir) {
  const DataCatalogInfo* info = find_data_catalog(name);
  if (info == nullptr) {
    throw InputError("unknown data catalog '" + name + "' (valid: " + join_names(data_folder_catalog_names()) + ")");
  }
  return info->build(dir);
}

}  // namespace ringsched
