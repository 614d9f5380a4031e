// profiler/cpu_backend.h — the cpu backend: the MLP on Eigen, gradients all-reduced with MPI_Allreduce. Open MPI's
// ring algorithm can be forced with `mpirun --mca coll_tuned_use_dynamic_rules 1 --mca
// coll_tuned_allreduce_algorithm 4`; allreduce_algorithm() reports it from the OMPI_MCA_* environment.
#pragma once

#include "profiler/backend.h"

namespace ringsched::profiler {

// Collective (agrees on errors). Never throws SkipError.
std::unique_ptr<Backend> make_cpu_backend(const BackendOptions& options, MPI_Comm comm);

// What Open MPI's tuned collective component was told to use for all-reduce, from the environment mpirun --mca
// sets: "default", "ring" (algorithm 4), "segmented-ring" (5), or "open-mpi-algorithm-N".
std::string open_mpi_allreduce_algorithm();

}  // namespace ringsched::profiler
