// sim/experiments/plot.h — `--plot DIR` on table3 and sweep: runs scripts/plot (Python 3 + matplotlib) on an output
// folder, or says how to install what is missing.
#pragma once

#include <string>

namespace ringsched {

// The plotting script: $RINGSCHED_PLOT_SCRIPT if set, else <source dir>/scripts/plot.
std::string plot_script_path();
// True when /usr/bin/python3 ($RINGSCHED_PLOT_PYTHON if set) can import matplotlib.
bool plotting_available();
// What to say when plotting_available() is false: names the apt-get package and how to draw later.
std::string plotting_missing_message(const std::string& data_dir, const std::string& plot_dir);
// Draws every plot the files in data_dir allow into plot_dir (PNG and SVG); time_unit (s, min, h; empty = the
// script's default) is passed as --time-unit. Returns 0 on success; 2 with a message on stderr when
// Python/matplotlib is missing (plotting_missing_message: the package to install); 1 when the script fails.
int run_plot_script(const std::string& data_dir, const std::string& plot_dir, const std::string& time_unit = "");

}  // namespace ringsched
