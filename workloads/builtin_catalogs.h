// workloads/builtin_catalogs.h — access to catalogs embedded at build time from workloads/catalogs/*.json.
#pragma once

#include <string>
#include <vector>

namespace ringsched {

std::vector<std::string> embedded_catalog_names();
std::string embedded_catalog_text(const std::string& name);  // empty if unknown

}  // namespace ringsched
