// profiler/trainer.h — the elastic resize experiment (`ringsched-profile train`): data-parallel SGD with momentum of
// the MLP on the synthetic data set, gradients averaged with MPI_Allreduce, per-worker batch fixed, deterministic
// sharding by rank; stop at a step with a checkpoint, resume on a different number of ranks with Eq. 7 (optionally
// a linear warm-up over K steps); reports timings and held-out accuracy.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <iosfwd>
#include <string>
#include <vector>

#include "profiler/synthetic_data.h"

namespace ringsched::profiler {

struct TrainOptions {
  std::vector<int> layers = {32, 128, 128, 10};  // layers[0] = data inputs, layers.back() = classes
  int per_worker_batch = 32;
  double base_lr = 0.02;  // learning rate for one worker; a fresh run on W workers starts at Eq. 7: base_lr * W
  double momentum = 0.9;
  int epochs = 10;                  // train until this many epochs are complete
  std::int64_t stop_at_step = 0;    // > 0: stop when this many global steps are done and write `checkpoint`
  std::string checkpoint;           // where to write the checkpoint at the stop
  std::string resume;               // checkpoint to continue from (on any number of ranks)
  std::int64_t warmup_steps = 0;    // after a resize: ramp the lr linearly from the old to the new value over K steps
  std::uint64_t seed = 1;           // weight initialisation
  DataSpec data;                    // inputs/classes are taken from `layers`
  std::string out;                  // report JSON (rank 0), optional
  std::int64_t log_every = 0;       // > 0: rank 0 prints the training loss every this many steps
  double process_start_unix = 0.0;  // when the process started (main), system clock; 0 = when run_training starts
};

struct TrainReport {
  std::string status;  // "finished" (reached `epochs`) or "stopped" (at stop_at_step, checkpoint written)
  bool resumed = false;
  int initial_workers = 0;       // workers of the job's first run
  int workers = 0;               // workers of this run
  std::int64_t stop_step = -1;   // resumed: the step the checkpoint was taken at; stopped: this run's stop step
  int new_workers = -1;          // resumed: this run's workers (the resize was initial/previous -> new)
  int previous_workers = -1;     // resumed: workers when the checkpoint was written
  std::int64_t start_step = 0;   // first step of this run (0, or the checkpoint's step)
  std::int64_t total_steps = 0;  // global steps done at the end of this run
  double total_epochs = 0.0;
  double wall_seconds = 0.0;     // first run's process start -> end of this run (includes stop/restart gaps)
  double run_seconds = 0.0;      // this run's process start -> end
  double startup_seconds = 0.0;  // this run's process start -> ready to train (MPI init, data, model, checkpoint)
  double checkpoint_write_seconds = 0.0;  // resumed: the stop's write; stopped: this run's write
  double stop_seconds = 0.0;              // resumed: stop decision -> this process started, minus the checkpoint write
  double restart_seconds = 0.0;           // resumed: = startup_seconds (load + re-init)
  double lr_initial = 0.0;                // lr at the start of the job's first run
  double lr_before_resize = 0.0;          // resumed: lr stored in the checkpoint
  double lr_after_resize = 0.0;           // resumed: Eq. 7 applied to it
  double lr_final = 0.0;
  double train_loss = 0.0;       // mean global training loss over the last (up to) 50 steps of this run
  double heldout_accuracy = -1;  // finished runs only (-1 when stopped)
  double heldout_loss = -1;
  std::vector<float> final_parameters;  // not serialised; for tests
  std::vector<double> step_lrs;         // not serialised: the lr used at each step of this run (for tests)
};

// Collective over `comm`. Bad input (shapes, sizes, too many workers for the data, unreadable or mismatched
// checkpoint) ends every rank via ExitRequest{2} after one message; I/O failures ExitRequest{1}.
TrainReport run_training(const TrainOptions& options, MPI_Comm comm, std::ostream& out);

// One line of text and the JSON object ("ringsched.elastic-run" v1) of a report.
std::string train_report_line(const TrainReport& r);
std::string train_report_json(const TrainReport& r);

}  // namespace ringsched::profiler
