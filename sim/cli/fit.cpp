// sim/cli/fit.cpp — `ringsched fit`: fit a speed model to measured points under a protocol (sim/experiments/
// fit_command.h does the work).
#include <iostream>
#include <memory>

#include "sim/cli/commands.h"
#include "sim/experiments/fit_command.h"

namespace ringsched::cli {

Command add_fit_command(CLI::App& app) {
  auto o = std::make_shared<FitCommandOptions>();
  auto* fit = app.add_subcommand(
      "fit",
      "Fit a speed model to measured points under a profiling protocol; print a catalog class entry and the fit "
      "quality (R^2, leave-one-GPU-count-out MAPE, error at unprofiled points). Formats: docs/heldout.md");
  fit->add_option("--pollux", o->pollux,
                  "A Pollux application (cifar10, imagenet, bert, ncf, yolov3, deepspeech2), "
                  "or `all` for the protocol comparison table");
  fit->add_option("--csv", o->csv, "Plain CSV of measured points: gpus,nodes,global_batch,step_seconds");
  fit->add_option("--measurement", o->measurements, "Profiler measurement files (ringsched-profile output)");
  fit->add_option("--protocol", o->protocol, "paper, two-level (default), eq5-all, two-level-all or multi-node");
  fit->add_option("--pollux-dir", o->pollux_dir, "Pollux data folder (default: the shipped one)");
  fit->add_option("--name", o->name, "Class name of the entry (default: the application, or `fitted`)");
  fit->add_option("--model-size", o->model_size, "Model size in millions of parameters (required with --csv)");
  fit->add_option("--gpus-per-node", o->gpus_per_node, "GPUs per node, for the protocols' points (default 4)")
      ->check(CLI::Range(1, 1024));
  fit->add_option("--work-samples", o->work_samples, "Work to convergence in samples for the entry");
  fit->add_option("--max-gpus", o->max_gpus, "gpus.max of the entry (default 64)")->check(CLI::Range(1, 1 << 20));
  fit->add_option("--out", o->out, "Also write the JSON to this file (atomically)");
  fit->footer(
      "Examples:\n  ringsched fit --pollux all                 # paper vs two-level on every application\n"
      "  ringsched fit --pollux imagenet --protocol paper\n"
      "  ringsched fit --csv my_points.csv --model-size 25.6 --name resnet50 --work-samples 1.2e8");
  return {fit, [o] { return run_fit_command(*o, std::cout); }};
}

}  // namespace ringsched::cli
