// sim/experiments/network_report.cpp — per (level, strategy) means over seeds of the link-contention metrics (see
// the header).
#include "sim/experiments/network_report.h"

#include <cstdio>
#include <iterator>
#include <sstream>

#include "sim/experiments/atomic_file.h"
#include "workloads/io/number_text.h"

namespace ringsched {
namespace {

constexpr const char* kNetworkMetrics[] = {"mean_contention_slowdown", "shared_link_jobs", "shared_link_gpus",
                                           "effective_gpu_utilisation"};
constexpr std::size_t kNetworkMetricCount = std::size(kNetworkMetrics);

struct NetRow {
  std::string level, strategy;
  int runs = 0;
  double values[kNetworkMetricCount] = {};            // kNetworkMetrics
  double utilisation = 0;                             // GPU utilisation
  std::vector<std::pair<std::string, double>> links;  // per level, summed over runs then divided
};

// The link levels of the first run that has any (every run of one config has the same topology).
std::vector<std::string> link_levels(const ExperimentResult& r) {
  std::vector<std::string> out;
  for (const CellRun& run : r.runs) {
    if (run.metrics.link_utilisation.empty()) continue;
    for (const auto& [name, u] : run.metrics.link_utilisation)
      out.push_back(name);
    break;
  }
  return out;
}

NetRow net_row(const ExperimentConfig& c, const ExperimentResult& r, std::size_t l, std::size_t s,
               const std::vector<std::string>& levels) {
  NetRow row;
  row.level = c.levels[l].name;
  row.strategy = c.strategies[s].label;
  for (const std::string& name : levels)
    row.links.emplace_back(name, 0.0);
  for (int k = 0; k < c.seeds; ++k) {
    const CellRun& run = r.run(c, static_cast<int>(l), static_cast<int>(s), k);
    if (!run.error.empty()) continue;
    ++row.runs;
    for (std::size_t m = 0; m < kNetworkMetricCount; ++m) {
      const auto it = run.metrics.computed.find(kNetworkMetrics[m]);
      if (it != run.metrics.computed.end()) row.values[m] += it->second;
    }
    row.utilisation += run.metrics.gpu_utilisation;
    for (std::size_t i = 0; i < row.links.size() && i < run.metrics.link_utilisation.size(); ++i)
      row.links[i].second += run.metrics.link_utilisation[i].second;
  }
  if (row.runs == 0) return row;
  for (double& v : row.values)
    v /= row.runs;
  row.utilisation /= row.runs;
  for (auto& link : row.links)
    link.second /= row.runs;
  return row;
}

std::vector<NetRow> net_rows(const ExperimentConfig& c, const ExperimentResult& r) {
  const std::vector<std::string> levels = link_levels(r);
  std::vector<NetRow> out;
  for (std::size_t l = 0; l < c.levels.size(); ++l)
    for (std::size_t s = 0; s < c.strategies.size(); ++s)
      out.push_back(net_row(c, r, l, s, levels));
  return out;
}

}  // namespace

std::string network_csv(const ExperimentConfig& c, const ExperimentResult& r) {
  std::ostringstream o;
  o << "level,strategy,runs,mean_contention_slowdown,shared_link_jobs,shared_link_gpus,effective_gpu_utilisation,"
       "gpu_utilisation";
  for (const std::string& name : link_levels(r))
    o << ",util_" << name;
  o << '\n';
  for (const NetRow& row : net_rows(c, r)) {
    o << row.level << ',' << row.strategy << ',' << row.runs;
    for (double v : row.values)
      o << ',' << formatted("%.6g", v);
    o << ',' << formatted("%.6g", row.utilisation);
    for (const auto& link : row.links)
      o << ',' << formatted("%.6g", link.second);
    o << '\n';
  }
  return o.str();
}

std::string render_network_report(const ExperimentConfig& c, const ExperimentResult& r, Format f) {
  if (!c.cluster.network || f == Format::kJson) return "";
  if (f == Format::kCsv) return "\n" + network_csv(c, r);
  std::ostringstream o;
  o << "\nLinks shared by jobs (cluster.network; means over seeds; slowdown = iteration time shared / alone, "
       "time-averaged per job)\n\n| level | strategy | slowdown | jobs on a shared link | GPU time on a shared link | "
       "effective GPU utilisation | GPU utilisation |";
  const std::vector<std::string> levels = link_levels(r);
  for (const std::string& name : levels)
    o << ' ' << name << " links |";
  o << "\n|---|---|---|---|---|---|---|";
  for (std::size_t i = 0; i < levels.size(); ++i)
    o << "---|";
  o << '\n';
  for (const NetRow& row : net_rows(c, r)) {
    o << "| " << row.level << " | " << row.strategy << " | " << formatted("%.3f", row.values[0]) << " | "
      << formatted("%.1f%%", 100 * row.values[1]) << " | " << formatted("%.1f%%", 100 * row.values[2]) << " | "
      << formatted("%.1f%%", 100 * row.values[3]) << " | " << formatted("%.1f%%", 100 * row.utilisation) << " |";
    for (const auto& link : row.links)
      o << ' ' << formatted("%.1f%%", 100 * link.second) << " |";
    o << '\n';
  }
  return o.str();
}

void write_network_outputs(StagedOutput& out, const ExperimentConfig& c, const ExperimentResult& r) {
  if (!c.cluster.network) return;
  out.write("network.csv", network_csv(c, r));
}

}  // namespace ringsched
