// workloads/measurement/measurement.cpp — measurement file: strict JSON reading with file + JSON-path errors, atomic
// writing, log-log all-reduce interpolation and Eq. 5 fit points.
#include "workloads/measurement/measurement.h"

#include <unistd.h>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <stdexcept>
#include <system_error>

#include "models/input_error.h"
#include "workloads/io/atomic_write.h"
#include "workloads/io/input_file.h"
#include "workloads/io/json_reader.h"

namespace ringsched::profiler {

namespace {

using Json = nlohmann::json;
using OrderedJson = nlohmann::ordered_json;

std::string format_number(double v) {
  std::ostringstream os;
  os.precision(17);
  os << v;
  return os.str();
}

// A cursor into the document that knows its file and JSON path, for error messages.
class Node {
 public:
  Node(const Json& j, std::string file, std::string path) : j_(j), file_(std::move(file)), path_(std::move(path)) {}

  [[noreturn]] void fail(const std::string& what) const {
    throw InputError(file_ + ": " + (path_.empty() ? std::string("(top level)") : path_) + ": " + what);
  }

  const Json& json() const { return j_; }

  // Checks this is an object whose keys are exactly `required` plus any of `optional`.
  void expect_object(std::initializer_list<const char*> required,
                     std::initializer_list<const char*> optional = {}) const {
    if (!j_.is_object()) fail(std::string("must be an object, got ") + j_.type_name());
    std::set<std::string> allowed;
    for (const char* k : required) {
      allowed.insert(k);
      if (!j_.contains(k)) child_path_fail(k, "missing required key");
    }
    for (const char* k : optional)
      allowed.insert(k);
    for (const auto& item : j_.items()) {
      if (!allowed.count(item.key())) {
        std::string valid;
        for (const auto& a : allowed) {
          if (!valid.empty()) valid += ", ";
          valid += a;
        }
        child_path_fail(item.key(), "unknown key (valid keys: " + valid + ")");
      }
    }
  }

  Node at(const std::string& key) const { return Node(j_.at(key), file_, join(key)); }
  Node at(std::size_t i) const { return Node(j_.at(i), file_, path_ + "[" + std::to_string(i) + "]"); }

  std::string as_string() const {
    if (!j_.is_string()) fail(std::string("must be a string, got ") + j_.type_name());
    return j_.get<std::string>();
  }

