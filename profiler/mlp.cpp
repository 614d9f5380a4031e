// profiler/mlp.cpp — MLP forward/backward with Eigen (ReLU hidden layers, softmax cross-entropy).
#include "profiler/mlp.h"

#include <cmath>
#include <stdexcept>

#include "profiler/rng.h"

namespace ringsched::profiler {

std::string layers_to_string(const std::vector<int>& layers) {
  std::string s;
  for (std::size_t i = 0; i < layers.size(); ++i) {
    if (i) s += '-';
    s += std::to_string(layers[i]);
  }
  return s;
}

template <typename T>
BasicMlp<T>::BasicMlp(std::vector<int> layers) : layers_(std::move(layers)) {
  if (layers_.size() < 2) throw std::invalid_argument("Mlp: needs at least 2 layer widths");
  std::int64_t n = 0;
  for (std::size_t l = 0; l < layers_.size(); ++l) {
    if (layers_[l] <= 0) throw std::invalid_argument("Mlp: layer widths must be > 0");
    if (l == 0) continue;
    offsets_.push_back(n);
    n += static_cast<std::int64_t>(layers_[l - 1]) * layers_[l] + layers_[l];
  }
  params_.assign(static_cast<std::size_t>(n), T(0));
  grads_.assign(static_cast<std::size_t>(n), T(0));
  z_.resize(layers_.size() - 1);
  a_.resize(layers_.size() - 1);
}

template <typename T>
void BasicMlp<T>::init(std::uint64_t seed) {
  SplitMix64 g(mix_seed(seed, 0x6A09E667F3BCC909ULL));
  for (std::size_t l = 0; l + 1 < layers_.size(); ++l) {
    const int in = layers_[l];
    const int out = layers_[l + 1];
    const double scale = std::sqrt(2.0 / in);
    T* w = &params_[static_cast<std::size_t>(offsets_[l])];
    for (std::int64_t k = 0; k < static_cast<std::int64_t>(in) * out; ++k)
      w[k] = static_cast<T>(scale * g.normal());
    for (int k = 0; k < out; ++k)
      w[static_cast<std::int64_t>(in) * out + k] = T(0);
  }
}

template <typename T>
std::int64_t BasicMlp<T>::activation_bytes(const std::vector<int>& layers, int batch) {
  std::int64_t widths = 0;
  std::int64_t widest = 0;
  for (std::size_t l = 1; l < layers.size(); ++l) {
    widths += layers[l];
    widest = std::max<std::int64_t>(widest, layers[l]);
  }
  // z and a per layer, two delta buffers of the widest layer, the input batch.
  return static_cast<std::int64_t>(sizeof(T)) * batch * (2 * widths + 2 * widest + layers.front());
}

template <typename T>
void BasicMlp<T>::check_labels(const int* labels, int batch) const {
  for (int i = 0; i < batch; ++i)
    if (labels[i] < 0 || labels[i] >= classes())
      throw std::invalid_argument("Mlp: label " + std::to_string(labels[i]) + " outside [0, " +
                                  std::to_string(classes()) + ")");
}

template <typename T>
void BasicMlp<T>::forward(const T* x, int batch) {
  if (batch <= 0) throw std::invalid_argument("Mlp: batch must be > 0");
  using ConstMap = Eigen::Map<const Matrix>;
  using VecMap = Eigen::Map<const Eigen::Matrix<T, Eigen::Dynamic, 1>>;
  const std::size_t count = layers_.size() - 1;
  for (std::size_t l = 0; l < count; ++l) {
    const int in = layers_[l];
    const int out = layers_[l + 1];
    const T* p = &params_[static_cast<std::size_t>(offsets_[l])];
    ConstMap w(p, out, in);
    VecMap b(p + static_cast<std::int64_t>(in) * out, out);
    z_[l].resize(out, batch);
    if (l == 0) {
      z_[l].noalias() = w * ConstMap(x, in, batch);
    } else {
      z_[l].noalias() = w * a_[l - 1];
    }
    z_[l].colwise() += b;
    if (l + 1 < count) {
      a_[l] = z_[l].cwiseMax(T(0));
    } else {
      // Softmax per column, numerically stable.
      a_[l] = (z_[l].rowwise() - z_[l].colwise().maxCoeff()).array().exp().matrix();
      a_[l].array().rowwise() /= a_[l].colwise().sum().array();
    }
  }
}

template <typename T>
T BasicMlp<T>::forward_backward(const T* x, const int* labels, int batch) {
  check_labels(labels, batch);
  forward(x, batch);
  using ConstMap = Eigen::Map<const Matrix>;
  using Map = Eigen::Map<Matrix>;
  const std::size_t count = layers_.size() - 1;
  const Matrix& probs = a_[count - 1];
  double loss = 0.0;
  delta_ = probs;
  for (int i = 0; i < batch; ++i) {
    loss -= std::log(std::max<double>(static_cast<double>(probs(labels[i], i)), 1e-30));
    delta_(labels[i], i) -= T(1);
  }
  delta_ *= T(1) / static_cast<T>(batch);
  for (std::size_t l = count; l-- > 0;) {
    const int in = layers_[l];
    const int out = layers_[l + 1];
    T* g = &grads_[static_cast<std::size_t>(offsets_[l])];
    Map gw(g, out, in);
    Eigen::Map<Eigen::Matrix<T, Eigen::Dynamic, 1>> gb(g + static_cast<std::int64_t>(in) * out, out);
    if (l == 0) {
      gw.noalias() = delta_ * ConstMap(x, in, batch).transpose();
    } else {
      gw.noalias() = delta_ * a_[l - 1].transpose();
    }
    gb = delta_.rowwise().sum();
    if (l > 0) {
      ConstMap w(&params_[static_cast<std::size_t>(offsets_[l])], out, in);
      delta_prev_.noalias() = w.transpose() * delta_;
      delta_ = delta_prev_.cwiseProduct((z_[l - 1].array() > T(0)).matrix().template cast<T>());
    }
  }
  return static_cast<T>(loss / batch);
}

template <typename T>
typename BasicMlp<T>::Evaluation BasicMlp<T>::evaluate(const T* x, const int* labels, int batch) {
  check_labels(labels, batch);
  forward(x, batch);
  const Matrix& probs = a_[layers_.size() - 2];
  Evaluation e;
  for (int i = 0; i < batch; ++i) {
    Eigen::Index best = 0;
    probs.col(i).maxCoeff(&best);
    if (best == labels[i]) ++e.correct;
    e.loss_sum -= std::log(std::max<double>(static_cast<double>(probs(labels[i], i)), 1e-30));
  }
  return e;
}

template class BasicMlp<float>;
template class BasicMlp<double>;

}  // namespace ringsched::profiler
