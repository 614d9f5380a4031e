// sim/cluster/network/network_config.cpp — parsing and validating cluster.network.
#include "sim/cluster/network/network_config.h"

#include <algorithm>

namespace ringsched::net {
namespace {

std::string name_in(const JsonReader& r, const std::string& key, const std::string& fallback,
                    const std::vector<std::string>& valid) {
  const auto m = r.maybe(key);
  if (!m) return fallback;
  std::string name = m->as_string();
  if (std::find(valid.begin(), valid.end(), name) == valid.end()) {
    m->fail("unknown " + key + " '" + name + "' (valid: " + join_names(valid) + ")");
  }
  return name;
}

}  // namespace

const std::vector<std::string>& activity_names() {
  static const std::vector<std::string> names = {"expected", "always"};
  return names;
}

const std::vector<std::string>& allreduce_names() {
  static const std::vector<std::string> names = {"hierarchical", "ring"};
  return names;
}

const std::vector<std::string>& priority_names() {
  static const std::vector<std::string> names = {"none", "gpu_intensity"};
  return names;
}

NetworkOptions parse_network(const JsonReader& r) {
  r.expect_object({"contention", "overlap", "activity", "allreduce", "priority", "bytes_per_param"});
  NetworkOptions o;
  o.contention = r.bool_or("contention", o.contention);
  if (auto ov = r.maybe("overlap")) o.overlap = ov->as_number_in(0.0, 1.0);
  o.activity = name_in(r, "activity", o.activity, activity_names());
  o.allreduce = name_in(r, "allreduce", o.allreduce, allreduce_names());
  o.priority = name_in(r, "priority", o.priority, priority_names());
  if (o.priority != "none" && o.activity == "always") {
    // Near-strict priority between jobs that never stop communicating starves the lower one for ever (a slowdown of
    // 8^7 at the extremes): the combination says nothing about a real fabric.
    r.at("priority")
        .fail("\"" + o.priority +
              "\" needs activity \"expected\": with \"always\" every flow communicates all the time, so a "
              "lower-priority job would be starved for ever");
  }
  if (auto b = r.maybe("bytes_per_param")) {
    o.bytes_per_param = b->as_positive();
    if (o.bytes_per_param > kMaxBytesPerParam) {
      b->fail("must be at most " + std::to_string(static_cast<int>(kMaxBytesPerParam)) +
              " bytes per parameter (fp32 = 4, fp16 = 2)");
    }
  }
  return o;
}

}  // namespace ringsched::net
