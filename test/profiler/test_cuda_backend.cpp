// test/profiler/test_cuda_backend.cpp — (MPI, GPU) the cuda backend computes the same gradients as the cpu MLP and
// NCCL sums exactly. Exits 77 (ctest: skipped) when the build has no CUDA or no GPU is usable.
#include <mpi.h>

#include <catch2/catch.hpp>
#include <cmath>
#include <memory>

#include "profiler/backend.h"
#include "profiler/cuda_backend.h"
#include "profiler/mlp.h"
#include "profiler/mpi_context.h"
#include "profiler/rng.h"
#include "test/catch_session.h"

using namespace ringsched::profiler;

namespace {
std::unique_ptr<Backend> g_cuda;
const std::vector<int> kLayers = {12, 32, 16, 5};
}  // namespace

TEST_CASE("profiler::CudaBackend: gradients match the cpu MLP", "[profiler][cuda]") {
  Mlp cpu(kLayers);
  cpu.init(17);
  SplitMix64 g(23);
  const int batch = 9;
  std::vector<float> x(static_cast<std::size_t>(12 * batch));
  for (float& v : x)
    v = static_cast<float>(g.normal());
  std::vector<int> labels(batch);
  for (int& l : labels)
    l = static_cast<int>(g.below(5));
  const float cpu_loss = cpu.forward_backward(x.data(), labels.data(), batch);
  std::vector<float> grads;
  g_cuda->prepare(batch, 4096);
  const float gpu_loss = g_cuda->compute_gradients(cpu.parameters(), x.data(), labels.data(), batch, grads);
  CHECK(gpu_loss == Approx(cpu_loss).epsilon(1e-4));
  REQUIRE(grads.size() == cpu.gradients().size());
  std::size_t bad = 0;
  for (std::size_t i = 0; i < grads.size(); ++i)
    if (std::abs(grads[i] - cpu.gradients()[i]) > 1e-4f + 1e-3f * std::abs(cpu.gradients()[i])) ++bad;
  CHECK(bad == 0);
  CHECK(g_cuda->time_compute_step(batch) > 0.0);
}

TEST_CASE("profiler::CudaBackend: NCCL all-reduce sums exactly", "[profiler][cuda]") {
  const int rank = comm_rank(MPI_COMM_WORLD);
  const int world = comm_size(MPI_COMM_WORLD);
  std::vector<float> data(100003);
  for (std::size_t i = 0; i < data.size(); ++i)
    data[i] = static_cast<float>((rank + 1) * static_cast<int>(i % 11 + 1));
  g_cuda->allreduce_sum(data.data(), static_cast<std::int64_t>(data.size()));
  std::size_t wrong = 0;
  for (std::size_t i = 0; i < data.size(); ++i)
    if (data[i] != static_cast<float>(world * (world + 1) / 2 * static_cast<int>(i % 11 + 1))) ++wrong;
  CHECK(wrong == 0);
  g_cuda->prepare(4, 1 << 20);
  CHECK(g_cuda->time_allreduce(1 << 20) > 0.0);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int result = 0;
  try {
    BackendOptions options;
    options.layers = kLayers;
    g_cuda = make_cuda_backend(options, MPI_COMM_WORLD);
    result = ringsched::test::run_catch_session(argc, argv);
    g_cuda.reset();
  } catch (const ExitRequest& e) {
    result = e.code;  // 77: not built with CUDA or no GPU
  }
  MPI_Finalize();
  return result;
}
