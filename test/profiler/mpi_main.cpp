// test/profiler/mpi_main.cpp — Catch2 main for the MPI profiler tests: every rank runs the same test cases in the
// same order (run under mpirun -np W); a rank with a failed check exits non-zero, so mpirun does too.
#include <mpi.h>

#include "test/catch_session.h"

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  const int result = ringsched::test::run_catch_session(argc, argv);
  MPI_Finalize();
  return result;
}
