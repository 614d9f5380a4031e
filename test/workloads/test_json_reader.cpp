// test/workloads/test_json_reader.cpp — JsonReader messages: unknown keys list the valid ones, missing keys, wrong
// types, out-of-range numbers, and JSON paths (also through a whole experiment config), parse errors with line:col.
#include <catch2/catch.hpp>

#include <string>

#include "sim/experiments/runner.h"
#include "test/input_error_of.h"
#include "workloads/io/json_reader.h"

using Catch::Matchers::Contains;
using Catch::Matchers::Equals;
using ringsched::InputError;
using ringsched::JsonReader;
using ringsched::parse_json_text;
using ringsched::test::error_of;

TEST_CASE("workloads::JsonReader: unknown key names the path and lists the valid keys", "[workloads][json]") {
  const auto doc = parse_json_text(R"({"cluster": {"nodes": 2, "gpu_per_node": 8}})", "cfg.json");
  JsonReader r(doc, "cfg.json");
  const auto cluster = r.at("cluster");
  CHECK_THAT(error_of([&] {
               cluster.expect_object({"nodes", "gpus_per_node"});
             }),
             Equals("cfg.json: cluster.gpu_per_node: unknown key (valid keys here: nodes, gpus_per_node); did you mean "
                    "'gpus_per_node'?"));
  // Top-level unknown keys have a path of just the key.
  const auto top = parse_json_text(R"({"sedes": 3})", "cfg.json");
  CHECK_THAT(error_of([&] { JsonReader(top, "cfg.json").expect_object({"seeds"}); }),
             Equals("cfg.json: sedes: unknown key (valid keys here: seeds); did you mean 'seeds'?"));
  // A key close to none of them gets no suggestion.
  CHECK_THAT(error_of([&] {
               JsonReader(parse_json_text(R"({"colour": 3})", "cfg.json"), "cfg.json").expect_object({"seeds"});
             }),
             Equals("cfg.json: colour: unknown key (valid keys here: seeds)"));
}

TEST_CASE("workloads::JsonReader: missing key, wrong type and out-of-range values", "[workloads][json]") {
  const auto doc = parse_json_text(
      R"({"workload": {"arrival": {"load": -1, "name": 3, "flag": "yes", "jobs": 2.5, "list": 4}}})", "cfg.json");
  JsonReader r(doc, "cfg.json");
  const auto arrival = r.at("workload").at("arrival");
  CHECK(arrival.path() == "workload.arrival");
  CHECK_THAT(error_of([&] { (void)arrival.at("rate"); }),
             Equals("cfg.json: workload.arrival.rate: required key is missing"));
  CHECK_THAT(error_of([&] { (void)arrival.at("load").as_positive(); }),
             Equals("cfg.json: workload.arrival.load: must be > 0, got -1"));
  CHECK_THAT(error_of([&] { (void)arrival.at("load").as_non_negative(); }),
             Equals("cfg.json: workload.arrival.load: must be >= 0, got -1"));
  CHECK_THAT(error_of([&] { (void)arrival.at("name").as_string(); }),
             Equals("cfg.json: workload.arrival.name: must be a string, got number 3"));
  CHECK_THAT(error_of([&] { (void)arrival.at("flag").as_bool(); }),
             Equals("cfg.json: workload.arrival.flag: must be true or false, got string \"yes\""));
  CHECK_THAT(error_of([&] { (void)arrival.at("flag").as_number(); }),
             Equals("cfg.json: workload.arrival.flag: must be a number, got string \"yes\""));
  CHECK_THAT(error_of([&] { (void)arrival.at("jobs").as_integer(); }),
             Equals("cfg.json: workload.arrival.jobs: must be an integer, got number 2.5"));
  CHECK_THAT(error_of([&] { (void)arrival.at("load").as_integer_in(1, 10); }),
             Equals("cfg.json: workload.arrival.load: must be between 1 and 10, got -1"));
  CHECK_THAT(error_of([&] { (void)arrival.at("list").elements(); }),
             Equals("cfg.json: workload.arrival.list: must be an array, got number"));
  CHECK_THAT(error_of([&] { (void)arrival.at("load").at("x"); }),
             Equals("cfg.json: workload.arrival.load: must be an object, got number"));
  // Integral floats are accepted as integers; defaults apply only when the key is absent.
  const auto ok = parse_json_text(R"({"n": 4.0, "empty": []})", "x.json");
  JsonReader o(ok, "x.json");
  CHECK(o.at("n").as_integer() == 4);
  CHECK(o.integer_in_or("absent", 1, 9, 7) == 7);
  CHECK(o.positive_or("absent", 2.5) == 2.5);
  CHECK_THAT(error_of([&] { (void)o.at("empty").non_empty_elements(); }), Equals("x.json: empty: must not be empty"));
  // Array elements carry their index in the path.
  const auto arr = parse_json_text(R"({"levels": [{"load": 1}, {"load": "high"}]})", "x.json");
  const auto elems = JsonReader(arr, "x.json").at("levels").elements();
  CHECK_THAT(error_of([&] { (void)elems[1].at("load").as_number(); }),
             Equals("x.json: levels[1].load: must be a number, got string \"high\""));
}

