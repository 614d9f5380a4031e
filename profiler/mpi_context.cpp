// profiler/mpi_context.cpp — collective error agreement, host facts and small helpers.
#include "profiler/mpi_context.h"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <climits>
#include <cstdio>
#include <ctime>
#include <fstream>
#include <iostream>
#include <set>

#include "models/input_error.h"

namespace ringsched::profiler {

int comm_rank(MPI_Comm comm) {
  int r = 0;
  MPI_Comm_rank(comm, &r);
  return r;
}

int comm_size(MPI_Comm comm) {
  int s = 0;
  MPI_Comm_size(comm, &s);
  return s;
}

void agree(MPI_Comm comm, bool ok, const std::string& message, int code) {
  const int me = comm_rank(comm);
  const int mine = ok ? INT_MAX : me;
  int first = INT_MAX;
  MPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, comm);
  if (first == INT_MAX) return;
  int agreed = code;
  MPI_Bcast(&agreed, 1, MPI_INT, first, comm);
  std::string text = message;
  int length = static_cast<int>(text.size());
  MPI_Bcast(&length, 1, MPI_INT, first, comm);
  text.resize(static_cast<std::size_t>(length));
  MPI_Bcast(text.data(), length, MPI_CHAR, first, comm);
  if (me == first) {
    std::cerr << "ringsched-profile: " << text << std::endl;
  }
  throw ExitRequest{agreed, text};
}

void collective_try(MPI_Comm comm, const std::function<void()>& f) {
  bool ok = true;
  std::string message;
  int code = kExitOk;
  try {
    f();
  } catch (const InputError& e) {
    ok = false;
    message = e.what();
    code = kExitBadInput;
  } catch (const SkipError& e) {
    ok = false;
    message = e.what();
    code = kExitSkip;
  } catch (const std::exception& e) {
    ok = false;
    message = e.what();
    code = kExitFailure;
  }
  agree(comm, ok, message, code);
}

void abort_all(const std::string& message, int code) {
  int initialized = 0;
  MPI_Initialized(&initialized);
  const int rank = initialized ? comm_rank(MPI_COMM_WORLD) : 0;
  std::cerr << "ringsched-profile: rank " << rank << ": " << message << std::endl;
  if (initialized) MPI_Abort(MPI_COMM_WORLD, code);
  std::_Exit(code);
}

std::string local_hostname() {
  char name[MPI_MAX_PROCESSOR_NAME] = {};
  int len = 0;
  MPI_Get_processor_name(name, &len);
  return std::string(name, static_cast<std::size_t>(std::max(len, 0)));
}

std::vector<std::string> distinct_hostnames(MPI_Comm comm) {
  char name[MPI_MAX_PROCESSOR_NAME] = {};
  const std::string mine = local_hostname();
  std::copy_n(mine.data(), std::min<std::size_t>(mine.size(), MPI_MAX_PROCESSOR_NAME - 1), name);
  const int size = comm_size(comm);
  std::vector<char> all(static_cast<std::size_t>(size) * MPI_MAX_PROCESSOR_NAME);
  MPI_Allgather(name, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, all.data(), MPI_MAX_PROCESSOR_NAME, MPI_CHAR, comm);
  std::set<std::string> names;
  for (int r = 0; r < size; ++r)
    names.insert(std::string(&all[static_cast<std::size_t>(r) * MPI_MAX_PROCESSOR_NAME]));
  return {names.begin(), names.end()};
}

LocalRank local_rank(MPI_Comm comm) {
  MPI_Comm node = MPI_COMM_NULL;
  MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, comm_rank(comm), MPI_INFO_NULL, &node);
  LocalRank lr{comm_rank(node), comm_size(node)};
  MPI_Comm_free(&node);
  return lr;
}

std::string cpu_model() {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("model name", 0) == 0) {
      const auto colon = line.find(':');
      if (colon != std::string::npos) {
        std::string v = line.substr(colon + 1);
        v.erase(0, v.find_first_not_of(" \t"));
        return v;
      }
    }
  }
  return "unknown";
}

std::int64_t host_available_bytes() {
  std::ifstream in("/proc/meminfo");
  std::string key;
  std::int64_t value = 0;
  std::string unit;
  while (in >> key >> value) {
    std::getline(in, unit);
    if (key == "MemAvailable:") return value * 1024;
  }
  const long pages = ::sysconf(_SC_PHYS_PAGES);
  const long page = ::sysconf(_SC_PAGE_SIZE);
  return pages > 0 && page > 0 ? static_cast<std::int64_t>(pages) * page : (std::int64_t{1} << 32);
}

double unix_now() {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

std::string iso8601_now() {
  const std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

std::string joined_command_line(int argc, char** argv) {
  std::string s;
  for (int i = 0; i < argc; ++i) {
    std::string a = argv[i];
    const bool plain = !a.empty() && a.find_first_not_of(
                                         "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                         "0123456789-_./=,:+@%") == std::string::npos;
    if (!plain) {
      std::string q = "'";
      for (char c : a)
        q += c == '\'' ? std::string("'\\''") : std::string(1, c);
      a = q + "'";
    }
    if (i) s += ' ';
    s += a;
  }
  return s;
}

}  // namespace ringsched::profiler
