// sim/cli/sweep_mpi.h — the MPI SweepComm: compiled into the ringsched executable only when CMake finds MPI
// (RINGSCHED_WITH_MPI); the sweep library itself never depends on MPI.
#pragma once

#include <memory>

#include "sim/sweeps/sweep.h"

namespace ringsched {

// When the process was started by mpirun/mpiexec (OMPI_COMM_WORLD_SIZE, PMI_SIZE or PMIX_RANK is set), calls
// MPI_Init and returns a communicator over MPI_COMM_WORLD (MPI_Finalize runs when it is destroyed). Otherwise
// returns nullptr (a plain one-process run).
std::unique_ptr<SweepComm> make_mpi_comm_if_launched();

}  // namespace ringsched
