// profiler/backend_registry.h — the profiler backends by name (one file each: profiler/cpu_backend.cpp,
// profiler/cuda_backend.cpp).
#pragma once

#include <mpi.h>

#include <memory>
#include <string>
#include <vector>

#include "profiler/backend.h"

namespace ringsched::profiler {

// Names accepted by make_backend, in a fixed order.
std::vector<std::string> backend_names();

// Collective over `comm`. Throws ringsched::InputError for an unknown name (listing the valid ones) and
// SkipError when the backend cannot run here (no GPU, built without CUDA). On failure every rank throws
// ExitRequest after the message is printed once (see mpi_context.h).
std::unique_ptr<Backend> make_backend(const std::string& name, const BackendOptions& options, MPI_Comm comm);

}  // namespace ringsched::profiler
