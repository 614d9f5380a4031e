// test/sim/test_docs.cpp — docs that name source files stay true: every repository path in backquotes in
// docs/extending.md exists; docs derived from a table in the code hold its current copy (the metric table).
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>

#include "sim/experiments/report.h"

namespace fs = std::filesystem;

TEST_CASE("sim::Docs: every file docs/extending.md names exists", "[sim][docs]") {
  const fs::path root = fs::path(RINGSCHED_TEST_DIR).parent_path();
  std::ifstream in(root / "docs" / "extending.md");
  REQUIRE(in);
  std::stringstream text;
  text << in.rdbuf();
  const std::string doc = text.str();
  // `a/b/c.ext` (a path with a folder and an extension); `x/y_<name>.cpp` style templates are skipped.
  const std::regex path_re(R"(`((?:models|workloads|strategies|profiler|traces|sim|test|docs)/[A-Za-z0-9_./{},]+)`)");
  int checked = 0;
  std::string missing;
  for (auto it = std::sregex_iterator(doc.begin(), doc.end(), path_re); it != std::sregex_iterator(); ++it) {
    std::string p = (*it)[1].str();
    std::vector<std::string> files;
    const auto brace = p.find('{');
    if (brace != std::string::npos) {  // a.{h,cpp}
      const std::string stem = p.substr(0, brace);
      std::stringstream exts(p.substr(brace + 1, p.find('}') - brace - 1));
      std::string e;
      while (std::getline(exts, e, ','))
        files.push_back(stem + e);
    } else {
      files.push_back(p);
    }
    for (const auto& f : files) {
      ++checked;
      if (!fs::exists(root / f)) missing += f + "\n";
    }
  }
  INFO("missing:\n" << missing);
  CHECK(missing.empty());
  CHECK(checked >= 20);
}

TEST_CASE("sim::Docs: docs/config.md holds the metric table as `ringsched metrics` prints it", "[sim][docs]") {
  const fs::path root = fs::path(RINGSCHED_TEST_DIR).parent_path();
  std::ifstream in(root / "docs" / "config.md");
  REQUIRE(in);
  std::stringstream text;
  text << in.rdbuf();
  const std::string table = ringsched::metric_table_markdown();
  INFO("regenerate the table in docs/config.md with: build/bin/ringsched metrics\n" << table);
  CHECK(text.str().find(table) != std::string::npos);
  // Every metric has a row (the table cannot lose one silently).
  for (const auto& m : ringsched::metric_table())
    CHECK(table.find(std::string("| `") + m.name + "` |") != std::string::npos);
}
