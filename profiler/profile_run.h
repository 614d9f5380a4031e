// profiler/profile_run.h — the `ringsched-profile` measurement run: validates the request, times forward/backward
// per per-worker batch size and all-reduce per message size on the chosen backend, prints nccl-tests-like tables
// on rank 0 and writes the measurement file (measurement.h) atomically.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <iosfwd>
#include <string>
#include <vector>

#include "workloads/measurement/measurement.h"

namespace ringsched::profiler {

inline constexpr int kMaxWorldSize = 4096;
inline constexpr std::int64_t kMaxBatch = std::int64_t{1} << 22;

struct ProfileOptions {
  std::string backend = "cpu";
  std::string out = "measurement.json";
  std::vector<int> layers = {512, 512, 512, 10};
  std::vector<std::int64_t> batch_sizes = {16, 32, 64};
  std::vector<std::int64_t> message_bytes;  // empty: default_message_bytes(gradient bytes); the gradient size is
                                            // always added
  int warmup = 3;
  int repeats = 10;
  std::string nccl_algo;  // cuda: value for NCCL_ALGO ("Ring", "Tree", ...); empty leaves NCCL's choice
  std::uint64_t seed = 1;
  std::string command_line;
};

// 4 KiB, 16 KiB, ..., 16 MiB (x4 steps), extended to cover `gradient_bytes`, plus `gradient_bytes` itself; sorted.
std::vector<std::int64_t> default_message_bytes(std::int64_t gradient_bytes);

// Collective over `comm`. Validation failures and unusable backends end every rank via ExitRequest (message printed
// once; 2 for bad input, 77 for skip). Returns the measurement on every rank; rank 0 prints tables to `out` and
// writes options.out.
Measurement run_profile(const ProfileOptions& options, MPI_Comm comm, std::ostream& out);

// Prints the compute and all-reduce tables of a measurement (busbw = algbw * 2(W-1)/W, as nccl-tests).
void print_measurement_tables(const Measurement& m, std::ostream& out);

}  // namespace ringsched::profiler
