// test/sim/experiments/test_report_absent.cpp — numbers that cannot mislead (issue 33): a cell whose seeds all failed
// shows `-` / an empty CSV field / null, never 0; a CI from one seed is absent the same way; --time-unit in the
// tables; table.csv's load and rate_per_hour columns; jobs.csv's `measured` column.
#include <catch2/catch.hpp>

#include <cstdio>
#include <string>

#include "sim/experiments/report.h"
#include "sim/experiments/runner.h"

using namespace ringsched;

namespace {

// 16 GPUs, 6 jobs, one load level (0.6) and one rate level (7.5 jobs/h), eight and precompute, 3 seeds.
ExperimentConfig tiny(const std::string& extra_workload = "") {
  const std::string text = R"({
    "cluster": {"nodes": 2, "gpus_per_node": 8},
    "workload": {"catalog": "paper", "jobs": 6, "arrival": {"process": "poisson"})" +
                           extra_workload + R"(},
    "levels": [{"name": "mid", "load": 0.6}, {"name": "fast", "rate_per_hour": 7.5}],
    "strategies": ["eight", "precompute"],
    "seeds": 3, "base_seed": 1})";
  return parse_experiment(nlohmann::json::parse(text), "tiny.json", ".");
}

// The run of (level, strategy, seed) in ExperimentResult::runs (ordered by level, strategy, seed).
CellRun& run_at(const ExperimentConfig& c, ExperimentResult& r, int level, int strategy, int seed) {
  const auto S = static_cast<int>(c.strategies.size());
  return r.runs[static_cast<std::size_t>((level * S + strategy) * c.seeds + seed)];
}

std::string f1(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.1f", v);
  return buf;
}

std::string g6(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.6g", v);
  return buf;
}

// Level 0: every seed of precompute failed (n = 0), only seed 2 of eight succeeded (n = 1). Level 1 untouched.
ExperimentResult with_failures(const ExperimentConfig& c) {
  ExperimentResult r = run_experiment(c, 1);
  REQUIRE(failed_runs(r) == 0);
  for (int seed = 0; seed < 3; ++seed)
    run_at(c, r, 0, 1, seed).error = "boom";
  run_at(c, r, 0, 0, 0).error = "boom";
  run_at(c, r, 0, 0, 1).error = "boom";
  return r;
}

std::string line_starting(const std::string& text, const std::string& prefix) {
  std::size_t pos = 0;
  while (pos < text.size()) {
    std::size_t end = text.find('\n', pos);
    if (end == std::string::npos) end = text.size();
    const std::string line = text.substr(pos, end - pos);
    if (line.rfind(prefix, 0) == 0) return line;
    pos = end + 1;
  }
  return "";
}

}  // namespace

