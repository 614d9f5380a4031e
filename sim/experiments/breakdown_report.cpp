// sim/experiments/breakdown_report.cpp — breakdown.csv, series.csv and the queueing/fairness table (see the header).
#include "sim/experiments/breakdown_report.h"

#include <algorithm>
#include <map>
#include <numeric>
#include <sstream>

#include "models/quantile.h"
#include "sim/engine/fairness_metric.h"
#include "workloads/io/number_text.h"

namespace ringsched {
namespace {

// One group's figures (breakdown.csv's columns after the group).
struct GroupStats {
  std::vector<double> jct;
  std::vector<double> queue;
  std::vector<double> rho;
  double gpu_seconds = 0.0;
};

std::string mean_text(const std::vector<double>& v) {
  if (v.empty()) return "";
  return number_text(std::accumulate(v.begin(), v.end(), 0.0) / static_cast<double>(v.size()));
}

std::string group_row(const std::string& prefix, const std::string& kind, const std::string& group,
                      const GroupStats& g) {
  std::ostringstream o;
  o << prefix << kind << ',' << csv_field(group) << ',' << g.jct.size() << ',' << mean_text(g.jct) << ','
    << mean_text(g.queue) << ',' << number_text(models::quantile(g.queue, 0.5)) << ','
    << number_text(models::quantile(g.queue, 0.95)) << ',' << number_text(g.gpu_seconds / 3600.0) << ','
    << mean_text(g.rho) << '\n';
  return o.str();
}

constexpr int kSizeBounds[] = {1, 2, 4, 8, 16, 32, 64};

int size_rank(int gpus) {
  int k = 0;
  for (int b : kSizeBounds) {
    if (gpus <= b) return k;
    ++k;
  }
  return k;
}

}  // namespace

std::string size_group(int gpus) {
  static const char* const kNames[] = {"1", "2", "3-4", "5-8", "9-16", "17-32", "33-64", "65+"};
  return kNames[size_rank(gpus)];
}

std::string breakdown_csv_header() {
  return "level,strategy,seed,group_kind,group,jobs,mean_jct_s,queue_delay_mean_s,queue_delay_median_s,"
         "queue_delay_p95_s,gpu_hours,rho_mean\n";
}

std::string breakdown_rows(const ExperimentConfig& c, const CellRun& run) {
  if (!run.error.empty()) return "";
  GroupStats all;
  std::map<std::string, GroupStats> users;
  std::map<std::string, GroupStats> vcs;
  std::map<int, GroupStats> sizes;  // by size_rank
  bool any_user = false;
  bool any_vc = false;
  for (const JobResult& j : run.jobs) {
    if (!c.workload.measure.contains(j.id)) continue;
    const double rho = job_rho(j, run.jobs.size(), c.total_gpus());
    const int gpus = j.requested_gpus > 0 ? j.requested_gpus : j.max_gpus;
    any_user = any_user || !j.user.empty();
    any_vc = any_vc || !j.vc.empty();
    for (GroupStats* g : {&all, &users[j.user], &vcs[j.vc], &sizes[size_rank(gpus)]}) {
      g->jct.push_back(j.finish - j.arrival);
      g->queue.push_back(j.first_start - j.arrival);
      g->gpu_seconds += j.gpu_seconds;
      if (rho > 0.0) g->rho.push_back(rho);
    }
  }
  if (all.jct.empty()) return "";
  const std::string prefix = csv_field(c.levels[static_cast<std::size_t>(run.level)].name) + ',' +
                             csv_field(c.strategies[static_cast<std::size_t>(run.strategy)].label) + ',' +
                             std::to_string(run.seed) + ',';
  std::string out = group_row(prefix, "all", "all", all);
  if (any_user)
    for (const auto& [name, g] : users)
      out += group_row(prefix, "user", name, g);
  if (any_vc)
    for (const auto& [name, g] : vcs)
      out += group_row(prefix, "vc", name, g);
  for (const auto& [rank, g] : sizes)
    out += group_row(prefix, "size", size_group(rank == 0 ? 1 : kSizeBounds[rank - 1] + 1), g);
  return out;
}

std::string series_csv_header() {
  return "level,strategy,seed,time_s,busy_gpus,utilisation,queued_jobs,running_jobs\n";
}

std::string series_rows(const ExperimentConfig& c, const CellRun& run) {
  if (!run.error.empty()) return "";
  const std::string prefix = csv_field(c.levels[static_cast<std::size_t>(run.level)].name) + ',' +
                             csv_field(c.strategies[static_cast<std::size_t>(run.strategy)].label) + ',' +
                             std::to_string(run.seed) + ',';
  const double gpus = static_cast<double>(c.total_gpus());
  std::ostringstream o;
  for (const SeriesPoint& p : run.series)
    o << prefix << number_text(p.time) << ',' << p.busy_gpus << ',' << number_text(p.busy_gpus / gpus) << ','
      << p.queued_jobs << ',' << p.running_jobs << '\n';
  return o.str();
}

void BreakdownStream::begin(StagedOutput& out, const ExperimentConfig& c) {
  out_ = &out;
  if (c.output.breakdown) out.append("breakdown.csv", breakdown_csv_header());
  if (c.output.series_s > 0.0) out.append("series.csv", series_csv_header());
}

void BreakdownStream::add(const ExperimentConfig& c, const CellRun& run) {
  if (out_ == nullptr) return;
  if (c.output.breakdown) out_->append("breakdown.csv", breakdown_rows(c, run));
  if (c.output.series_s > 0.0) out_->append("series.csv", series_rows(c, run));
}

void write_breakdown_outputs(StagedOutput& out, const ExperimentConfig& c, const ExperimentResult& r) {
  BreakdownStream stream;
  stream.begin(out, c);
  for (const CellRun& run : r.runs)
    stream.add(c, run);
}

std::string render_breakdown_report(const ExperimentConfig& c, const ExperimentResult& r, Format f,
                                    const TimeUnit& unit) {
  if (!c.output.breakdown || f == Format::kJson) return "";
  const auto& names = queue_fairness_metric_names();
  std::ostringstream o;
  if (f == Format::kCsv) {
    o << "\nlevel,strategy,metric,mean,sd,ci95,n\n";
  } else {
    o << "\nQueueing delay and finish-time fairness (--breakdown; mean +- 95% CI over seeds; delays in " << unit.word
      << "; rho = JCT / run time alone; breakdown.csv has them per user, VC and job size)\n\n| level | strategy | "
         "queue mean | queue median | queue p95 | Jain index | rho mean | rho max "
         "|\n|---|---|---|---|---|---|---|---|\n";
  }
  for (int l = 0; l < static_cast<int>(c.levels.size()); ++l)
    for (int s = 0; s < static_cast<int>(c.strategies.size()); ++s) {
      if (f == Format::kMarkdown) o << "| " << c.levels[l].name << " | " << c.strategies[s].label << " |";
      for (const std::string& m : names) {
        Aggregate a = cell_aggregate(c, r, l, s, m);
        if (zero_means_no_rho(m) && a.mean == 0.0) a = Aggregate{};  // no job with a rho: absent, not 0
        const MetricInfo& info = metric_info(m);
        if (f == Format::kCsv) {
          o << csv_field(c.levels[l].name) << ',' << csv_field(c.strategies[s].label) << ',' << m << ','
            << (a.n > 0 ? number_text(a.mean) : "") << ',' << (a.n > 1 ? number_text(a.sd) : "") << ','
            << (a.n > 1 ? number_text(a.ci95) : "") << ',' << a.n << '\n';
          continue;
        }
        const bool time = std::string(info.unit) == "s";
        const double scale = time ? 1.0 / unit.seconds : info.display_scale;
        const char* fmt = time ? unit.fmt : info.display_fmt;
        o << ' '
          << (a.n == 0 ? std::string("-")
                       : formatted(fmt, a.mean * scale) + (a.n > 1 ? " +- " + formatted(fmt, a.ci95 * scale) : ""))
          << " |";
      }
      if (f == Format::kMarkdown) o << '\n';
    }
  return o.str();
}

}  // namespace ringsched
