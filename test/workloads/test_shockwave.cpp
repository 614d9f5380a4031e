// test/workloads/test_shockwave.cpp — Shockwave's dynamic-job rules by hand: Accordion's critical regimes and 30%
// floor, GNS's stages (with its last-epoch quirk), epochs from steps, and an epoch schedule's phases, speed factors
// and isolated time; the `shockwave` catalog leaves out the job types its file lists at throughput 0.
#include <catch2/catch.hpp>

#include <fstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "workloads/data_catalogs.h"
#include "workloads/shockwave.h"

using namespace ringsched;

TEST_CASE("workloads::Shockwave: Accordion runs the largest batch outside the critical regimes past 30% of epochs",
          "[shockwave]") {
  // LM: critical regime epochs 0..9; 0.3 x 20 = 6, so epochs 10..19 run at LM's largest batch, 80.
  const std::vector<int> lm = shockwave_batches(ShockwaveMode::kAccordion, "LM", 10, 20, 1);
  REQUIRE(lm.size() == 20);
  for (int e = 0; e < 20; ++e)
    CHECK(lm[static_cast<std::size_t>(e)] == (e < 10 ? 10 : 80));
  // ResNet-18 at 32 over 200 epochs: critical 0..9, 150..159, 250..259; the 30% floor keeps epochs up to 60 at 32.
  const std::vector<int> r18 = shockwave_batches(ShockwaveMode::kAccordion, "ResNet-18", 32, 200, 1);
  CHECK(r18[60] == 32);
  CHECK(r18[61] == 256);
  CHECK(r18[149] == 256);
  CHECK(r18[150] == 32);
  CHECK(r18[159] == 32);
  CHECK(r18[160] == 256);
  // Transformer never adapts; an initial batch the regimes do not list has no rule (Shockwave: NameError).
  CHECK(shockwave_batches(ShockwaveMode::kAccordion, "Transformer", 64, 5, 1) == std::vector<int>(5, 64));
  CHECK_THROWS_AS(shockwave_batches(ShockwaveMode::kAccordion, "ResNet-18", 48, 5, 1), std::invalid_argument);
}

TEST_CASE("workloads::Shockwave: GNS doubles by stages and the last epoch keeps the first stage's batch",
          "[shockwave]") {
  // LM at 10 on 1 GPU, 50 epochs: x2 for 11..20, x4 for 21..40, x8 (80, LM's limit) for 41..48; the later stages
  // stop before the last epoch, which keeps the initial 10 (the first stage ended at 20).
  const std::vector<int> b = shockwave_batches(ShockwaveMode::kGns, "LM", 10, 50, 1);
  for (int e = 0; e < 50; ++e) {
    const int want = e < 11 ? 10 : e < 21 ? 20 : e < 41 ? 40 : e < 49 ? 80 : 10;
    INFO("epoch " << e);
    CHECK(b[static_cast<std::size_t>(e)] == want);
  }
  // ResNet-18 at 128 on 1 GPU, 15 epochs: one stage to the end (it sets the last epoch too): 256 from epoch 11.
  const std::vector<int> r = shockwave_batches(ShockwaveMode::kGns, "ResNet-18", 128, 15, 1);
  CHECK(r[10] == 128);
  CHECK(r[11] == 256);
  CHECK(r[14] == 256);
  // Not more epochs than the case's threshold (11): unchanged.
  CHECK(shockwave_batches(ShockwaveMode::kGns, "LM", 10, 11, 1) == std::vector<int>(11, 10));
  CHECK(shockwave_batches(ShockwaveMode::kStatic, "LM", 10, 3, 1) == std::vector<int>(3, 10));
}

TEST_CASE("workloads::Shockwave: epochs, job types and modes as Shockwave reads them", "[shockwave]") {
  // 134,583 steps of LM at 10: ceil(59675 / 10) = 5968 steps per epoch -> ceil(22.55) = 23 epochs.
  CHECK(shockwave_epochs(134583, shockwave_dataset_size("LM"), 10) == 23);
  std::string model;
  int batch = 0;
  REQUIRE(split_shockwave_job_type("Recommendation (batch size 8192)", model, batch));
  CHECK(model == "Recommendation");
  CHECK(batch == 8192);
  CHECK_FALSE(split_shockwave_job_type("A3C", model, batch));
  CHECK_FALSE(split_shockwave_job_type("LM (batch size x)", model, batch));
  ShockwaveMode mode{};
  CHECK(parse_shockwave_mode("gns", mode));
  CHECK(mode == ShockwaveMode::kGns);
  CHECK_FALSE(parse_shockwave_mode("elastic", mode));
  CHECK(shockwave_dataset_size("Unknown") == 0);
}

