// test/fuzz/fuzz_entries.h — the fuzz targets' bodies: each feeds bytes to one of the project's input readers the
// way the command line does. An input may be accepted or rejected with InputError; anything else (another
// exception, a sanitizer report, a crash, a hang) is a finding. The libFuzzer executables (fuzz_main.cpp, built with
// -DRINGSCHED_FUZZ=ON under clang) and the regular test suite (test_fuzz_replay.cpp, which replays the seed corpora
// and every input that ever failed) call the same functions.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace ringsched::fuzz {

struct Target {
  const char* name;
  const char* what;  // the reader it exercises, for --help and docs/reliability.md
  void (*run)(std::string_view data);
  std::vector<std::string> (*seeds)();  // seed inputs from the repository (examples, shipped data, fixtures)
};

// Every target, by name: config, pollux_trace, generic_trace, gavel_trace, points_csv, goodput_tables, results,
// measurement, fit_measurement, gavel_throughputs, checkpoint.
const std::vector<Target>& targets();
const Target* find_target(std::string_view name);

// test/fuzz/regressions/<target>/: inputs that once failed, replayed by the test suite.
std::string regressions_dir(std::string_view target);

}  // namespace ringsched::fuzz
