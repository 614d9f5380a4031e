// workloads/gavel.h — Gavel's (OSDI'20) measured throughputs (workloads/data/gavel/simulation_throughputs.json:
// steps per second of each job type at each scale factor on each GPU type) and the `gavel` catalog built from them:
// one class per job type, its speed on every GPU type a `scale_table`. Rules and sources: docs/fidelity.md "Gavel".
#pragma once

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "workloads/catalog.h"

namespace ringsched {

struct GavelThroughputs {
  std::string file;
  std::vector<std::string> gpu_types;  // the file's types, by name (k80, p100, v100); `*_unconsolidated` skipped
  std::vector<std::string> models;     // job types ("ResNet-18 (batch size 64)", "A3C", ...), by name
  // model -> GPU type -> (scale factor, isolated steps per second), by scale factor.
  std::map<std::string, std::map<std::string, std::vector<std::pair<int, double>>>> isolated;
};

// Reads the throughputs file: only each job type's isolated throughput ("null"); co-located pairs are skipped. Every
// GPU type must list the same job types. InputError naming the file and JSON path for a malformed key (not
// "('<model>', <scale factor>)"), a missing or negative throughput, or a type that lacks a job type.
// `leave_out_unrunnable` (Shockwave's file lists A3C, CycleGAN and Transformer at batch 256 with throughput 0): a job
// type with throughput 0 on the reference type at every scale factor is left out of `models` instead of refused.
GavelThroughputs read_gavel_throughputs(const std::string& path, bool leave_out_unrunnable = false);

// The shipped data: $RINGSCHED_GAVEL_DIR if set, else <source tree>/workloads/data/gavel.
std::string default_gavel_dir();

// The `gavel` catalog from <dir>/simulation_throughputs.json: one class per job type (equal weights), fixed global
// batch 1 so a sample is one step, GPUs 1..the largest scale factor measured, speed_by_type a scale_table per GPU
// type, the reference speed the V100's (Gavel defines a job's duration on V100s). work.samples is a placeholder (the
// V100 single-GPU throughput x 60,362 s, the mean duration Gavel's generator draws): Gavel workloads give every job
// its own work.
Catalog gavel_catalog(const std::string& dir);

// The catalog of a throughputs file in Gavel's layout (gavel_catalog's rules), named `name`; each class's description
// names `peer` ("Gavel", "Shockwave").
Catalog catalog_of_throughputs(const GavelThroughputs& t, const std::string& name, const std::string& description,
                               const std::string& peer);

}  // namespace ringsched
