// test/profiler/mpi_test_util.h — helpers for the MPI tests: a folder shared by the ranks (made by rank 0), and
// running a collective call while capturing the agreed exit code.
#pragma once

#include <mpi.h>

#include <functional>
#include <memory>
#include <string>

#include "profiler/mpi_context.h"
#include "temp_dir.h"

namespace ringsched::profiler::testing {

// Rank 0 owns a TempDir; every rank gets its path.
class SharedTempDir {
 public:
  explicit SharedTempDir(MPI_Comm comm) : comm_(comm) {
    std::string path;
    if (comm_rank(comm) == 0) {
      dir_ = std::make_unique<TempDir>();
      path = dir_->file("");
    }
    int size = static_cast<int>(path.size());
    MPI_Bcast(&size, 1, MPI_INT, 0, comm);
    path.resize(static_cast<std::size_t>(size));
    MPI_Bcast(path.data(), size, MPI_CHAR, 0, comm);
    path_ = path;
  }
  ~SharedTempDir() { MPI_Barrier(comm_); }  // nobody removes the folder while another rank still uses it
  SharedTempDir(const SharedTempDir&) = delete;
  SharedTempDir& operator=(const SharedTempDir&) = delete;
  std::string file(const std::string& name) const { return path_ + name; }

 private:
  MPI_Comm comm_;
  std::unique_ptr<TempDir> dir_;
  std::string path_;
};

// Runs `f`; returns {0, ""} if it returned, or the code and message of the ExitRequest every rank agreed on.
struct Outcome {
  int code = 0;
  std::string message;
};
inline Outcome outcome_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const ExitRequest& e) {
    return {e.code, e.message};
  }
  return {};
}

}  // namespace ringsched::profiler::testing
