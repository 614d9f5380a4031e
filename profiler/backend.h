// profiler/backend.h — the interface every profiler backend implements (cpu: Eigen + MPI_Allreduce; cuda: cuBLAS +
// custom kernels + NCCL); profiler/backend_registry.h picks one by name.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace ringsched::profiler {

struct BackendOptions {
  std::vector<int> layers;  // the MLP measured (inputs first, classes last)
  std::uint64_t seed = 1;   // weights and synthetic batches
  std::string nccl_algo;    // cuda only: if not empty, NCCL_ALGO is set to it before NCCL initialises
};

class Backend {
 public:
  virtual ~Backend() = default;

  virtual std::string name() const = 0;    // "cpu" or "cuda"
  virtual std::string device() const = 0;  // "cpu" or the GPU's name
  // What all-reduce algorithm is in force, as far as the backend can tell ("default", "ring", "Ring", ...).
  virtual std::string allreduce_algorithm() const = 0;

  // Bytes this rank may use (free memory shared among the ranks on the same host or GPU).
  virtual std::int64_t memory_budget_bytes() const = 0;
  // Bytes the buffers for batches up to `max_batch` and messages up to `max_message_bytes` need on this rank.
  virtual std::int64_t required_bytes(int max_batch, std::int64_t max_message_bytes) const = 0;
  // Allocates those buffers (local, not collective). Call before timing.
  virtual void prepare(int max_batch, std::int64_t max_message_bytes) = 0;

  // One forward + backward step of the MLP on `batch` (<= max_batch) synthetic samples, no all-reduce. Returns the
  // seconds this rank spent (CUDA: measured with events).
  virtual double time_compute_step(int batch) = 0;
  // One in-place float32 sum all-reduce of `bytes` (multiple of 4, <= max_message_bytes). Collective. Seconds spent
  // on this rank.
  virtual double time_allreduce(std::int64_t bytes) = 0;

  // Sum all-reduce of host data through the backend's all-reduce path (MPI or NCCL). Collective.
  virtual void allreduce_sum(float* data, std::int64_t count) = 0;

  // Gradient of the mean softmax cross-entropy of the MLP with parameters `params` on the batch (x: inputs x batch,
  // column-major), written to `grads`; returns the mean loss. Used to cross-check backends.
  virtual float compute_gradients(const std::vector<float>& params, const float* x, const int* labels, int batch,
                                  std::vector<float>& grads) = 0;
};

}  // namespace ringsched::profiler
