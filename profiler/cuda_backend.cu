// profiler/cuda_backend.cu — the cuda backend: MLP forward/backward with cuBLAS + custom kernels, NCCL all-reduce,
// CUDA-event timings.
#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <nccl.h>

#include <algorithm>
#include <cstdlib>
#include <stdexcept>
#include <string>

#include "profiler/cuda_backend.h"
#include "profiler/mpi_context.h"

namespace ringsched::profiler {

namespace {

void check_cuda(cudaError_t e, const char* what) {
  if (e != cudaSuccess) throw std::runtime_error(std::string(what) + ": " + cudaGetErrorString(e));
}
void check_cublas(cublasStatus_t s, const char* what) {
  if (s != CUBLAS_STATUS_SUCCESS) throw std::runtime_error(std::string(what) + ": cuBLAS status " + std::to_string(s));
}
void check_nccl(ncclResult_t r, const char* what) {
  if (r != ncclSuccess) throw std::runtime_error(std::string(what) + ": " + ncclGetErrorString(r));
}

// z (out x batch) += b per column; if relu, z = max(z, 0).
__global__ void bias_activation_kernel(float* z, const float* b, int out, int batch, bool relu) {
  const long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= static_cast<long long>(out) * batch) return;
  float v = z[i] + b[i % out];
  z[i] = relu ? fmaxf(v, 0.0f) : v;
}

// One thread per sample: softmax of the logits column, per-sample loss, delta = (p - onehot) / batch.
__global__ void softmax_xent_kernel(const float* logits, const int* labels, int classes, int batch, float* delta,
                                    float* loss) {
  const int j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j >= batch) return;
  const float* z = logits + static_cast<long long>(j) * classes;
  float m = z[0];
  for (int c = 1; c < classes; ++c)
    m = fmaxf(m, z[c]);
  float sum = 0.0f;
  for (int c = 0; c < classes; ++c)
    sum += expf(z[c] - m);
  const int y = labels[j];
  float* d = delta + static_cast<long long>(j) * classes;
  for (int c = 0; c < classes; ++c) {
    const float p = expf(z[c] - m) / sum;
    d[c] = (p - (c == y ? 1.0f : 0.0f)) / static_cast<float>(batch);
  }
  loss[j] = -(z[y] - m - logf(sum));
}

// delta *= (a > 0): ReLU backward using the activation (a = relu(z) > 0 iff z > 0).
__global__ void relu_backward_kernel(float* delta, const float* a, long long n) {
  const long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n && !(a[i] > 0.0f)) delta[i] = 0.0f;
}

__global__ void fill_kernel(float* p, long long n, float v) {
  const long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) p[i] = v;
}

unsigned blocks_for(long long n, int threads) {
  return static_cast<unsigned>((n + threads - 1) / threads);
}

class CudaBackend final : public Backend {
 public:
  CudaBackend(const BackendOptions& options, int device, int ranks_on_device)
      : options_(options), device_(device), ranks_on_device_(ranks_on_device) {
    check_cuda(cudaSetDevice(device_), "cudaSetDevice");
    cudaDeviceProp prop{};
    check_cuda(cudaGetDeviceProperties(&prop, device_), "cudaGetDeviceProperties");
    device_name_ = prop.name;
    check_cuda(cudaStreamCreate(&stream_), "cudaStreamCreate");
    check_cublas(cublasCreate(&cublas_), "cublasCreate");
    check_cublas(cublasSetStream(cublas_, stream_), "cublasSetStream");
    check_cuda(cudaEventCreate(&start_), "cudaEventCreate");
    check_cuda(cudaEventCreate(&stop_), "cudaEventCreate");
    const auto& l = options_.layers;
    for (std::size_t i = 1; i < l.size(); ++i) {
      offsets_.push_back(params_count_);
      params_count_ += static_cast<long long>(l[i - 1]) * l[i] + l[i];
    }
    params_ = device_alloc(params_count_);
    grads_ = device_alloc(params_count_);
  }

  ~CudaBackend() override {
    if (nccl_) ncclCommDestroy(nccl_);
    for (float* p : owned_)
      cudaFree(p);
    if (labels_) cudaFree(labels_);
    if (cublas_) cublasDestroy(cublas_);
    if (start_) cudaEventDestroy(start_);
    if (stop_) cudaEventDestroy(stop_);
    if (stream_) cudaStreamDestroy(stream_);
  }

