// sim/cli/metrics.cpp — `ringsched metrics`: the output metrics (name, unit, column label, display unit, whether
// every output has it, meaning), from the one metric table (sim/engine/metrics.cpp).
#include <iostream>
#include <memory>
#include <string>

#include "sim/cli/commands.h"
#include "sim/experiments/report.h"

namespace ringsched::cli {

Command add_metrics_command(CLI::App& app) {
  auto format = std::make_shared<std::string>("md");
  auto* c = app.add_subcommand("metrics",
                               "List the output metrics: their keys in summary.json / CSV, units, the Markdown column, "
                               "and what they measure");
  c->add_option("--format", *format, "md (a Markdown table, as in docs/config.md) or json (what scripts/plot reads)")
      ->check(CLI::IsMember({"md", "json"}));
  c->footer("Examples:\n  ringsched metrics\n  ringsched metrics --format json");
  return {c, [format] {
            if (*format == "json") {
              std::cout << metric_table_json().dump(2) << "\n";
            } else {
              std::cout << metric_table_markdown();
            }
            return 0;
          }};
}

}  // namespace ringsched::cli