  std::int64_t as_int() const {
    if (!j_.is_number_integer())
      fail(std::string("must be an integer, got ") + j_.type_name() + " " +
           j_.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
    if (j_.is_number_unsigned() && j_.get<std::uint64_t>() > static_cast<std::uint64_t>(INT64_MAX))
      fail("integer too large: " + j_.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
    return j_.get<std::int64_t>();
  }

  std::int64_t as_positive_int(std::int64_t max = INT64_MAX) const {
    const std::int64_t v = as_int();
    if (v <= 0) fail("must be > 0, got " + std::to_string(v));
    if (v > max) fail("must be <= " + std::to_string(max) + ", got " + std::to_string(v));
    return v;
  }

  double as_number() const {
    if (!j_.is_number())
      fail(std::string("must be a number, got ") + j_.type_name() + " " +
           j_.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
    const double v = j_.get<double>();
    if (!std::isfinite(v))
      fail("must be finite, got " + j_.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
    return v;
  }

  double as_positive_number() const {
    const double v = as_number();
    if (!(v > 0.0)) fail("must be > 0, got " + format_number(v));
    return v;
  }

  std::size_t array_size(bool allow_empty) const {
    if (!j_.is_array()) fail(std::string("must be an array, got ") + j_.type_name());
    if (!allow_empty && j_.empty()) fail("must not be empty");
    return j_.size();
  }

 private:
  std::string join(const std::string& key) const { return path_.empty() ? key : path_ + "." + key; }
  [[noreturn]] void child_path_fail(const std::string& key, const std::string& what) const {
    throw InputError(file_ + ": " + join(key) + ": " + what);
  }

  const Json& j_;
  std::string file_;
  std::string path_;
};

Seconds read_seconds(const Node& n) {
  n.expect_object({"mean", "min", "max", "repeats"});
  Seconds s;
  s.mean = n.at("mean").as_positive_number();
  s.min = n.at("min").as_positive_number();
  s.max = n.at("max").as_positive_number();
  const Node reps = n.at("repeats");
  const std::size_t count = reps.array_size(false);
  for (std::size_t i = 0; i < count; ++i)
    s.repeats.push_back(reps.at(i).as_positive_number());
  const double slack = 1e-9 * s.max;
  if (s.min > s.mean + slack || s.mean > s.max + slack)
    n.fail("needs min <= mean <= max, got min " + format_number(s.min) + ", mean " + format_number(s.mean) + ", max " +
           format_number(s.max));
  const auto [lo, hi] = std::minmax_element(s.repeats.begin(), s.repeats.end());
  if (*lo < s.min - slack || *hi > s.max + slack)
    n.fail("repeats lie outside [min, max] = [" + format_number(s.min) + ", " + format_number(s.max) + "]");
  return s;
}

OrderedJson write_seconds(const Seconds& s) {
  OrderedJson j;
  j["mean"] = s.mean;
  j["min"] = s.min;
  j["max"] = s.max;
  j["repeats"] = s.repeats;
  return j;
}

Measurement parse_measurement(const Json& doc, const std::string& file) {
  const Node root(doc, file, "");
  root.expect_object({"schema", "version", "machine", "backend", "world_size", "nodes", "hostnames", "model",
                      "settings", "compute", "allreduce", "timestamp", "command_line"},
                     {"hardware"});
  const std::string schema = root.at("schema").as_string();
  if (schema != kMeasurementSchema)
    root.at("schema").fail("must be \"" + std::string(kMeasurementSchema) + "\", got \"" + schema + "\"");
  const std::int64_t version = root.at("version").as_int();
  if (version != kMeasurementVersion)
    root.at("version").fail("unsupported version " + std::to_string(version) + " (this build reads version " +
                            std::to_string(kMeasurementVersion) + ")");

  Measurement m;
  m.source = file;
  const Node machine = root.at("machine");
  machine.expect_object({"hostname", "cpu_model", "device"});
  m.machine.hostname = machine.at("hostname").as_string();
  m.machine.cpu_model = machine.at("cpu_model").as_string();
  m.machine.device = machine.at("device").as_string();

  m.backend = root.at("backend").as_string();
  if (m.backend != "cpu" && m.backend != "cuda")
    root.at("backend").fail("must be \"cpu\" or \"cuda\", got \"" + m.backend + "\"");
  m.world_size = static_cast<int>(root.at("world_size").as_positive_int(1 << 20));
  m.nodes = static_cast<int>(root.at("nodes").as_positive_int(1 << 20));
  const Node hosts = root.at("hostnames");
  const std::size_t host_count = hosts.array_size(false);
  for (std::size_t i = 0; i < host_count; ++i)
    m.hostnames.push_back(hosts.at(i).as_string());
  if (std::set<std::string>(m.hostnames.begin(), m.hostnames.end()).size() != m.hostnames.size())
    hosts.fail("host names must be distinct");
  if (static_cast<std::size_t>(m.nodes) != m.hostnames.size())
    root.at("nodes").fail("must equal the number of hostnames (" + std::to_string(m.hostnames.size()) + "), got " +
                          std::to_string(m.nodes));
  if (m.nodes > m.world_size)
    root.at("nodes").fail("must be <= world_size (" + std::to_string(m.world_size) + "), got " +
                          std::to_string(m.nodes));

  const Node model = root.at("model");
  model.expect_object({"layers", "parameters", "gradient_bytes"});
  const Node layers = model.at("layers");
  const std::size_t layer_count = layers.array_size(false);
  if (layer_count < 2)
    layers.fail("needs at least 2 layer widths (inputs and classes), got " + std::to_string(layer_count));
  for (std::size_t i = 0; i < layer_count; ++i)
    m.model.layers.push_back(static_cast<int>(layers.at(i).as_positive_int(1 << 24)));
  m.model.parameters = model.at("parameters").as_positive_int();
  if (m.model.parameters > (std::int64_t{1} << 60)) model.at("parameters").fail("must be <= 2^60");
  std::int64_t count = 0;
  try {
    count = mlp_parameter_count(m.model.layers);
  } catch (const InputError&) {  // the message would not name the file
    layers.fail("these widths give more than 2^60 parameters");
  }
  if (m.model.parameters != count)
    model.at("parameters")
        .fail("must be " + std::to_string(count) + " for these layers, got " + std::to_string(m.model.parameters));
  m.model.gradient_bytes = model.at("gradient_bytes").as_positive_int();
  if (m.model.gradient_bytes != 4 * m.model.parameters)
    model.at("gradient_bytes")
        .fail("must be 4 * parameters = " + std::to_string(4 * m.model.parameters) + " (float32), got " +
              std::to_string(m.model.gradient_bytes));

  const Node settings = root.at("settings");
  settings.expect_object({"warmup", "repeats", "allreduce_algorithm"});
  const std::int64_t warmup = settings.at("warmup").as_int();
  if (warmup < 0) settings.at("warmup").fail("must be >= 0, got " + std::to_string(warmup));
  m.settings.warmup = static_cast<int>(std::min<std::int64_t>(warmup, 1 << 30));
  m.settings.repeats = static_cast<int>(settings.at("repeats").as_positive_int(1 << 30));
  m.settings.allreduce_algorithm = settings.at("allreduce_algorithm").as_string();

  const Node compute = root.at("compute");
  const std::size_t compute_count = compute.array_size(false);
  for (std::size_t i = 0; i < compute_count; ++i) {
    const Node c = compute.at(i);
    c.expect_object({"per_worker_batch", "seconds"});
    ComputePoint p;
    p.per_worker_batch = static_cast<int>(c.at("per_worker_batch").as_positive_int(1 << 30));
    p.seconds = read_seconds(c.at("seconds"));
    if (!m.compute.empty() && p.per_worker_batch <= m.compute.back().per_worker_batch)
      c.at("per_worker_batch")
          .fail("batch sizes must be strictly increasing, got " + std::to_string(p.per_worker_batch) + " after " +
                std::to_string(m.compute.back().per_worker_batch));
    m.compute.push_back(std::move(p));
  }

  const Node allreduce = root.at("allreduce");
  const std::size_t allreduce_count = allreduce.array_size(m.world_size == 1);
  for (std::size_t i = 0; i < allreduce_count; ++i) {
    const Node a = allreduce.at(i);
    a.expect_object({"bytes", "seconds"});
    AllreducePoint p;
    p.bytes = a.at("bytes").as_positive_int();
    p.seconds = read_seconds(a.at("seconds"));
    if (!m.allreduce.empty() && p.bytes <= m.allreduce.back().bytes)
      a.at("bytes").fail("message sizes must be strictly increasing, got " + std::to_string(p.bytes) + " after " +
                         std::to_string(m.allreduce.back().bytes));
    m.allreduce.push_back(std::move(p));
  }

  if (doc.contains("hardware")) {
    const Node hw = root.at("hardware");
    hw.expect_object({}, {"nic_gbps", "intra_gbps", "gpus_per_node"});
    auto rate = [&](const char* key) {
      if (!hw.json().contains(key)) return 0.0;
      const double v = hw.at(key).as_positive_number();
      if (v > 1e5) hw.at(key).fail("must be <= 1e5 Gb/s (100 Tb/s), got " + std::to_string(v));
      return v;
    };
    m.hardware.nic_gbps = rate("nic_gbps");
    m.hardware.intra_gbps = rate("intra_gbps");
    if (hw.json().contains("gpus_per_node"))
      m.hardware.gpus_per_node = static_cast<int>(hw.at("gpus_per_node").as_positive_int(1024));
  }
  m.timestamp = root.at("timestamp").as_string();
  m.command_line = root.at("command_line").as_string();
  return m;
}

}  // namespace

Seconds seconds_from_repeats(std::vector<double> repeats) {
  if (repeats.empty()) throw std::invalid_argument("seconds_from_repeats: no repeats");
  Seconds s;
  double sum = 0.0;
  for (double r : repeats)
    sum += r;
  s.mean = sum / static_cast<double>(repeats.size());
  const auto [lo, hi] = std::minmax_element(repeats.begin(), repeats.end());
  s.min = *lo;
  s.max = *hi;
  s.mean = std::clamp(s.mean, s.min, s.max);
  s.repeats = std::move(repeats);
  return s;
}

std::int64_t mlp_parameter_count(const std::vector<int>& layers) {
  // Checked: widths come from users' files and flags; a count beyond 2^60 (4 bytes each must still fit) is refused.
  std::int64_t n = 0;
  for (std::size_t i = 1; i < layers.size(); ++i) {
    std::int64_t layer = 0;
    if (__builtin_mul_overflow(static_cast<std::int64_t>(layers[i - 1]), static_cast<std::int64_t>(layers[i]),
                               &layer) ||
        __builtin_add_overflow(layer, static_cast<std::int64_t>(layers[i]), &layer) ||
        __builtin_add_overflow(n, layer, &n) || n > (std::int64_t{1} << 60)) {
      throw InputError("MLP layers: the parameter count exceeds 2^60");
    }
  }
  return n;
}

Measurement load_measurement(const std::string& path) {
  // The shared bounded parser: nesting beyond kMaxJsonDepth and documents that cannot fit in memory are refused with
  // file:line before the library's recursive code sees them; errors name file, line and column.
  const Json doc = parse_json_text(read_input_file(path, "measurement file"), path);
  return parse_measurement(doc, path);
}

std::string measurement_to_json(const Measurement& m) {
  OrderedJson j;
  j["schema"] = kMeasurementSchema;
  j["version"] = kMeasurementVersion;
  j["machine"] = {{"hostname", m.machine.hostname}, {"cpu_model", m.machine.cpu_model}, {"device", m.machine.device}};
  j["backend"] = m.backend;
  j["world_size"] = m.world_size;
  j["nodes"] = m.nodes;
  j["hostnames"] = m.hostnames;
  j["model"] = {
      {"layers", m.model.layers}, {"parameters", m.model.parameters}, {"gradient_bytes", m.model.gradient_bytes}};
  j["settings"] = {{"warmup", m.settings.warmup},
                   {"repeats", m.settings.repeats},
                   {"allreduce_algorithm", m.settings.allreduce_algorithm}};
  j["compute"] = OrderedJson::array();
  for (const ComputePoint& p : m.compute)
    j["compute"].push_back({{"per_worker_batch", p.per_worker_batch}, {"seconds", write_seconds(p.seconds)}});
  j["allreduce"] = OrderedJson::array();
  for (const AllreducePoint& p : m.allreduce)
    j["allreduce"].push_back({{"bytes", p.bytes}, {"seconds", write_seconds(p.seconds)}});
  if (m.hardware.nic_gbps > 0.0 || m.hardware.intra_gbps > 0.0 || m.hardware.gpus_per_node > 0) {
    OrderedJson hw = OrderedJson::object();
    if (m.hardware.nic_gbps > 0.0) hw["nic_gbps"] = m.hardware.nic_gbps;
    if (m.hardware.intra_gbps > 0.0) hw["intra_gbps"] = m.hardware.intra_gbps;
    if (m.hardware.gpus_per_node > 0) hw["gpus_per_node"] = m.hardware.gpus_per_node;
    j["hardware"] = hw;
  }
  j["timestamp"] = m.timestamp;
  j["command_line"] = m.command_line;
  return j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

void save_measurement(const Measurement& m, const std::string& path) {
  const std::string text = measurement_to_json(m);
  write_file_atomic(path, text);
}

double allreduce_seconds(const Measurement& m, std::int64_t bytes) {
  if (bytes <= 0) throw InputError(m.source + ": allreduce: message size must be > 0, got " + std::to_string(bytes));
  if (m.allreduce.empty()) {
    if (m.world_size == 1) return 0.0;
    throw InputError(m.source + ": allreduce: no all-reduce measurements at world_size " +
                     std::to_string(m.world_size));
  }
  const auto& pts = m.allreduce;
  if (bytes < pts.front().bytes || bytes > pts.back().bytes)
    throw InputError(m.source + ": allreduce: message size " + std::to_string(bytes) +
                     " bytes is outside the measured range [" + std::to_string(pts.front().bytes) + ", " +
                     std::to_string(pts.back().bytes) + "]; profile with --message-bytes covering it");
  const auto hi = std::lower_bound(pts.begin(), pts.end(), bytes,
                                   [](const AllreducePoint& p, std::int64_t b) { return p.bytes < b; });
  if (hi->bytes == bytes) return hi->seconds.mean;
  const auto lo = hi - 1;
  const double x0 = std::log(static_cast<double>(lo->bytes));
  const double x1 = std::log(static_cast<double>(hi->bytes));
  const double y0 = std::log(lo->seconds.mean);
  const double y1 = std::log(hi->seconds.mean);
  const double t = (std::log(static_cast<double>(bytes)) - x0) / (x1 - x0);
  return std::exp(y0 + t * (y1 - y0));
}

double measurement_model_size(const std::vector<Measurement>& measurements) {
  if (measurements.empty()) throw InputError("measurement_model_size: no measurement files given");
  const Measurement& first = measurements.front();
  for (const Measurement& m : measurements) {
    if (m.model.layers != first.model.layers)
      throw InputError(m.source + ": model.layers: differs from " + first.source +
                       " (all measurements must profile the same model)");
  }
  return first.model_size();
}

HardwareFacts measurement_hardware(const std::vector<Measurement>& measurements) {
  HardwareFacts out;
  std::string from[3];
  auto merge = [&](auto& into, auto v, int k, const Measurement& m, const char* key) {
    if (!(v > 0)) return;
    if (into > 0 && into != v)
      throw InputError(m.source + ": hardware." + key + ": " + std::to_string(v) + " differs from " +
                       std::to_string(into) + " in " + from[k] + " (one machine per fit)");
    into = v;
    from[k] = m.source;
  };
  for (const Measurement& m : measurements) {
    merge(out.nic_gbps, m.hardware.nic_gbps, 0, m, "nic_gbps");
    merge(out.intra_gbps, m.hardware.intra_gbps, 1, m, "intra_gbps");
    merge(out.gpus_per_node, m.hardware.gpus_per_node, 2, m, "gpus_per_node");
  }
  return out;
}

std::vector<models::SpeedPoint> measurement_points(const std::vector<Measurement>& measurements) {
  measurement_model_size(measurements);  // same model everywhere
  std::vector<models::SpeedPoint> points;
  for (const Measurement& m : measurements) {
    if (m.backend != measurements.front().backend)
      throw InputError(m.source + ": backend: \"" + m.backend + "\" differs from \"" + measurements.front().backend +
                       "\" in " + measurements.front().source);
    const double comm = allreduce_seconds(m, m.model.gradient_bytes);
    for (const ComputePoint& c : m.compute) {
      models::SpeedPoint p;
      p.w = m.world_size;
      p.nodes = m.nodes;
      p.global_batch = static_cast<double>(c.per_worker_batch) * m.world_size;
      p.step_seconds = c.seconds.mean + comm;
      points.push_back(p);
    }
  }
  return points;
}

}  // namespace ringsched::profiler
