// sim/cli/simulate.cpp — `ringsched simulate --config F`: run any experiment config (in-sample or held-out) and
// print every metric per level and strategy.
#include <cstdio>
#include <filesystem>
#include <memory>

#include "sim/cli/commands.h"
#include "sim/cli/flags.h"
#include "sim/cli/run_options.h"
#include "sim/experiments/plot.h"
#include "sim/experiments/work_estimate.h"
#include "workloads/io/json_reader.h"

namespace ringsched::cli {
namespace {

struct SimulateOptions {
  RunOptions run;
  std::string config;
  std::string plot;  // --plot DIR
};

// --plot: after a run that wrote its files, scripts/plot draws them into o.plot. Without matplotlib: the package to
// install and exit 2 (the results are written).
int draw_plots(const SimulateOptions& o, const std::string& data_dir) {
  if (const int rc = run_plot_script(data_dir, o.plot, o.run.time_unit); rc != 0) return rc;
  std::fprintf(stderr, "ringsched: plots (PNG and SVG) in %s\n", o.plot.c_str());
  return 0;
}

int run_simulate(const SimulateOptions& o) {
  nlohmann::json doc = read_json_file(o.config);
  apply_run_options(doc, o.run);
  const ExperimentConfig cfg = parse_experiment(doc, o.config, std::filesystem::path(o.config).parent_path().string());
  if (const std::string w = large_work_warning(cfg); !w.empty())
    std::fprintf(stderr, "ringsched: warning: %s\n", w.c_str());
  RunOptions run = o.run;
  if (run.out.empty()) run.out = o.plot;  // as table3 --plot: the data files go with the plots
  const int rc = run_and_report(cfg, run, View::kSummary, "");
  if (rc != 0 || o.plot.empty()) return rc;
  return draw_plots(o, run.out);
}

}  // namespace

Command add_simulate_command(CLI::App& app) {
  auto o = std::make_shared<SimulateOptions>();
  auto* sim = app.add_subcommand(
      "simulate", "Run an experiment config (in-sample or held-out) and print every metric per level and strategy");
  sim->add_option("--config", o->config, "Experiment config (JSON)")->required();
  add_run_options(sim, o->run);
  sim->add_option("--strategies", o->run.strategies, "Override the config's strategies (comma-separated or `all`)")
      ->check(non_empty());
  sim->add_option("--plot", o->plot,
                  "After the run, draw its figures (PNG + SVG) into this directory with scripts/plot (Debian's "
                  "/usr/bin/python3 + matplotlib; exit 2 naming the package when it is missing, the results are "
                  "written); the data files go there too unless --out is given")
      ->check(non_empty());
  sim->footer(
      "Examples:\n  ringsched simulate --config workloads/examples/tiny-2node.json\n"
      "  ringsched simulate --config my.json --seeds 5 --threads 2 --out out/my --format csv\n"
      "  ringsched simulate --config workloads/examples/heldout-own-table.json   # held-out on your own table\n"
      "  ringsched simulate --config my.json --out out/my --plot out/my/plots --time-unit h\n"
      "The config format is documented in docs/config.md; check a config first with `ringsched validate`.");
  return {sim, [o] { return run_simulate(*o); }};
}

}  // namespace ringsched::cli
