// test/fuzz/test_fuzz_replay.cpp — every fuzz target on its seed corpus and on every input that ever failed
// (test/fuzz/regressions/<target>/): in the regular suite (and its ASan + UBSan build), so a fixed finding stays
// fixed on machines without clang's libFuzzer.
#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "test/fuzz/fuzz_entries.h"

namespace fs = std::filesystem;
using namespace ringsched::fuzz;

TEST_CASE("fuzz::targets: each accepts its seed corpus and its past findings without failing", "[fuzz]") {
  REQUIRE(targets().size() >= 6);
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

TEST_CASE("fuzz::targets: hostile inputs are rejected, not crashed on", "[fuzz]") {
  // One input per class found by fuzzing and probing (issue 12), through the same entries.
  const struct {
    const char* target;
    const char* input;
  } cases[] = {
      {"config", R"({"cluster": {"nodes": 1e309}})"},
      {"config", "\xff\xfe{"},
      {"results", R"({"format": 5, "format_version": "x"})"},
      {"results", R"({"format": "ringsched-sweep", "cells": {}})"},
      {"points_csv", "gpus,nodes,global_batch,step_seconds\n1,1,1e308,1e-320\n"},
      {"generic_trace", "timestamp,duration,num_gpus\n1e308,1,1\n0,1,1\n"},
      {"pollux_trace", "name,time,application,num_replicas,batch_size\nj,0,ncf,1000000,256\n"},
  };
  for (const auto& c : cases) {
    INFO(c.target << ": " << c.input);
    const Target* t = find_target(c.target);
    REQUIRE(t != nullptr);
    CHECK_NOTHROW(t->run(c.input));
  }
}
