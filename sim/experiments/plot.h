// sim/experiments/plot.h — `--plot DIR` on table3 and sweep: runs scripts/plot (Python 3 + matplotlib) on an output
// folder, or says how to install what is missing.
#pragma once

#include <string>

namespace ringsched {

// The plotting script: $RINGSCHED_PLOT_SCRIPT if set, else <source dir>/scripts/plot.
std::string plot_script_path();
// True when /usr/bin/python3 can import matplotlib.
bool plotting_available();
// Draws every plot the files in data_dir allow into plot_dir (PNG and SVG). Returns 0 on success; 1 with a
// message on stderr when Python/matplotlib is missing (naming the apt-get package) or the script fails.
int run_plot_script(const std::string& data_dir, const std::string& plot_dir);

}  // namespace ringsched
