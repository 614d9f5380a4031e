// test/models/test_allreduce.cpp — Eqs. 2-4 all-reduce costs, hand-computed, and binary-block decomposition.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "models/allreduce.h"

using ringsched::models::allreduce_algo_names;
using ringsched::models::allreduce_time;
using ringsched::models::AllreduceAlgo;
using ringsched::models::AllreduceParams;
using ringsched::models::binary_blocks;
using ringsched::models::binary_blocks_allreduce_time;
using ringsched::models::halving_doubling_allreduce_time;
using ringsched::models::parse_allreduce_algo;
using ringsched::models::ring_allreduce_time;
using ringsched::models::to_string;

namespace {
// alpha = 2 s/message, beta = 0.5 s/byte, gamma = 0.25 s/byte, n = 64 bytes. Then for p > 1
//   bandwidth + reduction term = 2((p-1)/p)*64*0.5 + ((p-1)/p)*64*0.25 = 80 (p-1)/p
//   ring:             4 (p-1)          + 80 (p-1)/p
//   halving/doubling: 4 ceil(log2 p)   + 80 (p-1)/p
//   binary blocks:    HD(largest block) + sum over the other blocks b of 2(2 + (64/b)(0.5 + 0.125)) = 4 + 80/b
const AllreduceParams kParams{2.0, 0.5, 0.25};
constexpr double kBytes = 64.0;
}  // namespace

TEST_CASE("models::allreduce: ring cost matches Eq. 2", "[models][allreduce]") {
  CHECK(ring_allreduce_time(1, kBytes, kParams) == 0.0);
  CHECK(ring_allreduce_time(2, kBytes, kParams) == Approx(44.0));         // 4 + 40
  CHECK(ring_allreduce_time(8, kBytes, kParams) == Approx(98.0));         // 28 + 70
  CHECK(ring_allreduce_time(9, kBytes, kParams) == Approx(103.1111111));  // 32 + 640/9
  CHECK(ring_allreduce_time(16, kBytes, kParams) == Approx(135.0));       // 60 + 75
}

TEST_CASE("models::allreduce: halving/doubling cost matches Eq. 3", "[models][allreduce]") {
  CHECK(halving_doubling_allreduce_time(1, kBytes, kParams) == 0.0);
  CHECK(halving_doubling_allreduce_time(2, kBytes, kParams) == Approx(44.0));        // 4*1 + 40
  CHECK(halving_doubling_allreduce_time(8, kBytes, kParams) == Approx(82.0));        // 4*3 + 70
  CHECK(halving_doubling_allreduce_time(9, kBytes, kParams) == Approx(87.1111111));  // 4*ceil(log2 9)=16 + 640/9
  CHECK(halving_doubling_allreduce_time(16, kBytes, kParams) == Approx(91.0));       // 4*4 + 75
}

TEST_CASE("models::allreduce: binary blocks cost matches Eq. 4 and penalises 9 against 8", "[models][allreduce]") {
  CHECK(binary_blocks_allreduce_time(1, kBytes, kParams) == 0.0);
  CHECK(binary_blocks_allreduce_time(2, kBytes, kParams) == Approx(44.0));
  CHECK(binary_blocks_allreduce_time(8, kBytes, kParams) == Approx(82.0));
  // 9 = 8 + 1: HD(8) = 82, plus the 1-block hands over the whole vector: 4 + 80/1 = 84  -> 166
  CHECK(binary_blocks_allreduce_time(9, kBytes, kParams) == Approx(166.0));
  // 13 = 8 + 4 + 1: 82 + (4 + 80/4) + (4 + 80/1) = 190
  CHECK(binary_blocks_allreduce_time(13, kBytes, kParams) == Approx(190.0));
  CHECK(binary_blocks_allreduce_time(16, kBytes, kParams) == Approx(91.0));
  // The 8 -> 9 penalty is larger than 8 -> 16 costs: 9 GPUs communicate more slowly than 16.
  CHECK(binary_blocks_allreduce_time(9, kBytes, kParams) - binary_blocks_allreduce_time(8, kBytes, kParams) ==
        Approx(84.0));
  CHECK(binary_blocks_allreduce_time(9, kBytes, kParams) > binary_blocks_allreduce_time(16, kBytes, kParams));
}

TEST_CASE("models::allreduce: binary blocks equals halving/doubling at powers of two", "[models][allreduce]") {
  const AllreduceParams c{1e-5, 1e-9, 3e-10};
  for (int p = 1; p <= 1024; p *= 2) {
    INFO("p = " << p);
    CHECK(binary_blocks_allreduce_time(p, 1e8, c) == Approx(halving_doubling_allreduce_time(p, 1e8, c)));
  }
}

TEST_CASE("models::allreduce: binary_blocks splits p into its binary digits", "[models][allreduce]") {
  CHECK(binary_blocks(13) == std::vector<int>{8, 4, 1});
  CHECK(binary_blocks(16) == std::vector<int>{16});
  CHECK(binary_blocks(9) == std::vector<int>{8, 1});
  CHECK(binary_blocks(7) == std::vector<int>{4, 2, 1});
  CHECK(binary_blocks(0).empty());
}

TEST_CASE("models::allreduce: dispatch and names round-trip", "[models][allreduce]") {
  for (const std::string& name : allreduce_algo_names()) {
    AllreduceAlgo algo{};
    REQUIRE(parse_allreduce_algo(name, algo));
    CHECK(to_string(algo) == name);
  }
  AllreduceAlgo algo = AllreduceAlgo::kRing;
  CHECK_FALSE(parse_allreduce_algo("tree", algo));
  CHECK(allreduce_time(AllreduceAlgo::kRing, 9, kBytes, kParams) == Approx(103.1111111));
  CHECK(allreduce_time(AllreduceAlgo::kHalvingDoubling, 9, kBytes, kParams) == Approx(87.1111111));
  CHECK(allreduce_time(AllreduceAlgo::kBinaryBlocks, 9, kBytes, kParams) == Approx(166.0));
}
