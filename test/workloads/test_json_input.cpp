// test/workloads/test_json_input.cpp — what the JSON readers refuse and how they say it (issue 33): a key given twice
// in one object (configs, catalogs, sweep files: file:line:col and the key's path), "did you mean" for an unknown key,
// and syntax errors that name line and column without quoting the file's text.
#include <catch2/catch.hpp>

#include <fstream>
#include <string>

#include "sim/experiments/config.h"
#include "sim/sweeps/sweep_spec.h"
#include "test/input_error_of.h"
#include "test/sim/cli_util.h"
#include "workloads/catalog.h"
#include "workloads/io/closest_name.h"
#include "workloads/io/json_reader.h"

using Catch::Matchers::Contains;
using Catch::Matchers::Equals;
using ringsched::JsonReader;
using ringsched::parse_json_text;
using ringsched::test::error_of;

TEST_CASE("workloads::parse_json_text: a key given twice in one object names file:line:col and its path",
          "[workloads][json][hostile]") {
  // Line 3, column 3: the second "jobs" (nlohmann::json kept the last, 6, and the 5 was silently lost).
  CHECK_THAT(error_of([] { (void)parse_json_text("{\"workload\": {\n  \"jobs\": 5,\n  \"jobs\": 6}}", "cfg.json"); }),
             Equals("cfg.json:3:3: workload.jobs: key given twice (first at line 2)"));
  // In the second element of an array: column 42 is the second "name" of {"name": "b", "name": "c"}.
  CHECK_THAT(
      error_of([] { (void)parse_json_text(R"({"levels": [{"name": "a"}, {"name": "b", "name": "c"}]})", "cfg.json"); }),
      Equals("cfg.json:1:42: levels[1].name: key given twice (first at line 1)"));
  // "\u0061" is "a": the same key written another way (column 10: its opening quote).
  CHECK_THAT(error_of([] { (void)parse_json_text(R"({"a": 1, "\u0061": 2})", "x.json"); }),
             Equals("x.json:1:10: a: key given twice (first at line 1)"));
}

TEST_CASE("workloads::parse_json_text: equal keys in different objects and key-like values are fine",
          "[workloads][json]") {
  const auto doc = parse_json_text(
      R"({"a": {"x": 1, "y": {"x": 2}}, "b": {"x": 3}, "l": [{"x": 4}, {"x": 5}], "s": "a", "t": ["b", "b"],
          "e": {"q\"uote": 1, "q\\uote": 2, "\ud83d\ude00": 3, "\ud83d\ude01": 4}})",
      "ok.json");
  CHECK(doc.at("a").at("y").at("x") == 2);
  CHECK(doc.at("l").at(1).at("x") == 5);
  CHECK(doc.at("e").size() == 4);  // distinct escapes and surrogate pairs stay distinct keys
}

TEST_CASE("workloads::parse_json_text: a syntax error comes before a duplicate, and depth is still checked after one",
          "[workloads][json][hostile]") {
  // Malformed text: its syntax error (line 1, column 18: the '}' where a value belongs) is reported, not the key.
  CHECK_THAT(error_of([] { (void)parse_json_text(R"({"a": 1, "a": 2, })", "bad.json"); }),
             Contains("bad.json:1:18: malformed JSON"));
  // A duplicate early does not stop the depth scan: 200 levels after it are still refused before the parser runs.
  const std::string deep = R"({"a": 1, "a": )" + std::string(200, '[') + std::string(200, ']') + "}";
  CHECK_THAT(error_of([&] { (void)parse_json_text(deep, "deep.json"); }),
             Contains("deep.json:1:142: JSON nested deeper than 128 levels"));
}

TEST_CASE("workloads::parse_json_text: a syntax error names line and column without quoting the text",
          "[workloads][json][hostile]") {
  // A config may name any file: nlohmann's "last read: '...'" would quote it (a string token runs to its line's end).
  const std::string msg = error_of([] { (void)parse_json_text("\"hunter2 is the password\n", "secret.txt"); });
  CHECK_THAT(msg, Contains("secret.txt:1:"));
  CHECK_THAT(msg, Contains("malformed JSON"));
  CHECK(msg.find("hunter2") == std::string::npos);
  const std::string word = error_of([] { (void)parse_json_text("root:x:0:0:root:/root:/bin/bash\n", "passwd"); });
  CHECK_THAT(word, Contains("passwd:1:"));
  CHECK(word.find("root") == std::string::npos);
}

TEST_CASE("workloads::load_catalog: a catalog file with a key given twice is refused with file:line:col",
          "[workloads][json][catalog]") {
  ringsched::test::TempDir dir;
  const std::string path = dir / "cat.json";
  std::ofstream(path) << "{\"name\": \"c\",\n \"classes\": [{\"name\": \"a\", \"name\": \"b\"}]}\n";
  // Line 2, column 28: the second "name" inside classes[0] (after ` "classes": [{"name": "a", `).
  CHECK_THAT(error_of([&] { (void)ringsched::load_catalog(path); }),
             Equals(path + ":2:28: classes[0].name: key given twice (first at line 2)"));
}

TEST_CASE("workloads::JsonReader: an unknown key close to a valid one gets 'did you mean'", "[workloads][json]") {
  const auto doc = parse_json_text(R"({"cluster": {"nodes": 2, "gpus_per_node": 8}, "sedes": 3})", "cfg.json");
  // An experiment config: the top level.
  CHECK_THAT(error_of([&] { (void)ringsched::parse_experiment(doc, "cfg.json", ""); }),
             Equals("cfg.json: sedes: unknown key (valid keys here: description, cluster, workload, levels, "
                    "strategies, beliefs, restart, scheduler, seeds, base_seed, output, allow_parent_paths); did you "
                    "mean 'seeds'?"));
  // A catalog: a class's key.
  CHECK_THAT(
      error_of([] {
        (void)ringsched::parse_catalog(
            parse_json_text(R"({"name": "c", "classes": [{"name": "a", "wieght": 1}]})", "cat.json"), "cat.json");
      }),
      Contains("cat.json: classes[0].wieght: unknown key (valid keys here: ") && Contains("; did you mean 'weight'?"));
  // A sweep file: the top level (checked before its base).
  CHECK_THAT(error_of([] {
               (void)ringsched::parse_sweep(parse_json_text(R"({"base": "builtin:table3", "replicate": 2})", "s.json"),
                                            "s.json", "");
             }),
             Equals("s.json: replicate: unknown key (valid keys here: description, base, replicates, axes, cells); did "
                    "you mean 'replicates'?"));
}

TEST_CASE("workloads::closest_name: typos only: short, far or very long words get no suggestion", "[workloads]") {
  const std::vector<std::string> keys = {"jobs", "seeds", "t0", "t1", "arrival"};
  CHECK(ringsched::closest_name("jbos", keys) == std::optional<std::string>("jobs"));    // one swap
  CHECK(ringsched::closest_name("sedes", keys) == std::optional<std::string>("seeds"));  // one swap
  CHECK(ringsched::closest_name("arival", keys) == std::optional<std::string>("arrival"));
  CHECK(ringsched::closest_name("arr", keys) == std::optional<std::string>("arrival"));  // the one it prefixes
  CHECK_FALSE(ringsched::closest_name("t4", keys));                                      // under 3 characters
  CHECK_FALSE(ringsched::closest_name("colour", keys));
  CHECK_FALSE(ringsched::closest_name(std::string(300, 'j') + "obs", keys));
}
