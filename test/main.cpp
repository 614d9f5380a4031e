// test/main.cpp — the Catch2 main for ringsched_tests.
#define CATCH_CONFIG_MAIN
#include <catch2/catch.hpp>
