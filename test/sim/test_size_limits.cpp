// test/sim/test_size_limits.cpp — the size limits the issues set, enforced (a limit no test enforces regrows): the
// engine stays small (engine.cpp at most 600 lines: time, events and decisions; the cluster is
// sim/cluster/cluster_runtime); no function over 80 lines in sim/ and strategies/, over 120 elsewhere; no source
// file over 800 lines; no room (a top folder, a sim/ sub-folder or a strategies/ sub-folder) over 15% of the
// non-test source lines. Each violation is reported with its name and size.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <utility>
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

TEST_CASE("sim::Limits: no function over 80 lines in sim/ and strategies/, over 120 elsewhere", "[sim][layout]") {
  const std::vector<std::pair<const char*, int>> rules = {
      {"sim", 80},     {"strategies", 80}, {"models", 120}, {"workloads", 120},
      {"traces", 120}, {"profiler", 120},  {"python", 120}, {"bench", 120},
  };
  for (const auto& [folder, most] : rules) {
    const auto found = long_functions(folder, most);
    for (const auto& f : found)
      UNSCOPED_INFO(f);
    CHECK(found.empty());
  }
}

namespace {

// The product's source folders (not test/) and their files that count as source lines.
const std::vector<std::string>& product_folders() {
  static const std::vector<std::string> folders = {"models",   "workloads", "strategies", "traces",
                                                   "profiler", "sim",       "python",     "bench"};
  return folders;
}

bool is_source(const fs::path& p) {
  const auto ext = p.extension().string();
  return ext == ".h" || ext == ".cpp" || ext == ".cu";
}

// The room of a product file: its top folder, or its first sub-folder under sim/ or strategies/.
std::string size_room_of(const std::string& rel) {
  const auto first = rel.find('/');
  const std::string top = rel.substr(0, first);
  if (top != "sim" && top != "strategies") return top;
  const auto second = rel.find('/', first + 1);
  return second == std::string::npos ? top : rel.substr(0, second);
}

}  // namespace

TEST_CASE("sim::Limits: no source file is over 800 lines", "[sim][layout]") {
  int files = 0;
  for (const auto& folder : product_folders()) {
    for (const auto& e : fs::recursive_directory_iterator(limits_source_root() / folder)) {
      if (!is_source(e.path())) continue;
      ++files;
      const int n = limits_line_count(e.path());
      INFO(fs::relative(e.path(), limits_source_root()).generic_string() << ": " << n << " lines");
      CHECK(n <= 800);
    }
  }
  CHECK(files > 100);
}

TEST_CASE("sim::Limits: no room holds more than 15% of the non-test source lines", "[sim][layout]") {
  std::map<std::string, long> lines;
  long total = 0;
  for (const auto& folder : product_folders()) {
    for (const auto& e : fs::recursive_directory_iterator(limits_source_root() / folder)) {
      if (!is_source(e.path())) continue;
      const int n = limits_line_count(e.path());
      lines[size_room_of(fs::relative(e.path(), limits_source_root()).generic_string())] += n;
      total += n;
    }
  }
  REQUIRE(total > 10000);
  for (const auto& [room, n] : lines) {
    const double share = static_cast<double>(n) / static_cast<double>(total);
    INFO(room << ": " << n << " of " << total << " lines (" << 100.0 * share << "%)");
    CHECK(share <= 0.15);
  }
  CHECK(size_room_of("strategies/gavel/gavel.cpp") == "strategies/gavel");
  CHECK(size_room_of("strategies/srtf.cpp") == "strategies");
  CHECK(size_room_of("sim/engine/engine.cpp") == "sim/engine");
  CHECK(size_room_of("models/nnls.cpp") == "models");
}
