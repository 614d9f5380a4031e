// test/sim/experiments/test_plot_series.cpp — the `series` figure (scripts/plot_series.py through scripts/plot):
// `simulate --series --plot` draws series_<level>.png/.svg; the figure holds one utilisation and one queue line per
// strategy with series.csv's values; a file without series.csv's columns is one line and exit 2. Skipped when
// /usr/bin/python3 cannot import matplotlib.
#include <sys/wait.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <string>

#include "sim/experiments/plot.h"
#include "test/sim/cli_util.h"

namespace fs = std::filesystem;
using Catch::Matchers::Contains;
using ringsched::test::CliResult;
using ringsched::test::read_whole_file;
using ringsched::test::shell_quote;
using ringsched::test::TempDir;

namespace {

CliResult series_plot_sh(const std::string& cmd) {
  TempDir tmp;
  const std::string out = tmp / "stdout";
  const std::string err = tmp / "stderr";
  const int status = std::system((cmd + " >" + shell_quote(out) + " 2>" + shell_quote(err) + " </dev/null").c_str());
  CliResult r;
  r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  r.out = read_whole_file(out);
  r.err = read_whole_file(err);
  return r;
}

bool series_plot_file(const fs::path& p) {
  std::error_code ec;
  return fs::is_regular_file(p, ec) && fs::file_size(p, ec) > 100;
}

const std::string kSeriesConfig = std::string(RINGSCHED_TEST_DIR) + "/fixtures/metrics/queue-cluster.json";

}  // namespace

TEST_CASE("sim::plot: simulate --series --plot draws utilisation and queue length over time, one line per strategy",
          "[plot][series]") {
  if (!ringsched::plotting_available()) {
    WARN("skipped: /usr/bin/python3 with matplotlib not found (apt-get install python3-matplotlib)");
    return;
  }
  TempDir tmp;
  const CliResult run =
      series_plot_sh(shell_quote(RINGSCHED_BINARY) + " simulate --quiet --config " + shell_quote(kSeriesConfig) +
                     " --series 100 --out " + shell_quote(tmp / "o") + " --plot " + shell_quote(tmp / "plots"));
  REQUIRE(run.code == 0);
  CHECK(series_plot_file(tmp.path() / "plots" / "series_trace.png"));
  CHECK(series_plot_file(tmp.path() / "plots" / "series_trace.svg"));
  // The figure's lines hold series.csv's values (srtf's queue: 0, 1, 1, 2, 1, 1, 1, then 0; fifo's utilisation 1
  // until 1000 s).
  const std::string scripts = fs::path(ringsched::plot_script_path()).parent_path().string();
  const std::string code = "import sys\nsys.path.insert(0, r'" + scripts +
                           "')\n"
                           "import csv, plot_series\n"
                           "figs = []\n"
                           "def save(fig, out_dir, name, formats):\n"
                           "    figs.append((name, fig)); return [name]\n"
                           "def fail(msg):\n"
                           "    raise SystemExit(msg)\n"
                           "def read(p):\n"
                           "    return list(csv.DictReader(open(p)))\n"
                           "def uniq(v):\n"
                           "    out = []\n"
                           "    [out.append(x) for x in v if x not in out]\n"
                           "    return out\n"
                           "plot_series.plot_series(r'" +
                           (tmp / "o/series.csv") +
                           "', 'x', ['png'], (read, save, fail, uniq, str))\n"
                           "name, fig = figs[0]\n"
                           "ax_u, ax_q = fig.axes[:2]\n"
                           "print(name, [l.get_label() for l in ax_u.get_lines()])\n"
                           "q = [int(y) for y in ax_q.get_lines()[1].get_ydata()]\n"
                           "print('srtf queue', q[:8], q[-1])\n"
                           "u = list(ax_u.get_lines()[0].get_ydata())\n"
                           "print('fifo util', u[:10], u[-1])\n";
  std::ofstream(tmp / "t.py") << code;
  const CliResult py = series_plot_sh("/usr/bin/python3 " + shell_quote(tmp / "t.py"));
  INFO(py.err);
  REQUIRE(py.code == 0);
  CHECK_THAT(py.out, Contains("series_trace ['fifo', 'srtf[oracle]']"));
  CHECK_THAT(py.out, Contains("srtf queue [0, 1, 1, 2, 1, 1, 1, 0] 0"));
  CHECK_THAT(py.out, Contains("fifo util [1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0] 0.0"));
}

TEST_CASE("sim::plot: scripts/plot series refuses a file without series.csv's columns in one line, exit 2",
          "[plot][series]") {
  if (!ringsched::plotting_available()) {
    WARN("skipped: /usr/bin/python3 with matplotlib not found (apt-get install python3-matplotlib)");
    return;
  }
  TempDir tmp;
  std::ofstream(tmp / "jobs.csv") << "level,strategy,seed,job_id\nx,fifo,1,0\n";
  const CliResult r = series_plot_sh("/usr/bin/python3 " + shell_quote(ringsched::plot_script_path()) + " series " +
                                     shell_quote(tmp / "jobs.csv") + " -o " + shell_quote(tmp / "p"));
  CHECK(r.code == 2);
  CHECK_THAT(r.err, Contains("no series.csv rows (need columns level, strategy, seed, time_s"));
  CHECK(r.err.find('\n') == r.err.size() - 1);
}
