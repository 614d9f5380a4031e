// sim/cli/validate.cpp — `ringsched validate --config F`: parse and check a config (training runs and history fits
// included) and print what it would run.
#include <cstdio>
#include <iostream>
#include <memory>
#include <string>

#include "sim/cli/commands.h"
#include "sim/experiments/config.h"
#include "sim/experiments/trace_outcome_report.h"
#include "sim/experiments/work_estimate.h"
#include "traces/trace_format.h"

namespace ringsched::cli {
namespace {

int run_validate(const std::string& path) {
  const ExperimentConfig cfg = load_experiment(path);
  if (const std::string w = large_work_warning(cfg); !w.empty())
    std::fprintf(stderr, "ringsched: warning: %s\n", w.c_str());
  const Catalog& cat = *cfg.workload.catalog;
  std::string gpus = std::to_string(cfg.cluster.nodes) + " nodes x " + std::to_string(cfg.cluster.gpus_per_node);
  if (cfg.cluster.typed()) {
    gpus = std::to_string(cfg.cluster.pools.size()) + " GPU types:";
    for (const GpuPool& p : cfg.cluster.pools) {
      gpus += " " + p.gpu_type + " " + std::to_string(p.nodes) + " nodes x " + std::to_string(p.gpus_per_node);
      if (p.topology) gpus += " (its own topology)";
      gpus += ";";
    }
    gpus.pop_back();
  }
  if (const auto& vcs = cfg.cluster.virtual_clusters) {
    gpus += ", " + std::to_string(vcs->table.size()) + " virtual clusters (" + std::to_string(vcs->total_nodes()) +
            " nodes), placement " + vcs->placement;
  } else if (!cfg.cluster.placement.empty()) {
    gpus += cfg.cluster.typed() ? ", placement " + cfg.cluster.placement + " within each pool"
                                : ", placement " + cfg.cluster.placement;
  }
  std::cout << path << ": ok: " << cfg.total_gpus() << " GPUs (" << gpus << "), catalog " << cat.name << " ("
            << cat.classes.size() << " classes), " << cfg.workload.jobs << " jobs per run, " << cfg.levels.size()
            << " level(s) x " << cfg.strategies.size() << " strategies x " << cfg.seeds
            << " seeds = " << cfg.levels.size() * cfg.strategies.size() * static_cast<std::size_t>(cfg.seeds)
            << " runs\n";
  for (const auto& l : cfg.levels) {
    if (cfg.workload.trace) {
      const TraceNotes& n = cfg.workload.trace_notes;
      std::printf("  level %s: arrivals from %s trace %s (%zu rows), offered load %.3f\n", l.name.c_str(),
                  cfg.workload.trace->format->name().c_str(), cfg.workload.trace->file.c_str(), n.rows, n.offered_load);
      std::printf(
          "  trace: %zu jobs; %zu rows not used (workload.jobs / --jobs); oversize requests: %s (%zu clamped, "
          "%zu dropped)\n",
          n.jobs, n.truncated, to_string(cfg.workload.trace_spec.oversize).c_str(), n.clamped, n.dropped);
      std::printf("%s", trace_outcomes_text(n).c_str());
      const std::string notes = cfg.workload.trace->format->column_notes(cat);
      if (!notes.empty()) std::printf("    %s\n", notes.c_str());
    } else {
      std::printf("  level %s: load %.3g, %.4g arrivals/hour\n", l.name.c_str(), l.load, l.rate_per_s * 3600.0);
    }
  }
  if (cfg.scheduler.interval_s > 0.0) {
    std::printf("  scheduler: decisions every %g s (round-based)\n", cfg.scheduler.interval_s);
  } else {
    std::printf("  scheduler: decisions at every arrival, completion and requested wake-up (event-driven)\n");
  }
  if (const auto& n = cfg.cluster.network) {
    std::printf(
        "  network: contention %s (activity %s, %s all-reduce, %g bytes per parameter, overlap %g, priority %s; "
        "docs/network.md)\n",
        n->contention ? "on" : "off", n->activity.c_str(), n->allreduce.c_str(), n->bytes_per_param, n->overlap,
        n->priority.c_str());
  }
  if (cfg.cluster.failures) std::printf("  failures: %s\n", fail::describe_failures(*cfg.cluster.failures).c_str());
  std::printf("  restart: %g s + %g s per GPU%s\n", cfg.restart.cost_s, cfg.restart.cost_per_gpu_s,
              cfg.restart.on_first_start ? ", the first start included" : " (the first start is free)");
  for (const auto& s : cfg.strategies) {
    std::printf("  strategy %s: %s with %s beliefs\n", s.label.c_str(), s.name.c_str(), s.beliefs.c_str());
  }
  if (cfg.beliefs.training) {
    const TrainingSpec& t = *cfg.beliefs.training;
    std::printf("  history beliefs: fitted on %d training runs per class (seed %llu) under %s\n", t.runs,
                static_cast<unsigned long long>(t.seed), t.describe().c_str());
  }
  if (cfg.output.prediction_errors) std::printf("  output: the prediction-error table of the belief sources\n");
  std::cout << std::flush;
  return 0;
}

}  // namespace

Command add_validate_command(CLI::App& app) {
  auto path = std::make_shared<std::string>();
  auto* v = app.add_subcommand("validate", "Check an experiment config and print what it would run");
  v->add_option("--config", *path, "Experiment config (JSON)")->required();
  v->footer(
      "Examples:\n  ringsched validate --config workloads/examples/tiny-2node.json\n"
      "  ringsched table3 --show-config held-out > my.json && ringsched validate --config my.json\n"
      "Exit 0 and a summary of what would run, or 2 and one line naming the file and JSON path.");
  return {v, [path] { return run_validate(*path); }};
}

}  // namespace ringsched::cli
