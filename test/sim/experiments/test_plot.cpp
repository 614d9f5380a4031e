// test/sim/experiments/test_plot.cpp — scripts/plot draws PNG and SVG files from small outputs (a one-level experiment,
// a tiny sweep, the fit-plot fixture); skipped when /usr/bin/python3 cannot import matplotlib.
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>

#include "sim/experiments/plot.h"

namespace fs = std::filesystem;

namespace {

int sh(const std::string& cmd) {
  const int status = std::system(cmd.c_str());
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

bool non_empty(const fs::path& p) {
  std::error_code ec;
  return fs::is_regular_file(p, ec) && fs::file_size(p, ec) > 100;
}

}  // namespace

TEST_CASE("sim::plot: scripts/plot draws every figure kind as PNG and SVG", "[plot]") {
  if (!ringsched::plotting_available()) {
    WARN("skipped: /usr/bin/python3 with matplotlib not found (apt-get install python3-matplotlib)");
    return;
  }
  const fs::path d = fs::temp_directory_path() / ("ringsched-test-plot-" + std::to_string(::getpid()));
  fs::remove_all(d);
  const std::string bin = RINGSCHED_BINARY;
  const std::string fx = std::string(RINGSCHED_TEST_DIR) + "/fixtures/";
  const std::string quiet = " >/dev/null 2>&1";
  REQUIRE(sh(bin + " simulate --config " + fx + "sweep/tiny-base.json --out " + (d / "data").string() + quiet) == 0);
  REQUIRE(sh(bin + " sweep --quiet --config " + fx + "sweep/tiny-sweep.json --out " + (d / "sweep").string() + quiet) ==
          0);
  fs::copy_file(d / "sweep" / "sweep.json", d / "data" / "sweep.json");
  fs::copy_file(fx + "plot/fit-plot.json", d / "data" / "fit-plot.json");
  REQUIRE(ringsched::run_plot_script((d / "data").string(), (d / "plots").string()) == 0);
  for (const char* name : {"table3", "jct_cdf", "timeline_mid", "sweep_mean_jct_s_vs_load",
                           "sweep_mean_jct_s_vs_restart.cost_s", "fit-resnet110"}) {
    for (const char* ext : {".png", ".svg"}) {
      INFO(name << ext);
      CHECK(non_empty(d / "plots" / (std::string(name) + ext)));
    }
  }
  // The scale study's log-log figure (bench/scale-curve.sh output).
  const std::string py = "/usr/bin/python3 " + ringsched::plot_script_path();
  REQUIRE(sh(py + " scale " + fx + "plot/scale.csv -o " + (d / "scale").string() + quiet) == 0);
  CHECK(non_empty(d / "scale" / "scale.png"));
  CHECK(non_empty(d / "scale" / "scale.svg"));
  CHECK(sh(py + " scale " + fx + "plot/fit-plot.json -o " + (d / "x").string() + quiet) == 2);
  // Bad input: exit 2 with a message, not a traceback.
  CHECK(sh("/usr/bin/python3 " + ringsched::plot_script_path() + " sweep " + (d / "data" / "fit-plot.json").string() +
           " -o " + (d / "x").string() + quiet) == 2);
  fs::remove_all(d);
}
