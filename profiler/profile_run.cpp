// profiler/profile_run.cpp — the measurement run: validation, timing loops, max over ranks, tables, file.
#include "profiler/profile_run.h"

#include <algorithm>
#include <cstdio>
#include <ostream>
#include <set>
#include <string>

#include "models/input_error.h"
#include "profiler/backend_registry.h"
#include "profiler/checkpoint.h"
#include "profiler/mlp.h"
#include "profiler/mpi_context.h"

namespace ringsched::profiler {

namespace {

std::string human_bytes(std::int64_t b) {
  char buf[64];
  const double v = static_cast<double>(b);
  if (b >= (std::int64_t{1} << 30))
    std::snprintf(buf, sizeof(buf), "%.1f GiB", v / (1 << 30));
  else if (b >= (1 << 20))
    std::snprintf(buf, sizeof(buf), "%.1f MiB", v / (1 << 20));
  else
    std::snprintf(buf, sizeof(buf), "%.1f KiB", v / 1024.0);
  return buf;
}

void validate(const ProfileOptions& o, int world) {
  if (o.layers.size() < 2) throw InputError("--layers: needs at least 2 widths (inputs and classes)");
  for (int l : o.layers)
    if (l <= 0 || l > (1 << 20)) throw InputError("--layers: widths must be in [1, 1048576], got " + std::to_string(l));
  if (o.batch_sizes.empty()) throw InputError("--batch-sizes: needs at least one size");
  for (std::int64_t b : o.batch_sizes)
    if (b <= 0 || b > kMaxBatch)
      throw InputError("--batch-sizes: each size must be in [1, " + std::to_string(kMaxBatch) + "], got " +
                       std::to_string(b));
  for (std::int64_t m : o.message_bytes) {
    if (m <= 0) throw InputError("--message-bytes: each size must be > 0, got " + std::to_string(m));
    if (m % 4 != 0)
      throw InputError("--message-bytes: each size must be a multiple of 4 (float32 elements), got " +
                       std::to_string(m));
  }
  if (o.warmup < 0) throw InputError("--warmup: must be >= 0, got " + std::to_string(o.warmup));
  if (o.repeats < 1 || o.repeats > 1000000)
    throw InputError("--repeats: must be in [1, 1000000], got " + std::to_string(o.repeats));
  if (o.out.empty()) throw InputError("--out: must name a file");
  if (world > kMaxWorldSize)
    throw InputError("world size " + std::to_string(world) + " is larger than allowed (" +
                     std::to_string(kMaxWorldSize) + ")");
}

// Times `f` warmup + repeats times (barrier before each timed repeat); returns per-repeat max over ranks.
template <typename F>
Seconds time_collectively(MPI_Comm comm, int warmup, int repeats, F&& f) {
  for (int i = 0; i < warmup; ++i)
    f();
  std::vector<double> local(static_cast<std::size_t>(repeats));
  for (int r = 0; r < repeats; ++r) {
    MPI_Barrier(comm);
    local[static_cast<std::size_t>(r)] = f();
  }
  std::vector<double> worst(local.size());
  MPI_Allreduce(local.data(), worst.data(), repeats, MPI_DOUBLE, MPI_MAX, comm);
  for (double& w : worst)
    w = std::max(w, 1e-9);  // a timer tick of zero is not a valid duration
  return seconds_from_repeats(std::move(worst));
}

}  // namespace

std::vector<std::int64_t> default_message_bytes(std::int64_t gradient_bytes) {
  std::set<std::int64_t> sizes;
  std::int64_t top = std::int64_t{16} << 20;
  while (top < gradient_bytes)
    top *= 4;
  for (std::int64_t s = 4096; s <= top; s *= 4)
    sizes.insert(s);
  if (gradient_bytes > 0) sizes.insert(gradient_bytes);
  return {sizes.begin(), sizes.end()};
}

void print_measurement_tables(const Measurement& m, std::ostream& out) {
  char line[256];
  out << "# ringsched-profile: backend " << m.backend << ", device " << m.machine.device << ", world size "
      << m.world_size << ", nodes " << m.nodes << "\n";
  out << "# model " << layers_to_string(m.model.layers) << ": " << m.model.parameters << " parameters, "
      << m.model.gradient_bytes << " gradient bytes; warmup " << m.settings.warmup << ", repeats " << m.settings.repeats
      << ", all-reduce algorithm " << m.settings.allreduce_algorithm << "\n";
  out << "#\n# forward/backward per step (max over ranks per repeat)\n";
  std::snprintf(line, sizeof(line), "# %10s %12s %12s %12s %14s\n", "batch", "mean (ms)", "min (ms)", "max (ms)",
                "samples/s/rank");
  out << line;
  for (const ComputePoint& c : m.compute) {
    std::snprintf(line, sizeof(line), "  %10d %12.3f %12.3f %12.3f %14.1f\n", c.per_worker_batch, c.seconds.mean * 1e3,
                  c.seconds.min * 1e3, c.seconds.max * 1e3, c.per_worker_batch / c.seconds.mean);
    out << line;
  }
  out << "#\n# all-reduce, float32 sum, in place (max over ranks per repeat)\n";
  std::snprintf(line, sizeof(line), "# %12s %12s %6s %5s %11s %11s %11s %8s %8s\n", "size", "count", "type", "redop",
                "time (us)", "min (us)", "max (us)", "algbw", "busbw");
  out << line;
  std::snprintf(line, sizeof(line), "# %12s %12s %6s %5s %11s %11s %11s %8s %8s\n", "(B)", "(elements)", "", "", "", "",
                "", "(GB/s)", "(GB/s)");
  out << line;
  const double factor = m.world_size > 1 ? 2.0 * (m.world_size - 1) / m.world_size : 0.0;
  for (const AllreducePoint& a : m.allreduce) {
    const double algbw = static_cast<double>(a.bytes) / a.seconds.mean / 1e9;
    std::snprintf(line, sizeof(line), "  %12lld %12lld %6s %5s %11.2f %11.2f %11.2f %8.3f %8.3f\n",
                  static_cast<long long>(a.bytes), static_cast<long long>(a.bytes / 4), "float", "sum",
                  a.seconds.mean * 1e6, a.seconds.min * 1e6, a.seconds.max * 1e6, algbw, algbw * factor);
    out << line;
  }
}

Measurement run_profile(const ProfileOptions& options, MPI_Comm comm, std::ostream& out) {
  const int rank = comm_rank(comm);
  const int world = comm_size(comm);
  ProfileOptions o = options;
  collective_try(comm, [&] {
    validate(o, world);
    if (rank == 0) check_output_folder("--out", o.out);
  });
  std::sort(o.batch_sizes.begin(), o.batch_sizes.end());
  o.batch_sizes.erase(std::unique(o.batch_sizes.begin(), o.batch_sizes.end()), o.batch_sizes.end());
  const std::int64_t parameters = mlp_parameter_count(o.layers);
  const std::int64_t gradient_bytes = 4 * parameters;
  if (o.message_bytes.empty()) o.message_bytes = default_message_bytes(gradient_bytes);
  o.message_bytes.push_back(gradient_bytes);  // always measured: the fit points need it
  std::sort(o.message_bytes.begin(), o.message_bytes.end());
  o.message_bytes.erase(std::unique(o.message_bytes.begin(), o.message_bytes.end()), o.message_bytes.end());

  BackendOptions bo;
  bo.layers = o.layers;
  bo.seed = o.seed;
  bo.nccl_algo = o.nccl_algo;
  std::unique_ptr<Backend> backend = make_backend(o.backend, bo, comm);

  // Memory: estimate and refuse before allocating anything large.
  const int max_batch = static_cast<int>(o.batch_sizes.back());
  const std::int64_t max_message = o.message_bytes.back();
  {
    std::string why;
    bool ok = true;
    try {
      const std::int64_t need = backend->required_bytes(max_batch, max_message);
      const std::int64_t have = backend->memory_budget_bytes();
      if (need > have) {
        ok = false;
        why = "--batch-sizes/--message-bytes: largest batch " + std::to_string(max_batch) + " and message " +
              std::to_string(max_message) + " B need about " + human_bytes(need) + " per rank on " + backend->device() +
              ", more than the " + human_bytes(have) + " available per rank";
      }
    } catch (const std::exception& e) {
      ok = false;
      why = e.what();
    }
    agree(comm, ok, why, kExitBadInput);
  }
  collective_try(comm, [&] { backend->prepare(max_batch, max_message); });

  Measurement m;
  m.backend = backend->name();
  m.world_size = world;
  m.hostnames = distinct_hostnames(comm);
  m.nodes = static_cast<int>(m.hostnames.size());
  m.machine.hostname = local_hostname();
  m.machine.cpu_model = cpu_model();
  m.machine.device = backend->device();
  m.model.layers = o.layers;
  m.model.parameters = parameters;
  m.model.gradient_bytes = gradient_bytes;
  m.settings.warmup = o.warmup;
  m.settings.repeats = o.repeats;
  m.settings.allreduce_algorithm = backend->allreduce_algorithm();
  m.command_line = o.command_line;
  m.source = o.out;

  try {
    for (std::int64_t b : o.batch_sizes) {
      const int batch = static_cast<int>(b);
      m.compute.push_back(
          {batch, time_collectively(comm, o.warmup, o.repeats, [&] { return backend->time_compute_step(batch); })});
    }
    for (std::int64_t bytes : o.message_bytes) {
      m.allreduce.push_back(
          {bytes, time_collectively(comm, o.warmup, o.repeats, [&] { return backend->time_allreduce(bytes); })});
    }
  } catch (const std::exception& e) {
    abort_all(std::string("measurement failed: ") + e.what(), kExitFailure);
  }
  m.timestamp = iso8601_now();

  std::string error;
  if (rank == 0) {
    print_measurement_tables(m, out);
    try {
      save_measurement(m, o.out);
      out << "# wrote " << o.out << "\n";
    } catch (const std::exception& e) {
      error = std::string("--out: ") + e.what();
    }
    out.flush();
  }
  agree(comm, error.empty(), error, kExitFailure);
  return m;
}

}  // namespace ringsched::profiler
