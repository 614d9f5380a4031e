// test/sim/experiments/test_plot.cpp — scripts/plot draws PNG and SVG files from small outputs (a one-level experiment,
// a tiny sweep, the fit-plot fixture, a `ringsched fit` output), the ratio-to-eight figure, and bad input as one line
// with exit 2; skipped when /usr/bin/python3 cannot import matplotlib.
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <filesystem>
#include <string>

#include "sim/experiments/plot.h"
#include "test/sim/cli_util.h"

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

// A fresh scratch folder per test case and process.
fs::path scratch(const std::string& tag) {
  const fs::path d = fs::temp_directory_path() / ("ringsched-test-plot-" + tag + "-" + std::to_string(::getpid()));
  fs::remove_all(d);
  fs::create_directories(d);
  return d;
}

// The script run as --plot runs it: /usr/bin/python3, the metric table from the binary under test.
std::string plot_cmd() {
  return std::string("RINGSCHED_BIN=") + RINGSCHED_BINARY + " /usr/bin/python3 " + ringsched::plot_script_path();
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
  for (const char* name : {"table3", "ratio_to_eight", "jct_cdf", "timeline_mid", "sweep_mean_jct_s_vs_load",
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

TEST_CASE("sim::plot: table3 draws the ratio to eight next to the JCT bars", "[plot]") {
  if (!ringsched::plotting_available()) {
    WARN("skipped: /usr/bin/python3 with matplotlib not found (apt-get install python3-matplotlib)");
    return;
  }
  const fs::path d = scratch("ratio");
  const std::string bin = RINGSCHED_BINARY;
  const std::string fx = std::string(RINGSCHED_TEST_DIR) + "/fixtures/";
  const std::string quiet = " >/dev/null 2>&1";
  REQUIRE(sh(bin + " simulate --config " + fx + "sweep/tiny-base.json --out " + (d / "data").string() + quiet) == 0);
  REQUIRE(sh(plot_cmd() + " table3 " + (d / "data" / "summary.json").string() + " -o " + (d / "plots").string() +
             quiet) == 0);
  for (const char* name : {"table3", "ratio_to_eight"}) {
    for (const char* ext : {".png", ".svg"}) {
      INFO(name << ext);
      CHECK(non_empty(d / "plots" / (std::string(name) + ext)));
    }
  }
  // Written under a temporary name and renamed: nothing else is left in the folder.
  int files = 0;
  for (const auto& e : fs::directory_iterator(d / "plots")) {
    INFO(e.path().string());
    CHECK(e.path().filename().string().rfind('.', 0) != 0);
    ++files;
  }
  CHECK(files == 4);
  fs::remove_all(d);
}

TEST_CASE("sim::plot: plot fit reads what ringsched fit writes", "[plot]") {
  if (!ringsched::plotting_available()) {
    WARN("skipped: /usr/bin/python3 with matplotlib not found (apt-get install python3-matplotlib)");
    return;
  }
  const fs::path d = scratch("fit");
  const std::string bin = RINGSCHED_BINARY;
  const std::string csv = std::string(RINGSCHED_TEST_DIR) + "/fixtures/heldout/points-eq5.csv";
  const std::string quiet = " >/dev/null 2>&1";
  // Probes 1, 2, 4 GPUs: the other points are predicted (quality.unprofiled) and plotted against their measurements.
  REQUIRE(sh(bin + " fit --csv " + csv + " --model-size 1.7 --probes 1,2,4 --out " + (d / "fit.json").string() +
             quiet) == 0);
  REQUIRE(sh(plot_cmd() + " fit " + (d / "fit.json").string() + " -o " + (d / "plots").string() + quiet) == 0);
  CHECK(non_empty(d / "plots" / "fit-fitted.png"));
  CHECK(non_empty(d / "plots" / "fit-fitted.svg"));
  // `auto` picks the fit output up from the folder too.
  REQUIRE(sh(plot_cmd() + " auto " + d.string() + " -o " + (d / "auto").string() + quiet) == 0);
  CHECK(non_empty(d / "auto" / "fit-fitted.png"));
  // A fit on every point predicts nothing: a one-line message, exit 2.
  REQUIRE(sh(bin + " fit --csv " + csv + " --model-size 1.7 --out " + (d / "all.json").string() + quiet) == 0);
  CHECK(sh(plot_cmd() + " fit " + (d / "all.json").string() + " -o " + (d / "x").string() + quiet) == 2);
  fs::remove_all(d);
}

TEST_CASE("sim::plot: bad input is one line on stderr and exit 2, never a traceback", "[plot]") {
  if (!ringsched::plotting_available()) {
    WARN("skipped: /usr/bin/python3 with matplotlib not found (apt-get install python3-matplotlib)");
    return;
  }
  const fs::path d = scratch("bad");
  const std::string bin = RINGSCHED_BINARY;
  const std::string fx = std::string(RINGSCHED_TEST_DIR) + "/fixtures/";
  REQUIRE(sh(bin + " simulate --config " + fx + "sweep/tiny-base.json --out " + (d / "data").string() +
             " >/dev/null 2>&1") == 0);
  {
    std::ofstream(d / "truncated.json") << "{\"cells\": [";
    std::ofstream(d / "malformed.json") << R"({"cells": [{"level": "a"}], "levels": [{"name": "a"}], "strategies": 1})";
  }
  const std::string summary = (d / "data" / "summary.json").string();
  const std::string out = " -o " + (d / "x").string();
  for (const std::string& args :
       {"table3 " + summary + " --metric unknown", "sweep " + summary + " --metric unknown", "bogus " + summary,
        "table3 " + (d / "missing.json").string(), "table3 " + (d / "truncated.json").string(),
        "table3 " + (d / "malformed.json").string(), "cdf " + summary, "fit " + summary,
        "table3 " + summary + " --formats png,nope"}) {
    INFO(args);
    const fs::path err = d / "stderr.txt";
    CHECK(sh(plot_cmd() + " " + args + out + " >/dev/null 2>" + err.string()) == 2);
    const std::string text = ringsched::test::read_whole_file(err);
    CHECK(text.find("Traceback") == std::string::npos);
    CHECK(text.rfind("scripts/plot: ", 0) == 0);
    CHECK(std::count(text.begin(), text.end(), '\n') == 1);
  }
  fs::remove_all(d);
}
