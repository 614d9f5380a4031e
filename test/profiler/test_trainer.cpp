// test/profiler/test_trainer.cpp — (MPI) the elastic experiment: stop/resume reproduces an uninterrupted run bit for
// bit; a resize continues from the saved step with Eq. 7 and the warm-up; bad input ends every rank with code 2.
#include <mpi.h>

#include <catch2/catch.hpp>
#include <sstream>

#include "models/lr_rule.h"
#include "mpi_test_util.h"
#include "profiler/checkpoint.h"
#include "profiler/trainer.h"

using namespace ringsched::profiler;
using ringsched::profiler::testing::outcome_of;
using ringsched::profiler::testing::SharedTempDir;

namespace {

// 256 training samples, per-worker batch 4: 64 / W steps per epoch at W = 1, 2, 4.
TrainOptions small_job() {
  TrainOptions o;
  o.layers = {8, 16, 4};
  o.per_worker_batch = 4;
  o.base_lr = 0.05;
  o.momentum = 0.9;
  o.epochs = 3;
  o.data.train_samples = 256;
  o.data.test_samples = 64;
  o.data.seed = 3;
  o.data.noise = 0.5;
  return o;
}

}  // namespace

TEST_CASE("profiler::train: stop and resume on the same ranks reproduces the uninterrupted run bit for bit",
          "[profiler][mpi][train]") {
  const MPI_Comm comm = MPI_COMM_WORLD;
  const int world = comm_size(comm);
  SharedTempDir dir(comm);
  std::ostringstream sink;
  const TrainOptions job = small_job();
  const TrainReport full = run_training(job, comm, sink);
  CHECK(full.status == "finished");
  CHECK(full.total_steps == 3 * (64 / world));
  CHECK(full.total_epochs == Approx(3.0));
  CHECK(full.lr_initial == Approx(0.05 * world));

  TrainOptions first = job;
  first.stop_at_step = 7;
  first.checkpoint = dir.file("ck.bin");
  const TrainReport stopped = run_training(first, comm, sink);
  CHECK(stopped.status == "stopped");
  CHECK(stopped.total_steps == 7);
  CHECK(stopped.checkpoint_write_seconds > 0.0);

  TrainOptions second = job;
  second.resume = first.checkpoint;
  const TrainReport resumed = run_training(second, comm, sink);
  CHECK(resumed.resumed);
  CHECK(resumed.start_step == 7);
  CHECK(resumed.stop_step == 7);
  CHECK(resumed.total_steps == full.total_steps);
  CHECK(resumed.step_lrs.size() == static_cast<std::size_t>(full.total_steps - 7));
  CHECK(resumed.lr_after_resize == resumed.lr_before_resize);  // same W: Eq. 7 leaves the lr alone
  REQUIRE(resumed.final_parameters.size() == full.final_parameters.size());
  CHECK(resumed.final_parameters == full.final_parameters);
  CHECK(resumed.heldout_accuracy == full.heldout_accuracy);
  CHECK(full.heldout_accuracy > 0.5);  // 4 classes: chance is 0.25
}

TEST_CASE("profiler::train: a resize continues from the saved step with Eq. 7 and the warm-up",
          "[profiler][mpi][resize]") {
  const MPI_Comm world_comm = MPI_COMM_WORLD;
  const int world = comm_size(world_comm);
  const int rank = comm_rank(world_comm);
  REQUIRE(world % 2 == 0);  // run under mpirun -np 2 or 4: the first half of the ranks trains first
  const int half = world / 2;
  SharedTempDir dir(world_comm);
  std::ostringstream sink;
  const TrainOptions job = small_job();
  const std::int64_t stop = 10;

  MPI_Comm first_comm = MPI_COMM_NULL;
  MPI_Comm_split(world_comm, rank < half ? 0 : MPI_UNDEFINED, rank, &first_comm);
  if (first_comm != MPI_COMM_NULL) {
    TrainOptions first = job;
    first.stop_at_step = stop;
    first.checkpoint = dir.file("ck.bin");
    const TrainReport r1 = run_training(first, first_comm, sink);
    CHECK(r1.status == "stopped");
    CHECK(r1.workers == half);
    CHECK(r1.total_steps == stop);
    MPI_Comm_free(&first_comm);
  }
  MPI_Barrier(world_comm);

  TrainOptions second = job;
  second.resume = dir.file("ck.bin");
  second.warmup_steps = 4;
  const TrainReport r2 = run_training(second, world_comm, sink);
  CHECK(r2.status == "finished");
  CHECK(r2.resumed);
  CHECK(r2.initial_workers == half);
  CHECK(r2.previous_workers == half);
  CHECK(r2.new_workers == world);
  CHECK(r2.start_step == stop);  // steps are counted on from the checkpoint
  CHECK(r2.stop_step == stop);
  const double lr_before = 0.05 * half;
  CHECK(r2.lr_before_resize == Approx(lr_before));
  CHECK(r2.lr_after_resize == Approx(ringsched::models::scaled_learning_rate(lr_before, half, world)));
  CHECK(r2.lr_after_resize == Approx(2 * lr_before));
  REQUIRE(r2.step_lrs.size() > 5);
  CHECK(r2.step_lrs[0] == Approx(lr_before + (r2.lr_after_resize - lr_before) * 1 / 4));
  CHECK(r2.step_lrs[2] == Approx(lr_before + (r2.lr_after_resize - lr_before) * 3 / 4));
  CHECK(r2.step_lrs[3] == Approx(r2.lr_after_resize));
  CHECK(r2.step_lrs[5] == Approx(r2.lr_after_resize));
  // Epoch 0 has 10 * 4 * half samples done; the rest of it and epochs 1, 2 run at 4 * world samples per step.
  const std::int64_t g1 = 4 * half, g2 = 4 * world;
  const std::int64_t expected = stop + (256 - stop * g1) / g2 + 2 * (256 / g2);
  CHECK(r2.total_steps == expected);
  CHECK(r2.step_lrs.size() == static_cast<std::size_t>(expected - stop));
  CHECK(r2.total_epochs == Approx(3.0));
  CHECK(r2.heldout_accuracy > 0.5);
  CHECK(r2.wall_seconds >= r2.run_seconds);
}