  // Collective: NCCL communicator over the MPI ranks.
  void init_nccl(MPI_Comm comm) {
    ncclUniqueId id{};
    if (comm_rank(comm) == 0) check_nccl(ncclGetUniqueId(&id), "ncclGetUniqueId");
    MPI_Bcast(&id, sizeof(id), MPI_BYTE, 0, comm);
    check_nccl(ncclCommInitRank(&nccl_, comm_size(comm), id, comm_rank(comm)), "ncclCommInitRank");
  }

  std::string name() const override { return "cuda"; }
  std::string device() const override { return device_name_; }
  std::string allreduce_algorithm() const override {
    const char* algo = std::getenv("NCCL_ALGO");
    return algo && *algo ? std::string(algo) : std::string("default");
  }

  std::int64_t memory_budget_bytes() const override {
    size_t free_bytes = 0, total = 0;
    check_cuda(cudaMemGetInfo(&free_bytes, &total), "cudaMemGetInfo");
    return static_cast<std::int64_t>(free_bytes) / std::max(ranks_on_device_, 1);
  }

  std::int64_t required_bytes(int max_batch, std::int64_t max_message_bytes) const override {
    long long widths = 0, widest = 0;
    for (std::size_t i = 1; i < options_.layers.size(); ++i) {
      widths += options_.layers[i];
      widest = std::max<long long>(widest, options_.layers[i]);
    }
    const long long floats = static_cast<long long>(max_batch) * (options_.layers.front() + widths + 2 * widest + 2);
    return static_cast<std::int64_t>(4 * floats + max_message_bytes + (64ll << 20));  // + cuBLAS/NCCL workspace
  }

  void prepare(int max_batch, std::int64_t max_message_bytes) override {
    check_cuda(cudaSetDevice(device_), "cudaSetDevice");
    max_batch_ = max_batch;
    const auto& l = options_.layers;
    x_ = device_alloc(static_cast<long long>(max_batch) * l.front());
    act_.clear();
    for (std::size_t i = 1; i < l.size(); ++i)
      act_.push_back(device_alloc(static_cast<long long>(max_batch) * l[i]));
    long long widest = 0;
    for (int w : l)
      widest = std::max<long long>(widest, w);
    delta_ = device_alloc(static_cast<long long>(max_batch) * widest);
    delta_prev_ = device_alloc(static_cast<long long>(max_batch) * widest);
    ones_ = device_alloc(max_batch);
    loss_ = device_alloc(max_batch);
    fill(ones_, max_batch, 1.0f);
    if (labels_) cudaFree(labels_);
    labels_ = nullptr;
    check_cuda(cudaMalloc(&labels_, sizeof(int) * static_cast<size_t>(max_batch)), "cudaMalloc labels");
    message_count_ = max_message_bytes / 4;
    message_ = device_alloc(std::max<long long>(message_count_, 1));
    fill(message_, std::max<long long>(message_count_, 1), 0.0f);
    // Synthetic inputs and labels, deterministic from the seed.
    std::vector<float> hx(static_cast<size_t>(max_batch) * l.front());
    std::vector<int> hl(static_cast<size_t>(max_batch));
    unsigned long long s = options_.seed * 0x9E3779B97F4A7C15ULL + 1;
    for (float& v : hx) {
      s = s * 6364136223846793005ULL + 1442695040888963407ULL;
      v = static_cast<float>(static_cast<double>(s >> 11) * 0x1.0p-53 * 2.0 - 1.0);
    }
    for (int& v : hl) {
      s = s * 6364136223846793005ULL + 1442695040888963407ULL;
      v = static_cast<int>((s >> 33) % static_cast<unsigned long long>(l.back()));
    }
    copy_in(x_, hx.data(), static_cast<long long>(hx.size()));
    check_cuda(cudaMemcpy(labels_, hl.data(), sizeof(int) * hl.size(), cudaMemcpyHostToDevice), "cudaMemcpy labels");
    // He-like initial weights (values do not affect timing).
    std::vector<float> hp(static_cast<size_t>(params_count_));
    for (float& v : hp) {
      s = s * 6364136223846793005ULL + 1442695040888963407ULL;
      v = static_cast<float>((static_cast<double>(s >> 11) * 0x1.0p-53 - 0.5) * 0.1);
    }
    copy_in(params_, hp.data(), params_count_);
    check_cuda(cudaDeviceSynchronize(), "prepare");
  }

