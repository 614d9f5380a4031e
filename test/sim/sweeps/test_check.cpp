// test/sim/sweeps/test_check.cpp — the baseline check: Welch's t-test against hand-computed values, tolerance
// parsing, pass on identical results, drift on perturbed ones, structural drift, and the CLI exit codes.
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>

#include "sim/sweeps/check.h"
#include "workloads/io/json_reader.h"

using namespace ringsched;
namespace fs = std::filesystem;

namespace {

// A one-cell sweep.json with the given mean_jct_s replicates (other metrics fixed).
nlohmann::json sweep_doc(const std::vector<double>& jct) {
  nlohmann::json runs = nlohmann::json::array();
  int k = 0;
  for (double v : jct) {
    runs.push_back({{"replicate", k}, {"seed", k + 1}, {"metrics", {{"mean_jct_s", v}, {"restarts_per_job", 0.0}}}});
    ++k;
  }
  return {{"format", "ringsched-sweep"},
          {"config_hash", "fnv1a64:0000000000000001"},
          {"cells",
           {{{"cell", 0},
             {"label", "load=0.5"},
             {"levels", {"l"}},
             {"strategies", {"eight"}},
             {"groups", {{{"level", "l"}, {"strategy", "eight"}, {"runs", runs}}}}}}}};
}

int run_cli_text(const std::string& args, std::string* output) {
  const std::string log = (fs::temp_directory_path() / ("ringsched-test-check-" + std::to_string(::getpid()))).string();
  const int status = std::system((args + " >" + log + " 2>&1").c_str());
  std::ifstream in(log);
  output->assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  fs::remove(log);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

}  // namespace

TEST_CASE("sim::welch_t_test: matches hand-computed t, df and p", "[check]") {
  // Equal variances (2.5 each), n = 5: t = (3 - 5) / sqrt(0.5 + 0.5) = -2, df = 1 / (2 * 0.25 / 4) = 8,
  // two-sided p(|T_8| > 2) = 0.080516 (numerical integration of the t density).
  const WelchResult w = welch_t_test({1, 2, 3, 4, 5}, {3, 4, 5, 6, 7});
  REQUIRE(w.available);
  CHECK(w.t == Approx(-2.0));
  CHECK(w.df == Approx(8.0));
  CHECK(w.p == Approx(0.0805162).epsilon(1e-5));
  // Unequal: var 1 (n 3) vs var 10 (n 5): se^2 = 1/3 + 2, t = -4 / sqrt(7/3) = -2.618615,
  // df = (7/3)^2 / ((1/3)^2 / 2 + 2^2 / 4) = 5.157895, p = 0.045776.
  const WelchResult u = welch_t_test({1, 2, 3}, {2, 4, 6, 8, 10});
  CHECK(u.t == Approx(-2.618615));
  CHECK(u.df == Approx(5.157895));
  CHECK(u.p == Approx(0.045776).epsilon(1e-4));
  CHECK_FALSE(welch_t_test({1}, {2, 3}).available);
  CHECK_FALSE(welch_t_test({1, 1}, {2, 2}).available);  // no spread: no test
}

TEST_CASE("sim::add_tolerance: default and per metric", "[check]") {
  CheckOptions o;
  add_tolerance(o, "0.1");
  CHECK(o.default_tolerance == 0.1);
  add_tolerance(o, "mean_jct_s=0.02");
  CHECK(o.tolerance.at("mean_jct_s") == 0.02);
  CHECK_THROWS_WITH(add_tolerance(o, "bogus=1"), Catch::Contains("unknown metric 'bogus'"));
  CHECK_THROWS_AS(add_tolerance(o, "abc"), InputError);
  CHECK_THROWS_AS(add_tolerance(o, "-1"), InputError);
}

TEST_CASE("sim::check_results: identical passes, a clear shift drifts, noise within the test does not", "[check]") {
  const auto base = sweep_doc({100, 102, 98, 101});
  CheckOptions o;
  const CheckReport same = check_results(base, "b", base, "r", o);
  CHECK(same.drifted == 0);
  CHECK(same.groups == 1);
  CHECK(same.comparisons == 2);
  CHECK(same.render().find("no drift") != std::string::npos);

  // +20% with small spread: beyond 5% and Welch p << 0.05.
  const CheckReport shifted = check_results(base, "b", sweep_doc({120, 122.4, 117.6, 121.2}), "r", o);
  CHECK(shifted.drifted == 1);
  REQUIRE(shifted.drifts.size() == 1);
  CHECK(shifted.drifts[0].find("mean_jct_s 100.25 -> 120.3 (+20.00%") != std::string::npos);
  CHECK(shifted.drifts[0].find("Welch") != std::string::npos);

  // +6.7% of the mean but replicates spread 100..200: beyond tolerance, not significant -> a note, no drift.
  const auto noisy = sweep_doc({100, 200, 100, 200});
  const CheckReport n = check_results(noisy, "b", sweep_doc({110, 210, 110, 210}), "r", o);
  CHECK(n.drifted == 0);
  REQUIRE(n.notes.size() == 1);
  CHECK(n.notes[0].find("not significant") != std::string::npos);
  // Without the test the tolerance alone decides.
  CheckOptions no_test;
  no_test.welch = false;
  CHECK(check_results(noisy, "b", sweep_doc({110, 210, 110, 210}), "r", no_test).drifted == 1);
  // A looser per-metric tolerance accepts the +20% shift.
  CheckOptions loose;
  add_tolerance(loose, "mean_jct_s=0.25");
  CHECK(check_results(base, "b", sweep_doc({120, 122.4, 117.6, 121.2}), "r", loose).drifted == 0);
}

TEST_CASE("sim::check_results: missing, extra and failed groups drift", "[check]") {
  const auto base = sweep_doc({100, 101});
  auto extra = base;
  auto cell = extra["cells"][0];
  cell["label"] = "load=0.9";
  extra["cells"].push_back(cell);
  const CheckReport more = check_results(base, "b", extra, "r", CheckOptions{});
  CHECK(more.drifted == 1);
  CHECK(more.drifts[0].find("not in the baseline") != std::string::npos);
  CHECK(check_results(extra, "b", base, "r", CheckOptions{}).drifts[0].find("missing") != std::string::npos);
  auto failed = base;
  failed["cells"][0]["groups"][0]["runs"][1] = {{"replicate", 1}, {"seed", 2}, {"error", "boom"}};
  CHECK(check_results(base, "b", failed, "r", CheckOptions{}).drifted >= 1);
  CHECK_THROWS_AS(load_result_groups(nlohmann::json{{"x", 1}}, "f.json"), InputError);
}

TEST_CASE(
    "sim::check_results: a metric that is not a number, is absurd or denormal, or a seed listed twice is an "
    "input error naming where",
    "[check][hostile]") {
  // Each was reported as "drift" (exit 1) instead of bad input.
  const std::vector<std::pair<nlohmann::json, std::string>> bad = {
      {"fast", "f.json: cells[0].groups[0].runs[1].metrics.mean_jct_s: expected a number, got string 'fast'"},
      {nullptr, "f.json: cells[0].groups[0].runs[1].metrics.mean_jct_s: expected a number, got null"},
      {1e308, "f.json: cells[0].groups[0].runs[1].metrics.mean_jct_s: 1e+308 is beyond any metric (|value| <= 1e30)"},
      {4.9e-324, "f.json: cells[0].groups[0].runs[1].metrics.mean_jct_s: 5e-324 is a denormal number, not a metric"}};
  for (const auto& [value, expected] : bad) {
    auto doc = sweep_doc({100, 101});
    doc["cells"][0]["groups"][0]["runs"][1]["metrics"]["mean_jct_s"] = value;
    CHECK_THROWS_WITH(load_result_groups(doc, "f.json"), expected);
  }
  auto twice = sweep_doc({100, 101});
  twice["cells"][0]["groups"][0]["runs"][1]["seed"] = 1;
  CHECK_THROWS_WITH(load_result_groups(twice, "f.json"),
                    "f.json: cells[0].groups[0].runs[1]: seed 1 of cell [load=0.5] level l, strategy eight is listed "
                    "twice");
  // summary.json: runs[i], the same rules; the writers' "inf" and 0 stay valid.
  nlohmann::json summary = {
      {"cells", nlohmann::json::array()},
      {"runs",
       {{{"level", "l"}, {"strategy", "eight"}, {"seed", 1}, {"metrics", {{"mean_jct_s", "inf"}, {"x", 0.0}}}},
        {{"level", "l"}, {"strategy", "eight"}, {"seed", 1}, {"metrics", {{"mean_jct_s", 5.0}}}}}}};
  CHECK_THROWS_WITH(load_result_groups(summary, "s.json"),
                    "s.json: runs[1]: seed 1 of level l, strategy eight is listed twice");
  summary["runs"][1]["seed"] = 2;
  CHECK(load_result_groups(summary, "s.json").size() == 1);
}

TEST_CASE("sim::check: CLI passes on identical results and fails on a perturbed copy", "[check]") {
  const fs::path d = fs::temp_directory_path() / ("ringsched-test-check-cli-" + std::to_string(::getpid()));
  fs::remove_all(d);
  const std::string bin = RINGSCHED_BINARY;
  std::string out;
  REQUIRE(run_cli_text(bin + " sweep --quiet --config " + std::string(RINGSCHED_TEST_DIR) +
                           "/fixtures/sweep/tiny-sweep.json --out " + (d / "a").string(),
                       &out) == 0);
  const std::string a = (d / "a" / "sweep.json").string();
  CHECK(run_cli_text(bin + " check --baseline " + a + " --results " + a, &out) == 0);
  CHECK(out.find("no drift") != std::string::npos);
  // Perturb: every replicate's mean JCT +30% (groups with little spread between replicates then differ
  // significantly; with 3 replicates a noisy group may not, which is the point of the test).
  auto doc = read_json_file(a);
  for (auto& cell : doc["cells"])
    for (auto& group : cell["groups"])
      for (auto& run : group["runs"])
        run["metrics"]["mean_jct_s"] = run["metrics"]["mean_jct_s"].get<double>() * 1.3;
  const std::string p = (d / "perturbed.json").string();
  std::ofstream(p) << doc.dump(1);
  CHECK(run_cli_text(bin + " check --baseline " + a + " --results " + p + " --tolerance 0.05", &out) == 1);
  INFO(out);
  CHECK(out.find("DRIFT: cell [load=0.3, restart.cost_s=0] level mid, strategy eight: mean_jct_s") !=
        std::string::npos);
  CHECK(out.find("(+30.00%") != std::string::npos);
  CHECK(run_cli_text(bin + " check --baseline " + a + " --results " + p + " --tolerance mean_jct_s=0.5", &out) == 0);
  CHECK(run_cli_text(bin + " check --baseline " + a + " --results " + p + " --metrics nope", &out) == 2);
  CHECK(run_cli_text(bin + " check --baseline " + (d / "missing.json").string() + " --results " + p, &out) == 2);
  fs::remove_all(d);
}
