// profiler/cuda_backend.h — the cuda backend: the same MLP on the GPU (cuBLAS matrix products, small custom kernels
// for bias, ReLU and softmax cross-entropy), gradients all-reduced with NCCL over one communicator spanning the MPI
// ranks (ncclUniqueId broadcast with MPI), timings with CUDA events. Built only when CUDA and NCCL are found at
// configure time (cuda_backend.cu); otherwise cuda_backend_stub.cpp provides the same functions.
#pragma once

#include "profiler/backend.h"

namespace ringsched::profiler {

// True when this build contains the CUDA backend.
bool cuda_backend_compiled();

// Collective. Throws (on every rank, after one message) SkipError if the build has no CUDA or no GPU is usable,
// so the command exits 77. Each rank uses GPU (local rank mod device count). If options.nccl_algo is not empty,
// NCCL_ALGO is set to it before ncclCommInitRank.
std::unique_ptr<Backend> make_cuda_backend(const BackendOptions& options, MPI_Comm comm);

}  // namespace ringsched::profiler
