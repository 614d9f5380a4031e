// test/profiler/test_checkpoint.cpp — checkpoints: bit-identical round trip, corruption and bad files detected.
#include <catch2/catch.hpp>
#include <fstream>

#include "models/input_error.h"
#include "profiler/checkpoint.h"
#include "profiler/rng.h"
#include "temp_dir.h"
#include "workloads/measurement/measurement.h"

using namespace ringsched::profiler;
using ringsched::profiler::testing::TempDir;

namespace {

Checkpoint sample_checkpoint() {
  Checkpoint c;
  c.layers = {6, 9, 4};
  const auto n = static_cast<std::size_t>(mlp_parameter_count(c.layers));
  SplitMix64 g(3);
  for (std::size_t i = 0; i < n; ++i) {
    c.parameters.push_back(static_cast<float>(g.normal()));
    c.velocity.push_back(static_cast<float>(g.normal() * 1e-3));
  }
  c.parameters[0] = -0.0f;  // signed zero and a denormal survive bit for bit
  c.parameters[1] = 1e-40f;
  c.lr = 0.04;
  c.momentum = 0.9;
  c.warmup_steps_left = 3;
  c.warmup_from_lr = 0.02;
  c.warmup_steps = 10;
  c.step = 1234;
  c.epoch = 7;
  c.epoch_offset = 96;
  c.rng_state = 0xDEADBEEFCAFEF00DULL;
  c.epoch_shuffle_seed = 42;
  c.world_size = 2;
  c.initial_world_size = 1;
  c.per_worker_batch = 16;
  c.data.train_samples = 1000;
  c.data.test_samples = 100;
  c.data.seed = 5;
  c.data.inputs = 6;
  c.data.classes = 4;
  c.first_start_unix = 1.7e9;
  c.stop_unix = 1.7e9 + 12.5;
  c.checkpoint_write_seconds = 0.001;
  return c;
}

std::string bits(const std::vector<float>& v) {
  return std::string(reinterpret_cast<const char*>(v.data()), v.size() * sizeof(float));
}

}  // namespace

TEST_CASE("profiler::checkpoint: round trip is bit-identical", "[profiler][checkpoint]") {
  TempDir dir;
  const std::string path = dir.file("ck.bin");
  const Checkpoint c = sample_checkpoint();
  save_checkpoint(c, path);
  const Checkpoint back = load_checkpoint(path);
  CHECK(back.layers == c.layers);
  CHECK(bits(back.parameters) == bits(c.parameters));
  CHECK(bits(back.velocity) == bits(c.velocity));
  CHECK(back.lr == c.lr);
  CHECK(back.momentum == c.momentum);
  CHECK(back.warmup_steps_left == 3);
  CHECK(back.warmup_from_lr == 0.02);
  CHECK(back.warmup_steps == 10);
  CHECK(back.step == 1234);
  CHECK(back.epoch == 7);
  CHECK(back.epoch_offset == 96);
  CHECK(back.rng_state == c.rng_state);
  CHECK(back.epoch_shuffle_seed == 42);
  CHECK(back.world_size == 2);
  CHECK(back.initial_world_size == 1);
  CHECK(back.per_worker_batch == 16);
  CHECK(back.data.train_samples == 1000);
  CHECK(back.data.seed == 5);
  CHECK(back.data.inputs == 6);
  CHECK(back.data.classes == 4);
  CHECK(back.stop_unix == c.stop_unix);
  CHECK(back.checkpoint_write_seconds == c.checkpoint_write_seconds);
  // Re-serialising the loaded checkpoint reproduces the file byte for byte.
  CHECK(serialize_checkpoint(back) == read_file_bytes(path));
}

TEST_CASE("profiler::checkpoint: corrupt, truncated and foreign files are refused naming the file",
          "[profiler][checkpoint]") {
  TempDir dir;
  const std::string path = dir.file("ck.bin");
  const std::string good = serialize_checkpoint(sample_checkpoint());

  std::string flipped = good;
  flipped[good.size() / 2] = static_cast<char>(flipped[good.size() / 2] ^ 0x10);
  CHECK_THROWS_WITH(parse_checkpoint(flipped, path), Catch::StartsWith(path + ": checkpoint: checksum mismatch"));

  CHECK_THROWS_WITH(parse_checkpoint(good.substr(0, good.size() - 9), path), Catch::StartsWith(path + ": checkpoint:"));
  CHECK_THROWS_WITH(parse_checkpoint("not a checkpoint at all", path), Catch::Contains("bad magic"));
  CHECK_THROWS_WITH(parse_checkpoint("", path), Catch::StartsWith(path + ": checkpoint: not a ringsched checkpoint"));

  const std::string missing = dir.file("missing.bin");
  CHECK_THROWS_WITH(load_checkpoint(missing), Catch::StartsWith(missing + ": cannot open"));
  CHECK_THROWS_AS(load_checkpoint(missing), ringsched::InputError);

  Checkpoint wrong = sample_checkpoint();
  wrong.parameters.pop_back();
  CHECK_THROWS(serialize_checkpoint(wrong));
}
