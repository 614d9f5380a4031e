// test/profiler/test_allreduce.cpp — (MPI) the cpu backend's all-reduce is an exact sum at any W; the profiling run
// writes a measurement file that loads and converts to Eq. 5 points; an unknown backend ends every rank with 2.
#include <mpi.h>

#include <catch2/catch.hpp>
#include <sstream>

#include "mpi_test_util.h"
#include "profiler/backend_registry.h"
#include "profiler/profile_run.h"
#include "workloads/measurement/measurement.h"

using namespace ringsched::profiler;
using ringsched::profiler::testing::outcome_of;
using ringsched::profiler::testing::SharedTempDir;

TEST_CASE("profiler::CpuBackend: all-reduce sums exactly across the ranks", "[profiler][mpi]") {
  const MPI_Comm comm = MPI_COMM_WORLD;
  const int rank = comm_rank(comm);
  const int world = comm_size(comm);
  BackendOptions options;
  options.layers = {8, 4};
  auto backend = make_backend("cpu", options, comm);
  REQUIRE(backend->name() == "cpu");
  for (const std::int64_t count : {std::int64_t{1}, std::int64_t{7}, std::int64_t{1000003}}) {
    std::vector<float> data(static_cast<std::size_t>(count));
    for (std::int64_t i = 0; i < count; ++i)
      data[static_cast<std::size_t>(i)] = static_cast<float>((rank + 1) * (i % 13 + 1));
    backend->allreduce_sum(data.data(), count);
    const float ranks_sum = static_cast<float>(world * (world + 1) / 2);
    std::int64_t wrong = 0;
    for (std::int64_t i = 0; i < count; ++i)
      if (data[static_cast<std::size_t>(i)] != ranks_sum * static_cast<float>(i % 13 + 1)) ++wrong;
    INFO("count " << count << " on rank " << rank << " of " << world);
    CHECK(wrong == 0);
  }
  backend->prepare(4, 4096);
  CHECK(backend->time_allreduce(4096) >= 0.0);
  CHECK(backend->time_compute_step(4) > 0.0);
}

TEST_CASE("profiler::run_profile: writes a measurement that loads and gives Eq. 5 points", "[profiler][mpi]") {
  const MPI_Comm comm = MPI_COMM_WORLD;
  const int world = comm_size(comm);
  SharedTempDir dir(comm);
  ProfileOptions o;
  o.layers = {16, 8, 4};  // 172 parameters, 688 gradient bytes (always measured)
  o.batch_sizes = {4, 2, 4};
  o.message_bytes = {4096, 64};
  o.warmup = 1;
  o.repeats = 2;
  o.out = dir.file("m.json");
  std::ostringstream sink;
  const Measurement m = run_profile(o, comm, sink);
  CHECK(m.world_size == world);
  if (comm_rank(comm) == 0) {
    CHECK_THAT(sink.str(), Catch::Contains("busbw"));
    const Measurement back = load_measurement(o.out);
    CHECK(back.world_size == world);
    CHECK(back.nodes == 1);
    CHECK(back.model.parameters == 172);
    REQUIRE(back.compute.size() == 2);  // sorted and de-duplicated
    CHECK(back.compute[0].per_worker_batch == 2);
    CHECK(back.compute[0].seconds.repeats.size() == 2);
    REQUIRE(back.allreduce.size() == 3);  // 64, the gradient's 688, 4096
    CHECK(back.allreduce[0].bytes == 64);
    CHECK(back.allreduce[1].bytes == 688);
    const auto points = measurement_points({back});
    REQUIRE(points.size() == 2);
    CHECK(points[1].global_batch == 4.0 * world);
    CHECK(points[1].step_seconds > back.compute[1].seconds.mean);
  }
}

TEST_CASE("profiler::make_backend: an unknown backend ends every rank with exit code 2", "[profiler][mpi]") {
  BackendOptions options;
  options.layers = {8, 4};
  auto r = outcome_of([&] { make_backend("tpu", options, MPI_COMM_WORLD); });
  CHECK(r.code == kExitBadInput);
  CHECK(r.message == "--backend: unknown backend \"tpu\" (valid: cpu, cuda)");
  ProfileOptions o;
  o.batch_sizes = {0};
  std::ostringstream sink;
  r = outcome_of([&] { run_profile(o, MPI_COMM_WORLD, sink); });
  CHECK(r.code == kExitBadInput);
  CHECK_THAT(r.message, Catch::StartsWith("--batch-sizes: each size must be in [1, "));
  o.batch_sizes = {4};
  o.message_bytes = {std::int64_t{1} << 50};  // far more than memory: estimated and refused before allocating
  r = outcome_of([&] { run_profile(o, MPI_COMM_WORLD, sink); });
  CHECK(r.code == kExitBadInput);
  CHECK_THAT(r.message, Catch::Contains("available per rank"));
  o.message_bytes.clear();
  o.out = "/nonexistent-folder/m.json";  // refused before measuring, not after
  r = outcome_of([&] { run_profile(o, MPI_COMM_WORLD, sink); });
  CHECK(r.code == kExitBadInput);
  CHECK(r.message ==
        "--out: folder /nonexistent-folder of /nonexistent-folder/m.json does not exist or is not a folder");
}
