// test/sim/fitting/test_fit_phys.cpp — `ringsched fit --model phys|auto`: the entry (catalog kind phys) loads and
// predicts as the fit, posterior intervals and the hardware report, --budget and --add-probes, and bad input:
// hardware flags, probes that contradict the NIC (error beyond 10x, warning within), the catalog's hardware check,
// a measurement file's hardware keys.
#include <catch2/catch.hpp>

#include <sstream>
#include <string>
#include <vector>

#include "models/phys_model.h"
#include "sim/fitting/fit_command.h"
#include "test/input_error_of.h"
#include "workloads/catalog.h"

using namespace ringsched;

namespace {

// Hierarchical phys data on 8-GPU nodes: 1-8 GPUs on one node, 16 on 2, 32 on 4 and 64 on 8, per-GPU batches 16 and
// 64. With 100 M parameters x 4 bytes, a 100 Gb/s NIC needs 0.032 s per gradient; inter_bw here is 0.08 s.
std::string phys_points_text(double inter_bw = 0.08) {
  const std::array<double, 6> c{0.002, 0.02, 0.01, 0.0004, inter_bw, 0.001};
  std::ostringstream text;
  text.precision(17);
  text << "gpus,nodes,global_batch,step_seconds\n";
  for (const auto& [w, n] : std::vector<std::pair<int, int>>{{1, 1}, {2, 1}, {4, 1}, {8, 1}, {16, 2}, {32, 4}, {64, 8}})
    for (double b : {16.0, 64.0})
      text << w << ',' << n << ',' << b * w << ','
           << models::phys_step_time(models::PhysVariant::kHier, c, w, n, b * w, 0.0) << '\n';
  return text.str();
}

FitCommandOptions phys_options(const std::string& text) {
  FitCommandOptions o;
  o.csv_text = text;
  o.csv_origin = "phys.csv";
  o.model = "phys";
  o.protocol = "two-node";
  o.model_size = 100.0;
  o.nic_gbps = 100.0;
  o.intra_gbps = 800.0;
  return o;
}

nlohmann::json run_phys(const FitCommandOptions& o, std::string* err_text = nullptr) {
  std::ostringstream out;
  std::ostringstream err;
  REQUIRE(run_fit_command(o, out, err) == 0);
  if (err_text) *err_text = err.str();
  return nlohmann::json::parse(out.str());
}

}  // namespace

TEST_CASE("sim::FitPhys: --model phys writes a phys entry a catalog loads, with posterior intervals and the hardware",
          "[fit][phys]") {
  const nlohmann::json doc = run_phys(phys_options(phys_points_text()));
  const nlohmann::json& q = doc.at("quality");
  CHECK(q.at("model").get<std::string>().rfind("phys:", 0) == 0);
  CHECK(q.at("intervals").at("method") == "posterior");
  CHECK(q.at("hardware").at("lower_bounds").at("inter_bw_s").get<double>() == Approx(0.032));
  CHECK(q.at("hardware").at("upper_bounds").at("inter_hop_s").get<double>() == Approx(0.0016));
  CHECK(q.at("hardware").at("gpus_per_node") == 8);
  // Every unprofiled point (32 and 64 GPUs) has an interval around its prediction.
  REQUIRE(q.at("unprofiled").size() == 4);
  for (const auto& u : q.at("unprofiled")) {
    CHECK(u.at("predicted_lo_s").get<double>() <= u.at("predicted_s").get<double>() * 1.0001);
    CHECK(u.at("predicted_hi_s").get<double>() >= u.at("predicted_s").get<double>() * 0.9999);
  }
  // The net variants and the phys ones all appear in the selection table.
  int phys_rows = 0;
  for (const auto& c : q.at("model_selection"))
    phys_rows += c.at("variant").get<std::string>().rfind("phys:", 0) == 0 ? 1 : 0;
  CHECK(phys_rows == 3);
  const nlohmann::json& entry = doc.at("class");
  CHECK(entry.at("speed").at("kind") == "phys");
  CHECK(entry.at("speed").at("hardware").at("nic_gbps").get<double>() == 100.0);
  const Catalog cat = parse_catalog({{"name", "mine"}, {"classes", {entry}}}, "fitted.json");
  for (const auto& u : q.at("unprofiled")) {
    CHECK(cat.classes[0].speed->step_seconds(u.at("gpus").get<int>(), u.at("nodes").get<int>(),
                                             u.at("global_batch").get<double>()) ==
          Approx(u.at("predicted_s").get<double>()).epsilon(1e-9));
  }
}

TEST_CASE("sim::FitPhys: auto keeps net unless phys has the smaller leave-one-probe-out error, net stays the default",
          "[fit][phys]") {
  FitCommandOptions o = phys_options(phys_points_text());
  o.model = "auto";
  const nlohmann::json a = run_phys(o);
  CHECK(a.at("quality").at("model").get<std::string>().rfind("phys:", 0) == 0);  // phys data: phys wins
  o.model = "net";
  const nlohmann::json n = run_phys(o);
  CHECK(n.at("quality").at("model").get<std::string>().rfind("net:", 0) == 0);
  CHECK(n.at("quality").at("intervals").at("method") == "envelope");
  CHECK(!n.at("quality").contains("hardware"));
}