TEST_CASE("profiler::train: bad input ends every rank with exit code 2 and one clear message",
          "[profiler][mpi][train]") {
  const MPI_Comm comm = MPI_COMM_WORLD;
  const int world = comm_size(comm);
  SharedTempDir dir(comm);
  std::ostringstream sink;

  TrainOptions too_many = small_job();
  too_many.per_worker_batch = 256 / world + 1;  // b * W > 256 training samples: W is larger than allowed
  auto r = outcome_of([&] { run_training(too_many, comm, sink); });
  CHECK(r.code == kExitBadInput);
  CHECK_THAT(r.message, Catch::Contains("larger than"));

  TrainOptions unreadable = small_job();
  unreadable.resume = dir.file("does-not-exist.bin");
  r = outcome_of([&] { run_training(unreadable, comm, sink); });
  CHECK(r.code == kExitBadInput);
  CHECK_THAT(r.message, Catch::StartsWith(unreadable.resume + ": cannot open"));

  TrainOptions no_file = small_job();
  no_file.stop_at_step = 3;
  r = outcome_of([&] { run_training(no_file, comm, sink); });
  CHECK(r.code == kExitBadInput);
  CHECK(r.message == "--stop-at-step needs --checkpoint FILE");

  TrainOptions first = small_job();
  first.stop_at_step = 3;
  first.checkpoint = dir.file("ck.bin");
  CHECK(outcome_of([&] { run_training(first, comm, sink); }).code == 0);
  TrainOptions other_shape = small_job();
  other_shape.layers = {8, 12, 4};
  other_shape.resume = first.checkpoint;
  r = outcome_of([&] { run_training(other_shape, comm, sink); });
  CHECK(r.code == kExitBadInput);
  CHECK(r.message == first.checkpoint + ": checkpoint model shape 8-16-4 does not match --layers 8-12-4");

  TrainOptions other_batch = small_job();
  other_batch.per_worker_batch = 8;
  other_batch.resume = first.checkpoint;
  r = outcome_of([&] { run_training(other_batch, comm, sink); });
  CHECK(r.code == kExitBadInput);
  CHECK_THAT(r.message, Catch::Contains("checkpoint --batch-size is 4 but the command line has 8"));

  TrainOptions early_stop = small_job();
  early_stop.resume = first.checkpoint;
  early_stop.stop_at_step = 2;  // not after the checkpoint's step 3
  early_stop.checkpoint = dir.file("ck2.bin");
  r = outcome_of([&] { run_training(early_stop, comm, sink); });
  CHECK(r.code == kExitBadInput);
  CHECK_THAT(r.message, Catch::Contains("--stop-at-step 2 is not after the checkpoint's step 3"));

  // A corrupted checkpoint is refused by its checksum.
  if (comm_rank(comm) == 0) {
    std::string bytes = read_file_bytes(first.checkpoint);
    bytes[bytes.size() / 2] = static_cast<char>(bytes[bytes.size() / 2] ^ 1);
    ringsched::write_file_atomic(first.checkpoint, bytes);
  }
  MPI_Barrier(comm);
  TrainOptions corrupt = small_job();
  corrupt.resume = first.checkpoint;
  r = outcome_of([&] { run_training(corrupt, comm, sink); });
  CHECK(r.code == kExitBadInput);
  CHECK_THAT(r.message, Catch::Contains("checksum mismatch"));
}
