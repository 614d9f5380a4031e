// workloads/data_catalogs.cpp — the registry of data-folder catalogs (each registers itself in the file that builds
// it: workloads/pollux.cpp, workloads/gavel.cpp).
#include "workloads/data_catalogs.h"

#include "models/input_error.h"
#include "workloads/builtin_catalogs.h"
#include "workloads/io/json_reader.h"

#include <algorithm>
#include <stdexcept>

namespace ringsched {

namespace {

struct DataCatalogRegistration {
  DataCatalogInfo info;
  int rank;
};

std::vector<DataCatalogRegistration>& data_catalog_registrations() {
  static std::vector<DataCatalogRegistration> registrations;
  return registrations;
}

}  // namespace

DataCatalogRegistrar::DataCatalogRegistrar(DataCatalogInfo info, int rank) {
  data_catalog_registrations().push_back({std::move(info), rank});
}

// Registrars run during static initialisation, before any look-up.
const std::vector<DataCatalogInfo>& data_catalogs() {
  static const std::vector<DataCatalogInfo> all = [] {
    auto regs = data_catalog_registrations();
    std::stable_sort(regs.begin(), regs.end(), [](const auto& a, const auto& b) {
      return a.rank != b.rank ? a.rank < b.rank : a.info.name < b.info.name;
    });
    std::vector<DataCatalogInfo> v;
    for (const auto& r : regs) {
      for (const auto& seen : v)
        if (seen.name == r.info.name)
          throw std::logic_error("data catalog '" + r.info.name + "' is registered twice (DataCatalogRegistrar)");
      v.push_back(r.info);
    }
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
