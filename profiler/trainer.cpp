// profiler/trainer.cpp — data-parallel SGD with stop/checkpoint/resume on a different world size.
#include "profiler/trainer.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <deque>
#include <nlohmann/json.hpp>
#include <ostream>

#include "models/input_error.h"
#include "models/lr_rule.h"
#include "profiler/checkpoint.h"
#include "profiler/mlp.h"
#include "profiler/mpi_context.h"
#include "profiler/rng.h"
#include "workloads/measurement/measurement.h"

namespace ringsched::profiler {

namespace {

void validate(const TrainOptions& o, int world) {
  if (o.layers.size() < 2) throw InputError("--layers: needs at least 2 widths (inputs and classes)");
  for (int l : o.layers)
    if (l <= 0 || l > (1 << 16)) throw InputError("--layers: widths must be in [1, 65536], got " + std::to_string(l));
  if (o.layers.back() < 2) throw InputError("--layers: the last width (classes) must be >= 2");
  if (mlp_parameter_count(o.layers) > (std::int64_t{1} << 28))
    throw InputError("--layers: " + layers_to_string(o.layers) + " has more than 2^28 parameters");
  if (o.per_worker_batch <= 0 || o.per_worker_batch > (1 << 20))
    throw InputError("--batch-size: must be in [1, 1048576], got " + std::to_string(o.per_worker_batch));
  if (!(o.base_lr > 0.0) || !std::isfinite(o.base_lr)) throw InputError("--base-lr: must be > 0");
  if (!(o.momentum >= 0.0 && o.momentum < 1.0)) throw InputError("--momentum: must be in [0, 1)");
  if (o.epochs <= 0) throw InputError("--epochs: must be > 0, got " + std::to_string(o.epochs));
  if (o.stop_at_step < 0) throw InputError("--stop-at-step: must be >= 0, got " + std::to_string(o.stop_at_step));
  if (o.stop_at_step > 0 && o.checkpoint.empty()) throw InputError("--stop-at-step needs --checkpoint FILE");
  if (o.warmup_steps < 0) throw InputError("--warmup-steps: must be >= 0");
  if (o.data.train_samples <= 0 || o.data.train_samples > (std::int64_t{1} << 26))
    throw InputError("--train-samples: must be in [1, 67108864]");
  if (o.data.test_samples <= 0 || o.data.test_samples > (std::int64_t{1} << 26))
    throw InputError("--test-samples: must be in [1, 67108864]");
  const std::int64_t bytes = (o.data.train_samples + o.data.test_samples) * (o.layers.front() + 1) * 4;
  if (bytes > host_available_bytes() / 2)
    throw InputError("--train-samples/--test-samples: the data set needs " + std::to_string(bytes >> 20) +
                     " MiB per rank, more than this host can spare");
  const std::int64_t global_batch = static_cast<std::int64_t>(o.per_worker_batch) * world;
  if (o.per_worker_batch > o.data.train_samples)
    throw InputError("--batch-size " + std::to_string(o.per_worker_batch) + " is larger than the " +
                     std::to_string(o.data.train_samples) + " training samples");
  if (global_batch > o.data.train_samples)
    throw InputError("world size " + std::to_string(world) + " is larger than allowed: " + std::to_string(world) +
                     " workers x --batch-size " + std::to_string(o.per_worker_batch) + " = " +
                     std::to_string(global_batch) + " samples per step > " + std::to_string(o.data.train_samples) +
                     " training samples (at most " + std::to_string(o.data.train_samples / o.per_worker_batch) +
                     " workers)");
}

// The job-defining settings of a checkpoint must match the command line.
void check_compatible(const Checkpoint& c, const TrainOptions& o, const std::string& path) {
  if (c.layers != o.layers)
    throw InputError(path + ": checkpoint model shape " + layers_to_string(c.layers) + " does not match --layers " +
                     layers_to_string(o.layers));
  auto mismatch = [&](const std::string& what, const std::string& ck, const std::string& cli) {
    throw InputError(path + ": checkpoint " + what + " is " + ck + " but the command line has " + cli);
  };
  if (c.per_worker_batch != o.per_worker_batch)
    mismatch("--batch-size", std::to_string(c.per_worker_batch), std::to_string(o.per_worker_batch));
  if (c.data.seed != o.data.seed) mismatch("--data-seed", std::to_string(c.data.seed), std::to_string(o.data.seed));
  if (c.data.train_samples != o.data.train_samples)
    mismatch("--train-samples", std::to_string(c.data.train_samples), std::to_string(o.data.train_samples));
  if (c.data.test_samples != o.data.test_samples)
    mismatch("--test-samples", std::to_string(c.data.test_samples), std::to_string(o.data.test_samples));
  if (c.data.noise != o.data.noise)
    mismatch("--data-noise", std::to_string(c.data.noise), std::to_string(o.data.noise));
  if (o.stop_at_step > 0 && o.stop_at_step <= c.step)
    throw InputError("--stop-at-step " + std::to_string(o.stop_at_step) + " is not after the checkpoint's step " +
                     std::to_string(c.step) + " (" + path + ")");
}

std::string fmt(double v, const char* f = "%.4f") {
  char b[64];
  std::snprintf(b, sizeof(b), f, v);
  return b;
}

}  // namespace

namespace {

// What training carries from step to step (and through a checkpoint).
struct TrainState {
  std::int64_t step = 0;
  std::int64_t epoch = 0;
  std::int64_t epoch_offset = 0;
  SplitMix64 shuffle_rng;
  std::uint64_t shuffle_seed = 0;
  double lr = 0.0;
  std::int64_t warmup_left = 0;
  std::int64_t warmup_total = 0;
  double warmup_from = 0.0;
  double first_start = 0.0;
  std::vector<float> velocity;
  std::deque<double> recent_losses;  // global training loss of the last (up to) 50 steps
};

// Rank 0 reads the checkpoint's bytes, every rank parses the same bytes.
Checkpoint read_checkpoint(const TrainOptions& o, MPI_Comm comm, int rank) {
  std::string bytes;
  collective_try(comm, [&] {
    if (rank == 0) bytes = read_file_bytes(o.resume);
  });
  std::int64_t size = static_cast<std::int64_t>(bytes.size());
  MPI_Bcast(&size, 1, MPI_INT64_T, 0, comm);
  bytes.resize(static_cast<std::size_t>(size));
  for (std::int64_t done = 0; done < size;) {
    const int chunk = static_cast<int>(std::min<std::int64_t>(size - done, 1 << 30));
    MPI_Bcast(bytes.data() + done, chunk, MPI_BYTE, 0, comm);
    done += chunk;
  }
  Checkpoint ck;
  collective_try(comm, [&] {
    ck = parse_checkpoint(bytes, o.resume);
    check_compatible(ck, o, o.resume);
  });
  return ck;
}

// A resumed run: the checkpoint's state; on a new world size the learning rate follows Eq. 7 (and warms up).
TrainState resumed_state(const Checkpoint& ck, const TrainOptions& o, int world, double start_unix, Mlp& mlp,
                         TrainReport& report) {
  TrainState st;
  mlp.parameters() = ck.parameters;
  st.velocity = ck.velocity;
  st.step = ck.step;
  st.epoch = ck.epoch;
  st.epoch_offset = ck.epoch_offset;
  st.shuffle_rng.set_state(ck.rng_state);
  st.shuffle_seed = ck.epoch_shuffle_seed;
  st.first_start = ck.first_start_unix;
  report.initial_workers = ck.initial_world_size;
  report.previous_workers = ck.world_size;
  report.new_workers = world;
  report.stop_step = ck.step;
  report.lr_before_resize = ck.lr;
  report.lr_initial = models::scaled_learning_rate(o.base_lr, 1, ck.initial_world_size);
  report.checkpoint_write_seconds = ck.checkpoint_write_seconds;
  report.stop_seconds = std::max(0.0, start_unix - ck.stop_unix - ck.checkpoint_write_seconds);
  if (world != ck.world_size) {
    st.lr = models::scaled_learning_rate(ck.lr, ck.world_size, world);  // Eq. 7
    if (o.warmup_steps > 0) {
      st.warmup_total = st.warmup_left = o.warmup_steps;
      st.warmup_from = ck.lr;
    }
  } else {
    st.lr = ck.lr;
    st.warmup_left = ck.warmup_steps_left;
    st.warmup_total = ck.warmup_steps;
    st.warmup_from = ck.warmup_from_lr;
  }
  report.lr_after_resize = st.lr;
  return st;
}

// A first run: initial weights, the first epoch's shuffle and Eq. 7 from one worker.
TrainState fresh_state(const TrainOptions& o, int world, double start_unix, Mlp& mlp, TrainReport& report) {
  TrainState st;
  st.shuffle_rng = SplitMix64(mix_seed(o.data.seed, 0x5EED5EED));
  st.velocity.assign(static_cast<std::size_t>(mlp.parameter_count()), 0.0f);
  st.first_start = start_unix;
  mlp.init(o.seed);
  st.shuffle_seed = st.shuffle_rng.next();
  st.lr = models::scaled_learning_rate(o.base_lr, 1, world);  // Eq. 7 from one worker
  report.initial_workers = world;
  report.lr_initial = st.lr;
  return st;
}

// SGD with momentum until the last epoch or the stop step; returns true when stopped at the stop step.
bool train_steps(TrainState& st, const TrainOptions& o, MPI_Comm comm, int rank, int world, SyntheticData& data,
                 Mlp& mlp, TrainReport& report, std::ostream& out) {
  const int b = o.per_worker_batch;
  const std::int64_t global_batch = static_cast<std::int64_t>(b) * world;
  const std::int64_t n_train = o.data.train_samples;
  const auto params = static_cast<std::size_t>(mlp.parameter_count());
  std::vector<std::int64_t> perm = shuffled_indices(n_train, st.shuffle_seed);
  std::vector<float> x(static_cast<std::size_t>(b) * static_cast<std::size_t>(mlp.inputs()));
  std::vector<int> labels(static_cast<std::size_t>(b));
  std::vector<float> buffer(params + 1);
  const float inv_world = 1.0f / static_cast<float>(world);
  for (;;) {
    if (st.epoch_offset + global_batch > n_train) {  // the rest of this epoch is smaller than a global batch: drop it
      ++st.epoch;
      st.epoch_offset = 0;
      st.shuffle_seed = st.shuffle_rng.next();
      perm = shuffled_indices(n_train, st.shuffle_seed);
    }
    if (st.epoch >= o.epochs) return false;
    if (o.stop_at_step > 0 && st.step >= o.stop_at_step) return true;
    data.gather(&perm[static_cast<std::size_t>(st.epoch_offset + static_cast<std::int64_t>(rank) * b)], b, x.data(),
                labels.data());
    const float loss = mlp.forward_backward(x.data(), labels.data(), b);
    std::copy(mlp.gradients().begin(), mlp.gradients().end(), buffer.begin());
    buffer[params] = loss;
    MPI_Allreduce(MPI_IN_PLACE, buffer.data(), static_cast<int>(buffer.size()), MPI_FLOAT, MPI_SUM, comm);
    double lr_step = st.lr;
    if (st.warmup_left > 0) {
      const double k = static_cast<double>(st.warmup_total - st.warmup_left + 1);
      lr_step = st.warmup_from + (st.lr - st.warmup_from) * k / static_cast<double>(st.warmup_total);
      --st.warmup_left;
    }
    report.step_lrs.push_back(lr_step);
    const auto mu = static_cast<float>(o.momentum);
    const auto eta = static_cast<float>(lr_step);
    auto& p = mlp.parameters();
    for (std::size_t i = 0; i < params; ++i) {
      st.velocity[i] = mu * st.velocity[i] + buffer[i] * inv_world;
      p[i] -= eta * st.velocity[i];
    }
    ++st.step;
    st.epoch_offset += global_batch;
    st.recent_losses.push_back(static_cast<double>(buffer[params]) / world);
    if (st.recent_losses.size() > 50) st.recent_losses.pop_front();
    if (rank == 0 && o.log_every > 0 && st.step % o.log_every == 0)
      out << "step " << st.step << " epoch "
          << fmt(static_cast<double>(st.epoch) + static_cast<double>(st.epoch_offset) / static_cast<double>(n_train),
                 "%.3f")
          << " loss " << fmt(st.recent_losses.back()) << " lr " << fmt(lr_step, "%.5g") << std::endl;
  }
}

// Stopped: rank 0 writes the checkpoint (then again with its measured write time), every rank agrees on success.
void write_stop_checkpoint(const TrainState& st, const TrainOptions& o, MPI_Comm comm, int rank, int world,
                           const Mlp& mlp, TrainReport& report) {
  report.status = "stopped";
  report.stop_step = st.step;
  Checkpoint c;
  c.layers = o.layers;
  c.parameters = mlp.parameters();
  c.velocity = st.velocity;
  c.lr = st.lr;
  c.momentum = o.momentum;
  c.warmup_steps_left = st.warmup_left;
  c.warmup_from_lr = st.warmup_from;
  c.warmup_steps = st.warmup_total;
  c.step = st.step;
  c.epoch = st.epoch;
  c.epoch_offset = st.epoch_offset;
  c.rng_state = st.shuffle_rng.state();
  c.epoch_shuffle_seed = st.shuffle_seed;
  c.world_size = world;
  c.initial_world_size = report.initial_workers;
  c.per_worker_batch = o.per_worker_batch;
  c.data = o.data;
  c.first_start_unix = st.first_start;
  c.stop_unix = unix_now();
  std::string error;
  double write_seconds = 0.0;
  if (rank == 0) {
    try {
      const auto t0 = std::chrono::steady_clock::now();
      save_checkpoint(c, o.checkpoint);
      write_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      // Store the measured write time in the checkpoint (second, untimed write; part of the stop time).
      c.checkpoint_write_seconds = write_seconds;
      save_checkpoint(c, o.checkpoint);
    } catch (const std::exception& e) {
      error = "--checkpoint: " + std::string(e.what());
    }
  }
  agree(comm, error.empty(), error, kExitFailure);
  MPI_Bcast(&write_seconds, 1, MPI_DOUBLE, 0, comm);
  report.checkpoint_write_seconds = write_seconds;
}

// Finished: held-out accuracy and loss, samples sharded round-robin over the ranks.
void evaluate_heldout(const TrainOptions& o, MPI_Comm comm, int rank, int world, SyntheticData& data, Mlp& mlp,
                      TrainReport& report) {
  report.status = "finished";
  const std::int64_t first = o.data.train_samples;
  const std::int64_t count = o.data.test_samples;
  std::vector<std::int64_t> mine;
  for (std::int64_t i = rank; i < count; i += world)
    mine.push_back(first + i);
  double local[2] = {0.0, 0.0};
  const std::int64_t chunk = 1024;
  std::vector<float> ex(static_cast<std::size_t>(chunk) * static_cast<std::size_t>(mlp.inputs()));
  std::vector<int> el(static_cast<std::size_t>(chunk));
  for (std::size_t s = 0; s < mine.size(); s += chunk) {
    const auto n = static_cast<std::int64_t>(std::min<std::size_t>(chunk, mine.size() - s));
    data.gather(&mine[s], n, ex.data(), el.data());
    const auto e = mlp.evaluate(ex.data(), el.data(), static_cast<int>(n));
    local[0] += static_cast<double>(e.correct);
    local[1] += e.loss_sum;
  }
  double total[2] = {0.0, 0.0};
  MPI_Allreduce(local, total, 2, MPI_DOUBLE, MPI_SUM, comm);
  report.heldout_accuracy = total[0] / static_cast<double>(count);
  report.heldout_loss = total[1] / static_cast<double>(count);
}

}  // namespace

TrainReport run_training(const TrainOptions& options, MPI_Comm comm, std::ostream& out) {
  const double start_unix = options.process_start_unix > 0.0 ? options.process_start_unix : unix_now();
  const int rank = comm_rank(comm);
  const int world = comm_size(comm);
  TrainOptions o = options;
  o.data.inputs = o.layers.empty() ? 0 : o.layers.front();
  o.data.classes = o.layers.empty() ? 0 : o.layers.back();
  collective_try(comm, [&] {
    validate(o, world);
    if (rank == 0 && !o.out.empty()) check_output_folder("--out", o.out);
    if (rank == 0 && o.stop_at_step > 0) check_output_folder("--checkpoint", o.checkpoint);
  });
  const bool resumed = !o.resume.empty();
  const Checkpoint ck = resumed ? read_checkpoint(o, comm, rank) : Checkpoint{};
  SyntheticData data(o.data);
  Mlp mlp(o.layers);
  TrainReport report;
  report.resumed = resumed;
  report.workers = world;
  TrainState st =
      resumed ? resumed_state(ck, o, world, start_unix, mlp, report) : fresh_state(o, world, start_unix, mlp, report);
  report.start_step = st.step;
  MPI_Barrier(comm);
  report.startup_seconds = unix_now() - start_unix;
  if (resumed) report.restart_seconds = report.startup_seconds;

  bool stopped = false;
  try {
    stopped = train_steps(st, o, comm, rank, world, data, mlp, report, out);
  } catch (const std::exception& e) {
    abort_all(std::string("training failed: ") + e.what(), kExitFailure);
  }
  const double n_train = static_cast<double>(o.data.train_samples);
  report.total_steps = st.step;
  report.total_epochs = static_cast<double>(st.epoch) + static_cast<double>(st.epoch_offset) / n_train;
  report.lr_final = st.lr;
  double sum = 0.0;
  for (double l : st.recent_losses)
    sum += l;
  report.train_loss = st.recent_losses.empty() ? 0.0 : sum / static_cast<double>(st.recent_losses.size());
  report.initial_workers = report.initial_workers ? report.initial_workers : world;
  if (stopped) {
    write_stop_checkpoint(st, o, comm, rank, world, mlp, report);
  } else {
    evaluate_heldout(o, comm, rank, world, data, mlp, report);
  }
  const double end = unix_now();
  report.run_seconds = end - start_unix;
  report.wall_seconds = end - st.first_start;
  report.final_parameters = mlp.parameters();

  std::string error;
  if (rank == 0) {
    out << train_report_line(report) << std::endl;
    if (!o.out.empty()) {
      try {
        write_file_atomic(o.out, train_report_json(report));
      } catch (const std::exception& e) {
        error = "--out: " + std::string(e.what());
      }
    }
  }
  agree(comm, error.empty(), error, kExitFailure);
  return report;
}

std::string train_report_line(const TrainReport& r) {
  std::string s = "elastic: status " + r.status + " workers ";
  if (r.resumed)
    s += std::to_string(r.previous_workers) + "->" + std::to_string(r.new_workers);
  else
    s += std::to_string(r.workers);
  s += " (initial " + std::to_string(r.initial_workers) + ")";
  s += " stop_step " + (r.stop_step >= 0 ? std::to_string(r.stop_step) : std::string("-"));
  s += " steps " + std::to_string(r.total_steps) + " epochs " + fmt(r.total_epochs, "%.2f");
  s += " wall " + fmt(r.wall_seconds, "%.2f") + " s";
  s += " ckpt_write " + fmt(r.checkpoint_write_seconds, "%.4f") + " s";
  s += " stop " + fmt(r.stop_seconds, "%.3f") + " s";
  s += " restart " + fmt(r.restart_seconds, "%.3f") + " s";
  s += " lr " + (r.resumed ? fmt(r.lr_before_resize, "%.4g") + "->" + fmt(r.lr_after_resize, "%.4g")
                           : fmt(r.lr_initial, "%.4g"));
  if (r.heldout_accuracy >= 0) s += " heldout_acc " + fmt(r.heldout_accuracy) + " heldout_loss " + fmt(r.heldout_loss);
  s += " train_loss " + fmt(r.train_loss);
  return s;
}

std::string train_report_json(const TrainReport& r) {
  nlohmann::ordered_json j;
  j["schema"] = "ringsched.elastic-run";
  j["version"] = 1;
  j["status"] = r.status;
  j["resumed"] = r.resumed;
  j["initial_workers"] = r.initial_workers;
  j["workers"] = r.workers;
  j["stop_step"] = r.stop_step >= 0 ? nlohmann::ordered_json(r.stop_step) : nlohmann::ordered_json(nullptr);
  j["previous_workers"] = r.resumed ? nlohmann::ordered_json(r.previous_workers) : nlohmann::ordered_json(nullptr);
  j["new_workers"] = r.resumed ? nlohmann::ordered_json(r.new_workers) : nlohmann::ordered_json(nullptr);
  j["start_step"] = r.start_step;
  j["total_steps"] = r.total_steps;
  j["total_epochs"] = r.total_epochs;
  j["wall_seconds"] = r.wall_seconds;
  j["run_seconds"] = r.run_seconds;
  j["startup_seconds"] = r.startup_seconds;
  j["checkpoint_write_seconds"] = r.checkpoint_write_seconds;
  j["stop_seconds"] = r.stop_seconds;
  j["restart_seconds"] = r.restart_seconds;
  j["lr_initial"] = r.lr_initial;
  j["lr_before_resize"] = r.resumed ? nlohmann::ordered_json(r.lr_before_resize) : nlohmann::ordered_json(nullptr);
  j["lr_after_resize"] = r.resumed ? nlohmann::ordered_json(r.lr_after_resize) : nlohmann::ordered_json(nullptr);
  j["lr_final"] = r.lr_final;
  j["train_loss"] = r.train_loss;
  j["heldout_accuracy"] =
      r.heldout_accuracy >= 0 ? nlohmann::ordered_json(r.heldout_accuracy) : nlohmann::ordered_json(nullptr);
  j["heldout_loss"] = r.heldout_loss >= 0 ? nlohmann::ordered_json(r.heldout_loss) : nlohmann::ordered_json(nullptr);
  return j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

}  // namespace ringsched::profiler