  double time_compute_step(int batch) override {
    if (batch <= 0 || batch > max_batch_) throw std::invalid_argument("time_compute_step: batch outside prepare()");
    check_cuda(cudaEventRecord(start_, stream_), "cudaEventRecord");
    forward_backward(batch);
    check_cuda(cudaEventRecord(stop_, stream_), "cudaEventRecord");
    return elapsed();
  }

  double time_allreduce(std::int64_t bytes) override {
    const long long count = bytes / 4;
    if (count <= 0 || count > message_count_) throw std::invalid_argument("time_allreduce: size outside prepare()");
    check_cuda(cudaEventRecord(start_, stream_), "cudaEventRecord");
    check_nccl(ncclAllReduce(message_, message_, static_cast<size_t>(count), ncclFloat, ncclSum, nccl_, stream_),
               "ncclAllReduce");
    check_cuda(cudaEventRecord(stop_, stream_), "cudaEventRecord");
    return elapsed();
  }

  void allreduce_sum(float* data, std::int64_t count) override {
    float* d = nullptr;
    check_cuda(cudaMalloc(&d, sizeof(float) * static_cast<size_t>(count)), "cudaMalloc");
    try {
      check_cuda(cudaMemcpy(d, data, sizeof(float) * static_cast<size_t>(count), cudaMemcpyHostToDevice), "copy in");
      check_nccl(ncclAllReduce(d, d, static_cast<size_t>(count), ncclFloat, ncclSum, nccl_, stream_), "ncclAllReduce");
      check_cuda(cudaStreamSynchronize(stream_), "sync");
      check_cuda(cudaMemcpy(data, d, sizeof(float) * static_cast<size_t>(count), cudaMemcpyDeviceToHost), "copy out");
    } catch (...) {
      cudaFree(d);
      throw;
    }
    cudaFree(d);
  }

  float compute_gradients(const std::vector<float>& params, const float* x, const int* labels, int batch,
                          std::vector<float>& grads) override {
    if (static_cast<long long>(params.size()) != params_count_)
      throw std::invalid_argument("compute_gradients: parameter count mismatch");
    if (batch > max_batch_) prepare(batch, message_count_ * 4);
    copy_in(params_, params.data(), params_count_);
    copy_in(x_, x, static_cast<long long>(batch) * options_.layers.front());
    check_cuda(cudaMemcpy(labels_, labels, sizeof(int) * static_cast<size_t>(batch), cudaMemcpyHostToDevice), "labels");
    forward_backward(batch);
    check_cuda(cudaStreamSynchronize(stream_), "sync");
    grads.resize(static_cast<size_t>(params_count_));
    check_cuda(cudaMemcpy(grads.data(), grads_, sizeof(float) * grads.size(), cudaMemcpyDeviceToHost), "grads");
    std::vector<float> losses(static_cast<size_t>(batch));
    check_cuda(cudaMemcpy(losses.data(), loss_, sizeof(float) * losses.size(), cudaMemcpyDeviceToHost), "loss");
    double sum = 0.0;
    for (float v : losses)
      sum += v;
    return static_cast<float>(sum / batch);
  }

 private:
  float* device_alloc(long long n) {
    float* p = nullptr;
    check_cuda(cudaMalloc(&p, sizeof(float) * static_cast<size_t>(n)), "cudaMalloc");
    owned_.push_back(p);
    return p;
  }
  void fill(float* p, long long n, float v) {
    fill_kernel<<<blocks_for(n, 256), 256, 0, stream_>>>(p, n, v);
    check_cuda(cudaGetLastError(), "fill_kernel");
  }
  void copy_in(float* d, const float* h, long long n) {
    check_cuda(cudaMemcpy(d, h, sizeof(float) * static_cast<size_t>(n), cudaMemcpyHostToDevice), "cudaMemcpy");
  }
  double elapsed() {
    check_cuda(cudaEventSynchronize(stop_), "cudaEventSynchronize");
    float ms = 0.0f;
    check_cuda(cudaEventElapsedTime(&ms, start_, stop_), "cudaEventElapsedTime");
    return static_cast<double>(ms) * 1e-3;
  }

