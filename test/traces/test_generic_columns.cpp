// test/traces/test_generic_columns.cpp — the generic format's optional columns (issue 40 item 1): gpu_type, class
// (a model name -> a catalog class, through class_map), user and vc, read row by row and carried into the jobs; an
// unknown class names file:line and lists the catalog's classes. Also: philly_log's VC and Acme's user reach the jobs.
#include <catch2/catch.hpp>

#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

#include "sim/experiments/config.h"
#include "test/input_error_of.h"
#include "test/sim/cli_util.h"
#include "traces/acme_trace.h"
#include "traces/generic_trace.h"
#include "traces/philly_trace.h"
#include "traces/trace_workload.h"
#include "workloads/catalog.h"
#include "workloads/pollux.h"
#include "workloads/pollux_data.h"

using namespace ringsched;
using Catch::Matchers::Contains;
using Catch::Matchers::Equals;
using ringsched::test::error_of;
using ringsched::test::TempDir;

namespace {

const std::string kGenericColumnsCsv =
    "t,d,g,card,model,who,team\n"
    "0,60,1,V100,resnet,alice,vc1\n"
    "10,120,2,T4,ncf,bob,vc2\n"
    "5,30,4,,imagenet,alice,\n";

std::string generic_columns_write(const TempDir& dir, const std::string& name, const std::string& text) {
  const std::string path = dir / name;
  std::ofstream(path, std::ios::binary) << text;
  return path;
}

GenericTraceSpec generic_columns_spec() {
  GenericTraceSpec s;
  s.submit_column = "t";
  s.duration_column = "d";
  s.gpus_column = "g";
  s.gpu_type_column = "card";
  s.class_column = "model";
  s.user_column = "who";
  s.vc_column = "team";
  s.catalog_classes = {"imagenet", "ncf"};
  s.catalog_name = "c";
  s.class_map = {{"resnet", "imagenet"}};
  return s;
}

nlohmann::json generic_columns_config() {
  return nlohmann::json::parse(R"({"cluster": {"nodes": 2, "gpus_per_node": 4},
      "workload": {"catalog": "pollux", "trace": {"format": "generic", "file": "g.csv",
        "columns": {"submit": "t", "duration": "d", "gpus": "g", "gpu_type": "card", "class": "model", "user": "who",
                    "vc": "team"},
        "class_map": {"resnet": "imagenet"}}},
      "strategies": ["fifo"], "seeds": 1})");
}

}  // namespace

TEST_CASE("traces::GenericTrace: gpu_type, class, user and vc columns are carried row by row", "[trace][generic]") {
  TempDir dir;
  const std::string path = generic_columns_write(dir, "g.csv", kGenericColumnsCsv);
  const Trace tr = read_generic_trace(path, generic_columns_spec());
  REQUIRE(tr.jobs.size() == 3);
  // By submit time: line 2 (t 0), line 4 (t 5), line 3 (t 10).
  CHECK(tr.jobs[0].gpu_type == "V100");
  CHECK(tr.jobs[0].class_name == "imagenet");  // resnet, mapped
  CHECK(tr.jobs[0].user == "alice");
  CHECK(tr.jobs[0].vc == "vc1");
  CHECK(tr.jobs[1].gpu_type.empty());
  CHECK(tr.jobs[1].class_name == "imagenet");  // the catalog's own name
  CHECK(tr.jobs[1].vc.empty());
  CHECK(tr.jobs[2].gpu_type == "T4");
  CHECK(tr.jobs[2].class_name == "ncf");
  CHECK(tr.jobs[2].user == "bob");
  CHECK(tr.jobs[2].vc == "vc2");
  // Without the optional columns nothing is carried (as before).
  GenericTraceSpec plain;
  plain.submit_column = "t";
  plain.duration_column = "d";
  plain.gpus_column = "g";
  const Trace p = read_generic_trace(path, plain);
  CHECK(p.jobs[0].user.empty());
  CHECK(p.jobs[0].class_name.empty());
  CHECK(p.jobs[0].gpu_type.empty());
}

TEST_CASE("traces::GenericTrace: an unknown class names file:line and the catalog's classes", "[trace][generic]") {
  TempDir dir;
  const std::string path = generic_columns_write(dir, "g.csv", kGenericColumnsCsv + "20,1,1,V100,gpt,carol,vc1\n");
  CHECK_THAT(error_of([&] { (void)read_generic_trace(path, generic_columns_spec()); }),
             Equals(path + ":5: column 'model': unknown class 'gpt' (catalog c has imagenet, ncf; map the trace's "
                           "names to them with the trace's \"class_map\")"));
  const std::string empty = generic_columns_write(dir, "e.csv", kGenericColumnsCsv + "20,1,1,V100,,carol,vc1\n");
  CHECK_THAT(error_of([&] { (void)read_generic_trace(empty, generic_columns_spec()); }),
             Equals(empty + ":5: column 'model': no class (catalog c has imagenet, ncf; map the trace's names to them "
                            "with the trace's \"class_map\")"));
  GenericTraceSpec mapped = generic_columns_spec();
  mapped.class_map[""] = "ncf";  // an empty cell is a class only when mapped
  CHECK(read_generic_trace(empty, mapped).jobs.back().class_name == "ncf");
  GenericTraceSpec no_user = generic_columns_spec();
  no_user.user_column = "owner";
  CHECK_THAT(error_of([&] { (void)read_generic_trace(empty, no_user); }),
             Contains(empty + ":1: missing column 'owner'"));
}

