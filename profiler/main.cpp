// profiler/main.cpp — the `ringsched-profile` command line (CLI11): the measurement run (default), `train` (the
// elastic resize experiment) and `fit-check` (Eq. 5 on powers of two vs the rest). Exit codes: 0 ok, 1 runtime
// failure, 2 bad input, 77 cannot run here (no GPU / built without CUDA). Every rank exits; messages print once.
#include <mpi.h>

#include <CLI/CLI.hpp>
#include <cstdint>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "models/input_error.h"
#include "profiler/cuda_backend.h"
#include "profiler/fit_check.h"
#include "profiler/mpi_context.h"
#include "profiler/profile_run.h"
#include "profiler/trainer.h"

namespace {

using namespace ringsched;
using namespace ringsched::profiler;

// "16,32,64" -> {16, 32, 64}; with suffixes, "4K,1M,1G" are powers of 1024. Throws InputError naming the flag.
std::vector<std::int64_t> parse_int_list(const std::string& flag, const std::string& text, bool suffixes) {
  std::vector<std::int64_t> values;
  std::stringstream ss(text);
  std::string item;
  while (std::getline(ss, item, ',')) {
    if (item.empty()) throw InputError(flag + ": empty entry in \"" + text + "\"");
    std::int64_t scale = 1;
    if (suffixes) {
      const char last = item.back();
      if (last == 'K' || last == 'k') scale = 1024;
      if (last == 'M' || last == 'm') scale = 1024 * 1024;
      if (last == 'G' || last == 'g') scale = 1024 * 1024 * 1024;
      if (scale != 1) item.pop_back();
    }
    std::size_t used = 0;
    long long v = 0;
    try {
      v = std::stoll(item, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (used != item.size() || item.empty())
      throw InputError(flag + ": \"" + item + "\" is not an integer" + (suffixes ? " (suffixes K, M, G allowed)" : ""));
    if (v > 0 && v > INT64_MAX / scale) throw InputError(flag + ": " + item + " is too large");
    values.push_back(static_cast<std::int64_t>(v) * scale);
  }
  if (values.empty()) throw InputError(flag + ": needs at least one value");
  return values;
}

std::vector<int> parse_layers(const std::string& flag, const std::string& text) {
  std::vector<int> layers;
  for (std::int64_t v : parse_int_list(flag, text, false)) {
    if (v <= 0 || v > (1 << 20)) throw InputError(flag + ": widths must be in [1, 1048576], got " + std::to_string(v));
    layers.push_back(static_cast<int>(v));
  }
  if (layers.size() < 2) throw InputError(flag + ": needs at least 2 widths (inputs and classes)");
  return layers;
}

int run(int argc, char** argv, double start_unix) {
  const MPI_Comm comm = MPI_COMM_WORLD;
  const int rank = comm_rank(comm);

  CLI::App app{
      "ringsched-profile: measure per-step compute and all-reduce times of an MLP (cpu: Eigen + MPI, "
      "cuda: cuBLAS + NCCL), run the elastic resize experiment (train), check Eq. 5 fits (fit-check).\n"
      "Run one rank per worker: mpirun -np W ringsched-profile ..."};
  app.require_subcommand(0, 1);
  ProfileOptions po;
  std::string layers_text = "512,512,512,10";
  std::string batch_text = "16,32,64";
  std::string message_text;
  app.add_option("--backend", po.backend, "cpu or cuda")->capture_default_str();
  app.add_option("--out", po.out, "measurement JSON file (written atomically by rank 0)")->capture_default_str();
  app.add_option("--layers", layers_text, "MLP layer widths, inputs first, classes last")->capture_default_str();
  app.add_option("--batch-sizes", batch_text, "per-worker batch sizes to time")->capture_default_str();
  app.add_option("--message-bytes", message_text,
                 "all-reduce sizes in bytes, multiples of 4, K/M/G suffixes (default: 4K..16M by x4); the model's "
                 "gradient size is always added");
  app.add_option("--warmup", po.warmup, "untimed iterations per size")->capture_default_str();
  app.add_option("--repeats", po.repeats, "timed iterations per size")->capture_default_str();
  app.add_option("--nccl-algo", po.nccl_algo, "cuda: set NCCL_ALGO (e.g. Ring) before NCCL initialises");
  app.add_option("--seed", po.seed, "seed for weights and synthetic batches")->capture_default_str();

  TrainOptions to;
  std::string train_layers = "32,128,128,10";
  auto* train = app.add_subcommand("train", "elastic resize experiment: data-parallel SGD with stop/checkpoint/resume");
  train->add_option("--layers", train_layers, "MLP layer widths (first = data features, last = classes)")
      ->capture_default_str();
  train->add_option("--batch-size", to.per_worker_batch, "per-worker batch (fixed across resizes)")
      ->capture_default_str();
  train->add_option("--base-lr", to.base_lr, "learning rate at one worker; a fresh run uses Eq. 7: base-lr * W")
      ->capture_default_str();
  train->add_option("--momentum", to.momentum, "SGD momentum")->capture_default_str();
  train->add_option("--epochs", to.epochs, "train until this many epochs are complete")->capture_default_str();
  train->add_option("--stop-at-step", to.stop_at_step, "stop after this many global steps and write --checkpoint");
  train->add_option("--checkpoint", to.checkpoint, "checkpoint file written at the stop");
  train->add_option("--resume", to.resume, "continue from this checkpoint (any number of ranks; Eq. 7 on resize)");
  train->add_option("--warmup-steps", to.warmup_steps, "after a resize, ramp the lr linearly over K steps")
      ->capture_default_str();
  train->add_option("--seed", to.seed, "weight initialisation seed")->capture_default_str();
  train->add_option("--data-seed", to.data.seed, "synthetic data set seed")->capture_default_str();
  train->add_option("--train-samples", to.data.train_samples, "training split size")->capture_default_str();
  train->add_option("--test-samples", to.data.test_samples, "held-out split size")->capture_default_str();
  train->add_option("--data-noise", to.data.noise, "per-sample noise of the data set")->capture_default_str();
  train->add_option("--out", to.out, "report JSON (rank 0)");
  train->add_option("--log-every", to.log_every, "print the training loss every N steps");

  FitCheckOptions fo;
  std::string fit_on_text;
  auto* fit = app.add_subcommand("fit-check", "fit Eq. 5 on some world sizes, compare with all measurements");
  fit->add_option("files", fo.files, "measurement files (one per world size)")->required();
  fit->add_option("--fit-on", fit_on_text, "world sizes to fit on, e.g. 1,2,4,8 (default: powers of two present)");

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    std::ostringstream sink;
    const int code = rank == 0 ? app.exit(e) : app.exit(e, sink, sink);
    return code == 0 ? kExitOk : kExitBadInput;
  }
  const std::string command_line = joined_command_line(argc, argv);

  try {
    if (*train) {
      collective_try(comm, [&] { to.layers = parse_layers("--layers", train_layers); });
      to.process_start_unix = start_unix;
      run_training(to, comm, std::cout);
      return kExitOk;
    }
    if (*fit) {
      FitCheckResult result;
      collective_try(comm, [&] {
        if (!fit_on_text.empty())
          for (std::int64_t w : parse_int_list("--fit-on", fit_on_text, false)) {
            if (w <= 0 || w > kMaxWorldSize) throw InputError("--fit-on: world sizes must be in [1, 4096]");
            fo.fit_on.push_back(static_cast<int>(w));
          }
        result = run_fit_check(fo);
      });
      if (rank == 0) print_fit_check(result, std::cout);
      return kExitOk;
    }
    collective_try(comm, [&] {
      po.layers = parse_layers("--layers", layers_text);
      po.batch_sizes = parse_int_list("--batch-sizes", batch_text, false);
      if (!message_text.empty()) po.message_bytes = parse_int_list("--message-bytes", message_text, true);
    });
    po.command_line = command_line;
    run_profile(po, comm, std::cout);
    return kExitOk;
  } catch (const ExitRequest& e) {
    return e.code;
  }
}

}  // namespace

int main(int argc, char** argv) {
  const double start_unix = unix_now();
  MPI_Init(&argc, &argv);
  int code = kExitFailure;
  try {
    code = run(argc, argv, start_unix);
  } catch (const std::exception& e) {
    abort_all(e.what(), kExitFailure);
  }
  MPI_Finalize();
  return code;
}
