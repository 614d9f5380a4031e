// profiler/mpi_context.h — MPI plumbing shared by the profiler's commands: exit codes, the skip error (exit 77),
// collective error agreement (every rank exits, the message is printed once), host and CPU facts.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

namespace ringsched::profiler {

inline constexpr int kExitOk = 0;
inline constexpr int kExitFailure = 1;
inline constexpr int kExitBadInput = 2;
inline constexpr int kExitSkip = 77;  // "cannot run here" (no GPU, built without CUDA), as ctest's SKIP_RETURN_CODE

// The requested work cannot run on this machine or build (exit code 77).
class SkipError : public std::runtime_error {
 public:
  explicit SkipError(const std::string& message) : std::runtime_error(message) {}
};

// Every rank agreed to stop with `code`; the message (if any) has already been printed once, by the rank that
// detected the problem, and is repeated here on every rank.
struct ExitRequest {
  int code = kExitFailure;
  std::string message;
};

int comm_rank(MPI_Comm comm);
int comm_size(MPI_Comm comm);

// Collective over `comm`: each rank gives its verdict. If every rank is ok this returns. Otherwise the lowest failing
// rank prints "ringsched-profile: <its message>" to stderr and every rank throws ExitRequest{that rank's code}.
void agree(MPI_Comm comm, bool ok, const std::string& message, int code);

// Collective: runs the local (non-collective) work `f` on every rank and agrees on the outcome. InputError becomes
// exit 2, SkipError 77, any other exception 1. `f` must not call collectives on `comm` (a rank that throws early
// would leave the others waiting).
void collective_try(MPI_Comm comm, const std::function<void()>& f);

// Prints "ringsched-profile: rank R: <message>" and calls MPI_Abort(MPI_COMM_WORLD, code): for failures in the
// middle of collectives, where the other ranks cannot be reached in order.
[[noreturn]] void abort_all(const std::string& message, int code);

// The distinct host names of the ranks of `comm`, sorted (collective).
std::vector<std::string> distinct_hostnames(MPI_Comm comm);
std::string local_hostname();

// Rank within the node and ranks on the node (collective: MPI_Comm_split_type shared).
struct LocalRank {
  int rank = 0;
  int size = 1;
};
LocalRank local_rank(MPI_Comm comm);

// "model name" from /proc/cpuinfo, or "unknown".
std::string cpu_model();

// Bytes of memory available on this host (MemAvailable from /proc/meminfo, else physical pages).
std::int64_t host_available_bytes();

// Seconds since the Unix epoch (system clock), for timing across processes on one host.
double unix_now();

// Current time, ISO 8601 UTC ("2024-01-02T03:04:05Z").
std::string iso8601_now();

// The command line, shell-quoted where needed.
std::string joined_command_line(int argc, char** argv);

}  // namespace ringsched::profiler
