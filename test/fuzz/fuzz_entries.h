// test/fuzz/fuzz_entries.h — the fuzz targets' bodies: each feeds bytes to one of the project's input readers the
// way the command line does. An input may be accepted or rejected with InputError; anything else (another
// exception, a sanitizer report, a crash, a hang) is a finding. The libFuzzer executable (fuzz_main.cpp, built with
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

// A target registers itself beside its body with one object at namespace scope (unique name, even in a unity build):
//   const TargetRegistrar config_fuzz_target{{"config", "experiment config: ...", run_config, config_seeds}};
// Nothing else lists targets: the library, the libFuzzer executable (one, the target chosen at run time), the replay
// tests and scripts/fuzz all take them from here. Two targets of one name make targets() throw std::logic_error.
struct TargetRegistrar {
  explicit TargetRegistrar(const Target& target);
};

// Every registered target, in name order.
const std::vector<Target>& targets();
const Target* find_target(std::string_view name);

// test/fuzz/regressions/<target>/: inputs that once failed, replayed by the test suite.
std::string regressions_dir(std::string_view target);

// For targets whose reader takes a path: `data` written to `name` (may hold a folder) in a private folder of this
// process, removed at exit; returns the path.
std::string scratch_file(const std::string& name, std::string_view data);
// A file's bytes ("" when it cannot be read): seed inputs from the repository.
std::string file_bytes(const std::string& path);

}  // namespace ringsched::fuzz
