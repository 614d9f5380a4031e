// test/workloads/test_catalog.cpp — catalog parsing: the built-in paper catalog reproduces the paper's figures
// (step(4), 4 -> 8 efficiency, the 126-minute 4-GPU run), speed kinds, and validation messages.
#include <catch2/catch.hpp>

#include <string>

#include "test/input_error_of.h"
#include "workloads/catalog.h"
#include "workloads/io/json_reader.h"
#include "workloads/speed_registry.h"

using namespace ringsched;
using Catch::Matchers::Contains;
using Catch::Matchers::Equals;
using ringsched::test::error_of;

namespace {

Catalog parse_text(const std::string& text) {
  return parse_catalog(parse_json_text(text, "cat.json"), "cat.json");
}

// A one-class catalog with the given class body fragments substituted in.
std::string one_class(const std::string& batch, const std::string& work, const std::string& gpus,
                      const std::string& speed) {
  return R"({"name": "t", "classes": [{"name": "c", "batch": )" + batch + R"(, "model_size_mparams": 1, "work": )" +
         work + R"(, "gpus": )" + gpus + R"(, "speed": )" + speed + "}]}";
}

const std::string kBatch = R"({"mode": "fixed_global", "size": 100})";
const std::string kWork = R"({"samples": 1000})";
const std::string kGpus = R"({"max": 8})";
const std::string kSpeed = R"({"kind": "eq5", "t0": 0.01, "t1": 0, "t2": 0, "t3": 0})";

}  // namespace

TEST_CASE("workloads::Catalog: built-in paper catalog reproduces the paper's figures", "[workloads][catalog]") {
  const Catalog cat = load_catalog("paper");
  REQUIRE(cat.classes.size() == 1);
  CHECK(cat.origin == "builtin:paper");
  const JobClass& c = cat.classes[0];
  CHECK(c.name == "resnet110-cifar10");
  CHECK(c.batch_mode == BatchMode::kFixedPerWorker);
  CHECK(c.min_gpus == 1);
  CHECK(c.max_gpus == 64);
  // Work: 164 epochs x 50,000 samples.
  CHECK(c.work_samples == Approx(164.0 * 50000.0));
  // step(4), m = 4 x 128 = 512, n = 1.7:
  //   t0 m/w = 0.0026484 x 128 = 0.3389952; t1 (w-1) = 0.006; t2 (w-1) n / w = 0.0918 x 3 x 1.7 / 4 = 0.117045;
  //   t3 = 0.010.  Sum = 0.4720402 s.
  const double step4 = c.speed->step_seconds(4, 1, global_batch(c, 4));
  CHECK(step4 == Approx(0.47204).margin(1e-3));
  CHECK(step4 == Approx(0.4720402).epsilon(1e-9));
  // step(8), m = 1024: 0.3389952 + 0.014 + 0.0918 x 7 x 1.7 / 8 (= 0.1365525) + 0.010 = 0.4995477 s.
  // Efficiency 4 -> 8 = throughput(8) / (2 throughput(4)) = step(4) / step(8) = 0.94494.
  const double eff = class_throughput(c, 8, 1) / (2.0 * class_throughput(c, 4, 1));
  CHECK(eff == Approx(0.945).margin(1e-3));
  CHECK(eff == Approx(0.4720402 / 0.4995477).epsilon(1e-9));
  // 4-GPU run: 8.2e6 samples / (512 / 0.4720402 samples/s) = 7560.03 s = 126.0 min.
  const double minutes = c.work_samples / class_throughput(c, 4, 1) / 60.0;
  CHECK(minutes == Approx(126.0).margin(0.05));
}

TEST_CASE("workloads::Catalog: allreduce speed kind and its defaults", "[workloads][catalog]") {
  const std::string speed = R"({"kind": "allreduce", "compute_per_sample_s": 0.001, "algorithm": "ring",
      "intra_node": {"alpha_s": 0.001, "beta_s_per_byte": 1e-9}})";
  const Catalog cat = parse_text(one_class(kBatch, kWork, kGpus, speed));
  const auto& c = cat.classes[0];
  CHECK(c.speed->kind() == "allreduce");
  // gradient_bytes defaults to 4 bytes x 1 M parameters = 4e6; overhead 0, gamma 0.
  // step(2) = 0.001 x 100 / 2 + ring(2) = 0.05 + 2 x 1 x 0.001 + 2 x (1/2) x 4e6 x 1e-9 = 0.05 + 0.002 + 0.004.
  CHECK(c.speed->step_seconds(2, 1, 100.0) == Approx(0.056).epsilon(1e-12));
  // No inter_node parameters: the intra-node ones apply across nodes too.
  CHECK(c.speed->step_seconds(2, 2, 100.0) == Approx(0.056).epsilon(1e-12));
  // Defaults: weight 1, min 1, sigma 0.
  CHECK(c.weight == 1.0);
  CHECK(c.min_gpus == 1);
  CHECK(c.work_sigma == 0.0);
}

