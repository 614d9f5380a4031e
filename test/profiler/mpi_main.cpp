// test/profiler/mpi_main.cpp — Catch2 main for the MPI profiler tests: every rank runs the same test cases in the
// same order (run under mpirun -np W); a rank with a failed check exits non-zero, so mpirun does too.
#define CATCH_CONFIG_RUNNER
#include <mpi.h>

#include <catch2/catch.hpp>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  const int result = Catch::Session().run(argc, argv);
  MPI_Finalize();
  return result;
}
