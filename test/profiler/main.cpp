// test/profiler/main.cpp — Catch2 main of the serial (no MPI) profiler tests.
#define CATCH_CONFIG_MAIN
#include <catch2/catch.hpp>
