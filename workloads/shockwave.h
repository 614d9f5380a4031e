// workloads/shockwave.h — Shockwave's (NSDI'23) workload: its TACC throughputs as the `shockwave` catalog, and the
// rules of its dynamic jobs (uw-mad-dash/shockwave scheduler/utils.py): a job's epochs from its steps, its batch size
// per epoch under Accordion or GNS, each epoch's duration on V100s, and the EpochSchedule the engine runs. Rules and
// sources: docs/shockwave.md.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "workloads/catalog.h"
#include "workloads/epoch_schedule.h"

namespace ringsched {

// A job's batch-size adaptation (the trace's `mode` column).
enum class ShockwaveMode { kStatic, kAccordion, kGns };
// "static", "accordion", "gns"; false for another text.
bool parse_shockwave_mode(const std::string& text, ShockwaveMode& mode);
std::string to_string(ShockwaveMode mode);

// "ResNet-18 (batch size 32)" -> ("ResNet-18", 32), as Shockwave's Job.model and Job.batch_size split a job type;
// false when the text is not of that form.
bool split_shockwave_job_type(const std::string& job_type, std::string& model, int& batch);
// Samples per epoch of the model's data set (utils.py dataset_len[model_dataset_mapping[model]]); 0 when unknown.
int shockwave_dataset_size(const std::string& model);
// Epochs of a job of `steps` steps at `batch`: ceil(steps / ceil(dataset / batch)) (utils.py generate_pickle_file).
int shockwave_epochs(double steps, int dataset, int batch);

// The batch size of each of `epochs` epochs of a job that starts at `batch` on `scale_factor` GPUs: static keeps it;
// accordion is get_accordion_bs_pattern (the model's largest batch outside its critical regimes once past 30% of the
// epochs); gns is get_gns_bs_pattern (the batch doubles at measured epochs per model, batch and scale factor, capped
// at the model's largest). std::invalid_argument where Shockwave's rules have no case (accordion at a batch its
// regimes do not list, gns for a model without a batch limit).
std::vector<int> shockwave_batches(ShockwaveMode mode, const std::string& model, int batch, int epochs,
                                   int scale_factor);

// Steps per second of the job's model at batch `b` on its GPUs (V100s); 0 = not measured.
using BatchThroughput = std::function<double(int b)>;

// The schedule of a job of `steps` steps whose epochs run at `batches` (batches[0] its initial batch; at least
// epochs entries, the rest unused). Progress is counted in steps at the initial batch: each epoch is ceil(dataset /
// batches[0]) of them (the last the rest of `steps`); epoch e runs at factor D(b0) / D(b_e) of the initial speed,
// D(b) = ceil(dataset / b) / tput(b) (the seconds of an epoch at batch b in Shockwave's simulator, which runs ceil
// steps per epoch at the batch's throughput). isolated_s = sum over the epochs of (dataset / b_e) / tput(b_e), the
// "duration_every_epoch" sum Shockwave's finish-time fairness divides by. std::invalid_argument naming the batch for
// one without a throughput.
EpochSchedule shockwave_schedule(const std::vector<int>& batches, int epochs, double steps, int dataset,
                                 const BatchThroughput& tput);

// The shipped data: $RINGSCHED_SHOCKWAVE_DIR if set, else <source tree>/workloads/data/shockwave.
std::string default_shockwave_dir();
// The `shockwave` catalog from <dir>/tacc_throughputs.json, under gavel_catalog's rules (one class per job type,
// batch 1 so a sample is one step, speed per GPU type and scale factor, V100 the reference); the job types the file
// lists with throughput 0 (A3C, CycleGAN, Transformer at batch 256) are left out.
Catalog shockwave_catalog(const std::string& dir);

}  // namespace ringsched
