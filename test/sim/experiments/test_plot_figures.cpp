// test/sim/experiments/test_plot_figures.cpp — the figures of issue 33: a distinct fixed colour for every registered
// strategy, no whisker from one seed and no bar without a seed, numeric axes for loads and rates, CDFs of the
// measured window, --time-unit, and `simulate --plot` (with matplotlib, and without it: exit 2 naming the package,
// results written). Plot cases are skipped when /usr/bin/python3 cannot import matplotlib.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>

#include "sim/experiments/plot.h"
#include "strategies/registry.h"
#include "test/sim/cli_util.h"

namespace fs = std::filesystem;
using ringsched::test::CliResult;
using ringsched::test::run_cli;
using ringsched::test::shell_quote;
using ringsched::test::TempDir;

namespace {

// Runs a shell command line, capturing exit code, stdout and stderr.
CliResult run_sh(const std::string& cmd) {
  TempDir tmp;
  const std::string out = tmp / "stdout";
  const std::string err = tmp / "stderr";
  const int status = std::system((cmd + " >" + shell_quote(out) + " 2>" + shell_quote(err) + " </dev/null").c_str());
  CliResult r;
  r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  r.out = ringsched::test::read_whole_file(out);
  r.err = ringsched::test::read_whole_file(err);
  return r;
}

std::string plot_script() {
  return "/usr/bin/python3 " + shell_quote(ringsched::plot_script_path());
}

// Python run with scripts/plot loaded as a module `P` (and its folder on sys.path for plot_style).
CliResult python_with_plot(const std::string& code) {
  const std::string script = ringsched::plot_script_path();
  const std::string prelude =
      "import importlib.machinery, importlib.util, os, sys\n"
      "path = r'" +
      script +
      "'\nsys.path.insert(0, os.path.dirname(path))\n"
      "loader = importlib.machinery.SourceFileLoader('P', path)\n"
      "spec = importlib.util.spec_from_loader('P', loader)\n"
      "P = importlib.util.module_from_spec(spec)\n"
      "loader.exec_module(P)\n";
  TempDir tmp;
  const std::string file = tmp / "t.py";
  std::ofstream(file) << prelude << code << "\n";
  return run_sh("RINGSCHED_BIN=" + shell_quote(RINGSCHED_BINARY) + " /usr/bin/python3 " + shell_quote(file));
}

const std::string kFixtures = std::string(RINGSCHED_TEST_DIR) + "/fixtures/";

}  // namespace

TEST_CASE("sim::plot: every registered strategy has a fixed colour of its own", "[plot][palette]") {
  if (!ringsched::plotting_available()) {
    WARN("skipped: /usr/bin/python3 with matplotlib not found (apt-get install python3-matplotlib)");
    return;
  }
  const auto names = ringsched::strategy_names();
  REQUIRE(names.size() >= 16);
  std::string list;
  for (const auto& n : names)
    list += (list.empty() ? "" : ",") + n;
  // `srtf,tiresias` first: they shared a colour (the old palette repeated after ten).
  const CliResult r = run_sh(plot_script() + " palette " + shell_quote("srtf,tiresias," + list));
  REQUIRE(r.code == 0);
  std::istringstream in(r.out);
  std::set<std::string> colours;
  std::set<std::string> seen;
  std::string name, colour, marker, hatch, kind;
  while (in >> name >> colour >> marker >> hatch >> kind) {
    INFO(name << " " << colour);
    if (!seen.insert(name).second) continue;  // srtf and tiresias are listed twice
    CHECK(kind == "fixed");
    CHECK(colour.size() == 7);
    CHECK(colours.insert(colour).second);
  }
  CHECK(seen.size() == names.size());
  CHECK(colours.size() == names.size());
  // Names outside the registry: colours left over, the same for a name whatever else is drawn with it.
  const CliResult a = run_sh(plot_script() + " palette " + shell_quote("eight,my_py,precompute[oracle]"));
  const CliResult b = run_sh(plot_script() + " palette " + shell_quote("precompute[oracle],other"));
  REQUIRE(a.code == 0);
  REQUIRE(b.code == 0);
  const auto colour_of = [](const std::string& out, const std::string& n) {
    const auto pos = out.find(n + " ");
    return pos == std::string::npos ? std::string() : out.substr(pos + n.size() + 1, 7);
  };
  CHECK(colour_of(a.out, "precompute[oracle]") == colour_of(b.out, "precompute[oracle]"));
  CHECK(a.out.find("my_py ") != std::string::npos);
  CHECK(colours.count(colour_of(a.out, "my_py")) == 0);
  CHECK(colours.count(colour_of(a.out, "precompute[oracle]")) == 0);
  CHECK(a.out.find("by-name") != std::string::npos);
}

