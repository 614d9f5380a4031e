// sim/fitting/fit_study.cpp — noise floors of measured tables and the protocol tables of `ringsched fit --pollux
// all`.
#include "sim/fitting/fit_study.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <limits>
#include <map>
#include <sstream>
#include <tuple>

#include "models/table_speed.h"
#include "workloads/pollux.h"

namespace ringsched {

namespace {
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

double ape(double pred_step, double meas_step) {
  // speed APE: |1/pred - 1/meas| / (1/meas)
  return 100.0 * std::abs(meas_step / pred_step - 1.0);
}

// Fits `model` on the points `probe` keeps; returns the speed APEs at the points of >= min_w GPUs it leaves out.
std::vector<double> unprobed_apes(const std::vector<models::SpeedPoint>& pts, FitProtocol model,
                                  const std::function<bool(const models::SpeedPoint&)>& probe, int min_w, double n,
                                  const std::string& origin, SpeedFit* fit_out, std::size_t* probes_out = nullptr) {
  std::vector<models::SpeedPoint> train;
  for (const auto& q : pts)
    if (probe(q)) train.push_back(q);
  const SpeedFit f = fit_speed_points(model, train, n, origin);
  std::vector<double> e;
  for (const auto& q : pts)
    if (q.w >= min_w && !probe(q)) e.push_back(ape(f.step_seconds(q.w, q.nodes, q.global_batch), q.step_seconds));
  if (fit_out) *fit_out = f;
  if (probes_out) *probes_out = train.size();
  return e;
}

}  // namespace

std::string format_pct(double v) {
  if (!std::isfinite(v)) return "n/a";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f%%", v);
  return buf;
}

double mean_of(std::vector<double> v) {
  if (v.empty()) return kNaN;
  double s = 0.0;
  for (double x : v)
    s += x;
  return s / static_cast<double>(v.size());
}

double median_of(std::vector<double> v) {
  if (v.empty()) return kNaN;
  std::sort(v.begin(), v.end());
  const std::size_t h = v.size() / 2;
  return v.size() % 2 ? v[h] : 0.5 * (v[h - 1] + v[h]);
}

NoiseFloor noise_floor(const std::vector<models::SpeedPoint>& points) {
  NoiseFloor nf;
  using Key = std::tuple<int, int, double>;
  std::map<Key, std::vector<double>> groups;
  for (const auto& p : points)
    groups[{p.w, p.nodes, p.global_batch / p.w}].push_back(p.step_seconds);
  std::vector<double> g_all;
  std::vector<double> g_16;
  std::vector<double> t_16;
  for (std::size_t i = 0; i < points.size(); ++i) {
    const auto& p = points[i];
    const auto& g = groups.at({p.w, p.nodes, p.global_batch / p.w});
    if (g.size() >= 2) {
      double s = 0.0;
      for (double x : g)
        s += x;
      const double others = (s - p.step_seconds) / static_cast<double>(g.size() - 1);
      const double e = ape(others, p.step_seconds);
      g_all.push_back(e);
      if (p.w >= 16) g_16.push_back(e);
    }
    if (p.w >= 16) {
      std::vector<models::TablePoint> rest;
      rest.reserve(points.size() - 1);
      for (std::size_t j = 0; j < points.size(); ++j)
        if (j != i)
          rest.push_back(models::TablePoint{points[j].w, points[j].nodes, points[j].global_batch / points[j].w,
                                            points[j].step_seconds});
      const models::TableStepTime table(rest);
      bool clamped = false;
      const double pred = table.lookup(p.w, p.nodes, p.global_batch / p.w, &clamped);
      if (clamped) ++nf.table_clamped_16;
      t_16.push_back(ape(pred, p.step_seconds));
    }
  }
  nf.group_points = static_cast<int>(g_all.size());
  nf.group_mape = mean_of(g_all);
  nf.group_points_16 = static_cast<int>(g_16.size());
  nf.group_mape_16 = mean_of(g_16);
  nf.table_points_16 = static_cast<int>(t_16.size());
  nf.table_mape_16 = mean_of(t_16);
  nf.table_median_16 = median_of(t_16);
  return nf;
}

std::string render_pollux_heldout_summary(const std::string& pollux_dir) {
  const std::vector<FitProtocol> protos{FitProtocol::kPaper, FitProtocol::kTwoLevel, FitProtocol::kMultiNode};
  std::ostringstream out;
  out << "\nHeld-out speed APE at 16+ GPUs (points the protocol did not profile), mean / median per application, "
         "next to the noise floor (leave-one-out interpolation of the table itself; leave-one-out mean of same "
         "(w, nodes, per-GPU batch) measurements, all sizes, where such repeats exist).\n\n| application | 16+ pts |";
  for (auto p : protos)
    out << ' ' << to_string(p) << " mean | median |";
  out << " floor: table LOO mean | median | clamped | floor: same-size LOO mean (pts) |\n|---|---|";
  for (std::size_t i = 0; i < protos.size(); ++i)
    out << "---|---|";
  out << "---|---|---|---|\n";
  std::map<FitProtocol, std::vector<double>> means;
  std::map<FitProtocol, std::vector<double>> medians;
  std::vector<double> floor_means;
  std::vector<double> floor_medians;
  for (const auto& name : pollux_app_names()) {
    const auto app = pollux_app(pollux_dir, name);
    const auto pts = pollux_speed_points(*app);
    const double n = pollux_model_size(name);
    std::string counts;
    std::ostringstream row;
    for (auto p : protos) {
      const std::vector<double> e = unprobed_apes(
          pts, p, [p](const models::SpeedPoint& q) { return protocol_profiles(p, q.w, q.nodes, 4); }, 16, n, app->dir,
          nullptr);
      if (!counts.empty()) counts.push_back('/');
      counts.append(std::to_string(e.size()));
      means[p].push_back(mean_of(e));
      medians[p].push_back(median_of(e));
      row << ' ' << format_pct(means[p].back()) << " | " << format_pct(medians[p].back()) << " |";
    }
    const NoiseFloor nf = noise_floor(pts);
    floor_means.push_back(nf.table_mape_16);
    floor_medians.push_back(nf.table_median_16);
    out << "| " << name << " | " << counts << " |" << row.str() << ' ' << format_pct(nf.table_mape_16) << " | "
        << format_pct(nf.table_median_16) << " | " << nf.table_clamped_16 << '/' << nf.table_points_16 << " | "
        << format_pct(nf.group_mape) << " (" << nf.group_points << ") |\n";
  }
  out << "| median over apps | |";
  for (auto p : protos)
    out << ' ' << format_pct(median_of(means[p])) << " | " << format_pct(median_of(medians[p])) << " |";
  out << ' ' << format_pct(median_of(floor_means)) << " | " << format_pct(median_of(floor_medians)) << " | | |\n";
  return out.str();
}

namespace {

// One column of the two-node study: which measured points are probes, and which model is fitted on them.
struct StudyColumn {
  std::string title;
  FitProtocol model;  // the protocol whose model is fitted (its own point selection is not used)
  bool (*probe)(const models::SpeedPoint&);
};

bool paper_probe(const models::SpeedPoint& p) {
  return protocol_profiles(FitProtocol::kPaper, p.w, p.nodes, 4);
}
bool two_level_probe(const models::SpeedPoint& p) {
  return protocol_profiles(FitProtocol::kTwoLevel, p.w, p.nodes, 4);
}
bool two_node_probe(const models::SpeedPoint& p) {
  return p.nodes <= 2;
}
// The shape of a packed table's <= 2-node rows: 1, 2, 4 GPUs and 8 on 2 nodes (placement 44).
bool packed_two_node_probe(const models::SpeedPoint& p) {
  return (p.w & (p.w - 1)) == 0 && p.w <= 8 && p.nodes == packed_nodes(p.w, 4);
}
bool multi_node_probe(const models::SpeedPoint& p) {
  return protocol_profiles(FitProtocol::kMultiNode, p.w, p.nodes, 4);
}

// Median over (w, per-GPU batch) of mean step on 2 nodes / mean step on 3-4 nodes, where both were measured.
double two_node_ratio(const std::vector<models::SpeedPoint>& pts) {
  std::map<std::pair<int, double>, std::pair<std::vector<double>, std::vector<double>>> by;
  for (const auto& p : pts) {
    if (p.nodes == 2) by[{p.w, p.global_batch / p.w}].first.push_back(p.step_seconds);
    if (p.nodes == 3 || p.nodes == 4) by[{p.w, p.global_batch / p.w}].second.push_back(p.step_seconds);
  }
  std::vector<double> r;
  for (const auto& [k, v] : by)
    if (!v.first.empty() && !v.second.empty()) r.push_back(mean_of(v.first) / mean_of(v.second));
  return median_of(r);
}

std::string format_ratio(double v) {
  if (!std::isfinite(v)) return "n/a";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2f", v);
  return buf;
}

}  // namespace

std::string render_two_node_study(const std::string& pollux_dir) {
  const std::vector<StudyColumn> cols{
      {"paper: eq5 on 1, 2, 4", FitProtocol::kPaper, paper_probe},
      {"two-level: two-level on 1, 2, 4, 1+1, 4+4", FitProtocol::kTwoLevel, two_level_probe},
      {"two-node probes: eq5", FitProtocol::kEq5All, two_node_probe},
      {"two-node probes: two-level", FitProtocol::kTwoLevelAll, two_node_probe},
      {"**two-node: net**", FitProtocol::kTwoNode, two_node_probe},
      {"packed 1, 2, 4, 4+4: net", FitProtocol::kTwoNode, packed_two_node_probe},
      {"(multi-node, 4-node probe)", FitProtocol::kMultiNode, multi_node_probe}};
  std::ostringstream out;
  out << "\nTwo-node study: speed APE at 32+ GPUs (the scalability.csv rows on 8-16 nodes of 4 GPUs), mean / median "
         "per application, fitted on probes of at most 2 nodes (the last column uses a 4-node probe and is for "
         "reference); `2n / 3-4n` = median ratio of step times on 2 nodes to 3-4 nodes at equal GPUs and per-GPU "
         "batch.\n\n| application | 32+ pts |";
  for (const auto& c : cols)
    out << ' ' << c.title << " mean | median |";
  out << " 2n / 3-4n |\n|---|---|";
  for (std::size_t i = 0; i < cols.size(); ++i)
    out << "---|---|";
  out << "---|\n";
  std::vector<std::vector<double>> means(cols.size());
  std::vector<std::vector<double>> medians(cols.size());
  std::ostringstream sel;
  sel << "\nThe net model's variants by leave-one-probe-out MAPE over the probes (probe = one (GPUs, nodes) "
         "position, all its batches; the smallest wins, ties go to the simpler): every <= 2-node point / the packed "
         "ones.\n\n| application | probes |";
  for (auto v : models::net_variants())
    sel << ' ' << models::to_string(v) << " |";
  sel << " chosen | fixed at 0 |\n|---|---|";
  for (std::size_t i = 0; i < models::net_variants().size(); ++i)
    sel << "---|";
  sel << "---|---|\n";
  for (const auto& name : pollux_app_names()) {
    const auto app = pollux_app(pollux_dir, name);
    const auto pts = pollux_speed_points(*app);
    const double n = pollux_model_size(name);
    std::ostringstream row;
    std::size_t count = 0;
    for (std::size_t ci = 0; ci < cols.size(); ++ci) {
      const auto& c = cols[ci];
      SpeedFit f;
      std::size_t probes = 0;
      const std::vector<double> e = unprobed_apes(pts, c.model, c.probe, 32, n, app->dir, &f, &probes);
      count = e.size();
      means[ci].push_back(mean_of(e));
      medians[ci].push_back(median_of(e));
      row << ' ' << format_pct(means[ci].back()) << " | " << format_pct(medians[ci].back()) << " |";
      if (f.net && c.probe != multi_node_probe) {
        sel << "| " << name << " | " << (c.probe == two_node_probe ? "<= 2 nodes" : "packed 1, 2, 4, 4+4") << " ("
            << probes << ") |";
        for (const auto& cand : f.netfit.candidates)
          sel << ' ' << format_pct(cand.lopo_mape_pct) << " |";
        std::string fixed;
        for (const auto& x : f.netfit.selected.fixed)
          fixed += (fixed.empty() ? "" : ", ") + x;
        sel << ' ' << models::to_string(f.netfit.selected.variant) << " | " << (fixed.empty() ? "-" : fixed) << " |\n";
      }
    }
    out << "| " << name << " | " << count << " |" << row.str() << ' ' << format_ratio(two_node_ratio(pts)) << " |\n";
  }
  out << "| median over apps | |";
  for (std::size_t ci = 0; ci < cols.size(); ++ci)
    out << ' ' << format_pct(median_of(means[ci])) << " | " << format_pct(median_of(medians[ci])) << " |";
  out << " |\n" << sel.str();
  return out.str();
}

std::string render_pollux_protocol_table(const std::string& pollux_dir, const std::vector<FitProtocol>& protocols) {
  std::ostringstream out;
  out << "Speed prediction error of fitted models on the Pollux tables (4 GPUs per node): MAPE of speeds at the "
         "measured points each protocol did not profile.\n\n| application |";
  for (auto p : protocols)
    out << ' ' << to_string(p) << ": fit pts | CV | held-out | held-out 16+ |";
  out << "\n|---|";
  for (std::size_t i = 0; i < protocols.size(); ++i)
    out << "---|---|---|---|";
  out << '\n';
  std::map<FitProtocol, std::vector<double>> med16;
  for (const auto& name : pollux_app_names()) {
    const auto app = pollux_app(pollux_dir, name);
    const auto pts = pollux_speed_points(*app);
    out << "| " << name << " |";
    for (auto p : protocols) {
      const FitOutcome o = fit_with_protocol(p, pts, pollux_model_size(name), 4, app->dir);
      out << ' ' << o.quality.points_fit << " | " << format_pct(o.quality.cv_mape) << " | "
          << format_pct(o.quality.mape_heldout) << " | " << format_pct(o.quality.mape_heldout_16) << " |";
      if (std::isfinite(o.quality.mape_heldout_16)) med16[p].push_back(o.quality.mape_heldout_16);
    }
    out << '\n';
  }
  out << "| median |";
  for (auto p : protocols) {
    auto v = med16[p];
    std::sort(v.begin(), v.end());
    double m = kNaN;
    if (!v.empty()) m = v.size() % 2 ? v[v.size() / 2] : 0.5 * (v[v.size() / 2 - 1] + v[v.size() / 2]);
    out << " | | | " << format_pct(m) << " |";
  }
  out << '\n';
  return out.str();
}

}  // namespace ringsched