TEST_CASE("sim::FitPhys: --budget plans distinct probes, --add-probes joins them to the protocol's points",
          "[fit][phys]") {
  FitCommandOptions o = phys_options(phys_points_text());
  o.budget = 2;
  std::string err;
  const nlohmann::json doc = run_phys(o, &err);
  const nlohmann::json& plan = doc.at("quality").at("probe_plan");
  REQUIRE(plan.at("steps").size() == 2);
  CHECK(plan.at("steps")[0].at("nodes").get<int>() > 2);
  CHECK(plan.at("steps")[0] != plan.at("steps")[1]);
  CHECK(err.find("planned probe 2:") != std::string::npos);
  FitCommandOptions add = phys_options(phys_points_text());
  add.add_probes = {"32@4"};
  const nlohmann::json more = run_phys(add);
  CHECK(more.at("quality").at("points_fit") == 12);  // 10 on <= 2 nodes + the two at 32 GPUs on 4 nodes
  CHECK(more.at("quality").at("unprofiled").size() == 2);
}

TEST_CASE("sim::FitPhys: hardware flags that are zero, negative, absurd or not finite are refused naming the flag",
          "[fit][phys][hostile]") {
  const std::string text = phys_points_text();
  auto err = [&](auto set) {
    FitCommandOptions o = phys_options(text);
    set(o);
    return test::error_of([&] {
      std::ostringstream out;
      std::ostringstream e;
      run_fit_command(o, out, e);
    });
  };
  CHECK(err([](FitCommandOptions& o) { o.nic_gbps = -1.0; }).find("--nic-gbps") != std::string::npos);
  CHECK(err([](FitCommandOptions& o) { o.nic_gbps = 0.0; }).find("--nic-gbps") != std::string::npos);
  CHECK(err([](FitCommandOptions& o) { o.intra_gbps = 0.0; }).find("--intra-gbps") != std::string::npos);
  CHECK(err([](FitCommandOptions& o) { o.intra_gbps = 1e9; }).find("--intra-gbps") != std::string::npos);
  CHECK(err([](FitCommandOptions& o) { o.overlap = 1.0; }).find("--overlap") != std::string::npos);
  CHECK(err([](FitCommandOptions& o) { o.bytes_per_param = 0.0; }).find("--bytes-per-param") != std::string::npos);
  CHECK(err([](FitCommandOptions& o) { o.hop_latency_us = std::nan(""); }).find("--hop-latency-us") !=
        std::string::npos);
  CHECK(err([](FitCommandOptions& o) { o.protocol = "paper"; }).find("only with the net protocols") !=
        std::string::npos);
  CHECK(err([](FitCommandOptions& o) {
          o.probes = {"1", "8"}, o.add_probes = {"16"};
        }).find("--add-probes") != std::string::npos);
  CHECK(err([](FitCommandOptions& o) { o.add_probes = {"24@3"}; }).find("24@3") != std::string::npos);
}

TEST_CASE("sim::FitPhys: probes faster than the declared NIC: a warning within 10x, exit 2 beyond", "[fit][phys]") {
  // inter_bw 0.01 s: the 2-node steps are shorter than a 2 Gb/s NIC's time for the gradient.
  FitCommandOptions o = phys_options(phys_points_text(0.01));
  o.nic_gbps = 20.0;  // floor 0.16 s a gradient on 2 nodes: the 16-GPU steps (~0.07-0.13 s) are 1.2-2.3x too short
  std::string err;
  const nlohmann::json doc = run_phys(o, &err);
  bool warned = false;
  for (const auto& w : doc.at("quality").at("warnings"))
    warned |= w.get<std::string>().find("shorter than the declared NIC") != std::string::npos;
  CHECK(warned);
  o.nic_gbps = 1.0;  // 3.2 s a gradient: > 10x every measured step
  const std::string msg = test::error_of([&] {
    std::ostringstream out;
    std::ostringstream e;
    run_fit_command(o, out, e);
  });
  CHECK(msg.find("phys.csv") != std::string::npos);
  CHECK(msg.find("--nic-gbps") != std::string::npos);
}

TEST_CASE("sim::FitPhys: a catalog's phys coefficients below its declared hardware are refused naming the key",
          "[fit][phys][hostile]") {
  nlohmann::json speed{{"kind", "phys"},     {"variant", "hier"},  {"per_sample_s", 0.001},
                       {"inter_bw_s", 0.01}, {"intra_bw_s", 0.01}, {"hardware", {{"nic_gbps", 100}}}};
  nlohmann::json cls{{"name", "x"},
                     {"weight", 1},
                     {"batch", {{"mode", "fixed_per_worker"}, {"size", 32}}},
                     {"model_size_mparams", 100},
                     {"work", {{"samples", 1e6}}},
                     {"gpus", {{"min", 1}, {"max", 64}}},
                     {"speed", speed}};
  auto load = [&] { return parse_catalog({{"name", "c"}, {"classes", {cls}}}, "cat.json"); };
  std::string msg = test::error_of(load);
  CHECK(msg.find("inter_bw_s") != std::string::npos);
  CHECK(msg.find("contradict") != std::string::npos);
  cls["speed"]["inter_bw_s"] = 0.04;  // >= 0.032 s: consistent
  CHECK(test::error_of(load).empty());
  cls["speed"]["variant"] = "star";
  CHECK(test::error_of(load).find("unknown phys variant") != std::string::npos);
}
