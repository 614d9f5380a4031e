// sim/sweeps/check.h — `ringsched check`: compares results (a sweep.json, or a summary.json from table3/simulate)
// with a stored baseline, per group (cell x level x strategy) and metric: a relative tolerance on the mean plus Welch's
// t-test on the replicates, and reports what drifted.
#pragma once

#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace ringsched {

struct CheckOptions {
  double default_tolerance = 0.05;          // relative, on the mean of each metric
  std::map<std::string, double> tolerance;  // per metric, overrides the default
  double abs_tolerance = 1e-9;              // differences at most this big never drift (metrics that are 0)
  double alpha = 0.05;                      // significance level of the Welch test
  bool welch = true;                        // false: the tolerance alone decides
  std::vector<std::string> metrics;         // empty: every metric
};

// Applies one --tolerance value: "0.05" (all metrics) or "mean_jct_s=0.02". Throws InputError when malformed or
// the metric is unknown.
void add_tolerance(CheckOptions& options, const std::string& spec);

struct WelchResult {
  bool available = false;  // needs >= 2 values on each side and a non-zero standard error
  double t = 0.0;
  double df = 0.0;
  double p = 1.0;  // two-sided
};
// Welch's unequal-variance t-test of mean(a) == mean(b); df by Welch-Satterthwaite.
WelchResult welch_t_test(const std::vector<double>& a, const std::vector<double>& b);

struct ResultGroup {
  std::string key;                                    // "cell [labels] level L, strategy S" or "level L, strategy S"
  std::string error;                                  // the cell's config error, if any
  int failed = 0;                                     // failed replicates
  std::map<std::string, std::vector<double>> values;  // metric -> successful replicates' values
};
// Reads a sweep.json ("format": "ringsched-sweep") or a summary.json (has "runs"). Throws InputError otherwise.
std::vector<ResultGroup> load_result_groups(const nlohmann::json& doc, const std::string& origin);

struct CheckReport {
  int groups = 0;
  int comparisons = 0;
  int drifted = 0;
  std::vector<std::string> drifts;  // one line per drift
  std::vector<std::string> notes;   // differences that did not count as drift, and header mismatches
  [[nodiscard]] std::string render() const;
};

CheckReport check_results(const nlohmann::json& baseline, const std::string& baseline_origin,
                          const nlohmann::json& results, const std::string& results_origin,
                          const CheckOptions& options);

// `ringsched check`: reads both files, prints the report on stdout; returns 0 (no drift) or 1 (drift); throws
// InputError for unreadable files or bad options (exit 2).
int check_command(const std::string& baseline_path, const std::string& results_path, const CheckOptions& options);

}  // namespace ringsched
