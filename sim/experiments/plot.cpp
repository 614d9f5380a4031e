// sim/experiments/plot.cpp — calls scripts/plot through /usr/bin/python3 (or $RINGSCHED_PLOT_PYTHON).
#include "sim/experiments/plot.h"

#include <cstdio>
#include <cstdlib>
#include <filesystem>

namespace ringsched {
namespace {

// Debian's interpreter (not the first python3 on PATH); $RINGSCHED_PLOT_PYTHON replaces it (tests use it to see
// what happens without matplotlib).
std::string python() {
  if (const char* env = std::getenv("RINGSCHED_PLOT_PYTHON"); env != nullptr && *env != '\0') return env;
  return "/usr/bin/python3";
}

std::string shell_quote(const std::string& s) {
  std::string out = "'";
  for (char ch : s) {
    if (ch == '\'') {
      out += "'\\''";
    } else {
      out += ch;
    }
  }
  return out + "'";
}

}  // namespace

std::string plot_script_path() {
  if (const char* env = std::getenv("RINGSCHED_PLOT_SCRIPT"); env != nullptr && *env != '\0') return env;
  return std::string(RINGSCHED_SOURCE_DIR) + "/scripts/plot";
}

bool plotting_available() {
  std::error_code ec;
  if (!std::filesystem::exists(python(), ec)) return false;
  const std::string cmd = shell_quote(python()) + " -c 'import matplotlib' >/dev/null 2>&1";
  return std::system(cmd.c_str()) == 0;
}

std::string plotting_missing_message(const std::string& data_dir, const std::string& plot_dir) {
  return "--plot needs " + python() +
         " with matplotlib; install it with: apt-get install python3-matplotlib (the data files are in " + data_dir +
         "; draw them later with: scripts/plot auto " + data_dir + " -o " + plot_dir + ")";
}

int run_plot_script(const std::string& data_dir, const std::string& plot_dir, const std::string& time_unit) {
  if (!plotting_available()) {  // what the user can install: exit 2, as other input the user can fix
    std::fprintf(stderr, "ringsched: error: %s\n", plotting_missing_message(data_dir, plot_dir).c_str());
    return 2;
  }
  const std::string script = plot_script_path();
  std::error_code ec;
  if (!std::filesystem::exists(script, ec)) {
    std::fprintf(stderr, "ringsched: --plot: the plotting script %s is missing (set RINGSCHED_PLOT_SCRIPT)\n",
                 script.c_str());
    return 1;
  }
  // The script reads the metric table from this binary (`ringsched metrics --format json`).
  const std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", ec);
  const std::string env = ec ? std::string() : "RINGSCHED_BIN=" + shell_quote(self.string()) + " ";
  const std::string cmd = env + shell_quote(python()) + " " + shell_quote(script) + " auto " + shell_quote(data_dir) +
                          " -o " + shell_quote(plot_dir) +
                          (time_unit.empty() ? "" : " --time-unit " + shell_quote(time_unit)) + " 1>&2";
  const int rc = std::system(cmd.c_str());
  if (rc != 0) {
    std::fprintf(stderr, "ringsched: --plot: %s failed (status %d)\n", script.c_str(), rc);
    return 1;
  }
  return 0;
}

}  // namespace ringsched
