// profiler/checkpoint.h — the elastic experiment's checkpoint: everything needed to resume data-parallel SGD on a
// different number of workers, in a small binary format (header, fields, float32 arrays, FNV-1a 64 checksum),
// written atomically (temp file + fsync + rename). Layout in docs/profiler.md; little-endian hosts only.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "profiler/synthetic_data.h"
#include "workloads/io/atomic_write.h"

namespace ringsched::profiler {

inline constexpr char kCheckpointMagic[8] = {'R', 'S', 'C', 'K', 'P', 'T', '0', '1'};
inline constexpr std::uint32_t kCheckpointVersion = 1;

struct Checkpoint {
  // Model and optimiser state.
  std::vector<int> layers;  // model shape; parameters.size() must match
  std::vector<float> parameters;
  std::vector<float> velocity;  // momentum buffer, same size as parameters
  double lr = 0.0;              // learning rate in force at the stop (for `world_size` workers)
  double momentum = 0.0;
  std::int64_t warmup_steps_left = 0;  // linear warm-up still to run after a resize
  double warmup_from_lr = 0.0;         // warm-up starts from this lr ...
  std::int64_t warmup_steps = 0;       // ... and lasts this many steps in total
  // Progress.
  std::int64_t step = 0;                 // global steps done (one step = one global batch)
  std::int64_t epoch = 0;                // completed epochs
  std::int64_t epoch_offset = 0;         // samples of the current epoch's permutation already consumed
  std::uint64_t rng_state = 0;           // state of the generator that draws each epoch's shuffle seed
  std::uint64_t epoch_shuffle_seed = 0;  // shuffle seed of the current epoch
  // Job.
  int world_size = 0;          // workers when saved
  int initial_world_size = 0;  // workers of the very first run of this job
  int per_worker_batch = 0;
  DataSpec data;
  // Timing history (system clock, seconds since the Unix epoch, rank 0's host).
  double first_start_unix = 0.0;          // the first run's process start
  double stop_unix = 0.0;                 // when the run decided to stop (end of its last step)
  double checkpoint_write_seconds = 0.0;  // previous checkpoint's write time (filled in by the writer)
};

// Serialised bytes of a checkpoint (deterministic: equal checkpoints give equal bytes).
std::string serialize_checkpoint(const Checkpoint& c);

// Parses bytes produced by serialize_checkpoint. Throws ringsched::InputError naming `source` for a bad magic,
// unsupported version, truncation, implausible sizes or a checksum mismatch.
Checkpoint parse_checkpoint(const std::string& bytes, const std::string& source);

// Throws ringsched::InputError ("<flag>: folder <dir> of <path> does not exist") unless the folder that will hold
// `path` exists, so a long run does not end in a failed write.
void check_output_folder(const std::string& flag, const std::string& path);

// Reads a whole file; throws ringsched::InputError naming the path if it cannot.
std::string read_file_bytes(const std::string& path);

inline void save_checkpoint(const Checkpoint& c, const std::string& path) {
  write_file_atomic(path, serialize_checkpoint(c));  // temp file, fsync, rename (workloads/io/atomic_write.h)
}
inline Checkpoint load_checkpoint(const std::string& path) {
  return parse_checkpoint(read_file_bytes(path), path);
}

}  // namespace ringsched::profiler