TEST_CASE("experiments::report: a cell whose seeds all failed is absent (-, empty, null), never 0",
          "[experiments][report]") {
  const ExperimentConfig c = tiny();
  ExperimentResult r = with_failures(c);
  const double eight_s = run_at(c, r, 0, 0, 2).metrics.mean_jct_s;
  const double eight_min = eight_s / 60.0;
  // Markdown: precompute `-`, eight its one seed's mean without a CI; the sentence says what `-` means.
  const std::string md = render_table3(c, r, Format::kMarkdown);
  CHECK(line_starting(md, "| mid ") == "| mid (load 0.6) | " + f1(eight_min) + " +- - | - |");
  CHECK(md.find("- = absent (no successful seed; no CI from fewer than 2 seeds)") != std::string::npos);
  CHECK(md.find("0.0 +- 0.0") == std::string::npos);
  // CSV: empty fields, n as counted; eight's ratio to itself over one seed pair is 1 with no CI.
  const std::string csv = render_table3(c, r, Format::kCsv);
  const std::string mid = "mid,0.6," + g6(c.levels[0].rate_per_s * 3600.0) + ",";
  CHECK(line_starting(csv, mid + "precompute,") == mid + "precompute,,,0,,");
  CHECK(line_starting(csv, mid + "eight,") == mid + "eight," + g6(eight_min) + ",,1,1,");
  // summary.json: mean null at n = 0; sd and ci95 null at n = 1.
  const nlohmann::json j = summary_json(c, r);
  const nlohmann::json& pre = j.at("cells").at(1).at("metrics").at("mean_jct_s");
  CHECK(j.at("cells").at(1).at("strategy") == "precompute");
  CHECK(pre.at("n") == 0);
  CHECK(pre.at("mean").is_null());
  CHECK(pre.at("sd").is_null());
  CHECK(pre.at("ci95").is_null());
  CHECK_FALSE(j.at("cells").at(1).contains("jct_ratio_to_eight"));
  const nlohmann::json& one = j.at("cells").at(0).at("metrics").at("mean_jct_s");
  CHECK(one.at("n") == 1);
  CHECK(one.at("mean").get<double>() == eight_s);
  CHECK(one.at("sd").is_null());
  CHECK(one.at("ci95").is_null());
  // Level 1 (3 seeds each): numbers as before.
  const nlohmann::json& full = j.at("cells").at(2).at("metrics").at("mean_jct_s");
  CHECK(full.at("n") == 3);
  CHECK(full.at("ci95").is_number());
  // The summary views: `-` in Markdown, empty in CSV.
  const std::string sum_md = render_summary(c, r, Format::kMarkdown);
  CHECK(line_starting(sum_md, "| mid | precompute |") == "| mid | precompute | - | - | - | - | - | - | - |");
  CHECK(line_starting(sum_md, "| mid | eight |").rfind("| mid | eight | " + f1(eight_min) + " +- - |", 0) == 0);
  const std::string sum_csv = render_summary(c, r, Format::kCsv);
  CHECK(line_starting(sum_csv, "mid,precompute,mean_jct_s,") == "mid,precompute,mean_jct_s,,,,0");
  CHECK(line_starting(sum_csv, "mid,eight,mean_jct_s,") == "mid,eight,mean_jct_s," + g6(eight_s) + ",,,1");
}

TEST_CASE("experiments::report: at one seed the verdict lines say there is no CI", "[experiments][report]") {
  ExperimentConfig c = tiny();
  c.seeds = 1;
  const ExperimentResult r = run_experiment(c, 1);
  REQUIRE(failed_runs(r) == 0);
  const std::string md = render_table3(c, r, Format::kMarkdown);
  CHECK(md.find(" +- -") != std::string::npos);
  CHECK(md.find("+- 0.0") == std::string::npos);
  CHECK(md.find("precompute/eight JCT = ") != std::string::npos);
  CHECK(md.find("precompute/eight JCT = 0.00 +- 0.00") == std::string::npos);
  const std::string line = line_starting(md, "- mid:");
  CHECK(line.find(" +- - (") != std::string::npos);
  CHECK((line.find("at least 2x better: no.") != std::string::npos ||
         line.find("at least 2x better: yes (point estimate; one seed, no CI).") != std::string::npos));
}

TEST_CASE("experiments::report: table.csv has rate_per_hour, and no load for a rate level", "[experiments][report]") {
  const ExperimentConfig c = tiny();
  const ExperimentResult r = run_experiment(c, 1);
  const std::string csv = render_table3(c, r, Format::kCsv);
  CHECK(csv.rfind("level,load,rate_per_hour,strategy,mean_jct_min,ci95_min,n,ratio_to_eight,ratio_ci95\n", 0) == 0);
  // The rate level: no load (was `0`), its rate as given.
  CHECK(line_starting(csv, "fast,").rfind("fast,,7.5,eight,", 0) == 0);
  // The load level: its load and the rate it resolves to.
  CHECK(line_starting(csv, "mid,").rfind("mid,0.6," + g6(c.levels[0].rate_per_s * 3600.0) + ",eight,", 0) == 0);
  CHECK(c.levels[0].rate_per_s > 0.0);
}

