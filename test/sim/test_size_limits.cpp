// test/sim/test_size_limits.cpp — the size limits the issues set, enforced: the engine stays small (engine.cpp at
// most 600 lines: time, events and decisions; the cluster is sim/cluster/cluster_runtime) and no function in
// sim/engine or sim/cluster is over 80 lines. Each violation is reported with its file, line and size.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "test/sim/function_spans.h"

namespace {

namespace fs = std::filesystem;

fs::path limits_source_root() {
  return fs::path(RINGSCHED_TEST_DIR).parent_path();
}

std::string limits_read(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

int limits_line_count(const fs::path& p) {
  const std::string text = limits_read(p);
  int n = 0;
  for (char c : text)
    n += c == '\n';
  return n;
}

// Every function over `max_lines` in the .h/.cpp files under `folder` (repository-relative), as "file:line: N lines:
// head".
std::vector<std::string> long_functions(const std::string& folder, int max_lines) {
  std::vector<std::string> out;
  for (const auto& e : fs::recursive_directory_iterator(limits_source_root() / folder)) {
    const auto ext = e.path().extension().string();
    if (ext != ".h" && ext != ".cpp") continue;
    for (const auto& f : ringsched::test::function_spans(limits_read(e.path()))) {
      if (f.lines <= max_lines) continue;
      out.push_back(fs::relative(e.path(), limits_source_root()).generic_string() + ":" + std::to_string(f.first_line) +
                    ": " + std::to_string(f.lines) + " lines: " + f.head.substr(0, 80));
    }
  }
  return out;
}

}  // namespace

TEST_CASE("sim::Limits: function_spans finds functions and their lines, not blocks, comments or literals",
          "[sim][layout]") {
  const std::string src =
      "// a comment with a brace {\n"             // 1
      "namespace n {\n"                           // 2
      "struct S {\n"                              // 3
      "  int f(int x) const {\n"                  // 4
      "    if (x) {\n"                            // 5
      "      return g(\"}{\", '{');\n"            // 6
      "    }\n"                                   // 7
      "    return [](int y) { return y; }(x);\n"  // 8
      "  }\n"                                     // 9
      "};\n"                                      // 10
      "S::S(int a)\n"                             // 11
      "    : a_(a) {}\n"                          // 12
      "/* { */ void h() {\n"                      // 13
      "  for (;;) { break; }\n"                   // 14
      "}\n"                                       // 15
      "}  // namespace n\n";                      // 16
  const auto spans = ringsched::test::function_spans(src);
  REQUIRE(spans.size() == 3);
  CHECK(spans[0].first_line == 4);
  CHECK(spans[0].lines == 6);
  CHECK(spans[1].first_line == 11);
  CHECK(spans[1].lines == 2);
  CHECK(spans[2].first_line == 13);
  CHECK(spans[2].lines == 3);
}

TEST_CASE("sim::Limits: engine.cpp is at most 600 lines (the cluster lives in sim/cluster)", "[sim][layout]") {
  const int n = limits_line_count(limits_source_root() / "sim/engine/engine.cpp");
  INFO("sim/engine/engine.cpp: " << n << " lines");
  CHECK(n <= 600);
}

TEST_CASE("sim::Limits: no function in sim/engine or sim/cluster is over 80 lines", "[sim][layout]") {
  for (const char* folder : {"sim/engine", "sim/cluster"}) {
    const auto found = long_functions(folder, 80);
    for (const auto& f : found)
      UNSCOPED_INFO(f);
    CHECK(found.empty());
  }
}