TEST_CASE(
    "sim::Experiment: a generic trace's class column picks each job's catalog class, and user and vc reach the jobs",
    "[sim][trace][generic]") {
  TempDir dir;
  generic_columns_write(dir, "g.csv", kGenericColumnsCsv);
  nlohmann::json doc = generic_columns_config();
  const ExperimentConfig c = parse_experiment(doc, "cfg.json", dir.path().string());
  const Catalog& cat = *c.workload.catalog;
  const Workload w = workload_from_trace(*c.workload.trace, c.workload.catalog, c.workload.trace_spec, 1);
  REQUIRE(w.jobs.size() == 3);
  CHECK(w.jobs[0].class_index == cat.find("imagenet"));
  CHECK(w.jobs[1].class_index == cat.find("imagenet"));
  CHECK(w.jobs[2].class_index == cat.find("ncf"));
  CHECK(w.jobs[2].class_index != w.jobs[0].class_index);
  // The work is the recorded duration at the row's class throughput on its GPUs (ncf: 120 s on 2 GPUs, 1 node).
  const JobClass& ncf = cat.classes[static_cast<std::size_t>(cat.find("ncf"))];
  CHECK(w.jobs[2].work_samples == Approx(120.0 * class_throughput(ncf, 2, 1)));
  CHECK(w.jobs[0].user == "alice");
  CHECK(w.jobs[2].vc == "vc2");
  // Config errors at their JSON paths.
  nlohmann::json both = doc;
  both["workload"]["trace"]["class"] = "ncf";
  CHECK_THAT(error_of([&] { (void)parse_experiment(both, "cfg.json", dir.path().string()); }),
             Equals("cfg.json: workload.trace.class: give either \"class\" (one class for every job) or columns.class "
                    "(each row's class), not both"));
  nlohmann::json bad_map = doc;
  bad_map["workload"]["trace"]["class_map"]["resnet"] = "resnet50";
  CHECK_THAT(error_of([&] { (void)parse_experiment(bad_map, "cfg.json", dir.path().string()); }),
             Contains("cfg.json: workload.trace.class_map.resnet: class 'resnet50' is not in catalog pollux"));
  nlohmann::json no_column = doc;
  no_column["workload"]["trace"]["columns"].erase("class");
  CHECK_THAT(error_of([&] { (void)parse_experiment(no_column, "cfg.json", dir.path().string()); }),
             Equals("cfg.json: workload.trace.class_map: needs columns.class (the column whose names it maps)"));
  nlohmann::json unknown = doc;
  unknown["workload"]["trace"]["class_map"].erase("resnet");
  CHECK_THAT(error_of([&] { (void)parse_experiment(unknown, "cfg.json", dir.path().string()); }),
             Contains("g.csv:2: column 'model': unknown class 'resnet' (catalog pollux has "));
}

TEST_CASE("traces::GenericTrace: row_class takes the row's class column, else the configured class",
          "[trace][generic]") {
  const Catalog cat = pollux_catalog(default_pollux_dir(), 0.0);
  TraceJob row;
  CHECK(generic_trace_format().row_class(row, cat, 2, "f:2: ") == 2);
  row.class_name = "ncf";
  CHECK(generic_trace_format().row_class(row, cat, 2, "f:2: ") == cat.find("ncf"));
  row.class_name = "gpt";
  CHECK_THAT(error_of([&] { (void)generic_trace_format().row_class(row, cat, 2, "f:2: "); }),
             Catch::StartsWith("f:2: class 'gpt' is not in catalog pollux (classes: "));
}

TEST_CASE("traces::TraceWorkload: philly_log's VCs and users and acme's users reach the workload's jobs",
          "[trace][outcomes]") {
  const std::string fixtures = std::string(RINGSCHED_TEST_DIR) + "/fixtures/traces/";
  const auto cat = std::make_shared<const Catalog>(load_catalog("paper"));
  TraceWorkloadSpec spec;
  spec.oversize = Oversize::kClamp;
  const Workload philly = workload_from_trace(read_philly_log(fixtures + "philly-small.json"), cat, spec, 1);
  REQUIRE(philly.jobs.size() == 4);
  CHECK(philly.jobs[0].name == "application_1");
  CHECK(philly.jobs[0].user == "user-b");
  CHECK(philly.jobs[0].vc == "vc-b");
  const Workload acme = workload_from_trace(read_acme_trace(fixtures + "acme-seren.csv"), cat, spec, 1);
  REQUIRE(acme.jobs.size() == 5);
  CHECK(acme.jobs[0].name == "s3");
  CHECK(acme.jobs[0].user == "u1");
  CHECK(acme.jobs[0].vc.empty());  // Acme's CSVs have no virtual cluster column
}
