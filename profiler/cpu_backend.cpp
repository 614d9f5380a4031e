// profiler/cpu_backend.cpp — Eigen MLP compute + MPI_Allreduce, timed with steady_clock.
#include "profiler/cpu_backend.h"

#include <chrono>
#include <climits>
#include <cstdlib>
#include <stdexcept>

#include "profiler/mlp.h"
#include "profiler/mpi_context.h"
#include "profiler/rng.h"

namespace ringsched::profiler {

namespace {

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// MPI counts are int: all-reduce in chunks of at most INT_MAX elements.
void mpi_sum_in_place(float* data, std::int64_t count, MPI_Comm comm) {
  while (count > 0) {
    const int chunk = static_cast<int>(std::min<std::int64_t>(count, INT_MAX));
    MPI_Allreduce(MPI_IN_PLACE, data, chunk, MPI_FLOAT, MPI_SUM, comm);
    data += chunk;
    count -= chunk;
  }
}

class CpuBackend final : public Backend {
 public:
  CpuBackend(const BackendOptions& options, MPI_Comm comm, LocalRank local)
      : options_(options), comm_(comm), local_(local), mlp_(options.layers) {
    mlp_.init(options.seed);
  }

  std::string name() const override { return "cpu"; }
  std::string device() const override { return "cpu"; }
  std::string allreduce_algorithm() const override { return open_mpi_allreduce_algorithm(); }

  std::int64_t memory_budget_bytes() const override { return host_available_bytes() / std::max(local_.size, 1); }

  std::int64_t required_bytes(int max_batch, std::int64_t max_message_bytes) const override {
    const std::int64_t params = mlp_.parameter_count() * static_cast<std::int64_t>(sizeof(float));
    const std::int64_t batch_data =
        static_cast<std::int64_t>(max_batch) * (mlp_.inputs() + 1) * static_cast<std::int64_t>(sizeof(float));
    return 2 * params + Mlp::activation_bytes(options_.layers, max_batch) + batch_data + max_message_bytes;
  }

  void prepare(int max_batch, std::int64_t max_message_bytes) override {
    SplitMix64 g(mix_seed(options_.seed, 0xB7E151628AED2A6AULL + static_cast<std::uint64_t>(comm_rank(comm_))));
    x_.resize(static_cast<std::size_t>(max_batch) * static_cast<std::size_t>(mlp_.inputs()));
    for (float& v : x_)
      v = static_cast<float>(g.normal());
    labels_.resize(static_cast<std::size_t>(max_batch));
    for (int& l : labels_)
      l = static_cast<int>(g.below(static_cast<std::uint64_t>(mlp_.classes())));
    message_.assign(static_cast<std::size_t>(max_message_bytes / 4), 0.0f);
    max_batch_ = max_batch;
  }

  double time_compute_step(int batch) override {
    if (batch <= 0 || batch > max_batch_) throw std::invalid_argument("time_compute_step: batch outside prepare()");
    const auto t0 = std::chrono::steady_clock::now();
    mlp_.forward_backward(x_.data(), labels_.data(), batch);
    return seconds_since(t0);
  }

  double time_allreduce(std::int64_t bytes) override {
    const std::int64_t count = bytes / 4;
    if (count <= 0 || count > static_cast<std::int64_t>(message_.size()))
      throw std::invalid_argument("time_allreduce: size outside prepare()");
    const auto t0 = std::chrono::steady_clock::now();
    mpi_sum_in_place(message_.data(), count, comm_);
    return seconds_since(t0);
  }

  void allreduce_sum(float* data, std::int64_t count) override { mpi_sum_in_place(data, count, comm_); }

  float compute_gradients(const std::vector<float>& params, const float* x, const int* labels, int batch,
                          std::vector<float>& grads) override {
    if (params.size() != mlp_.parameters().size())
      throw std::invalid_argument("compute_gradients: parameter count mismatch");
    mlp_.parameters() = params;
    const float loss = mlp_.forward_backward(x, labels, batch);
    grads = mlp_.gradients();
    return loss;
  }

 private:
  BackendOptions options_;
  MPI_Comm comm_;
  LocalRank local_;
  Mlp mlp_;
  std::vector<float> x_;
  std::vector<int> labels_;
  std::vector<float> message_;
  int max_batch_ = 0;
};

}  // namespace

std::string open_mpi_allreduce_algorithm() {
  const char* dynamic = std::getenv("OMPI_MCA_coll_tuned_use_dynamic_rules");
  const char* algorithm = std::getenv("OMPI_MCA_coll_tuned_allreduce_algorithm");
  if (!dynamic || std::string(dynamic) != "1" || !algorithm) return "default";
  const std::string a = algorithm;
  if (a == "0") return "default";
  if (a == "4" || a == "ring") return "ring";
  if (a == "5" || a == "segmented_ring") return "segmented-ring";
  return "open-mpi-algorithm-" + a;
}

std::unique_ptr<Backend> make_cpu_backend(const BackendOptions& options, MPI_Comm comm) {
  const LocalRank local = local_rank(comm);
  std::unique_ptr<Backend> backend;
  collective_try(comm, [&] { backend = std::make_unique<CpuBackend>(options, comm, local); });
  return backend;
}

}  // namespace ringsched::profiler
