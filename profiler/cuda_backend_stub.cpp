// profiler/cuda_backend_stub.cpp — stands in for cuda_backend.cu in builds without CUDA: the cuda backend exits 77.
#include "profiler/cuda_backend.h"
#include "profiler/mpi_context.h"

namespace ringsched::profiler {

bool cuda_backend_compiled() {
  return false;
}

std::unique_ptr<Backend> make_cuda_backend(const BackendOptions& /*options*/, MPI_Comm comm) {
  agree(comm, false,
        "--backend cuda: this ringsched-profile was built without CUDA support (reconfigure with "
        "-DRINGSCHED_ENABLE_CUDA=ON where the CUDA toolkit and NCCL are installed)",
        kExitSkip);
  return nullptr;  // not reached: agree throws
}

}  // namespace ringsched::profiler
