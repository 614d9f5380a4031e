// test/fuzz/fuzz_main.cpp — the libFuzzer executable (fuzz/ringsched_fuzz): the environment variable
// RINGSCHED_FUZZ_TARGET names the registered target it fuzzes (test/fuzz/fuzz_entries.h). Built only with
// -DRINGSCHED_FUZZ=ON (clang); run it with scripts/fuzz.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <string_view>

#include "test/fuzz/fuzz_entries.h"

namespace {

// The target RINGSCHED_FUZZ_TARGET names; exits 2 naming the valid ones when it is unset or unknown.
const ringsched::fuzz::Target& chosen_target() {
  const char* name = std::getenv("RINGSCHED_FUZZ_TARGET");
  const auto* t = ringsched::fuzz::find_target(name == nullptr ? "" : name);
  if (t == nullptr) {
    std::fprintf(stderr, "RINGSCHED_FUZZ_TARGET: unknown fuzz target '%s' (valid:", name == nullptr ? "" : name);
    for (const auto& v : ringsched::fuzz::targets())
      std::fprintf(stderr, " %s", v.name);
    std::fprintf(stderr, ")\n");
    std::exit(2);
  }
  return *t;
}

}  // namespace

// RINGSCHED_FUZZ_LIST=1: print every target's name (one a line) and exit. RINGSCHED_FUZZ_SEEDS_TO=DIR: write the
// target's seed corpus (fuzz_entries.cpp) into DIR as seed-N and exit.
extern "C" int LLVMFuzzerInitialize(int* /*argc*/, char*** /*argv*/) {
  const char* list = std::getenv("RINGSCHED_FUZZ_LIST");
  if (list != nullptr && std::string_view(list) == "1") {
    for (const auto& t : ringsched::fuzz::targets())
      std::printf("%s\n", t.name);
    std::exit(0);
  }
  const auto& t = chosen_target();
  const char* dir = std::getenv("RINGSCHED_FUZZ_SEEDS_TO");
  if (dir == nullptr || *dir == '\0') return 0;
  int n = 0;
  for (const auto& s : t.seeds()) {
    std::ofstream out(std::string(dir) + "/seed-" + std::to_string(n++), std::ios::binary);
    out.write(s.data(), static_cast<std::streamsize>(s.size()));
  }
  std::exit(0);
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const ringsched::fuzz::Target& target = chosen_target();
  target.run(std::string_view(reinterpret_cast<const char*>(data), size));
  return 0;
}
