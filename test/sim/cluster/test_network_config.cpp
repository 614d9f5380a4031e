// test/sim/cluster/test_network_config.cpp — the cluster.network key: defaults, every option, and each bad input
// failing with the file and JSON path of the offending value.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include "sim/cluster/network/network_config.h"
#include "test/input_error_of.h"

using namespace ringsched;
using ringsched::net::NetworkOptions;
using ringsched::net::parse_network;

namespace {

NetworkOptions net_config_parse(const nlohmann::json& j) {
  return parse_network(JsonReader(j, "cfg.json", "cluster.network"));
}

std::string net_config_error(const nlohmann::json& j) {
  return test::error_of([&] { (void)net_config_parse(j); });
}

}  // namespace

TEST_CASE("cluster::NetworkConfig: an empty object is contention off with the documented defaults", "[network]") {
  const NetworkOptions o = net_config_parse(nlohmann::json::object());
  CHECK_FALSE(o.contention);
  CHECK(o.overlap == 0.0);
  CHECK(o.activity == "expected");
  CHECK(o.allreduce == "hierarchical");
  CHECK(o.priority == "none");
  CHECK(o.bytes_per_param == 4.0);
}

TEST_CASE("cluster::NetworkConfig: every option is read", "[network]") {
  const NetworkOptions o = net_config_parse({{"contention", true},
                                             {"overlap", 0.25},
                                             {"activity", "expected"},
                                             {"allreduce", "ring"},
                                             {"priority", "gpu_intensity"},
                                             {"bytes_per_param", 2}});
  CHECK(o.contention);
  CHECK(o.overlap == 0.25);
  CHECK(o.activity == "expected");
  CHECK(o.allreduce == "ring");
  CHECK(o.priority == "gpu_intensity");
  CHECK(o.bytes_per_param == 2.0);
}

TEST_CASE("cluster::NetworkConfig: bad input fails naming the JSON path", "[network]") {
  using Catch::Contains;
  CHECK_THAT(net_config_error({{"contention", true}, {"overlapp", 0.5}}),
             Contains("cfg.json: cluster.network") && Contains("overlapp") && Contains("overlap"));
  CHECK_THAT(net_config_error({{"overlap", 1.5}}), Contains("cfg.json: cluster.network.overlap") && Contains("1.5"));
  CHECK_THAT(net_config_error({{"overlap", -0.1}}), Contains("cluster.network.overlap"));
  CHECK_THAT(net_config_error({{"contention", "yes"}}), Contains("cluster.network.contention") && Contains("true"));
  CHECK_THAT(net_config_error({{"activity", "sometimes"}}),
             Contains("cluster.network.activity") && Contains("sometimes") && Contains("expected, always"));
  CHECK_THAT(net_config_error({{"allreduce", "tree"}}),
             Contains("cluster.network.allreduce") && Contains("hierarchical, ring"));
  CHECK_THAT(net_config_error({{"priority", "fifo"}}),
             Contains("cluster.network.priority") && Contains("none, gpu_intensity"));
  CHECK_THAT(net_config_error({{"bytes_per_param", 0}}),
             Contains("cluster.network.bytes_per_param") && Contains("> 0"));
  CHECK_THAT(net_config_error({{"bytes_per_param", -2}}), Contains("cluster.network.bytes_per_param"));
  CHECK_THAT(net_config_error({{"bytes_per_param", 1000}}),
             Contains("cluster.network.bytes_per_param") && Contains("at most 64"));
  CHECK_THAT(net_config_error(nlohmann::json::array()), Contains("cluster.network"));
  // Priorities between always-on flows would starve the lower job for ever.
  CHECK_THAT(net_config_error({{"activity", "always"}, {"priority", "gpu_intensity"}}),
             Contains("cluster.network.priority") && Contains("needs activity \"expected\""));
  CHECK(net_config_error({{"bytes_per_param", 8}}).empty());
}
