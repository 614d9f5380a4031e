// sim/experiments/plot.cpp — calls scripts/plot through /usr/bin/python3.
#include "sim/experiments/plot.h"

#include <cstdio>
#include <cstdlib>
#include <filesystem>

namespace ringsched {
namespace {

const char* kPython = "/usr/bin/python3";

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
  if (!std::filesystem::exists(kPython, ec)) return false;
  const std::string cmd = std::string(kPython) + " -c 'import matplotlib' >/dev/null 2>&1";
  return std::system(cmd.c_str()) == 0;
}

int run_plot_script(const std::string& data_dir, const std::string& plot_dir) {
  if (!plotting_available()) {
    std::fprintf(stderr,
                 "ringsched: --plot needs %s with matplotlib; install it with: apt-get install python3-matplotlib "
                 "(the data files are in %s; draw them later with: scripts/plot auto %s -o %s)\n",
                 kPython, data_dir.c_str(), data_dir.c_str(), plot_dir.c_str());
    return 1;
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
  const std::string cmd = env + std::string(kPython) + " " + shell_quote(script) + " auto " + shell_quote(data_dir) +
                          " -o " + shell_quote(plot_dir) + " 1>&2";
  const int rc = std::system(cmd.c_str());
  if (rc != 0) {
    std::fprintf(stderr, "ringsched: --plot: %s failed (status %d)\n", script.c_str(), rc);
    return 1;
  }
  return 0;
}

}  // namespace ringsched
