// workloads/measurement/measurement.h — the profiler's measurement file (JSON, schema "ringsched.measurement" v1): the
// struct, strict loading with errors that name the file and the JSON path, atomic saving, and the conversion of
// measurements taken at several world sizes into Eq. 5 fit points. No MPI or CUDA here: `ringsched fit` uses it.
//
// Typical use (what `ringsched fit m1.json m2.json ...` does):
//   std::vector<Measurement> ms;
//   for (const auto& f : files) ms.push_back(load_measurement(f));          // throws ringsched::InputError
//   const auto points = measurement_points(ms);                             // throws ringsched::InputError
//   const auto fit = models::fit_eq5(points, measurement_model_size(ms));   // n of Eq. 5 = parameter count
// The file format is documented in docs/profiler.md.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "models/fit.h"

namespace ringsched::profiler {

inline constexpr const char* kMeasurementSchema = "ringsched.measurement";
inline constexpr int kMeasurementVersion = 1;

// Statistics of one timed quantity over `repeats` (seconds, each > 0; min <= mean <= max).
struct Seconds {
  double mean = 0.0;
  double min = 0.0;
  double max = 0.0;
  std::vector<double> repeats;
};

// Builds the statistics from the repeat values (non-empty).
Seconds seconds_from_repeats(std::vector<double> repeats);

struct Machine {
  std::string hostname;   // rank 0's host name
  std::string cpu_model;  // from /proc/cpuinfo, or "unknown"
  std::string device;     // "cpu" or the GPU name of rank 0
};

struct ModelShape {
  std::vector<int> layers;          // layer widths, inputs first, classes last (>= 2 entries, each > 0)
  std::int64_t parameters = 0;      // weights + biases; must equal what `layers` implies
  std::int64_t gradient_bytes = 0;  // bytes all-reduced per step (parameters * 4 for float32)
};

// Forward/backward time of one step on one worker with `per_worker_batch` samples (max over ranks per repeat).
struct ComputePoint {
  int per_worker_batch = 0;
  Seconds seconds;
};

// Time of one sum all-reduce of `bytes` (float32) over all ranks (max over ranks per repeat).
struct AllreducePoint {
  std::int64_t bytes = 0;
  Seconds seconds;
};

struct Settings {
  int warmup = 0;                   // untimed iterations before the repeats
  int repeats = 0;                  // timed iterations (length of every `repeats` array)
  std::string allreduce_algorithm;  // what was forced ("default", "ring" for Open MPI, "Ring" for NCCL, ...)
};

// What the profiled machine is (optional `hardware` object; 0 = not stated): read by `ringsched fit` for the phys
// model's bounds (docs/heldout.md).
struct HardwareFacts {
  double nic_gbps = 0.0;    // one node's network interface, Gb/s
  double intra_gbps = 0.0;  // one GPU's link inside a node, Gb/s
  int gpus_per_node = 0;
};

struct Measurement {
  Machine machine;
  HardwareFacts hardware;
  std::string backend;                 // "cpu" or "cuda"
  int world_size = 0;                  // W, ranks = workers
  int nodes = 0;                       // distinct host names among the ranks (== hostnames.size())
  std::vector<std::string> hostnames;  // the distinct host names, sorted
  ModelShape model;
  Settings settings;
  std::vector<ComputePoint> compute;      // sorted by per_worker_batch, distinct, non-empty
  std::vector<AllreducePoint> allreduce;  // sorted by bytes, distinct; may be empty only when world_size == 1
  std::string timestamp;                  // ISO 8601 UTC
  std::string command_line;

  std::string source;  // the file it was loaded from (not serialised); used in error messages

  // The "n" of Eq. 5: the model's parameter count.
  double model_size() const { return static_cast<double>(model.parameters); }
};

// The hardware the files state, merged: InputError naming both files when two state a different value of one key.
HardwareFacts measurement_hardware(const std::vector<Measurement>& measurements);

// Parameter count (weights + biases) of a fully connected network with these layer widths.
std::int64_t mlp_parameter_count(const std::vector<int>& layers);

// Reads and validates a measurement file. Throws ringsched::InputError whose message names the file and the JSON
// path ("m2.json: compute[1].seconds.mean: must be > 0, got -1") for unreadable files, malformed JSON, missing or
// unknown keys, wrong types, an unknown schema or version, non-positive sizes or times, unsorted/duplicate sizes.
Measurement load_measurement(const std::string& path);

// Serialises to JSON (pretty, stable key order).
std::string measurement_to_json(const Measurement& m);

// Writes atomically (temp file in the same folder + rename). Throws std::runtime_error if it cannot write.
void save_measurement(const Measurement& m, const std::string& path);

// All-reduce seconds (mean) for `bytes`, interpolated linearly in log(bytes)-log(seconds) between the two nearest
// measured sizes; exact sizes are used as measured. World size 1 with no all-reduce points gives 0. Throws
// InputError (naming m.source) if `bytes` is outside the measured range.
double allreduce_seconds(const Measurement& m, std::int64_t bytes);

// Eq. 5 fit points from measurements at several world sizes: for each measurement (W, nodes) and each measured
// per-worker batch b, one point {w = W, nodes, global_batch = b*W, step_seconds = compute(b).mean +
// allreduce_seconds(gradient_bytes)}. Throws InputError if the measurements disagree on the model (layers) or
// backend, or if an all-reduce time cannot be interpolated. Order: input order, then increasing batch.
std::vector<models::SpeedPoint> measurement_points(const std::vector<Measurement>& measurements);

// The common model size n (parameter count) of the measurements; throws InputError if they differ or are empty.
double measurement_model_size(const std::vector<Measurement>& measurements);

}  // namespace ringsched::profiler
