// sim/cli/check.cpp — `ringsched check`: compare results with a baseline (exit 1 on drift).
#include <memory>
#include <vector>

#include "sim/cli/commands.h"
#include "sim/cli/flags.h"
#include "sim/sweeps/check.h"

namespace ringsched::cli {
namespace {

struct CheckCliOptions {
  std::string baseline;
  std::string results;
  std::vector<std::string> tolerances;
  std::string metrics;
  bool no_test = false;
  CheckOptions opt;
};

int run_check(CheckCliOptions o) {
  for (const auto& t : o.tolerances)
    add_tolerance(o.opt, t);
  o.opt.welch = !o.no_test;
  std::string cur;
  for (char ch : o.metrics + ",") {
    if (ch != ',') {
      cur += ch;
    } else if (!cur.empty()) {
      o.opt.metrics.push_back(cur);
      cur.clear();
    }
  }
  return check_command(o.baseline, o.results, o.opt);
}

}  // namespace

Command add_check_command(CLI::App& app) {
  auto o = std::make_shared<CheckCliOptions>();
  auto* check = app.add_subcommand("check", "Compare results with a baseline; exit 1 when a metric drifted");
  check->add_option("--baseline", o->baseline, "Baseline sweep.json or summary.json")->required();
  check->add_option("--results", o->results, "Results to check (same kind of file)")->required();
  check->add_option("--tolerance", o->tolerances,
                    "Relative tolerance on means: 0.05 for all metrics, or METRIC=0.02 (repeatable); default 0.05");
  check->add_option("--alpha", o->opt.alpha, "Welch t-test significance level (default 0.05)")->check(strict_number());
  check->add_flag("--no-test", o->no_test, "No statistical test: any mean beyond tolerance drifts");
  check->add_option("--metrics", o->metrics, "Comma-separated metrics to compare (default: all)");
  check->footer(
      "Examples:\n  ringsched check --baseline test/baselines/regression-sweep.json --results out/sweep/sweep.json\n"
      "  ringsched check --baseline old/summary.json --results new/summary.json --tolerance mean_jct_s=0.02\n"
      "  ringsched check --baseline a.json --results b.json --no-test --metrics mean_jct_s,makespan_s\n"
      "Exit 0: no drift; 1: a metric drifted (listed); 2: bad input.");
  return {check, [o] { return run_check(*o); }};
}

}  // namespace ringsched::cli
