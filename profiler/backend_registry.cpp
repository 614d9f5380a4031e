// profiler/backend_registry.cpp — backend registry by name.
#include "profiler/backend_registry.h"

#include "models/input_error.h"
#include "profiler/cpu_backend.h"
#include "profiler/cuda_backend.h"
#include "profiler/mpi_context.h"

namespace ringsched::profiler {

std::vector<std::string> backend_names() {
  return {"cpu", "cuda"};
}

std::unique_ptr<Backend> make_backend(const std::string& name, const BackendOptions& options, MPI_Comm comm) {
  if (name == "cpu") return make_cpu_backend(options, comm);
  if (name == "cuda") return make_cuda_backend(options, comm);
  std::string valid;
  for (const auto& n : backend_names()) {
    if (!valid.empty()) valid += ", ";
    valid += n;
  }
  agree(comm, false, "--backend: unknown backend \"" + name + "\" (valid: " + valid + ")", kExitBadInput);
  return nullptr;  // not reached: agree throws
}

}  // namespace ringsched::profiler
