// sim/experiments/fairness_report.cpp — Shockwave's per-policy figures after the summary (see the header).
#include "sim/experiments/fairness_report.h"

#include <sstream>

#include "sim/experiments/trace_kind.h"
#include "workloads/io/number_text.h"

namespace ringsched {

std::string render_fairness_report(const ExperimentConfig& c, const ExperimentResult& r, Format f) {
  if (!has_shockwave_trace(c) || f == Format::kJson) return "";
  std::ostringstream o;
  if (f == Format::kCsv) {
    o << "\nlevel,strategy,runs,mean_jct_h,makespan_h,unfair_jobs\n";
  } else {
    o << "\nFinish-time fairness (Shockwave trace; means over seeds; unfair jobs: rho = JCT / (isolated time x max(1, "
         "jobs / GPUs)) > 1.1)\n\n| level | strategy | avg JCT (h) | makespan (h) | unfair jobs |\n|---|---|---|---|"
         "---|\n";
  }
  for (std::size_t l = 0; l < c.levels.size(); ++l) {
    for (std::size_t s = 0; s < c.strategies.size(); ++s) {
      int runs = 0;
      double jct = 0.0, makespan = 0.0, unfair = 0.0;
      for (int k = 0; k < c.seeds; ++k) {
        const CellRun& run = r.run(c, static_cast<int>(l), static_cast<int>(s), k);
        if (!run.error.empty()) continue;
        ++runs;
        jct += run.metrics.mean_jct_s / 3600.0;
        makespan += run.metrics.makespan_s / 3600.0;
        const auto it = run.metrics.computed.find("unfair_jobs");
        if (it != run.metrics.computed.end()) unfair += it->second;
      }
      const double n = runs > 0 ? runs : 1;
      if (runs == 0) {  // no successful seed: absent, not zero
        if (f == Format::kCsv) {
          o << c.levels[l].name << ',' << c.strategies[s].label << ",0,,,\n";
        } else {
          o << "| " << c.levels[l].name << " | " << c.strategies[s].label << " | - | - | - |\n";
        }
        continue;
      }
      if (f == Format::kCsv) {
        o << c.levels[l].name << ',' << c.strategies[s].label << ',' << runs << ',' << formatted("%.6g", jct / n) << ','
          << formatted("%.6g", makespan / n) << ',' << formatted("%.6g", unfair / n) << '\n';
      } else {
        o << "| " << c.levels[l].name << " | " << c.strategies[s].label << " | " << formatted("%.3f", jct / n) << " | "
          << formatted("%.3f", makespan / n) << " | " << formatted("%.1f", unfair / n) << " |\n";
      }
    }
  }
  return o.str();
}

}  // namespace ringsched
