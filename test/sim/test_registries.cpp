// test/sim/test_registries.cpp — the self-registering extension points (strategies, trace formats, speed-model kinds,
// placement policies, belief sources, metrics, fuzz targets): every registrar in the sources is linked (the folder
// libraries are linked whole, cmake/RingschedWarnings.cmake), each registry finds what is registered, names are
// unique, and the docs tables that list a registry hold exactly its names.
#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "models/input_error.h"
#include "sim/beliefs/belief_sources.h"
#include "sim/cluster/placement.h"
#include "sim/engine/metrics.h"
#include "strategies/registry.h"
#include "test/fuzz/fuzz_entries.h"
#include "traces/trace_format.h"
#include "workloads/data_catalogs.h"
#include "workloads/speed_registry.h"

namespace fs = std::filesystem;
using namespace ringsched;

namespace {

const fs::path kRegistriesRoot = fs::path(RINGSCHED_TEST_DIR).parent_path();

std::string registries_read(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// Every `const <registrar> <object>{...` in the .cpp files under `folders`: the first string literal after the
// object's brace (the registered name where the registrar takes one; "" otherwise), one entry per registrar object.
std::vector<std::string> registries_declared(const std::string& registrar, const std::vector<std::string>& folders) {
  const std::regex re("const " + registrar + R"re( \w+\{\s*\{?\s*(?:"([^"]*)")?)re");
  std::vector<std::string> out;
  for (const auto& folder : folders) {
    for (const auto& e : fs::recursive_directory_iterator(kRegistriesRoot / folder)) {
      if (e.path().extension() != ".cpp") continue;
      const std::string text = registries_read(e.path());
      for (auto it = std::sregex_iterator(text.begin(), text.end(), re); it != std::sregex_iterator(); ++it)
        out.push_back((*it)[1].str());
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::vector<std::string> registries_sorted(std::vector<std::string> v) {
  std::sort(v.begin(), v.end());
  return v;
}

bool registries_unique(const std::vector<std::string>& names) {
  return std::set<std::string>(names.begin(), names.end()).size() == names.size();
}

// The backquoted names in the first column of the Markdown table whose header row starts with `header`.
std::set<std::string> registries_table_names(const std::string& doc, const std::string& header) {
  std::set<std::string> out;
  std::istringstream lines(doc);
  std::string line;
  bool in_table = false;
  while (std::getline(lines, line)) {
    if (!in_table) {
      in_table = line.rfind(header, 0) == 0;
      continue;
    }
    if (line.rfind("|", 0) != 0) break;
    const std::string first = line.substr(1, line.find('|', 1) - 1);
    const std::regex name_re("`([a-z0-9_]+)`");
    for (auto it = std::sregex_iterator(first.begin(), first.end(), name_re); it != std::sregex_iterator(); ++it)
      out.insert((*it)[1].str());
  }
  return out;
}

}  // namespace

TEST_CASE("sim::Registries: every strategy file's registrar is linked, names are unique and found", "[registry]") {
  std::vector<std::string> names;
  REQUIRE_NOTHROW(names = strategy_names());
  CHECK(registries_unique(names));
  CHECK(names.size() == registries_declared("StrategyRegistrar", {"strategies"}).size());
  CHECK(std::is_sorted(names.begin(), names.end()));  // `ringsched strategies` prints them in name order
  for (const auto& n : names)
    CHECK(find_strategy(n, "here").name == n);
  CHECK(find_strategy("fifo", "here").make != nullptr);
  CHECK_THROWS_AS(find_strategy("no_such_strategy", "here"), InputError);
}

TEST_CASE("sim::Registries: every trace format's registrar is linked, in rank order, pollux first", "[registry]") {
  std::vector<std::string> names;
  REQUIRE_NOTHROW(names = trace_format_names());
  CHECK(registries_unique(names));
  CHECK(names.size() == registries_declared("TraceFormatRegistrar", {"traces"}).size());
  REQUIRE(!names.empty());
  CHECK(names.front() == "pollux");  // the default format, first in `valid:` lists
  for (const auto& n : names)
    CHECK(find_trace_format(n, "here").name() == n);
}

TEST_CASE("sim::Registries: every speed-model kind's registrar is linked, names are unique and found", "[registry]") {
  std::vector<std::string> names;
  REQUIRE_NOTHROW(names = speed_kind_names());
  CHECK(registries_unique(names));
  CHECK(names == registries_declared("SpeedKindRegistrar", {"workloads", "models", "sim"}));
  CHECK(std::find(names.begin(), names.end(), "eq5") != names.end());
}

TEST_CASE("sim::Registries: every placement policy's registrar is linked, in name order, each builds itself",
          "[registry]") {
  std::vector<std::string> names;
  REQUIRE_NOTHROW(names = placement_policy_names());
  CHECK(names == registries_declared("PlacementPolicyRegistrar", {"sim"}));
  for (const auto& n : names)
    CHECK(make_placement_policy(n)->name() == n);
  CHECK_THROWS_AS(make_placement_policy("no_such_policy"), std::invalid_argument);
}

TEST_CASE("sim::Registries: every belief source's registrar is linked, in name order, each builds itself",
          "[registry]") {
  std::vector<std::string> names;
  REQUIRE_NOTHROW(names = belief_source_names());
  CHECK(names == registries_declared("BeliefSourceRegistrar", {"sim"}));
  CHECK(std::find(names.begin(), names.end(), "history") != names.end());
  for (const auto& n : {"none", "oracle", "history", "agent"})  // those that need no observation channel
    CHECK(make_belief_source(n, "here")->name() == n);
}

TEST_CASE("sim::Registries: every metric's registrar is linked, names are unique, the standard ones lead",
          "[registry][metrics]") {
  std::vector<std::string> names;
  REQUIRE_NOTHROW([&] {
    for (const auto& m : metric_table())
      names.emplace_back(m.name);
  }());
  CHECK(registries_unique(names));
  CHECK(registries_sorted(names) == registries_declared("MetricRegistrar", {"sim"}));
  CHECK(metric_info("gpu_utilisation").name == std::string("gpu_utilisation"));
}

TEST_CASE("sim::Registries: every fuzz target's registrar is linked (the profiler's where it is built)",
          "[registry][fuzz]") {
  std::vector<std::string> names;
  REQUIRE_NOTHROW([&] {
    for (const auto& t : fuzz::targets())
      names.emplace_back(t.name);
  }());
  CHECK(registries_unique(names));
  CHECK(std::is_sorted(names.begin(), names.end()));
  auto declared = registries_declared("TargetRegistrar", {"test/fuzz"});
  for (const auto& n : names)
    CHECK(std::count(declared.begin(), declared.end(), n) == 1);
  // Only the checkpoint target depends on a library (the profiler's core) that a build may leave out.
  if (fuzz::find_target("checkpoint") == nullptr)
    declared.erase(std::find(declared.begin(), declared.end(), "checkpoint"));
  CHECK(registries_sorted(names) == declared);
  CHECK(fuzz::find_target("config") != nullptr);
}

TEST_CASE("sim::Registries: every data-folder catalog's registrar is linked, names are unique and found",
          "[registry]") {
  std::vector<std::string> names;
  REQUIRE_NOTHROW(names = data_folder_catalog_names());
  CHECK(registries_unique(names));
  CHECK(registries_sorted(names) == registries_declared("DataCatalogRegistrar", {"workloads"}));
  for (const auto& n : names)
    CHECK(find_data_catalog(n)->name == n);
  CHECK(is_data_folder_catalog("gavel"));
}

TEST_CASE("sim::Registries: docs tables list exactly the registered strategies, belief sources and fuzz targets",
          "[registry][docs]") {
  const auto strategies = strategy_names();
  CHECK(registries_table_names(registries_read(kRegistriesRoot / "docs/config.md"), "| strategy | default beliefs |") ==
        std::set<std::string>(strategies.begin(), strategies.end()));
  const auto beliefs = belief_source_names();
  CHECK(registries_table_names(registries_read(kRegistriesRoot / "docs/heldout.md"), "| source | speed |") ==
        std::set<std::string>(beliefs.begin(), beliefs.end()));
  const auto fuzz_declared = registries_declared("TargetRegistrar", {"test/fuzz"});
  CHECK(registries_table_names(registries_read(kRegistriesRoot / "docs/reliability.md"), "| target | reader |") ==
        std::set<std::string>(fuzz_declared.begin(), fuzz_declared.end()));
  // Formats, kinds and policies are documented in prose (docs/config.md, placement in docs/topology.md): each
  // registered name appears there.
  const std::string config_md =
      registries_read(kRegistriesRoot / "docs/config.md") + registries_read(kRegistriesRoot / "docs/topology.md");
  std::vector<std::string> prose = trace_format_names();
  for (const auto& v : {speed_kind_names(), placement_policy_names()})
    prose.insert(prose.end(), v.begin(), v.end());
  for (const auto& n : prose) {
    INFO(n);
    CHECK(config_md.find("`" + n + "`") != std::string::npos);
  }
}
