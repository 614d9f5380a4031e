// sim/main.cpp — the `ringsched` command line (CLI11): table3, simulate, validate, strategies, catalogs, sweep,
// check, fit.
// Exit codes: 0 ok, 1 runtime failure, 2 bad input.
#include <chrono>
#include <cstdio>
#include <iostream>
#include <optional>
#include <thread>

#include <CLI/CLI.hpp>

#include "sim/check.h"
#include "sim/experiment.h"
#include "sim/heldout_cli.h"
#include "sim/placement_report.h"
#include "sim/plot.h"
#include "sim/report.h"
#include "sim/sweep.h"
#ifdef RINGSCHED_WITH_MPI
#include "sim/sweep_mpi.h"
#endif
#include "workloads/json_reader.h"

using namespace ringsched;

namespace {

struct RunOptions {
  std::optional<int> seeds;
  std::optional<int> jobs;
  std::optional<double> restart_cost;
  int threads = 0;
  std::string format = "md";
  std::string out;
  std::string strategies;
  bool optimality_gap = false;
};

void add_run_options(CLI::App* cmd, RunOptions& o) {
  cmd->add_option("--seeds", o.seeds, "Replicates (seeds) per cell; overrides the config")
      ->check(CLI::Range(1, 100000));
  cmd->add_option("--jobs", o.jobs, "Jobs per replicate; overrides the config")->check(CLI::Range(1, 10000000));
  cmd->add_option("--threads", o.threads,
                  "Worker threads for replicates (0 = all cores). Output is identical for any value")
      ->check(CLI::Range(0, 4096));
  cmd->add_option("--format", o.format, "Table format on stdout: md (Markdown), csv or json")
      ->check(CLI::IsMember({"md", "csv", "json"}));
  cmd->add_option("--out", o.out,
                  "Directory for summary.json, jobs.csv, events.csv, table.md, table.csv (written atomically)");
  cmd->add_flag("--optimality-gap", o.optimality_gap,
                "Record each decision's objective gap to the exact optimum and print its distribution "
                "(docs/topology.md)");
}

// --strategies: "all" (every registered strategy) or a comma-separated list of name / name[beliefs].
std::vector<std::string> strategy_list(const std::string& arg) {
  if (arg == "all") return strategy_names();
  std::vector<std::string> names;
  std::string cur;
  for (char ch : arg + ",") {
    if (ch == ',') {
      if (!cur.empty()) names.push_back(cur);
      cur.clear();
    } else {
      cur += ch;
    }
  }
  return names;
}

void apply_overrides(nlohmann::json& doc, const RunOptions& o) {
  if (!doc.is_object()) return;  // parse_experiment reports it (file + path, exit 2)
  if (o.seeds) doc["seeds"] = *o.seeds;
  if (o.restart_cost) doc["restart"]["cost_s"] = *o.restart_cost;
  if (o.optimality_gap) doc["output"]["optimality_gap"] = true;
  if (o.jobs && doc.contains("workload") && doc["workload"].is_object()) doc["workload"]["jobs"] = *o.jobs;
  if (!o.strategies.empty()) {
    nlohmann::json list = nlohmann::json::array();
    for (const auto& n : strategy_list(o.strategies)) {
      auto pos = n.find('[');
      if (pos != std::string::npos && n.back() == ']') {
        list.push_back({{"name", n.substr(0, pos)}, {"beliefs", n.substr(pos + 1, n.size() - pos - 2)}});
      } else {
        list.push_back(n);
      }
    }
    if (list.empty()) throw InputError("--strategies: empty list");
    doc["strategies"] = list;
  }
}

int run_and_report(const ExperimentConfig& cfg, const RunOptions& o, bool table3) {
  const Format f = parse_format(o.format);
  const auto t0 = std::chrono::steady_clock::now();
  const ExperimentResult res = run_experiment(cfg, o.threads);
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::cout << (table3 ? render_table3(cfg, res, f) : render_summary(cfg, res, f)) << std::flush;
  std::cout << render_placement_report(cfg, res, f) << std::flush;  // empty unless topology/placement/gap
  if (!o.out.empty()) write_outputs(o.out, cfg, res);
  if (!o.out.empty()) write_placement_outputs(o.out, cfg, res);
  std::fprintf(stderr, "ringsched: %zu runs in %.2f s%s%s\n", res.runs.size(), secs, o.out.empty() ? "" : ", wrote ",
               o.out.c_str());
  const int failed = failed_runs(res);
  if (failed > 0) {
    std::cerr << describe_failures(cfg, res);
    std::fprintf(stderr, "ringsched: %d run(s) failed\n", failed);
    return 1;
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{
      "ringsched: simulate elastic scheduling of ring all-reduce training jobs on GPU clusters (arXiv 1908.08082).\n"
      "Start with `ringsched table3`; see README.md for the config format."};
  app.require_subcommand(1);
  app.set_version_flag("--version", std::string("ringsched ") + RINGSCHED_VERSION);

  RunOptions t3;
  std::string t3_config;
  auto* table3 = app.add_subcommand(
      "table3",
      "Reproduce the paper's Table 3: mean JCT per contention level and strategy, 95% CIs, ratio to eight.\n"
      "Default: 64 GPUs, the `paper` catalog, levels light/moderate/heavy/extreme, 20 seeds x 100 jobs.");
  add_run_options(table3, t3);
  table3->footer(
      "Examples:\n  ringsched table3                                  # the paper's setting, Markdown table\n"
      "  ringsched table3 --seeds 50 --out out/t3          # more replicates, CSV/JSON files in out/t3\n"
      "  ringsched table3 --strategies eight,precompute[oracle] --format csv\n"
      "Cells: mean JCT in minutes +- 95% CI over seeds; (0.40x) = paired per-seed ratio to eight.");
  // No CLI::ExistingFile check: read_json_file reports a missing file in the one-line "file: ..." form (exit 2).
  table3->add_option("--config", t3_config, "Use this experiment config instead of the built-in Table 3 setup");
  table3->add_option("--strategies", t3.strategies,
                     "Comma-separated strategies (name or name[beliefs]), or `all` for every registered one; applies "
                     "to both blocks (beliefs: history, oracle, none; online needs loss curves: held-out block or "
                     "the pollux catalog; exploration: held-out block)");
  HeldoutCli t3_heldout;
  add_heldout_options(table3, t3_heldout);  // --eval and the held-out knobs (docs/heldout.md)
  FitCommandOptions fit_opt;
  auto* fit = add_fit_subcommand(app, fit_opt);
  std::string t3_plot;
  table3->add_option("--plot", t3_plot,
                     "Draw the plots (PNG + SVG) into this directory with scripts/plot (Python 3 + matplotlib); "
                     "the data files go there too unless --out is given");

  RunOptions sim;
  std::string sim_config;
  auto* simulate =
      app.add_subcommand("simulate", "Run an experiment config and print every metric per level and strategy");
  simulate->add_option("--config", sim_config, "Experiment config (JSON)")->required();
  add_run_options(simulate, sim);
  simulate
      ->add_option("--restart-cost", sim.restart_cost, "Restart cost in seconds (restart.cost_s); overrides the config")
      ->check(CLI::Range(0.0, 86400.0));
  simulate->footer(
      "Examples:\n  ringsched simulate --config workloads/examples/tiny-2node.json\n"
      "  ringsched simulate --config my.json --seeds 5 --threads 2 --out out/my --format csv\n"
      "The config format is documented in docs/config.md; check a config first with `ringsched validate`.");
  simulate->add_option("--strategies", sim.strategies, "Override the config's strategies (comma-separated or `all`)");

  std::string val_config;
  auto* validate = app.add_subcommand("validate", "Check an experiment config and print what it would run");
  validate->add_option("--config", val_config, "Experiment config (JSON)")->required();

  auto* strategies = app.add_subcommand("strategies", "List the registered strategies and their parameters");
  auto* catalogs = app.add_subcommand("catalogs", "List the built-in catalogs, or print one with --show NAME");
  std::string show;
  catalogs->add_option("--show", show, "Print this built-in catalog's JSON");

  // sweep and check: see docs/sweeps.md.
  std::string sweep_config;
  std::string sweep_plot;
  SweepOptions sweep_opt;
  auto* sweep = app.add_subcommand(
      "sweep", "Run a sweep file (base config + axes or cells, replicates) on all cores; under mpirun over ranks");
  sweep->add_option("--config", sweep_config, "Sweep file (JSON)")->required();
  sweep->add_option("--out", sweep_opt.out_dir, "Output directory: sweep.json, runs.csv, cells.csv")->required();
  sweep->add_option("--threads", sweep_opt.threads, "Worker threads per process (0 = all cores)")
      ->check(CLI::Range(0, 4096));
  sweep->add_flag("--resume", sweep_opt.resume, "Continue the results in --out (refused if from another config)");
  sweep->add_flag("--force", sweep_opt.force, "Overwrite results already in --out");
  sweep->add_flag("--quiet", sweep_opt.quiet, "No progress bar");
  sweep->add_option("--flush-seconds", sweep_opt.flush_seconds, "Rewrite the output files at most this often")
      ->check(CLI::Range(0.0, 86400.0));
  sweep->add_option("--plot", sweep_plot, "Draw the sweep plots (PNG + SVG) into this directory");

  std::string check_baseline;
  std::string check_results_path;
  std::vector<std::string> check_tolerances;
  std::string check_metrics;
  bool check_no_test = false;
  CheckOptions check_opt;
  auto* check = app.add_subcommand("check", "Compare results with a baseline; exit 1 when a metric drifted");
  check->add_option("--baseline", check_baseline, "Baseline sweep.json or summary.json")->required();
  check->add_option("--results", check_results_path, "Results to check (same kind of file)")->required();
  check->add_option("--tolerance", check_tolerances,
                    "Relative tolerance on means: 0.05 for all metrics, or METRIC=0.02 (repeatable); default 0.05");
  check->add_option("--alpha", check_opt.alpha, "Welch t-test significance level (default 0.05)");
  check->add_flag("--no-test", check_no_test, "No statistical test: any mean beyond tolerance drifts");
  check->add_option("--metrics", check_metrics, "Comma-separated metrics to compare (default: all)");

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    app.exit(e);
    return 2;
  }

  try {
    if (*table3 || *simulate) {
      const bool is_t3 = static_cast<bool>(*table3);
      // table3's --restart-cost (sim/heldout_cli.h) sets the held-out block's cost; it overrides the in-sample too.
      if (is_t3 && table3->count("--restart-cost") > 0) t3.restart_cost = t3_heldout.opt.restart_cost_s;
      // table3's --strategies applies to both blocks.
      if (is_t3 && !t3.strategies.empty()) {
        t3_heldout.opt.strategies = strategy_list(t3.strategies);
        if (t3_heldout.opt.strategies.empty()) throw InputError("--strategies: empty list");
      }
      if (is_t3 && !wants_in_sample(t3_heldout)) {
        return run_heldout_block(t3_heldout, t3.seeds, t3.jobs, t3.threads, t3.format, t3.out, false);
      }
      const RunOptions& o = is_t3 ? t3 : sim;
      const std::string path = is_t3 ? t3_config : sim_config;
      nlohmann::json doc =
          path.empty() ? parse_json_text(table3_config_text(), "builtin:table3") : read_json_file(path);
      const std::string origin = path.empty() ? "builtin:table3" : path;
      apply_overrides(doc, o);
      const std::string base = path.empty() ? "" : std::filesystem::path(path).parent_path().string();
      const ExperimentConfig cfg = parse_experiment(doc, origin, base);
      if (!is_t3 || t3_plot.empty()) {
        const int rc = run_and_report(cfg, o, is_t3);
        if (!is_t3 || !wants_heldout(t3_heldout, !t3_config.empty())) return rc;
        const int h_rc = run_heldout_block(t3_heldout, t3.seeds, t3.jobs, t3.threads, t3.format, t3.out, true);
        return rc != 0 ? rc : h_rc;
      }
      RunOptions with_out = o;
      if (with_out.out.empty()) with_out.out = t3_plot;
      const int rc = run_and_report(cfg, with_out, is_t3);
      const int plot_rc = run_plot_script(with_out.out, t3_plot);
      return rc != 0 ? rc : plot_rc;
    }
    if (*fit) return run_fit_command(fit_opt, std::cout);
    if (*sweep) {
      std::unique_ptr<SweepComm> comm;
#ifdef RINGSCHED_WITH_MPI
      comm = make_mpi_comm_if_launched();
#endif
      if (!comm) comm = make_local_comm();
      return sweep_command(sweep_config, sweep_opt, sweep_plot, *comm);
    }
    if (*check) {
      for (const auto& t : check_tolerances)
        add_tolerance(check_opt, t);
      check_opt.welch = !check_no_test;
      std::string cur;
      for (char ch : check_metrics + ",") {
        if (ch != ',') {
          cur += ch;
        } else if (!cur.empty()) {
          check_opt.metrics.push_back(cur);
          cur.clear();
        }
      }
      return check_command(check_baseline, check_results_path, check_opt);
    }
    if (*validate) {
      const ExperimentConfig cfg = load_experiment(val_config);
      std::cout << val_config << ": ok: " << cfg.total_gpus() << " GPUs (" << cfg.nodes << " nodes x "
                << cfg.gpus_per_node << "), catalog " << cfg.catalog->name << " (" << cfg.catalog->classes.size()
                << " classes), " << cfg.jobs << " jobs per run, " << cfg.levels.size() << " level(s) x "
                << cfg.strategies.size() << " strategies x " << cfg.seeds
                << " seeds = " << cfg.levels.size() * cfg.strategies.size() * static_cast<std::size_t>(cfg.seeds)
                << " runs\n";
      for (const auto& l : cfg.levels) {
        if (cfg.trace) {
          std::printf("  level %s: arrivals from %s trace %s (%zu rows)\n", l.name.c_str(), cfg.trace->format.c_str(),
                      cfg.trace->file.c_str(), cfg.trace->jobs.size());
        } else {
          std::printf("  level %s: load %.3g, %.4g arrivals/hour\n", l.name.c_str(), l.load, l.rate_per_s * 3600.0);
        }
      }
      for (const auto& s : cfg.strategies) {
        std::printf("  strategy %s: %s with %s beliefs\n", s.label.c_str(), s.name.c_str(), s.beliefs.c_str());
      }
      return 0;
    }
    if (*strategies) {
      for (const auto& i : strategy_infos()) {
        std::cout << i.name << "  (beliefs: " << i.default_beliefs << ")\n    " << i.description << "\n";
      }
      std::cout << "\nBelief sources (choose with name[beliefs] or \"beliefs\" in a config): none; oracle (the job's "
                   "truth, for reference); history (class models of completed runs); online (Eq. 1 refitted to the "
                   "losses the job reports; needs a catalog with loss curves, e.g. pollux); exploration (Eq. 5 fitted "
                   "to the job's own measured speeds; held-out block only). docs/heldout.md\n";
      return 0;
    }
    if (*catalogs) {
      if (!show.empty()) {
        const std::string text = builtin_catalog_text(show);
        if (text.empty()) {
          throw InputError("--show: unknown built-in catalog '" + show +
                           "' (valid: " + join_names(builtin_catalog_names()) + ")");
        }
        std::cout << text;
        return 0;
      }
      for (const auto& n : builtin_catalog_names()) {
        const Catalog c = load_catalog(n);
        std::cout << n << ": " << c.description << "\n";
      }
      return 0;
    }
  } catch (const InputError& e) {
    std::cerr << "ringsched: error: " << e.what() << "\n";
    return 2;
  } catch (const std::exception& e) {
    std::cerr << "ringsched: failure: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