TEST_CASE("sim::plot: no whisker from one seed, no bar without one, loads and rates on numeric axes", "[plot]") {
  if (!ringsched::plotting_available()) {
    WARN("skipped: /usr/bin/python3 with matplotlib not found (apt-get install python3-matplotlib)");
    return;
  }
  const CliResult r = python_with_plot(
      "print(P._cell_numbers({'mean': 120.0, 'sd': 0.0, 'ci95': 0.0, 'n': 1}, 1 / 60))\n"
      "print(P._cell_numbers({'mean': 0.0, 'sd': 0.0, 'ci95': 0.0, 'n': 0}, 1 / 60))\n"
      "print(P._cell_numbers({'mean': None, 'sd': None, 'ci95': None, 'n': 0}, 1 / 60))\n"
      "print(P._cell_numbers({'mean': 120.0, 'sd': 6.0, 'ci95': 30.0, 'n': 3}, 1 / 60))\n"
      "lv = lambda *levels: {'levels': [dict(zip(('name', 'load', 'rate_per_hour'), l)) for l in levels]}\n"
      "print(P.level_axis(lv(('light', 0.3, 4.0), ('heavy', 0.9, 12.0), ('extreme', 1.5, 20.0))))\n"
      "print(P.level_axis(lv(('slow', 0, 5.0), ('fast', 0, 20.0))))\n"
      "print(P.level_axis(lv(('trace', 15.8, 0))))\n"
      "print(P.level_axis(lv(('a', 0.5, 9.0), ('b', 0, 20.0))))\n");
  INFO(r.err);
  REQUIRE(r.code == 0);
  CHECK(r.out ==
        "(2.0, None)\n"
        "(None, None)\n"
        "(None, None)\n"
        "(2.0, 0.5)\n"
        "([0.3, 0.9, 1.5], 'offered load', True)\n"
        "([5.0, 20.0], 'arrival rate (jobs/h)', True)\n"
        "([0], 'contention level', False)\n"
        "([0, 1], 'contention level', False)\n");
}

TEST_CASE("sim::plot: the JCT CDFs take the measured window only, and say so", "[plot]") {
  if (!ringsched::plotting_available()) {
    WARN("skipped: /usr/bin/python3 with matplotlib not found (apt-get install python3-matplotlib)");
    return;
  }
  const CliResult r = python_with_plot(
      "row = lambda i, m: {'level': 'a', 'strategy': 'eight', 'seed': '1', 'job_id': str(i), 'jct_s': '60',"
      " 'measured': m}\n"
      "rows = [row(i, '1' if 2 <= i < 5 else '0') for i in range(8)]\n"
      "used, which = P.measured_rows(rows)\n"
      "print(sorted(int(r['job_id']) for r in used))\n"
      "print(which)\n"
      "print(P.measured_rows([row(i, '1') for i in range(3)])[1])\n"
      "old = [{k: v for k, v in row(i, '1').items() if k != 'measured'} for i in range(3)]\n"
      "print(len(P.measured_rows(old)[0]), P.measured_rows(old)[1])\n");
  INFO(r.err);
  REQUIRE(r.code == 0);
  CHECK(r.out ==
        "[2, 3, 4]\n"
        "measured window only (jobs 2..4, 3 of 8 jobs per run; warm-up and tail left out)\n"
        "every job (the whole run is measured)\n"
        "3 every job (this jobs.csv has no measured column)\n");
}

