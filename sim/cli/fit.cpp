// sim/cli/fit.cpp — `ringsched fit`: fit a speed model to measured points under a protocol (sim/experiments/
// fit_command.h does the work).
#include <iostream>
#include <memory>

#include "sim/cli/commands.h"
#include "sim/cli/flags.h"
#include "sim/fitting/fit_command.h"

namespace ringsched::cli {

namespace {

// The phys model's flags: the family, the probe budget and the hardware that bounds it.
void add_phys_flags(CLI::App* fit, FitCommandOptions& o) {
  fit->add_option("--model", o.model,
                  "Model family of the net protocols (two-node, net-all): net (default), phys (compute + the "
                  "all-reduce on the job's links, bounded by the hardware flags; 90% intervals from its posterior) "
                  "or auto (the smaller leave-one-probe-out error)")
      ->check(CLI::IsMember({"net", "phys", "auto"}));
  fit->add_option("--budget", o.budget,
                  "phys models: plan this many probes (greedy; each the one that narrows the 32+ intervals most, "
                  "with the expected width after it; stderr and quality.probe_plan)")
      ->check(strict_integer())
      ->check(CLI::Range(0, 64));
  fit->add_option("--nic-gbps", o.nic_gbps,
                  "phys: one node's network rate in Gb/s (all its NICs): inter_bw >= gradient bytes / rate "
                  "(default: not declared, no bound; measurement files' hardware.nic_gbps)")
      ->check(strict_number());
  fit->add_option("--intra-gbps", o.intra_gbps,
                  "phys: one GPU's link inside a node in Gb/s (NVLink 3: 2400, PCIe 4 x16: 256): intra_bw >= gradient "
                  "bytes / rate (default: not declared)")
      ->check(strict_number());
  fit->add_option("--bytes-per-param", o.bytes_per_param, "phys: gradient bytes per parameter (default 4, fp32)")
      ->check(strict_number());
  fit->add_option("--bucket-mb", o.bucket_mb,
                  "phys: gradient bucket in MB, one all-reduce call each (default 25, PyTorch DDP's)")
      ->check(strict_number());
  fit->add_option("--hop-latency-us", o.hop_latency_us,
                  "phys: ceiling on a ring hop's latency per call in microseconds (default 100; InfiniBand ~5)")
      ->check(strict_number());
  fit->add_option("--overlap", o.overlap,
                  "phys: fraction of the all-reduce hidden behind compute, in [0, 0.99] (default 0)")
      ->check(strict_number());
}

}  // namespace

Command add_fit_command(CLI::App& app) {
  auto o = std::make_shared<FitCommandOptions>();
  auto* fit = app.add_subcommand(
      "fit",
      "Fit a speed model to measured points under a profiling protocol or on declared probes; print a catalog class "
      "entry and the fit quality (R^2, leave-one-GPU-count-out MAPE, the model's leave-one-probe-out choice, the "
      "prediction at every unprofiled point, warnings). Formats: docs/heldout.md");
  fit->add_option("--pollux", o->pollux,
                  "A Pollux application (cifar10, imagenet, bert, ncf, yolov3, deepspeech2), "
                  "or `all` for the protocol study (every protocol, and the two-node study)");
  fit->add_option("--csv", o->csv, "Plain CSV of measured points: gpus,nodes,global_batch,step_seconds");
  fit->add_option("--measurement", o->measurements, "Profiler measurement files (ringsched-profile output)");
  fit->add_option("--protocol", o->protocol,
                  "auto (default: two-node when the points include 2-node measurements, else paper), paper, "
                  "two-level, multi-node, two-node, eq5-all, two-level-all or net-all; the model, and the points "
                  "profiled unless --probes is given");
  fit->add_flag("--suggest-probe", o->suggest_probe,
                "net models: print the one extra (GPUs, nodes) measurement that would narrow the 90% intervals at "
                "32+ GPUs most (stderr and quality.suggested_probe)");
  add_phys_flags(fit, *o);
  fit->add_option("--probes", o->probes,
                  "Fit only on these positions, comma-separated: a GPU count packed on nodes (8), a placement of "
                  "per-node GPU counts (4+4) or GPUs@nodes (8@2); every other point is predicted and scored")
      ->delimiter(',');
  fit->add_option("--add-probes", o->add_probes,
                  "Positions whose measured points join the protocol's own (same syntax as --probes), e.g. the "
                  "probe --suggest-probe named, to score the fit with it")
      ->delimiter(',');
  fit->add_option("--pollux-dir", o->pollux_dir, "Pollux data folder (default: the shipped one)");
  fit->add_option("--name", o->name, "Class name of the entry (default: the application, or `fitted`)");
  fit->add_option(
         "--model-size", o->model_size,
         "Model size in millions of parameters (with --csv: required by the eq5, two-level and multi-node models; "
         "net does not use it)")
      ->check(strict_number());
  fit->add_option("--gpus-per-node", o->gpus_per_node,
                  "GPUs per node, to place packed probes and the protocols' points (default: inferred from the "
                  "points, the most GPUs any point puts on one node)")
      ->check(strict_integer())
      ->check(CLI::Range(1, 1024));
  fit->add_option("--work-samples", o->work_samples, "Work to convergence in samples for the entry")
      ->check(strict_number());
  fit->add_option("--max-gpus", o->max_gpus, "gpus.max of the entry (default 64)")
      ->check(strict_integer())
      ->check(CLI::Range(1, 1 << 20));
  fit->add_option("--out", o->out, "Also write the JSON to this file (atomically)")->check(non_empty());
  fit->footer(
      "Examples:\n  ringsched fit --pollux all                 # every protocol on every application, and the\n"
      "                                             # two-node study (error at 32+ GPUs from <= 2-node probes)\n"
      "  ringsched fit --pollux imagenet --protocol paper\n"
      "  ringsched fit --pollux bert --probes 1,2,4,4+4   # packed probes of at most 2 nodes; the rest is scored\n"
      "  ringsched fit --csv my_points.csv --name resnet50 --work-samples 1.2e8   # protocol and GPUs/node inferred\n"
      "  ringsched fit --csv my_points.csv --probes 1,2,4,8,16 --model-size 25.6\n"
      "  ringsched fit --csv my_points.csv --suggest-probe   # net models: 90% intervals on every unprofiled point\n"
      "                                             # (quality.unprofiled predicted_lo_s/hi_s) and the next probe\n"
      "  ringsched fit --csv a100.csv --model phys --model-size 340 --nic-gbps 1600 --intra-gbps 2400 --budget 2\n"
      "                                             # the physical model within the declared hardware, its\n"
      "                                             # posterior intervals and a plan of two probes");
  return {fit, [o] { return run_fit_command(*o, std::cout, std::cerr); }};
}

}  // namespace ringsched::cli