TEST_CASE("workloads::Shockwave: an epoch schedule's phases, speed factors and isolated time by hand", "[shockwave]") {
  // Data set 100 samples, epochs at batches 10, 10, 20, 25 steps in all; 2 steps/s at 10, 1.5 at 20. An epoch is
  // ceil(100 / 10) = 10 steps at the initial batch, so the phases end at 20 (two epochs at 10) and 25 (the rest).
  // Epoch time at 10: 10 / 2 = 5 s; at 20: ceil(100 / 20) / 1.5 = 3.333 s; factor 5 / 3.333 = 1.5.
  // Isolated (Shockwave: (100 / b) / tput per epoch): 5 + 5 + 3.333 = 13.333 s.
  const BatchThroughput tput = [](int b) { return b == 10 ? 2.0 : b == 20 ? 1.5 : 0.0; };
  const EpochSchedule s = shockwave_schedule({10, 10, 20}, 3, 25.0, 100, tput);
  CHECK(s.epochs == 3);
  CHECK(s.phase_end == std::vector<double>{20.0, 25.0});
  CHECK(s.batch == std::vector<int>{10, 20});
  REQUIRE(s.factor.size() == 2);
  CHECK(s.factor[0] == Approx(1.0));
  CHECK(s.factor[1] == Approx(1.5));
  CHECK(s.isolated_s == Approx(40.0 / 3.0));
  // Phase look-up: a boundary belongs to the next phase; past the end, the last.
  CHECK(s.phase_at(0.0) == 0);
  CHECK(s.phase_at(19.999) == 0);
  CHECK(s.phase_at(20.0) == 1);
  CHECK(s.end_at(3.0) == 20.0);
  CHECK(s.factor_at(30.0) == Approx(1.5));
  CHECK_THROWS_AS(shockwave_schedule({10, 10}, 3, 25.0, 100, tput), std::invalid_argument);      // too short
  CHECK_THROWS_AS(shockwave_schedule({10, 10, 40}, 3, 25.0, 100, tput), std::invalid_argument);  // no throughput
}

TEST_CASE("workloads::Shockwave: the shockwave catalog holds the TACC job types that run on V100", "[shockwave]") {
  const Catalog cat = data_folder_catalog("shockwave", default_shockwave_dir());
  CHECK(cat.name == "shockwave");
  CHECK(cat.find("A3C") < 0);  // throughput 0 in the file
  CHECK(cat.find("Transformer (batch size 256)") < 0);
  const int lm = cat.find("LM (batch size 10)");
  REQUIRE(lm >= 0);
  // tacc_throughputs.json: ('LM (batch size 10)', 2) on v100 = 109.7866078 steps/s.
  CHECK(class_throughput_on(cat.classes[static_cast<std::size_t>(lm)], "v100", 2, 1) == Approx(109.7866078));
}

TEST_CASE("workloads::Shockwave: the shipped trace, throughputs and licence are Shockwave's bytes",
          "[shockwave][data]") {
  // uw-mad-dash/shockwave 8a44f4a: LICENSE 1,091 bytes (MIT), scheduler/tacc_throughputs.json 1,239,492 bytes, the
  // 120-job trace 18,720 bytes (workloads/data/shockwave/ORIGIN.md).
  const auto size_of = [](const std::string& name) {
    std::ifstream in(default_shockwave_dir() + "/" + name, std::ios::binary | std::ios::ate);
    return static_cast<long long>(in.tellg());
  };
  CHECK(size_of("LICENSE") == 1091);
  CHECK(size_of("tacc_throughputs.json") == 1239492);
  CHECK(size_of("traces/tacc-120.trace") == 18720);
  std::ifstream license(default_shockwave_dir() + "/LICENSE");
  std::string first;
  std::getline(license, first);
  CHECK(first == "MIT License");
}
