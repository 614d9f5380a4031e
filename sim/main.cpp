// sim/main.cpp — the `ringsched` command line (CLI11): table3, simulate, validate, strategies, catalogs.
// Exit codes: 0 ok, 1 runtime failure, 2 bad input.
#include <chrono>
#include <cstdio>
#include <iostream>
#include <optional>
#include <thread>

#include <CLI/CLI.hpp>

#include "sim/experiment.h"
#include "sim/report.h"
#include "workloads/json_reader.h"

using namespace ringsched;

namespace {

struct RunOptions {
  std::optional<int> seeds;
  std::optional<int> jobs;
  int threads = 0;
  std::string format = "md";
  std::string out;
  std::string strategies;
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
}

void apply_overrides(nlohmann::json& doc, const RunOptions& o) {
  if (o.seeds) doc["seeds"] = *o.seeds;
  if (o.jobs) doc["workload"]["jobs"] = *o.jobs;
  if (!o.strategies.empty()) {
    nlohmann::json list = nlohmann::json::array();
    std::vector<std::string> names;
    if (o.strategies == "all") {
      names = strategy_names();
    } else {
      std::string cur;
      for (char ch : o.strategies + ",") {
        if (ch == ',') {
          if (!cur.empty()) names.push_back(cur);
          cur.clear();
        } else {
          cur += ch;
        }
      }
    }
    for (const auto& n : names) {
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
  if (!o.out.empty()) write_outputs(o.out, cfg, res);
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
  table3->add_option("--config", t3_config, "Use this experiment config instead of the built-in Table 3 setup")
      ->check(CLI::ExistingFile);
  table3->add_option("--strategies", t3.strategies,
                     "Comma-separated strategies (name or name[beliefs]), or `all` for every registered one");

  RunOptions sim;
  std::string sim_config;
  auto* simulate =
      app.add_subcommand("simulate", "Run an experiment config and print every metric per level and strategy");
  simulate->add_option("--config", sim_config, "Experiment config (JSON)")->required();
  add_run_options(simulate, sim);
  simulate->add_option("--strategies", sim.strategies, "Override the config's strategies (comma-separated or `all`)");

  std::string val_config;
  auto* validate = app.add_subcommand("validate", "Check an experiment config and print what it would run");
  validate->add_option("--config", val_config, "Experiment config (JSON)")->required();

  auto* strategies = app.add_subcommand("strategies", "List the registered strategies and their parameters");
  auto* catalogs = app.add_subcommand("catalogs", "List the built-in catalogs, or print one with --show NAME");
  std::string show;
  catalogs->add_option("--show", show, "Print this built-in catalog's JSON");

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
      const RunOptions& o = is_t3 ? t3 : sim;
      const std::string path = is_t3 ? t3_config : sim_config;
      nlohmann::json doc =
          path.empty() ? parse_json_text(table3_config_text(), "builtin:table3") : read_json_file(path);
      const std::string origin = path.empty() ? "builtin:table3" : path;
      apply_overrides(doc, o);
      const std::string base = path.empty() ? "" : std::filesystem::path(path).parent_path().string();
      const ExperimentConfig cfg = parse_experiment(doc, origin, base);
      return run_and_report(cfg, o, is_t3);
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
        std::printf("  level %s: load %.3g, %.4g arrivals/hour\n", l.name.c_str(), l.load, l.rate_per_s * 3600.0);
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