  // Column-major throughout: W_l is out x in, activations are width x batch.
  void forward_backward(int batch) {
    const auto& l = options_.layers;
    const std::size_t count = l.size() - 1;
    const float one = 1.0f, zero = 0.0f;
    for (std::size_t i = 0; i < count; ++i) {
      const int in = l[i], out = l[i + 1];
      const float* w = params_ + offsets_[i];
      const float* b = w + static_cast<long long>(in) * out;
      const float* a_prev = i == 0 ? x_ : act_[i - 1];
      check_cublas(
          cublasSgemm(cublas_, CUBLAS_OP_N, CUBLAS_OP_N, out, batch, in, &one, w, out, a_prev, in, &zero, act_[i], out),
          "sgemm forward");
      const long long n = static_cast<long long>(out) * batch;
      bias_activation_kernel<<<blocks_for(n, 256), 256, 0, stream_>>>(act_[i], b, out, batch, i + 1 < count);
    }
    softmax_xent_kernel<<<blocks_for(batch, 128), 128, 0, stream_>>>(act_[count - 1], labels_, l.back(), batch, delta_,
                                                                     loss_);
    for (std::size_t i = count; i-- > 0;) {
      const int in = l[i], out = l[i + 1];
      const float* w = params_ + offsets_[i];
      float* gw = grads_ + offsets_[i];
      float* gb = gw + static_cast<long long>(in) * out;
      const float* a_prev = i == 0 ? x_ : act_[i - 1];
      check_cublas(
          cublasSgemm(cublas_, CUBLAS_OP_N, CUBLAS_OP_T, out, in, batch, &one, delta_, out, a_prev, in, &zero, gw, out),
          "sgemm weight gradient");
      check_cublas(cublasSgemv(cublas_, CUBLAS_OP_N, out, batch, &one, delta_, out, ones_, 1, &zero, gb, 1),
                   "sgemv bias gradient");
      if (i > 0) {
        check_cublas(cublasSgemm(cublas_, CUBLAS_OP_T, CUBLAS_OP_N, in, batch, out, &one, w, out, delta_, out, &zero,
                                 delta_prev_, in),
                     "sgemm input gradient");
        const long long n = static_cast<long long>(in) * batch;
        relu_backward_kernel<<<blocks_for(n, 256), 256, 0, stream_>>>(delta_prev_, act_[i - 1], n);
        std::swap(delta_, delta_prev_);
      }
    }
    check_cuda(cudaGetLastError(), "kernel launch");
  }

  BackendOptions options_;
  int device_ = 0;
  int ranks_on_device_ = 1;
  std::string device_name_;
  cudaStream_t stream_ = nullptr;
  cublasHandle_t cublas_ = nullptr;
  cudaEvent_t start_ = nullptr;
  cudaEvent_t stop_ = nullptr;
  ncclComm_t nccl_ = nullptr;
  std::vector<long long> offsets_;
  long long params_count_ = 0;
  std::vector<float*> owned_;
  float* params_ = nullptr;
  float* grads_ = nullptr;
  float* x_ = nullptr;
  std::vector<float*> act_;
  float* delta_ = nullptr;
  float* delta_prev_ = nullptr;
  float* ones_ = nullptr;
  float* loss_ = nullptr;
  int* labels_ = nullptr;
  float* message_ = nullptr;
  long long message_count_ = 0;
  int max_batch_ = 0;
};

}  // namespace

bool cuda_backend_compiled() {
  return true;
}

std::unique_ptr<Backend> make_cuda_backend(const BackendOptions& options, MPI_Comm comm) {
  // 1. Is there a usable GPU on every rank?
  int devices = 0;
  const cudaError_t e = cudaGetDeviceCount(&devices);
  std::string why;
  if (e != cudaSuccess)
    why = std::string("no usable CUDA device (cudaGetDeviceCount: ") + cudaGetErrorString(e) + ")";
  else if (devices == 0)
    why = "no CUDA device found";
  agree(comm, why.empty(), "--backend cuda: " + why + " on host " + local_hostname(), kExitSkip);

  // 2. Pick a device, create the backend (local work).
  const LocalRank local = local_rank(comm);
  const int device = local.rank % devices;
  const int ranks_on_device = (local.size + devices - 1 - device) / devices;
  if (!options.nccl_algo.empty()) setenv("NCCL_ALGO", options.nccl_algo.c_str(), 1);
  std::unique_ptr<CudaBackend> backend;
  collective_try(comm, [&] { backend = std::make_unique<CudaBackend>(options, device, ranks_on_device); });

  // 3. NCCL communicator (collective; a failure here cannot be agreed on, so it aborts).
  try {
    backend->init_nccl(comm);
  } catch (const std::exception& ex) {
    abort_all(std::string("--backend cuda: ") + ex.what(), kExitFailure);
  }
  return backend;
}

}  // namespace ringsched::profiler
