// test/sim/test_layout.cpp — the house rules of the source layout (docs/design.md, README "Layout"): dependencies
// point one way, models <- workloads <- {strategies, profiler, traces} <- sim/{cluster, fitting} <- sim/beliefs <-
// sim/engine <- sim/experiments <- sim/sweeps <- sim/cli, and no source includes a header from a folder to its right
// (or from a sibling room). Read from the source tree.
#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <regex>
#include <string>
#include <vector>

#include <unistd.h>

namespace {

namespace fs = std::filesystem;

// Rank of a room; a file may include headers of rooms with a lower rank and of its own room. Rooms of equal rank are
// siblings and may not include each other.
const std::map<std::string, int>& room_ranks() {
  // python: the Python package, over sim/cli (its run options) and everything below.
  static const std::map<std::string, int> ranks = {
      {"models", 0},      {"workloads", 1},   {"strategies", 2},  {"profiler", 2},   {"traces", 2},
      {"sim/cluster", 3}, {"sim/fitting", 3}, {"sim/beliefs", 4}, {"sim/engine", 5}, {"sim/experiments", 6},
      {"sim/sweeps", 7},  {"sim/cli", 8},     {"python", 9},
  };
  return ranks;
}

// The room of a repository-relative path ("sim/engine/engine.h" -> "sim/engine"), or "" for other folders.
std::string room_of(const std::string& rel) {
  std::string best;
  for (const auto& [room, rank] : room_ranks()) {
    (void)rank;
    if (rel.rfind(room + "/", 0) == 0 && room.size() > best.size()) best = room;
  }
  return best;
}

struct Violation {
  std::string file;
  std::string include;
};

// Calls f(file, its room, included path) for every quoted include of every source of every room (a file of a nested
// room is read once, under that room).
void for_each_include(const fs::path& root,
                      const std::function<void(const std::string&, const std::string&, const std::string&)>& f) {
  const std::regex include_re(R"re(^\s*#\s*include\s+"([^"]+)")re");
  for (const auto& [room, rank] : room_ranks()) {
    (void)rank;
    const fs::path dir = root / room;
    if (!fs::is_directory(dir)) continue;
    for (const auto& entry : fs::recursive_directory_iterator(dir)) {
      const auto ext = entry.path().extension().string();
      if (ext != ".h" && ext != ".cpp" && ext != ".cu") continue;
      const std::string rel = fs::relative(entry.path(), root).generic_string();
      if (room_of(rel) != room) continue;
      f(rel, room, "");  // every file, included or not, is a concept
      std::ifstream in(entry.path());
      std::string line;
      std::smatch m;
      while (std::getline(in, line))
        if (std::regex_search(line, m, include_re)) f(rel, room, m[1].str());
    }
  }
}

std::vector<Violation> layout_violations(const fs::path& root) {
  std::vector<Violation> out;
  for_each_include(root, [&](const std::string& rel, const std::string& room, const std::string& inc) {
    if (inc.empty()) return;
    const std::string target = room_of(inc);
    if (target.empty() || target == room) return;
    if (room_ranks().at(target) >= room_ranks().at(room)) out.push_back({rel, inc});
  });
  return out;
}

std::string concept_of(const std::string& path) {
  return path.substr(0, path.rfind('.'));
}

// Concept-level include cycles: a concept is a header and its source (path without extension); an edge a -> b when
// a.h or a.cpp includes b.h. Returns one cycle per back edge found by a depth-first search, as "a -> b -> a".
std::vector<std::string> include_cycles(const fs::path& root) {
  std::map<std::string, std::vector<std::string>> edges;
  for_each_include(root, [&](const std::string& rel, const std::string&, const std::string& inc) {
    auto& out = edges[concept_of(rel)];
    if (!inc.empty() && !room_of(inc).empty() && concept_of(inc) != concept_of(rel)) out.push_back(concept_of(inc));
  });
  std::map<std::string, int> state;  // 0 new, 1 on the stack, 2 done
  std::vector<std::string> stack;
  std::vector<std::string> cycles;
  std::function<void(const std::string&)> visit = [&](const std::string& v) {
    state[v] = 1;
    stack.push_back(v);
    for (const auto& w : edges[v]) {
      if (state[w] == 1) {
        std::string c;
        for (auto it = std::find(stack.begin(), stack.end(), w); it != stack.end(); ++it)
          c += *it + " -> ";
        cycles.push_back(c + w);
      } else if (state[w] == 0 && edges.count(w) != 0) {
        visit(w);
      }
    }
    stack.pop_back();
    state[v] = 2;
  };
  std::vector<std::string> nodes;
  for (const auto& [v, out] : edges)
    nodes.push_back(v);
  for (const auto& v : nodes)
    if (state[v] == 0) visit(v);
  return cycles;
}

}  // namespace

TEST_CASE("sim::Layout: no room includes a header of a room above it or of a sibling room", "[sim][layout]") {
  const fs::path root = fs::path(RINGSCHED_TEST_DIR).parent_path();
  REQUIRE(fs::is_directory(root / "sim" / "engine"));
  std::string report;
  for (const auto& v : layout_violations(root))
    report += v.file + " includes " + v.include + "\n";
  INFO(report);
  CHECK(report.empty());
}

TEST_CASE("sim::Layout: room_of maps paths to the innermost room", "[sim][layout]") {
  CHECK(room_of("sim/engine/engine.h") == "sim/engine");
  CHECK(room_of("strategies/eight.cpp") == "strategies");
  CHECK(room_of("profiler/mlp.h") == "profiler");
  CHECK(room_of("workloads/measurement/measurement.h") == "workloads");
  CHECK(room_of("sim/fitting/speed_fit.h") == "sim/fitting");
  CHECK(room_of("sim/sweeps/sweep.h") == "sim/sweeps");
  CHECK(room_of("bench/bench_engine.cpp").empty());
}

TEST_CASE("sim::Layout: an include pointing up or sideways is reported", "[sim][layout]") {
  const fs::path root = fs::temp_directory_path() / ("ringsched-layout-" + std::to_string(::getpid()));
  fs::remove_all(root);
  fs::create_directories(root / "sim" / "engine");
  fs::create_directories(root / "sim" / "cluster");
  std::ofstream(root / "sim" / "engine" / "a.cpp") << "#include \"sim/experiments/x.h\"\n#include \"models/fit.h\"\n";
  std::ofstream(root / "sim" / "cluster" / "b.h") << "  #  include \"sim/beliefs/y.h\"\n#include <vector>\n";
  const auto v = layout_violations(root);
  fs::remove_all(root);
  REQUIRE(v.size() == 2);
  CHECK(((v[0].file == "sim/cluster/b.h" && v[1].file == "sim/engine/a.cpp") ||
         (v[1].file == "sim/cluster/b.h" && v[0].file == "sim/engine/a.cpp")));
}

TEST_CASE("sim::Layout: no two concepts (header + source) include each other, directly or around a loop",
          "[sim][layout]") {
  const fs::path root = fs::path(RINGSCHED_TEST_DIR).parent_path();
  std::string report;
  for (const auto& c : include_cycles(root))
    report += c + "\n";
  INFO(report);
  CHECK(report.empty());
}

TEST_CASE("sim::Layout: an include loop through a source file is reported", "[sim][layout]") {
  const fs::path root = fs::temp_directory_path() / ("ringsched-cycle-" + std::to_string(::getpid()));
  fs::remove_all(root);
  fs::create_directories(root / "workloads");
  std::ofstream(root / "workloads" / "a.h") << "#include \"workloads/b.h\"\n";
  std::ofstream(root / "workloads" / "b.h") << "#include <vector>\n";
  std::ofstream(root / "workloads" / "b.cpp") << "#include \"workloads/b.h\"\n#include \"workloads/c.h\"\n";
  std::ofstream(root / "workloads" / "c.h") << "#include \"workloads/a.h\"\n";
  const auto cycles = include_cycles(root);
  fs::remove_all(root);
  REQUIRE(cycles.size() == 1);
  CHECK(cycles[0] == "workloads/a -> workloads/b -> workloads/c -> workloads/a");
}

namespace {

// Sources outside test/ (and build folders) that include <regex>: std::regex recurses per character of its input and
// overflows the stack on long text (issue 33: 50,000 digits in a number flag, a 100,000-character Gavel job type).
std::vector<std::string> regex_includes(const fs::path& root) {
  std::vector<std::string> out;
  for (auto it = fs::recursive_directory_iterator(root); it != fs::recursive_directory_iterator(); ++it) {
    const std::string name = it->path().filename().string();
    const bool top = it.depth() == 0;
    if (it->is_directory() && (name[0] == '.' || (top && (name == "test" || name.rfind("build", 0) == 0)))) {
      it.disable_recursion_pending();
      continue;
    }
    const auto ext = it->path().extension().string();
    if (!it->is_regular_file() || (ext != ".h" && ext != ".hpp" && ext != ".cpp" && ext != ".cu")) continue;
    std::ifstream in(it->path());
    std::string line;
    while (std::getline(in, line)) {
      std::string squeezed;
      for (char c : line)
        if (c != ' ' && c != '\t') squeezed += c;
      if (squeezed.rfind("#include<regex>", 0) == 0) out.push_back(fs::relative(it->path(), root).generic_string());
    }
  }
  return out;
}

}  // namespace

TEST_CASE("sim::Layout: no source outside test/ includes <regex> (readers and flags scan by hand, in linear time)",
          "[sim][layout]") {
  const fs::path root = fs::path(RINGSCHED_TEST_DIR).parent_path();
  REQUIRE(fs::is_directory(root / "sim" / "cli"));
  std::string report;
  for (const auto& f : regex_includes(root))
    report += f + "\n";
  INFO(report);
  CHECK(report.empty());
}
