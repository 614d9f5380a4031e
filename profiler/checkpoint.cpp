// profiler/checkpoint.cpp — checkpoint (de)serialisation with checksum, atomic file writes.
#include "profiler/checkpoint.h"

#include <fcntl.h>
#include <unistd.h>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <system_error>

#include "models/input_error.h"
#include "profiler/mlp.h"
#include "workloads/io/input_file.h"
#include "workloads/measurement/measurement.h"

namespace ringsched::profiler {

namespace {

std::uint64_t fnv1a64(const char* data, std::size_t n) {
  std::uint64_t h = 0xCBF29CE484222325ULL;
  for (std::size_t i = 0; i < n; ++i) {
    h ^= static_cast<unsigned char>(data[i]);
    h *= 0x100000001B3ULL;
  }
  return h;
}

class Writer {
 public:
  template <typename V>
  void put(V v) {
    char b[sizeof(V)];
    std::memcpy(b, &v, sizeof(V));
    out_.append(b, sizeof(V));
  }
  void put_floats(const std::vector<float>& v) {
    out_.append(reinterpret_cast<const char*>(v.data()), v.size() * sizeof(float));
  }
  void raw(const char* p, std::size_t n) { out_.append(p, n); }
  std::string& bytes() { return out_; }

 private:
  std::string out_;
};

class Reader {
 public:
  Reader(const std::string& bytes, std::size_t end, std::string source)
      : bytes_(bytes), end_(end), source_(std::move(source)) {}

  template <typename V>
  V get(const char* field) {
    need(sizeof(V), field);
    V v;
    std::memcpy(&v, bytes_.data() + pos_, sizeof(V));
    pos_ += sizeof(V);
    return v;
  }
  std::vector<float> get_floats(std::size_t n, const char* field) {
    if (n > (end_ - pos_) / sizeof(float)) fail(std::string("truncated in ") + field);
    std::vector<float> v(n);
    std::memcpy(v.data(), bytes_.data() + pos_, n * sizeof(float));
    pos_ += n * sizeof(float);
    return v;
  }
  std::size_t pos() const { return pos_; }
  [[noreturn]] void fail(const std::string& what) const { throw InputError(source_ + ": checkpoint: " + what); }

