// sim/experiments/failure_report.cpp — per (level, strategy) failure metrics and MTTF by job size (see the header).
#include "sim/experiments/failure_report.h"

#include <sstream>

#include "sim/experiments/atomic_file.h"
#include "sim/experiments/failure_summary.h"
#include "workloads/io/number_text.h"

namespace ringsched {
namespace {

constexpr double kHour = 3600.0;

std::string failure_shown(const Aggregate& a, const char* fmt) {
  if (a.n == 0) return "-";
  return formatted(fmt, a.mean) + (a.n > 1 ? " +- " + formatted(fmt, a.ci95) : "");
}

std::string mttf_text(const FailureSize& f) {
  return f.failures > 0 ? formatted("%.2f", f.exposure_s / kHour / f.failures) : "-";
}

}  // namespace

std::string failures_csv(const ExperimentConfig& c, const ExperimentResult& r) {
  std::ostringstream o;
  o << "level,strategy,metric,mean,sd,ci95,n\n";
  const int L = static_cast<int>(c.levels.size());
  const int S = static_cast<int>(c.strategies.size());
  for (int l = 0; l < L; ++l)
    for (int s = 0; s < S; ++s)
      for (const std::string& m : failure_metric_names()) {
        const Aggregate a = failure_aggregate(c, r, l, s, m);
        o << csv_field(c.levels[l].name) << ',' << csv_field(c.strategies[s].label) << ',' << m << ','
          << (a.n > 0 ? number_text(a.mean) : "") << ',' << (a.n > 1 ? number_text(a.sd) : "") << ','
          << (a.n > 1 ? number_text(a.ci95) : "") << ',' << a.n << '\n';
      }
  o << "\nlevel,strategy,gpus,exposure_h,failures,mttf_h\n";
  for (int l = 0; l < L; ++l)
    for (int s = 0; s < S; ++s)
      for (const auto& [gpus, f] : pooled_failure_sizes(c, r, l, s)) {
        o << csv_field(c.levels[l].name) << ',' << csv_field(c.strategies[s].label) << ',' << gpus << ','
          << number_text(f.exposure_s / kHour) << ',' << f.failures << ','
          << (f.failures > 0 ? number_text(f.exposure_s / kHour / f.failures) : "") << '\n';
      }
  return o.str();
}

std::string render_failure_report(const ExperimentConfig& c, const ExperimentResult& r, Format f) {
  if (!c.cluster.failures || f == Format::kJson) return "";
  if (f == Format::kCsv) return "\n" + failures_csv(c, r);
  std::ostringstream o;
  o << "\nFailures (cluster.failures; mean +- 95% CI over seeds; GPU-hours lost = recomputed + restarting + waiting)"
       "\n\n| level | strategy | failures/job | GPU-h lost | recomputed | restarting | waiting | checkpointing | "
       "effective training time | job MTTF (h) |\n|---|---|---|---|---|---|---|---|---|---|\n";
  const char* const fmts[] = {"%.2f", "%.1f", "%.1f", "%.1f", "%.1f", "%.1f", "%.3f", "%.2f"};
  for (int l = 0; l < static_cast<int>(c.levels.size()); ++l)
    for (int s = 0; s < static_cast<int>(c.strategies.size()); ++s) {
      o << "| " << c.levels[l].name << " | " << c.strategies[s].label << " |";
      for (std::size_t m = 0; m < failure_metric_names().size(); ++m)
        o << ' ' << failure_shown(failure_aggregate(c, r, l, s, failure_metric_names()[m]), fmts[m]) << " |";
      o << '\n';
    }
  o << "\nJob MTTF by size (time jobs held that many GPUs / failures that hit them, pooled over seeds)\n\n"
       "| level | strategy | GPUs | held (h) | failures | MTTF (h) |\n|---|---|---|---|---|---|\n";
  for (int l = 0; l < static_cast<int>(c.levels.size()); ++l)
    for (int s = 0; s < static_cast<int>(c.strategies.size()); ++s)
      for (const auto& [gpus, sz] : pooled_failure_sizes(c, r, l, s)) {
        o << "| " << c.levels[l].name << " | " << c.strategies[s].label << " | " << gpus << " | "
          << formatted("%.1f", sz.exposure_s / kHour) << " | " << sz.failures << " | " << mttf_text(sz) << " |\n";
      }
  return o.str();
}

void write_failure_outputs(StagedOutput& out, const ExperimentConfig& c, const ExperimentResult& r) {
  if (!c.cluster.failures) return;
  out.write("failures.csv", failures_csv(c, r));
}

}  // namespace ringsched
