// test/fuzz/test_fuzz_replay.cpp — every fuzz target on its seed corpus and on every input that ever failed
// (test/fuzz/regressions/<target>/): in the regular suite (and its ASan + UBSan build), so a fixed finding stays
// fixed on machines without clang's libFuzzer.
#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "test/fuzz/fuzz_entries.h"
#include "test/sanitized.h"

namespace fs = std::filesystem;
using namespace ringsched::fuzz;

TEST_CASE("fuzz::targets: each accepts its seed corpus and its past findings without failing", "[fuzz]") {
  REQUIRE(targets().size() >= 10);
  for (const auto& t : targets()) {
    DYNAMIC_SECTION(t.name) {
      const auto seeds = t.seeds();
      CHECK(!seeds.empty());  // a target with no seeds starts blind
      for (const auto& s : seeds)
        CHECK_NOTHROW(t.run(s));
      std::vector<fs::path> found;
      std::error_code ec;
      for (fs::directory_iterator it(regressions_dir(t.name), ec), end; !ec && it != end; it.increment(ec))
        if (it->is_regular_file()) found.push_back(it->path());
      std::sort(found.begin(), found.end());
      for (const auto& p : found) {
        INFO("regression input " << p.string());
        std::ifstream in(p, std::ios::binary);
        std::ostringstream ss;
        ss << in.rdbuf();
        CHECK_NOTHROW(t.run(ss.str()));
      }
    }
  }
}

TEST_CASE("fuzz::targets: hostile inputs are rejected, not crashed on",
          "[fuzz]") {  // One input per class found by fuzzing and probing (issue 12), through the same entries.
  const struct {
    const char* target;
    std::string input;
  } cases[] = {
      {"config", R"({"cluster": {"nodes": 1e309}})"},
      {"config", "\xff\xfe{"},
      {"results", R"({"format": 5, "format_version": "x"})"},
      {"results", R"({"format": "ringsched-sweep", "cells": {}})"},
      {"points_csv", "gpus,nodes,global_batch,step_seconds\n1,1,1e308,1e-320\n"},
      {"generic_trace", "timestamp,duration,num_gpus\n1e308,1,1\n0,1,1\n"},
      {"pollux_trace", "name,time,application,num_replicas,batch_size\nj,0,ncf,1000000,256\n"},
      // issue 33: std::regex's recursion on a long job type; nesting past the measurement reader's parser
      {"gavel_throughputs", "{\"v100\": {\"('" + std::string(100000, 'j') + "', 1)\": {\"null\": 1}}}"},
      {"measurement", "{\"schema\": " + std::string(100000, '[') + std::string(100000, ']') + "}"},
      {"fit_measurement", std::string(1000000, '{')},
      {"gavel_throughputs", R"j({"v100": {"('A', 1)": {"null": 0}}, "k80": {"('A', 1)": {"null": 1e-320}}})j"},
  };
  for (const auto& c : cases) {
    INFO(c.target << ": " << c.input.substr(0, 200));
    const Target* t = find_target(c.target);
    REQUIRE(t != nullptr);
    CHECK_NOTHROW(t->run(c.input));
  }
}

namespace {

// Inputs the 64 KB mutator never makes (issue 25): nesting tens of thousands deep, and a seed grown past megabytes
// (its data rows repeated to 1 MB; a 1 MB string; 100,000 numbers).
// 1 MB (256 KB under the sanitizers, whose readers are ten times slower; the depth cases are the same).
constexpr std::size_t kBig = ringsched::test::kSanitized ? (256u << 10) : (1u << 20);

std::vector<std::pair<std::string, std::string>> structured_inputs(const Target& t) {
  std::vector<std::pair<std::string, std::string>> out;
  out.emplace_back("100,000 nested arrays", std::string(100000, '[') + std::string(100000, ']'));
  out.emplace_back("100,000 unclosed objects", std::string(100000, '{'));
  const auto seeds = t.seeds();
  const std::string seed = seeds.empty() ? std::string("1") : seeds.front();
  std::string wrapped = seed;
  for (int i = 0; i < 300; ++i)
    wrapped = "{\"k\": " + wrapped + "}";
  out.emplace_back("a seed inside 300 objects", wrapped);
  const auto eol = seed.find('\n');
  if (eol != std::string::npos && eol + 1 < seed.size()) {
    const std::string header = seed.substr(0, eol + 1);
    const std::string body = seed.substr(eol + 1);
    std::string big = header;
    while (big.size() < kBig)
      big += body.back() == '\n' ? body : body + "\n";
    out.emplace_back("the first seed's rows repeated to 1 MB", big);
  }
  out.emplace_back("a 1 MB string", "\"" + std::string(kBig, 'a') + "\"");
  // Issue 33: long names and deep values inside an otherwise valid seed, and one line of megabytes.
  // The name goes inside the first Gavel job type "('...", else the first string; at the start when neither.
  const auto job_type = seed.find("('");
  const auto quote = seed.find('"');
  const std::size_t name_at = job_type != std::string::npos ? job_type + 2 : quote != std::string::npos ? quote + 1 : 0;
  std::string named = seed;
  named.insert(name_at, std::string(100000, 'n'));
  out.emplace_back("a seed with a 100,000-character name (a Gavel job type, a key)", named);
  const auto value_at = seed.find(':');
  if (value_at != std::string::npos) {
    std::string deep = seed;
    deep.insert(value_at + 1, std::string(100000, '[') + std::string(100000, ']') + ",");
    out.emplace_back("a seed with 100,000 nested arrays at its first value", deep);
  }
  const std::string head = eol == std::string::npos ? std::string() : seed.substr(0, eol + 1);
  out.emplace_back("a 2 MB line after the seed's first", head + std::string(2u << 20, 'x') + "\n" + seed);
  std::string array = "[";
  for (int i = 0; i < (ringsched::test::kSanitized ? 20000 : 100000); ++i)
    array += i == 0 ? "1e308" : ",1e308";
  out.emplace_back("an array of 100,000 numbers", array + "]");
  return out;
}

}  // namespace

TEST_CASE("fuzz::targets: large and deeply nested inputs from a structured generator are rejected, not crashed on",
          "[fuzz][hostile]") {
  // One section per target, its inputs built inside it: Catch runs the test case once per section, and building
  // every target's megabyte inputs on each of those runs cost more than running them (32 s under the sanitizers).
  for (const auto& t : targets()) {
    DYNAMIC_SECTION(t.name) {
      for (const auto& [what, input] : structured_inputs(t)) {
        INFO(t.name << ": " << what);
        CHECK_NOTHROW(t.run(input));
      }
    }
  }
}
