// test/profiler/test_mlp.cpp — the MLP: analytic gradients against finite differences, learning, bad labels.
#include <catch2/catch.hpp>
#include <cmath>
#include <vector>

#include "profiler/mlp.h"
#include "profiler/rng.h"

using ringsched::profiler::BasicMlp;
using ringsched::profiler::Mlp;
using ringsched::profiler::SplitMix64;

TEST_CASE("profiler::Mlp: gradients match finite differences", "[profiler][mlp]") {
  BasicMlp<double> mlp({5, 7, 6, 4});
  mlp.init(42);
  SplitMix64 g(7);
  // Non-zero biases so every parameter group is exercised away from zero.
  for (double& p : mlp.parameters())
    p += 0.05 * g.normal();
  const int batch = 3;
  std::vector<double> x(5 * batch);
  for (double& v : x)
    v = g.normal();
  const std::vector<int> labels = {0, 3, 2};

  mlp.forward_backward(x.data(), labels.data(), batch);
  const std::vector<double> analytic = mlp.gradients();
  REQUIRE(analytic.size() == static_cast<std::size_t>(5 * 7 + 7 + 7 * 6 + 6 + 6 * 4 + 4));

  const double eps = 1e-6;
  double worst = 0.0;
  int nonzero = 0;
  for (std::size_t i = 0; i < analytic.size(); ++i) {
    const double saved = mlp.parameters()[i];
    mlp.parameters()[i] = saved + eps;
    const double up = mlp.forward_backward(x.data(), labels.data(), batch);
    mlp.parameters()[i] = saved - eps;
    const double down = mlp.forward_backward(x.data(), labels.data(), batch);
    mlp.parameters()[i] = saved;
    const double numeric = (up - down) / (2 * eps);
    worst = std::max(worst, std::abs(numeric - analytic[i]));
    if (std::abs(analytic[i]) > 1e-4) ++nonzero;
    INFO("parameter " << i << ": numeric " << numeric << " analytic " << analytic[i]);
    CHECK(std::abs(numeric - analytic[i]) <= 1e-7 + 1e-6 * std::abs(numeric));
  }
  INFO("worst absolute difference " << worst);
  CHECK(nonzero > static_cast<int>(analytic.size()) / 2);  // the check is not vacuous
}

TEST_CASE("profiler::Mlp: float and double give the same loss and gradients", "[profiler][mlp]") {
  BasicMlp<double> d({4, 8, 3});
  Mlp f({4, 8, 3});
  d.init(3);
  f.init(3);
  SplitMix64 g(11);
  std::vector<double> xd(4 * 5);
  std::vector<float> xf(xd.size());
  for (std::size_t i = 0; i < xd.size(); ++i)
    xf[i] = static_cast<float>(xd[i] = g.normal());
  const std::vector<int> labels = {0, 1, 2, 1, 0};
  const double ld = d.forward_backward(xd.data(), labels.data(), 5);
  const double lf = f.forward_backward(xf.data(), labels.data(), 5);
  CHECK(lf == Approx(ld).epsilon(1e-5));
  for (std::size_t i = 0; i < d.gradients().size(); ++i)
    CHECK(static_cast<double>(f.gradients()[i]) == Approx(d.gradients()[i]).margin(1e-5));
}

TEST_CASE("profiler::Mlp: gradient descent lowers the loss of a batch", "[profiler][mlp]") {
  Mlp mlp({6, 16, 3});
  mlp.init(5);
  SplitMix64 g(13);
  std::vector<float> x(6 * 12);
  for (float& v : x)
    v = static_cast<float>(g.normal());
  std::vector<int> labels(12);
  for (int& l : labels)
    l = static_cast<int>(g.below(3));
  const float first = mlp.forward_backward(x.data(), labels.data(), 12);
  float last = first;
  for (int s = 0; s < 50; ++s) {
    last = mlp.forward_backward(x.data(), labels.data(), 12);
    for (std::size_t i = 0; i < mlp.parameters().size(); ++i)
      mlp.parameters()[i] -= 0.1f * mlp.gradients()[i];
  }
  CHECK(last < 0.5f * first);
  const auto e = mlp.evaluate(x.data(), labels.data(), 12);
  CHECK(e.correct >= 10);
}

TEST_CASE("profiler::Mlp: rejects labels outside the classes and bad shapes", "[profiler][mlp]") {
  Mlp mlp({2, 3});
  std::vector<float> x(2, 0.0f);
  const int bad = 3;
  CHECK_THROWS_WITH(mlp.forward_backward(x.data(), &bad, 1), Catch::Contains("label 3 outside [0, 3)"));
  CHECK_THROWS(Mlp({4}));
  CHECK_THROWS(Mlp({4, 0, 2}));
  CHECK(mlp.parameter_count() == 2 * 3 + 3);
}
