// test/catch_session.h — runs the Catch2 session (implementation in test/catch_impl.cpp) for a test main.
#pragma once

namespace ringsched::test {

// Catch::Session().run(argc, argv): the exit code of the test run.
int run_catch_session(int argc, char** argv);

}  // namespace ringsched::test
