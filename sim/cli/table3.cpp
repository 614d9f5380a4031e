// sim/cli/table3.cpp — `ringsched table3`: the paper's Table 3 from two built-in configs, the in-sample block (the
// paper's setting) and the held-out block (measured Pollux jobs, fitted beliefs), each under its own heading; or a
// user's config in place of the in-sample block. Held-out knobs edit the held-out config before it is parsed.
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <memory>
#include <optional>

#include "sim/cli/commands.h"
#include "sim/cli/flags.h"
#include "sim/cli/run_options.h"
#include "sim/experiments/atomic_file.h"
#include "sim/experiments/builtin_configs.h"
#include "sim/experiments/plot.h"
#include "sim/experiments/report.h"
#include "workloads/io/json_reader.h"

namespace ringsched::cli {
namespace {

struct Table3Options {
  RunOptions run;
  std::string config;                   // replaces the in-sample block
  std::string eval;                     // "" = both for the built-in setup, in-sample with --config
  std::string show;                     // --show-config
  std::string plot;                     // --plot DIR
  std::optional<std::string> protocol;  // held-out knobs
  std::optional<double> noise_sigma;
  std::optional<double> loss_sigma;
  std::optional<int> train_runs;
  std::string pollux_dir;
};

void add_heldout_options(CLI::App* t3, Table3Options& o) {
  t3->add_option("--eval", o.eval,
                 "in-sample (the paper's setting), held-out (Pollux measured jobs, fitted beliefs; docs/heldout.md) "
                 "or both (default for the built-in setup; with --config the default is in-sample)")
      ->check(CLI::IsMember({"in-sample", "held-out", "both"}));
  t3->add_option("--heldout-protocol", o.protocol,
                 "Held-out: profiling protocol of the history beliefs (beliefs.history.protocol): paper (1, 2, 4 GPUs "
                 "in one node), two-level (plus 2 and 8 GPUs on 2 nodes), multi-node (plus placements 11, 44, "
                 "4444) or two-node (the net model on every measured position of at most 2 nodes)")
      ->check(CLI::IsMember({"paper", "two-level", "multi-node", "two-node"}));
  t3->add_option("--noise-sigma", o.noise_sigma,
                 "Held-out: per-job lognormal noise sigma on speed and work (workload.speed_sigma and work_sigma; "
                 "default 0.1); the training runs follow it")
      ->check(strict_number())
      ->check(CLI::Range(0.0, 3.0));
  t3->add_option("--loss-sigma", o.loss_sigma,
                 "Held-out: lognormal noise sigma of each loss a job reports to the online belief (default 0.02)")
      ->check(strict_number())
      ->check(CLI::Range(0.0, 3.0));
  t3->add_option("--train-runs", o.train_runs, "Held-out: training runs per class for history (default 5)")
      ->check(strict_integer())
      ->check(CLI::Range(1, 1000));
  t3->add_option("--pollux-dir", o.pollux_dir,
                 "Held-out: Pollux data folder (workload.pollux_dir; default: $RINGSCHED_POLLUX_DIR or the shipped "
                 "workloads/data/pollux)");
}

// The held-out config document with the held-out knobs written in.
nlohmann::json heldout_document(const Table3Options& o) {
  nlohmann::json doc = parse_json_text(builtin_config_text("held-out"), builtin_config_origin("held-out"));
  if (o.protocol) doc["beliefs"]["history"]["protocol"] = *o.protocol;
  if (o.noise_sigma) {
    doc["workload"]["speed_sigma"] = *o.noise_sigma;
    doc["workload"]["work_sigma"] = *o.noise_sigma;
  }
  if (o.loss_sigma) doc["workload"]["loss_sigma"] = *o.loss_sigma;
  if (o.train_runs) doc["beliefs"]["history"]["runs"] = *o.train_runs;
  // The flag's folder is the user's own, relative to where they are: made absolute, so the built-in config's rule for
  // its relative names (no "..", workloads/io/input_path.h) does not apply to it.
  if (!o.pollux_dir.empty()) doc["workload"]["pollux_dir"] = std::filesystem::absolute(o.pollux_dir).string();
  apply_run_options(doc, o.run);
  return doc;
}

struct Block {
  std::string label;  // "in-sample", "held-out"
  ExperimentConfig config;
  std::string out_dir;  // where --out / --plot write this block's files
};

// Parses every block the options ask for before running any, so bad input writes nothing.
std::vector<Block> table3_blocks(const Table3Options& o) {
  const bool has_config = !o.config.empty();
  const std::string eval = o.eval.empty() ? (has_config ? "in-sample" : "both") : o.eval;
  std::string out = o.run.out.empty() ? o.plot : o.run.out;
  std::vector<Block> blocks;
  if (eval != "held-out") {
    nlohmann::json doc = has_config ? read_json_file(o.config)
                                    : parse_json_text(table3_config_text(), builtin_config_origin("in-sample"));
    apply_run_options(doc, o.run);
    const std::string origin = has_config ? o.config : builtin_config_origin("in-sample");
    const std::string base = has_config ? std::filesystem::path(o.config).parent_path().string() : "";
    blocks.push_back({"in-sample", parse_experiment(doc, origin, base), out});
  }
  if (eval != "in-sample") {
    const std::string held_out = out.empty() || eval == "held-out" ? out : out + "/held-out";
    blocks.push_back(
        {"held-out", parse_experiment(heldout_document(o), builtin_config_origin("held-out"), ""), held_out});
  }
  return blocks;
}

// The blocks' tables as one document: CSV with a leading `block` column (one header), or a JSON object keyed by
// block ("in-sample", "held-out"), each the block's summary.json.
std::string merge_block_tables(const std::vector<Block>& blocks, const std::vector<std::string>& tables,
                               const std::string& format) {
  if (format == "json") {
    nlohmann::json doc = nlohmann::json::object();
    for (std::size_t i = 0; i < blocks.size(); ++i)
      doc[blocks[i].label] = parse_json_text(tables[i], blocks[i].label);
    return doc.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
  }
  std::string out;
  for (std::size_t i = 0; i < blocks.size(); ++i) {
    std::size_t start = 0;
    bool header = true;
    while (start < tables[i].size()) {
      std::size_t end = tables[i].find('\n', start);
      if (end == std::string::npos) end = tables[i].size();
      const std::string line = tables[i].substr(start, end - start);
      start = end + 1;
      if (line.empty()) continue;
      if (header) {
        header = false;
        if (i == 0) out += "block," + line + "\n";
        continue;
      }
      out += blocks[i].label + "," + line + "\n";
    }
  }
  return out;
}

// The subfolder of `root` a block writes to: "" for root itself, "held-out" for root/held-out.
std::string block_subfolder(const std::string& root, const std::string& out_dir) {
  return out_dir.size() > root.size() + 1 && out_dir.rfind(root + "/", 0) == 0 ? out_dir.substr(root.size() + 1) : "";
}

std::string written_folders(const std::vector<Block>& blocks) {
  std::string s;
  for (const Block& b : blocks)
    s += (s.empty() ? "" : " and ") + b.out_dir;
  return s;
}

int run_table3(const Table3Options& o) {
  if (!o.show.empty()) {
    if (o.run.seeds || o.run.jobs || o.run.restart_cost || !o.run.strategies.empty() || o.run.optimality_gap ||
        o.protocol || o.noise_sigma || o.loss_sigma || o.train_runs || !o.pollux_dir.empty()) {
      nlohmann::json doc = o.show == "held-out"
                               ? heldout_document(o)
                               : parse_json_text(table3_config_text(), builtin_config_origin("in-sample"));
      if (o.show != "held-out") apply_run_options(doc, o.run);
      std::cout << doc.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
    } else {
      std::cout << builtin_config_text(o.show);
    }
    return 0;
  }
  const std::vector<Block> blocks = table3_blocks(o);
  // Every block's files are staged in one set in the top folder (the held-out block as its subfolder) and committed
  // in one step once every block ran, so an interrupt or a failed run leaves all the earlier files of both blocks.
  const std::string root = o.run.out.empty() ? o.plot : o.run.out;
  std::vector<std::unique_ptr<OutputLock>> locks;
  std::optional<StagedOutput> staged;
  if (!root.empty()) {
    for (const Block& b : blocks) {  // every output folder is locked and usable before any block runs
      locks.push_back(std::make_unique<OutputLock>(b.out_dir));
      check_earlier_results(b.out_dir, o.run.force);
      check_output_dir(b.out_dir);
    }
    staged.emplace(root);
    for (const Block& b : blocks) {
      staged->set_subfolder(block_subfolder(root, b.out_dir));
      staged->replace(output_file_names());
    }
  }
  const bool md = o.run.format == "md";
  int rc = 0;
  std::vector<std::string> tables(blocks.size());
  for (std::size_t i = 0; i < blocks.size(); ++i) {
    const Block& b = blocks[i];
    if (md && i > 0) std::cout << '\n';
    if (md) std::cout << block_heading(b.config);
    RunOptions run = o.run;
    run.out = b.out_dir;
    if (staged) staged->set_subfolder(block_subfolder(root, b.out_dir));
    // CSV and JSON: one document for every block, printed once all have run (md prints each as it finishes).
    const int brc =
        run_and_report(b.config, run, View::kTable3, b.label, md ? nullptr : &tables[i], staged ? &*staged : nullptr);
    if (rc == 0) rc = brc;
  }
  if (staged && rc == 0) {
    staged->commit();
    if (!o.run.quiet) std::fprintf(stderr, "ringsched: wrote %s\n", written_folders(blocks).c_str());
  } else if (staged && blocks.size() > 1) {
    std::fprintf(stderr, "ringsched: nothing written to %s (earlier results there are unchanged)\n",
                 written_folders(blocks).c_str());
  }
  if (!o.plot.empty() && rc == 0) {
    for (const Block& b : blocks) {
      const std::string plot_dir = b.label == "held-out" && blocks.size() > 1 ? o.plot + "/held-out" : o.plot;
      const int prc = run_plot_script(b.out_dir, plot_dir, o.run.time_unit);
      if (rc == 0) rc = prc;
    }
  }
  if (!md) std::cout << merge_block_tables(blocks, tables, o.run.format) << std::flush;
  return rc;
}

}  // namespace

Command add_table3_command(CLI::App& app) {
  auto o = std::make_shared<Table3Options>();
  auto* t3 = app.add_subcommand(
      "table3",
      "Reproduce the paper's Table 3: mean JCT per contention level and strategy, 95% CIs, ratio to eight.\n"
      "Two blocks, each a built-in config (--show-config prints them): in-sample (64 GPUs, the `paper` catalog, "
      "levels light/moderate/heavy/extreme, 20 seeds x 100 jobs) and held-out (docs/heldout.md).");
  add_run_options(t3, o->run);
  t3->footer(
      "Examples:\n  ringsched table3                                  # both blocks, Markdown tables\n"
      "  ringsched table3 --seeds 50 --out out/t3          # more replicates; files in out/t3 and out/t3/held-out\n"
      "  ringsched table3 --strategies eight,precompute[oracle] --format csv\n"
      "  ringsched table3 --eval held-out --heldout-protocol multi-node\n"
      "  ringsched table3 --show-config held-out > my.json # then: ringsched simulate --config my.json\n"
      "Cells: mean JCT in minutes +- 95% CI over seeds; (0.40x) = paired per-seed ratio to eight.\n"
      "--format csv prints one table for every block (first column `block`), --format json one object keyed by "
      "block (each the block's summary.json); the belief and placement reports are in --out's files.");
  // No CLI::ExistingFile check: read_json_file reports a missing file in the one-line "file: ..." form (exit 2).
  t3->add_option("--config", o->config, "Use this experiment config instead of the built-in in-sample block");
  t3->add_option("--strategies", o->run.strategies,
                 "Comma-separated strategies (name or name[beliefs]), or `all` for every registered one; applies "
                 "to both blocks (beliefs: history, oracle, none, exploration; online needs loss curves: the "
                 "held-out block or the pollux catalog)")
      ->check(non_empty());
  t3->add_option("--show-config", o->show,
                 "Print a built-in config (in-sample or held-out, with any overrides given) and exit")
      ->check(CLI::IsMember({"in-sample", "held-out"}));
  t3->add_option("--plot", o->plot,
                 "Draw the plots (PNG + SVG) into this directory with scripts/plot (Python 3 + matplotlib); "
                 "the data files go there too unless --out is given");
  add_heldout_options(t3, *o);
  return {t3, [o] { return run_table3(*o); }};
}

}  // namespace ringsched::cli
