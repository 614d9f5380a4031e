// test/fuzz/fuzz_main.cpp — one libFuzzer executable per target: RINGSCHED_FUZZ_TARGET names the entry
// (test/fuzz/fuzz_entries.h). Built only with -DRINGSCHED_FUZZ=ON (clang); run them with scripts/fuzz.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <string>
#include <string_view>

#include "test/fuzz/fuzz_entries.h"

// RINGSCHED_FUZZ_SEEDS_TO=DIR: write the target's seed corpus (fuzz_entries.cpp) into DIR as seed-N and exit.
extern "C" int LLVMFuzzerInitialize(int* /*argc*/, char*** /*argv*/) {
  const char* dir = std::getenv("RINGSCHED_FUZZ_SEEDS_TO");
  if (dir == nullptr || *dir == '\0') return 0;
  const auto* t = ringsched::fuzz::find_target(RINGSCHED_FUZZ_TARGET);
  if (t == nullptr) std::abort();
  int n = 0;
  for (const auto& s : t->seeds()) {
    std::ofstream out(std::string(dir) + "/seed-" + std::to_string(n++), std::ios::binary);
    out.write(s.data(), static_cast<std::streamsize>(s.size()));
  }
  std::exit(0);
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const ringsched::fuzz::Target* target = [] {
    const auto* t = ringsched::fuzz::find_target(RINGSCHED_FUZZ_TARGET);
    if (t == nullptr) std::abort();
    return t;
  }();
  target->run(std::string_view(reinterpret_cast<const char*>(data), size));
  return 0;
}
