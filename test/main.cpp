// test/main.cpp — the main of ringsched_tests (Catch2's implementation is in catch_impl.cpp).
#include "test/catch_session.h"

int main(int argc, char** argv) {
  return ringsched::test::run_catch_session(argc, argv);
}
