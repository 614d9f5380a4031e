// sim/heldout_cli.h — command-line glue for the held-out evaluation (used only by sim/main.cpp, which links CLI11):
// `table3 --eval in-sample|held-out|both` and its held-out knobs, and the `fit` subcommand's options.
#pragma once

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <optional>
#include <string>

#include <CLI/CLI.hpp>

#include "sim/atomic_file.h"
#include "sim/fit_command.h"
#include "sim/heldout.h"

namespace ringsched {

struct HeldoutCli {
  std::string eval;  // "" = both for the built-in setup, in-sample with --config
  HeldoutOptions opt;
};

inline void add_heldout_options(CLI::App* table3, HeldoutCli& h) {
  table3
      ->add_option("--eval", h.eval,
                   "in-sample (the paper's setting), held-out (Pollux measured jobs, fitted beliefs; docs/heldout.md) "
                   "or both (default for the built-in setup; with --config the default is in-sample)")
      ->check(CLI::IsMember({"in-sample", "held-out", "both"}));
  table3
      ->add_option("--heldout-protocol", h.opt.protocol,
                   "Profiling protocol of the held-out history beliefs: paper (1, 2, 4 GPUs in one node) or "
                   "two-level (plus 2 and 8 GPUs on 2 nodes) or multi-node (plus placements 11, 44, 4444)")
      ->check(CLI::IsMember({"paper", "two-level", "multi-node"}));
  table3
      ->add_option("--noise-sigma", h.opt.sigma,
                   "Held-out per-job lognormal noise sigma on speed and work (default 0.1)")
      ->check(CLI::Range(0.0, 3.0));
  table3
      ->add_option("--loss-sigma", h.opt.loss_sigma,
                   "Held-out lognormal noise sigma of each loss a job reports to the online belief (default 0.02)")
      ->check(CLI::Range(0.0, 3.0));
  table3->add_option("--train-runs", h.opt.train_runs, "Held-out training runs per class for history (default 5)")
      ->check(CLI::Range(1, 1000));
  table3->add_option("--restart-cost", h.opt.restart_cost_s, "Held-out restart cost in seconds (default 10)")
      ->check(CLI::Range(0.0, 86400.0));
  table3->add_option("--pollux-dir", h.opt.pollux_dir,
                     "Pollux data folder (default: $RINGSCHED_POLLUX_DIR or the shipped workloads/data/pollux)");
}

// Runs and prints the held-out block after (or instead of) the in-sample one. seeds/jobs/threads/format/out come
// from table3's common options.
inline int run_heldout_block(HeldoutCli h, std::optional<int> seeds, std::optional<int> jobs, int threads,
                             const std::string& format, const std::string& out_dir, bool after_in_sample) {
  if (seeds) h.opt.seeds = *seeds;
  if (jobs) h.opt.jobs = *jobs;
  h.opt.threads = threads;
  const Format f = parse_format(format);
  const auto t0 = std::chrono::steady_clock::now();
  const HeldoutResult r = run_heldout(h.opt);
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (after_in_sample && f == Format::kMarkdown) std::cout << '\n';
  if (f == Format::kMarkdown) {
    std::cout << "## Held-out: six Pollux applications on 16 nodes x 4 GPUs, measured-table truth (noise sigma "
              << h.opt.sigma << "), history fitted on " << h.opt.train_runs
              << " training runs per class under protocol " << r.protocol << " (docs/heldout.md)\n\n";
  }
  std::cout << render_heldout(r, f) << std::flush;
  if (!out_dir.empty()) {
    std::filesystem::create_directories(out_dir);
    write_file_atomic((std::filesystem::path(out_dir) / "heldout.json").string(), heldout_json(r).dump(2) + "\n");
    write_file_atomic((std::filesystem::path(out_dir) / "heldout.md").string(), render_heldout(r, Format::kMarkdown));
  }
  std::fprintf(stderr, "ringsched: held-out: %zu runs in %.2f s\n", r.result.runs.size(), secs);
  const int failed = failed_runs(r.result);
  if (failed > 0) {
    std::cerr << describe_failures(r.config, r.result);
    std::fprintf(stderr, "ringsched: held-out: %d run(s) failed\n", failed);
    return 1;
  }
  return 0;
}

// Whether to run the held-out block, given --eval and whether a --config replaced the built-in setup.
inline bool wants_heldout(const HeldoutCli& h, bool has_config) {
  if (h.eval.empty()) return !has_config;
  return h.eval != "in-sample";
}
inline bool wants_in_sample(const HeldoutCli& h) {
  return h.eval != "held-out";
}

inline CLI::App* add_fit_subcommand(CLI::App& app, FitCommandOptions& o) {
  auto* fit = app.add_subcommand(
      "fit",
      "Fit a speed model to measured points under a profiling protocol; print a catalog class entry and the fit "
      "quality (R^2, leave-one-GPU-count-out MAPE, error at unprofiled points). Formats: docs/heldout.md");
  fit->add_option("--pollux", o.pollux,
                  "A Pollux application (cifar10, imagenet, bert, ncf, yolov3, deepspeech2), "
                  "or `all` for the protocol comparison table");
  fit->add_option("--csv", o.csv, "Plain CSV of measured points: gpus,nodes,global_batch,step_seconds");
  fit->add_option("--measurement", o.measurements, "Profiler measurement files (ringsched-profile output)");
  fit->add_option("--protocol", o.protocol, "paper, two-level (default), eq5-all, two-level-all or multi-node");
  fit->add_option("--pollux-dir", o.pollux_dir, "Pollux data folder (default: the shipped one)");
  fit->add_option("--name", o.name, "Class name of the entry (default: the application, or `fitted`)");
  fit->add_option("--model-size", o.model_size, "Model size in millions of parameters (required with --csv)");
  fit->add_option("--gpus-per-node", o.gpus_per_node, "GPUs per node, for the protocols' points (default 4)")
      ->check(CLI::Range(1, 1024));
  fit->add_option("--work-samples", o.work_samples, "Work to convergence in samples for the entry");
  fit->add_option("--max-gpus", o.max_gpus, "gpus.max of the entry (default 64)")->check(CLI::Range(1, 1 << 20));
  fit->add_option("--out", o.out, "Also write the JSON to this file (atomically)");
  fit->footer(
      "Examples:\n  ringsched fit --pollux all                 # paper vs two-level on every application\n"
      "  ringsched fit --pollux imagenet --protocol paper\n"
      "  ringsched fit --csv my_points.csv --model-size 25.6 --name resnet50 --work-samples 1.2e8");
  return fit;
}

}  // namespace ringsched
