// sim/fitting/fit_command.h — `ringsched fit`: reads measured points (Pollux tables by application, a plain CSV
// `gpus,nodes,global_batch,step_seconds`, or profiler measurement files: workloads/measurement/measurement.h), fits
// them under a protocol (sim/fitting/speed_fit.h) and prints a catalog class entry with the fit quality and, for Pollux
// input, Eq. 1 fitted to the loss points. Format: docs/heldout.md.
#pragma once

#include <optional>
#include <ostream>
#include <string>
#include <vector>

namespace ringsched {

struct FitCommandOptions {
  std::string pollux;    // application name, or "all" for the protocol comparison table
  std::string csv;       // plain points CSV
  std::string csv_text;  // or its text (the Python module's points), named csv_origin in messages
  std::string csv_origin = "points";
  std::vector<std::string> measurements;  // profiler measurement files
  std::string protocol = "auto";          // a protocol name, or auto: the richest the points support
  std::vector<std::string> probes;        // non-empty: fit on these positions only (tokens of parse_probe_token)
  std::vector<std::string> add_probes;    // these positions join the protocol's points (e.g. a suggested probe)
  std::string pollux_dir;                 // "" = default_pollux_dir()
  std::string name;                       // class name for CSV / measurement input
  double model_size = 0.0;                // millions of parameters (CSV input; required)
  int gpus_per_node = 0;                  // 0: inferred from the points
  double work_samples = 0.0;              // CSV / measurement input; 0 = a placeholder the user must replace (flagged)
  int max_gpus = 64;
  std::string format = "json";  // json (entry + quality) or md (Pollux comparison table)
  std::string out;              // write the JSON here too (atomically)
  bool suggest_probe = false;   // net models: the one extra (GPUs, nodes) that narrows the 32+ intervals most
  int budget = 0;               // phys models: plan this many probes (greedy), with the expected widths
  std::string model = "net";    // net protocols' model family: net, phys or auto (sim/fitting/speed_fit.h)
  // Hardware (0 = not declared; measurement files' `hardware` keys fill what the flags leave unset).
  std::optional<double> nic_gbps;  // Gb/s; when given, > 0 (a declared 0 is an error, not "unset")
  std::optional<double> intra_gbps;
  double bytes_per_param = 4.0;
  double bucket_mb = 25.0;
  double hop_latency_us = 100.0;
  double overlap = 0.0;
};

// Runs `ringsched fit`; writes the result to `out`, notes (the protocol chosen, warnings) to `err`. Throws InputError
// for bad input.
int run_fit_command(const FitCommandOptions& o, std::ostream& out, std::ostream& err);

}  // namespace ringsched
