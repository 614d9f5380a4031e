// test/sim/cli/test_cli_strategies_pools.cpp — `ringsched strategies` says for each strategy whether it runs on GPU
// pools (cluster.pools), and why not for those that do not.
#include <catch2/catch.hpp>

#include <string>

#include "test/sim/cli_util.h"

using namespace ringsched;
using Catch::Contains;

TEST_CASE("cli::strategies: each strategy says whether it runs on GPU pools, and why not", "[cli][pools]") {
  const test::CliResult r = test::run_cli("strategies");
  REQUIRE(r.code == 0);
  for (const char* name : {"srtf  (beliefs: history", "tiresias  (beliefs: none", "afs  (beliefs: history",
                           "exploratory  (beliefs: history", "precompute  (beliefs: history", "fifo  (beliefs: none",
                           "sjf  (beliefs: oracle", "qssf  (beliefs: none"})
    CHECK_THAT(r.out, Contains(std::string(name) + "; GPU pools: yes)"));
  CHECK_THAT(r.out, Contains("gavel_fifo  (beliefs: oracle; GPU pools: only)"));
  CHECK_THAT(r.out, Contains("eight  (beliefs: none; GPU pools: no)"));
  CHECK_THAT(r.out, Contains("optimal  (beliefs: history; GPU pools: no)"));
  CHECK_THAT(r.out, Contains("Not on GPU pools: its DP is exact over GPU counts on one type"));
  CHECK_THAT(r.out, Contains("Not on GPU pools: it is the paper's fixed-size FCFS baseline"));
}
