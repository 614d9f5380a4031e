// profiler/mlp.h — the multilayer perceptron every backend measures and the elastic experiment trains: fully
// connected ReLU layers, softmax cross-entropy, forward/backward with Eigen on one flat parameter buffer (so one
// all-reduce moves every gradient). Templated on the scalar: float for real work, double for gradient checks.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <Eigen/Dense>

namespace ringsched::profiler {

// "784-512-10" for {784, 512, 10}.
std::string layers_to_string(const std::vector<int>& layers);

template <typename T>
class BasicMlp {
 public:
  using Matrix = Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic>;  // column-major: one sample per column

  struct Evaluation {
    double loss_sum = 0.0;     // sum of per-sample cross-entropy
    std::int64_t correct = 0;  // samples whose arg-max matches the label
  };

  // layers[0] = inputs, layers.back() = classes; at least 2 entries, each > 0. Parameters start at zero.
  explicit BasicMlp(std::vector<int> layers);

  const std::vector<int>& layers() const { return layers_; }
  std::int64_t parameter_count() const { return static_cast<std::int64_t>(params_.size()); }
  int inputs() const { return layers_.front(); }
  int classes() const { return layers_.back(); }

  // Layout: for each layer l, W_l (out x in, column-major) then b_l (out). Gradients use the same layout.
  std::vector<T>& parameters() { return params_; }
  const std::vector<T>& parameters() const { return params_; }
  std::vector<T>& gradients() { return grads_; }
  const std::vector<T>& gradients() const { return grads_; }

  // He-normal weights from `seed` (deterministic), zero biases.
  void init(std::uint64_t seed);

  // Forward and backward on `batch` samples (x: inputs x batch, column-major; labels in [0, classes)). Writes the
  // gradient of the mean cross-entropy over the batch into gradients() and returns that mean loss.
  T forward_backward(const T* x, const int* labels, int batch);

  // Forward only.
  Evaluation evaluate(const T* x, const int* labels, int batch);

  // Approximate bytes of working memory for a batch (activations, deltas) on top of parameters and gradients.
  static std::int64_t activation_bytes(const std::vector<int>& layers, int batch);

 private:
  void forward(const T* x, int batch);
  void check_labels(const int* labels, int batch) const;

  std::vector<int> layers_;
  std::vector<std::int64_t> offsets_;  // start of W_l in the flat buffers; b_l follows W_l
  std::vector<T> params_;
  std::vector<T> grads_;
  std::vector<Matrix> z_;  // pre-activations per layer
  std::vector<Matrix> a_;  // activations per hidden layer (ReLU(z)); softmax probabilities for the last
  Matrix delta_;
  Matrix delta_prev_;
};

using Mlp = BasicMlp<float>;

extern template class BasicMlp<float>;
extern template class BasicMlp<double>;

}  // namespace ringsched::profiler