TEST_CASE("sim::cli: simulate --plot draws the figures and says where, --time-unit h prints hours", "[plot][cli]") {
  if (!ringsched::plotting_available()) {
    WARN("skipped: /usr/bin/python3 with matplotlib not found (apt-get install python3-matplotlib)");
    return;
  }
  TempDir d;
  const CliResult r = run_cli("simulate --quiet --time-unit h --config " + kFixtures + "sweep/tiny-base.json --out " +
                              (d / "data") + " --plot " + (d / "plots"));
  INFO(r.err);
  REQUIRE(r.code == 0);
  CHECK(r.out.find("(times in hours)") != std::string::npos);
  CHECK(r.err.find("ringsched: plots (PNG and SVG) in " + (d / "plots")) != std::string::npos);
  for (const char* name : {"table3", "ratio_to_eight", "jct_cdf", "timeline_mid"}) {
    INFO(name);
    CHECK(fs::is_regular_file(d.path() / "plots" / (std::string(name) + ".png")));
  }
  CHECK(ringsched::test::read_whole_file(d.path() / "data" / "table.csv")
            .rfind("level,load,rate_per_hour,strategy,"
                   "mean_jct_h,ci95_h,",
                   0) == 0);
}

TEST_CASE("sim::cli: simulate --plot without matplotlib exits 2 naming the package, results written", "[plot][cli]") {
  TempDir d;
  // RINGSCHED_PLOT_PYTHON stands for a machine whose /usr/bin/python3 has no matplotlib.
  const CliResult m =
      run_sh("RINGSCHED_PLOT_PYTHON=" + (d / "no-python") + " " + shell_quote(RINGSCHED_BINARY) +
             " simulate --quiet --config " + kFixtures + "sweep/tiny-base.json --plot " + (d / "plots2"));
  CHECK(m.code == 2);
  CHECK(m.err.find("apt-get install python3-matplotlib") != std::string::npos);
  CHECK(m.err.find("ringsched: error: ") == 0);
  CHECK(fs::is_regular_file(d.path() / "plots2" / "summary.json"));
  CHECK(fs::is_regular_file(d.path() / "plots2" / "table.csv"));
  CHECK_FALSE(fs::exists(d.path() / "plots2" / "table3.png"));
}

TEST_CASE("sim::cli: table3 --plot and sweep --plot without matplotlib exit 2 as simulate does", "[plot][cli]") {
  TempDir d;
  const std::string no_python = "RINGSCHED_PLOT_PYTHON=" + (d / "no-python") + " " + shell_quote(RINGSCHED_BINARY);
  const CliResult t = run_sh(no_python + " table3 --quiet --seeds 1 --jobs 6 --eval in-sample --plot " + (d / "t3"));
  CHECK(t.code == 2);
  CHECK(t.err.find("apt-get install python3-matplotlib") != std::string::npos);
  CHECK(fs::is_regular_file(d.path() / "t3" / "summary.json"));
  const CliResult w = run_sh(no_python + " sweep --quiet --config " + kFixtures + "sweep/tiny-sweep.json --out " +
                             (d / "sw") + " --plot " + (d / "swp"));
  CHECK(w.code == 2);
  CHECK(w.err.find("apt-get install python3-matplotlib") != std::string::npos);
  CHECK(fs::is_regular_file(d.path() / "sw" / "sweep.json"));
}

TEST_CASE("sim::cli: table3 --time-unit s prints and writes seconds, a bad unit is refused", "[cli][report]") {
  TempDir d;
  const CliResult r =
      run_cli("table3 --quiet --eval in-sample --seeds 2 --jobs 6 --threads 2 --time-unit s --out " + (d / "t3"));
  INFO(r.err);
  REQUIRE(r.code == 0);
  CHECK(r.out.find("Mean job completion time in seconds (") != std::string::npos);
  CHECK(ringsched::test::read_whole_file(d.path() / "t3" / "table.csv")
            .rfind("level,load,rate_per_hour,strategy,mean_jct_s,ci95_s,n,", 0) == 0);
  const CliResult bad = run_cli("table3 --time-unit d");
  CHECK(bad.code == 2);
  CHECK(bad.err.find("--time-unit") != std::string::npos);
}