TEST_CASE("experiments::report: --time-unit puts the tables in seconds, minutes or hours", "[experiments][report]") {
  const ExperimentConfig c = tiny();
  const ExperimentResult r = run_experiment(c, 1);
  const Aggregate a = cell_aggregate(c, r, 1, 0, "mean_jct_s");
  REQUIRE(a.n == 3);
  const std::string h = render_table3(c, r, Format::kCsv, parse_time_unit("h"));
  CHECK(h.rfind("level,load,rate_per_hour,strategy,mean_jct_h,ci95_h,n,", 0) == 0);
  CHECK(line_starting(h, "fast,,7.5,eight,") ==
        "fast,,7.5,eight," + g6(a.mean / 3600.0) + "," + g6(a.ci95 / 3600.0) + ",3,1,0");
  const std::string s = render_table3(c, r, Format::kCsv, parse_time_unit("s"));
  CHECK(line_starting(s, "fast,,7.5,eight,").rfind("fast,,7.5,eight," + g6(a.mean) + ",", 0) == 0);
  char cell[64];
  std::snprintf(cell, sizeof cell, "%.2f +- %.2f", a.mean / 3600.0, a.ci95 / 3600.0);
  const std::string md = render_table3(c, r, Format::kMarkdown, parse_time_unit("h"));
  CHECK(md.rfind("Mean job completion time in hours (", 0) == 0);
  CHECK(line_starting(md, "| fast ").rfind(std::string("| fast (7.5 jobs/h) | ") + cell + " |", 0) == 0);
  CHECK(render_summary(c, r, Format::kMarkdown, parse_time_unit("s")).find("(times in seconds)") != std::string::npos);
  // The default is minutes, as before.
  CHECK(render_table3(c, r, Format::kCsv) == render_table3(c, r, Format::kCsv, parse_time_unit("min")));
  CHECK(render_table3(c, r, Format::kMarkdown).rfind("Mean job completion time in minutes (", 0) == 0);
  CHECK_THROWS_WITH(parse_time_unit("d"), "--time-unit: unknown unit 'd' (valid: s, min, h)");
}

TEST_CASE("experiments::report: jobs.csv marks the jobs of the measurement window", "[experiments][report]") {
  const ExperimentConfig c = tiny(R"(, "measure": {"from_job": 2, "to_job": 5})");
  ExperimentResult r = run_experiment(c, 1);
  const std::string csv = jobs_csv(c, r);
  const std::string header = csv.substr(0, csv.find('\n'));
  CHECK(header.size() > 9);
  CHECK(header.substr(header.size() - 9) == ",measured");
  // Jobs 2, 3, 4 of each run are measured: 3 of 6 per run, 2 levels x 2 strategies x 3 seeds.
  int measured = 0;
  int rows = 0;
  std::size_t pos = csv.find('\n') + 1;
  while (pos < csv.size()) {
    const std::size_t end = csv.find('\n', pos);
    const std::string line = csv.substr(pos, end - pos);
    pos = end + 1;
    ++rows;
    // level,strategy,seed,job_id,...
    std::size_t k = 0;
    for (int i = 0; i < 3; ++i)
      k = line.find(',', k) + 1;
    const int id = std::stoi(line.substr(k, line.find(',', k) - k));
    const char flag = line.back();
    CHECK(flag == (id >= 2 && id < 5 ? '1' : '0'));
    measured += flag == '1' ? 1 : 0;
  }
  CHECK(rows == 2 * 2 * 3 * 6);
  CHECK(measured == 2 * 2 * 3 * 3);
  // Without workload.measure every job is measured.
  const ExperimentConfig all = tiny();
  const std::string every = jobs_csv(all, run_experiment(all, 1));
  CHECK(every.find(",0\n") == std::string::npos);
}
