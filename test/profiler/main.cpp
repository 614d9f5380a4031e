// test/profiler/main.cpp — main of the serial (no MPI) profiler tests (Catch2's implementation: test/catch_impl.cpp).
#include "test/catch_session.h"

int main(int argc, char** argv) {
  return ringsched::test::run_catch_session(argc, argv);
}
