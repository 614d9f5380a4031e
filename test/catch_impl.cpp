// test/catch_impl.cpp — Catch2's implementation, compiled once into ringsched_catch_impl and linked into every test
// executable, whose main calls run_catch_session (Catch2 v2 declares Catch::Session only in its implementation
// part, so mains reach it through this function). Compiling the implementation per executable cost about 45 s each
// in the 2-core sanitizer build.
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>

#include "test/catch_session.h"

namespace ringsched::test {

int run_catch_session(int argc, char** argv) {
  return Catch::Session().run(argc, argv);
}

}  // namespace ringsched::test