TEST_CASE("workloads::parse_json_text: malformed JSON names file, line and column", "[workloads][json]") {
  const std::string text = "{\n  \"a\": 1,\n  \"b\": ,\n}\n";
  const std::string msg = error_of([&] { (void)parse_json_text(text, "bad.json"); });
  // The offending ',' is on line 3, column 8.
  CHECK_THAT(msg, Contains("bad.json:3:8: malformed JSON"));
  CHECK_THAT(error_of([&] { (void)ringsched::read_json_file("/nonexistent/ringsched/x.json"); }),
             Equals("/nonexistent/ringsched/x.json: cannot open JSON file: no such file"));
}

TEST_CASE("workloads::parse_json_text: nesting deeper than the limit is an input error, not a crash",
          "[workloads][json][hostile]") {
  // 100,000 levels crashed the parser (stack overflow, no message) before the limit.
  const std::string deep = std::string(100000, '[') + std::string(100000, ']');
  CHECK_THAT(error_of([&] { (void)parse_json_text(deep, "deep.json"); }),
             Equals("deep.json:1:129: JSON nested deeper than 128 levels of arrays and objects (ringsched's files "
                    "need fewer than 10)"));
  const std::string objects = "{\"a\":\n" + [] {
    std::string s;
    for (int i = 0; i < 200; ++i)
      s += "{\"k\": ";
    return s + "1" + std::string(200, '}');
  }() + "}";
  CHECK_THAT(error_of([&] { (void)parse_json_text(objects, "o.json"); }), Contains("o.json:2:"));
  // Exactly the limit parses; brackets inside strings (escaped quotes included) do not count.
  const std::string at_limit = std::string(128, '[') + std::string(128, ']');
  CHECK(parse_json_text(at_limit, "ok.json").is_array());
  const std::string in_string = "{\"s\": \"\\\"" + std::string(1000, '[') + "\"}";
  CHECK(parse_json_text(in_string, "s.json").at("s").get<std::string>().size() == 1001);
}

TEST_CASE("workloads::JsonReader: paths through a whole experiment config", "[workloads][json]") {
  auto parse = [](const std::string& text) {
    return error_of([&] { (void)ringsched::parse_experiment(parse_json_text(text, "e.json"), "e.json", ""); });
  };
  const std::string head = R"({"cluster": {"nodes": 2, "gpus_per_node": 8}, "strategies": ["eight"], )";
  CHECK_THAT(
      parse(head + R"("workload": {"catalog": "paper", "jobs": 5, "arrival": {"process": "poisson", "load": -0.5}}})"),
      Equals("e.json: workload.arrival.load: must be > 0, got -0.5"));
  CHECK_THAT(
      parse(head + R"("workload": {"catalog": "paper", "jobs": 5, "arrival": {"process": "poisson", "lod": 0.5}}})"),
      Equals("e.json: workload.arrival.lod: unknown key (valid keys here: process, load, rate_per_hour, multi_gpu, "
             "reference_gpu_type, streams, job_table, first_seed); did you mean 'load'?"));
  CHECK_THAT(
      parse(head + R"("workload": {"catalog": "paper", "jobs": 5, "arrival": {"process": "hawkes", "load": 1}}})"),
      Equals("e.json: workload.arrival.process: unknown arrival process 'hawkes' (valid: poisson, gavel)"));
  CHECK_THAT(parse(head + R"("workload": {"catalog": "paper", "arrival": {"process": "poisson", "load": 1}}})"),
             Equals("e.json: workload.jobs: required key is missing"));
}