TEST_CASE("workloads::Catalog: invalid classes fail with file and JSON path", "[workloads][catalog]") {
  CHECK_THAT(error_of([] { (void)parse_text(one_class(kBatch, kWork, kGpus, R"({"kind": "magic"})")); }),
             Equals("cat.json: classes[0].speed.kind: unknown speed model kind 'magic' (valid: " +
                    join_names(speed_kind_names()) + ")"));
  CHECK_THAT(error_of([] { (void)parse_text(one_class(R"({"mode": "sometimes", "size": 1})", kWork, kGpus, kSpeed)); }),
             Equals("cat.json: classes[0].batch.mode: unknown batch mode 'sometimes' (valid: fixed_global, "
                    "fixed_per_worker)"));
  CHECK_THAT(error_of([] { (void)parse_text(one_class(kBatch, kWork, R"({"min": 4, "max": 2})", kSpeed)); }),
             Equals("cat.json: classes[0].gpus.min: must be <= gpus.max (2)"));
  CHECK_THAT(error_of([] { (void)parse_text(one_class(kBatch, R"({"samples": 1, "epochs": 2})", kGpus, kSpeed)); }),
             Equals("cat.json: classes[0].work: give either samples or epochs + dataset_samples"));
  CHECK_THAT(error_of([] { (void)parse_text(one_class(kBatch, R"({"samples": -5})", kGpus, kSpeed)); }),
             Equals("cat.json: classes[0].work.samples: must be > 0, got -5"));
  CHECK_THAT(
      error_of([] {
        (void)parse_text(one_class(kBatch, kWork, kGpus, R"({"kind": "eq5", "t0": 0, "t1": 0, "t2": 0, "t3": 0})"));
      }),
      Equals("cat.json: classes[0].speed: at least one of t0..t3 must be > 0"));
  CHECK_THAT(error_of([] {
               (void)parse_text(
                   one_class(kBatch, kWork, kGpus, R"({"kind": "eq5", "t0": 1, "t1": 0, "t2": 0, "t3": 0, "t4": 1})"));
             }),
             Equals("cat.json: classes[0].speed.t4: unknown key (valid keys here: kind, t0, t1, t2, t3)"));
  CHECK_THAT(error_of([] { (void)parse_text(R"({"name": "t", "classes": []})"); }),
             Equals("cat.json: classes: must not be empty"));
  // Duplicate class names.
  const std::string cls = R"({"name": "c", "batch": {"mode": "fixed_global", "size": 100}, "model_size_mparams": 1,
      "work": {"samples": 1000}, "gpus": {"max": 8}, "speed": {"kind": "eq5", "t0": 0.01, "t1": 0, "t2": 0, "t3": 0}})";
  CHECK_THAT(error_of([&] { (void)parse_text(R"({"name": "t", "classes": [)" + cls + "," + cls + "]}"); }),
             Equals("cat.json: classes[1].name: duplicate class name 'c'"));
  // A catalog embedded in a config gets the config's JSON path as prefix.
  CHECK_THAT(error_of([] {
               (void)parse_catalog(parse_json_text(R"({"name": "t", "classes": 3})", "e.json"), "e.json",
                                   "workload.catalog");
             }),
             Equals("e.json: workload.catalog.classes: must be an array, got number"));
}

TEST_CASE("workloads::Catalog: unknown names, missing files and cluster fit", "[workloads][catalog]") {
  CHECK_THAT(error_of([] { (void)load_catalog("no-such-catalog"); }),
             Contains("no-such-catalog: no such catalog file and not a built-in catalog (built-in: paper"));
  const Catalog cat = parse_text(one_class(kBatch, kWork, R"({"min": 16, "max": 32})", kSpeed));
  CHECK_NOTHROW(check_catalog_fits_cluster(cat, 16, "x"));
  CHECK_THAT(error_of([&] { check_catalog_fits_cluster(cat, 8, "x"); }),
             Equals("x: class 'c': gpus.min = 16 exceeds the cluster's 8 GPUs"));
}