 private:
  void need(std::size_t n, const char* field) {
    if (end_ - pos_ < n)
      fail(std::string("truncated in ") + field + " (needs " + std::to_string(n) + " bytes at offset " +
           std::to_string(pos_) + ")");
  }
  const std::string& bytes_;
  std::size_t end_;
  std::size_t pos_ = 0;
  std::string source_;
};

}  // namespace

std::string serialize_checkpoint(const Checkpoint& c) {
  if (c.parameters.size() != static_cast<std::size_t>(mlp_parameter_count(c.layers)) ||
      c.velocity.size() != c.parameters.size())
    throw std::invalid_argument("serialize_checkpoint: parameter/velocity sizes do not match the layers");
  Writer w;
  w.raw(kCheckpointMagic, sizeof(kCheckpointMagic));
  w.put<std::uint32_t>(kCheckpointVersion);
  w.put<std::uint32_t>(static_cast<std::uint32_t>(c.layers.size()));
  for (int l : c.layers)
    w.put<std::int32_t>(l);
  w.put<std::uint64_t>(c.parameters.size());
  w.put<double>(c.lr);
  w.put<double>(c.momentum);
  w.put<std::int64_t>(c.warmup_steps_left);
  w.put<double>(c.warmup_from_lr);
  w.put<std::int64_t>(c.warmup_steps);
  w.put<std::int64_t>(c.step);
  w.put<std::int64_t>(c.epoch);
  w.put<std::int64_t>(c.epoch_offset);
  w.put<std::uint64_t>(c.rng_state);
  w.put<std::uint64_t>(c.epoch_shuffle_seed);
  w.put<std::int32_t>(c.world_size);
  w.put<std::int32_t>(c.initial_world_size);
  w.put<std::int32_t>(c.per_worker_batch);
  w.put<std::int32_t>(c.data.clusters_per_class);
  w.put<std::int32_t>(c.data.informative);
  w.put<std::int64_t>(c.data.train_samples);
  w.put<std::int64_t>(c.data.test_samples);
  w.put<std::uint64_t>(c.data.seed);
  w.put<double>(c.data.centre_scale);
  w.put<double>(c.data.noise);
  w.put<double>(c.first_start_unix);
  w.put<double>(c.stop_unix);
  w.put<double>(c.checkpoint_write_seconds);
  w.put_floats(c.parameters);
  w.put_floats(c.velocity);
  w.put<std::uint64_t>(fnv1a64(w.bytes().data(), w.bytes().size()));
  return std::move(w.bytes());
}

Checkpoint parse_checkpoint(const std::string& bytes, const std::string& source) {
  if (bytes.size() < sizeof(kCheckpointMagic) + 4 + 8 ||
      std::memcmp(bytes.data(), kCheckpointMagic, sizeof(kCheckpointMagic)) != 0)
    throw InputError(source + ": checkpoint: not a ringsched checkpoint (bad magic)");
  const std::size_t body = bytes.size() - sizeof(std::uint64_t);
  Reader r(bytes, body, source);
  r.get<std::uint64_t>("magic");
  const auto version = r.get<std::uint32_t>("version");
  if (version != kCheckpointVersion)
    r.fail("unsupported version " + std::to_string(version) + " (this build reads version " +
           std::to_string(kCheckpointVersion) + ")");
  std::uint64_t stored_sum = 0;
  std::memcpy(&stored_sum, bytes.data() + body, sizeof(stored_sum));
  if (stored_sum != fnv1a64(bytes.data(), body)) r.fail("checksum mismatch (file corrupt or truncated)");

  Checkpoint c;
  const auto layer_count = r.get<std::uint32_t>("layer count");
  if (layer_count < 2 || layer_count > 64) r.fail("implausible layer count " + std::to_string(layer_count));
  for (std::uint32_t i = 0; i < layer_count; ++i) {
    const auto l = r.get<std::int32_t>("layers");
    if (l <= 0 || l > (1 << 24)) r.fail("implausible layer width " + std::to_string(l));
    c.layers.push_back(l);
  }
  const auto params = r.get<std::uint64_t>("parameter count");
  if (params != static_cast<std::uint64_t>(mlp_parameter_count(c.layers)))
    r.fail("parameter count " + std::to_string(params) + " does not match layers " + layers_to_string(c.layers) + " (" +
           std::to_string(mlp_parameter_count(c.layers)) + ")");
  c.lr = r.get<double>("lr");
  c.momentum = r.get<double>("momentum");
  c.warmup_steps_left = r.get<std::int64_t>("warmup_steps_left");
  c.warmup_from_lr = r.get<double>("warmup_from_lr");
  c.warmup_steps = r.get<std::int64_t>("warmup_steps");
  c.step = r.get<std::int64_t>("step");
  c.epoch = r.get<std::int64_t>("epoch");
  c.epoch_offset = r.get<std::int64_t>("epoch_offset");
  c.rng_state = r.get<std::uint64_t>("rng_state");
  c.epoch_shuffle_seed = r.get<std::uint64_t>("epoch_shuffle_seed");
  c.world_size = r.get<std::int32_t>("world_size");
  c.initial_world_size = r.get<std::int32_t>("initial_world_size");
  c.per_worker_batch = r.get<std::int32_t>("per_worker_batch");
  c.data.clusters_per_class = r.get<std::int32_t>("data.clusters_per_class");
  c.data.informative = r.get<std::int32_t>("data.informative");
  c.data.train_samples = r.get<std::int64_t>("data.train_samples");
  c.data.test_samples = r.get<std::int64_t>("data.test_samples");
  c.data.seed = r.get<std::uint64_t>("data.seed");
  c.data.centre_scale = r.get<double>("data.centre_scale");
  c.data.noise = r.get<double>("data.noise");
  c.first_start_unix = r.get<double>("first_start_unix");
  c.stop_unix = r.get<double>("stop_unix");
  c.checkpoint_write_seconds = r.get<double>("checkpoint_write_seconds");
  c.data.inputs = c.layers.front();
  c.data.classes = c.layers.back();
  c.parameters = r.get_floats(params, "parameters");
  c.velocity = r.get_floats(params, "velocity");
  if (r.pos() != body) r.fail(std::to_string(body - r.pos()) + " unexpected trailing bytes");
  if (c.step < 0 || c.epoch < 0 || c.epoch_offset < 0 || c.world_size <= 0 || c.initial_world_size <= 0 ||
      c.per_worker_batch <= 0 || c.data.train_samples <= 0 || c.data.test_samples <= 0 || !(c.lr > 0.0))
    r.fail("implausible field values (negative counters, non-positive sizes or lr)");
  return c;
}

void check_output_folder(const std::string& flag, const std::string& path) {
  std::filesystem::path dir = std::filesystem::path(path).parent_path();
  if (dir.empty()) dir = ".";
  std::error_code ec;
  if (!std::filesystem::is_directory(dir, ec))
    throw InputError(flag + ": folder " + dir.string() + " of " + path + " does not exist or is not a folder");
  if (::access(dir.c_str(), W_OK) != 0) throw InputError(flag + ": folder " + dir.string() + " is not writable");
}

std::string read_file_bytes(const std::string& path) {
  return read_input_file(path, "checkpoint");
}

}  // namespace ringsched::profiler
