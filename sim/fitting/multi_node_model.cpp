// sim/fitting/multi_node_model.cpp — the `multi-node` model's NNLS fit and its table form.
#include "sim/fitting/multi_node_model.h"

#include <array>

#include "models/nnls.h"

namespace ringsched {

MultiNodeCoeffs fit_multi_node(const std::vector<models::SpeedPoint>& points, double n,
                               std::vector<std::string>* fixed) {
  const auto rows = static_cast<Eigen::Index>(points.size());
  Eigen::MatrixXd a = Eigen::MatrixXd::Zero(rows, 7);
  Eigen::VectorXd b = Eigen::VectorXd::Ones(rows);
  for (Eigen::Index i = 0; i < rows; ++i) {
    const auto& p = points[static_cast<std::size_t>(i)];
    const auto x = multi_node_columns(p.w, p.nodes, p.global_batch, n);
    for (Eigen::Index j = 0; j < 7; ++j)
      a(i, j) = x[static_cast<std::size_t>(j)] / p.step_seconds;
  }
  const models::IdentifiedNnls sol = models::nnls_identified(a, b);
  if (fixed) {
    static const std::array<const char*, 7> names{"t0", "t3", "a_in", "b_in", "a_x", "b_x", "g_x"};
    for (int j : sol.fixed)
      fixed->emplace_back(names[static_cast<std::size_t>(j)]);
  }
  const Eigen::VectorXd& x = sol.x;
  return MultiNodeCoeffs{x[0], x[1], x[2], x[3], x[4], x[5], x[6]};
}

bool multi_node_profiles(int w, int nodes, int gpus_per_node) {
  if (nodes == 1) return w <= gpus_per_node && (w & (w - 1)) == 0;
  return (nodes == 2 && (w == 2 || w == 2 * gpus_per_node)) || (nodes == 4 && w == 4 * gpus_per_node);
}

nlohmann::json multi_node_table_json(const MultiNodeCoeffs& c, double model_size, int max_gpus) {
  nlohmann::json pts = nlohmann::json::array();
  for (int w = 1; w <= max_gpus; ++w) {
    std::vector<int> ks{1};
    if (w >= 2) ks.push_back(2);
    if (w >= 3) ks.push_back(w);
    for (int k : ks)
      for (double b : {1.0, 1024.0})
        pts.push_back({w, k, b, multi_node_step_time(c, w, k, b * w, model_size)});
  }
  return nlohmann::json{{"kind", "table"}, {"points", pts}};
}

}  // namespace ringsched
