// test/sim/cli/test_cli_vc.cpp — cluster.virtual_clusters through the `ringsched` binary: a Philly job log with VCs
// replays under fifo and srtf, the same config gives the same bytes, and bad input (a row of an unknown VC or larger
// than its VC, VCs larger than the cluster, a missing VC file, a strategy that does not queue per VC, generated jobs)
// exits 2 with one line naming the file and the JSON path or trace row.
#include <catch2/catch.hpp>

#include <filesystem>
#include <string>

#include "test/sim/cli_util.h"

using namespace ringsched;
using Catch::Contains;

namespace {

// One Philly job log record: `gpus` GPUs on one server from `start` to `end` (minutes after 10:00).
std::string vc_cli_job(const std::string& id, const std::string& vc, int submit_min, int end_min, int gpus) {
  std::string list;
  for (int g = 0; g < gpus; ++g)
    list += (g > 0 ? ", " : "") + std::string("\"gpu") + std::to_string(g) + "\"";
  const auto at = [](int m) {
    const int h = 10 + m / 60;
    const int mm = m % 60;
    return "\"2017-10-03 " + std::to_string(h) + ":" + (mm < 10 ? "0" : "") + std::to_string(mm) + ":00\"";
  };
  return R"({"status": "Pass", "vc": ")" + vc + R"(", "jobid": ")" + id + R"(", "user": "u", "submitted_time": )" +
         at(submit_min) + R"(, "attempts": [{"start_time": )" + at(submit_min) + R"(, "end_time": )" + at(end_min) +
         R"(, "detail": [{"ip": "m1", "gpus": [)" + list + "]}]}]}";
}

// A temp dir with log.json (5 jobs in VCs vcA and vcB) and cfg.json: 4 nodes x 8 GPUs, vcA and vcB 2 nodes each.
struct VcCliFiles {
  test::TempDir dir;
  std::string cfg = dir / "cfg.json";
  explicit VcCliFiles(
      const std::string& vcs = R"({"table": [{"name": "vcA", "nodes": 2}, {"name": "vcB", "nodes": 2}]})",
      const std::string& extra_row = "", const std::string& strategies = R"(["fifo", "srtf"])") {
    std::string log = "[\n" + vc_cli_job("app_0", "vcA", 0, 60, 8) + ",\n" + vc_cli_job("app_1", "vcA", 5, 20, 8) +
                      ",\n" + vc_cli_job("app_2", "vcB", 6, 30, 4) + ",\n" + vc_cli_job("app_3", "vcA", 7, 9, 2) +
                      ",\n" + vc_cli_job("app_4", "vcB", 8, 50, 16);
    if (!extra_row.empty()) log += ",\n" + extra_row;
    test::write_whole_file(dir / "log.json", log + "\n]\n");
    test::write_whole_file(cfg, R"({"cluster": {"nodes": 4, "gpus_per_node": 8, "virtual_clusters": )" + vcs +
                                    R"(}, "workload": {"catalog": "paper", "trace": {"format": "philly_log", "file": )"
                                    R"("log.json"}}, "strategies": )" +
                                    strategies + R"(, "seeds": 1})");
  }
};

test::CliResult vc_cli_simulate(const VcCliFiles& f, const std::string& out) {
  return test::run_cli("simulate --config " + test::shell_quote(f.cfg) + " --quiet --out " + test::shell_quote(out));
}

void check_vc_cli_bad(const VcCliFiles& f, const std::string& expected) {
  const test::CliResult v = test::run_cli("validate --config " + test::shell_quote(f.cfg));
  CHECK(v.code == 2);
  CHECK_THAT(v.err, Contains(expected));
  const test::CliResult s = vc_cli_simulate(f, f.dir / "out");
  CHECK(s.code == 2);
  CHECK_THAT(s.err, Contains(expected));
  CHECK_FALSE(std::filesystem::exists(f.dir.path() / "out"));
}

}  // namespace

TEST_CASE("sim::cli: a Philly log with virtual clusters replays per VC, the same bytes every time", "[sim][cli][vc]") {
  const VcCliFiles f;
  const test::CliResult v = test::run_cli("validate --config " + test::shell_quote(f.cfg));
  CHECK(v.code == 0);
  CHECK_THAT(v.out, Contains("32 GPUs (4 nodes x 8, 2 virtual clusters (4 nodes), placement consolidate)"));
  const test::CliResult a = vc_cli_simulate(f, f.dir / "a");
  INFO(a.err);
  REQUIRE(a.code == 0);
  const test::CliResult b = vc_cli_simulate(f, f.dir / "b");
  REQUIRE(b.code == 0);
  const std::string jobs = test::read_whole_file(f.dir.path() / "a" / "jobs.csv");
  CHECK_FALSE(jobs.empty());
  CHECK(jobs == test::read_whole_file(f.dir.path() / "b" / "jobs.csv"));
  CHECK(test::read_whole_file(f.dir.path() / "a" / "events.csv") ==
        test::read_whole_file(f.dir.path() / "b" / "events.csv"));
  // The `all` list on a VC cluster: only strategies that queue per VC.
  const test::CliResult all = test::run_cli("simulate --config " + test::shell_quote(f.cfg) +
                                            " --quiet --strategies all --out " + test::shell_quote(f.dir / "all"));
  INFO(all.err);
  CHECK(all.code == 0);
}

TEST_CASE("sim::cli: bad virtual clusters exit 2 naming the file and the JSON path or trace row", "[sim][cli][vc]") {
  SECTION("a row of an unknown VC") {
    const VcCliFiles f(R"({"table": [{"name": "vcA", "nodes": 2}, {"name": "vcB", "nodes": 2}]})",
                       vc_cli_job("app_9", "vcZ", 9, 10, 1));
    check_vc_cli_bad(f, "cfg.json: workload.trace.file: " + (f.dir / "log.json") +
                            ":7: job 'app_9': virtual cluster 'vcZ' is not in cluster.virtual_clusters "
                            "(" +
                            f.cfg + ": cluster.virtual_clusters.table: vcA, vcB)");
  }
  SECTION("a row asking more GPUs than its VC") {
    const VcCliFiles f(R"({"table": [{"name": "vcA", "nodes": 2}, {"name": "vcB", "nodes": 1}]})");
    check_vc_cli_bad(f, ":6: job 'app_4' asks 16 GPUs; its virtual cluster 'vcB' has 8");
  }
  SECTION("VCs larger than the cluster") {
    const VcCliFiles f(R"({"table": [{"name": "vcA", "nodes": 3}, {"name": "vcB", "nodes": 2}]})");
    check_vc_cli_bad(f, "cfg.json: cluster.virtual_clusters.table: the VCs hold 5 nodes, more than cluster.nodes (4)");
  }
  SECTION("a missing VC file") {
    const VcCliFiles f(R"({"file": "vcs.csv"})");
    check_vc_cli_bad(f, "cfg.json: cluster.virtual_clusters.file: ");
  }
  SECTION("a VC of no nodes") {
    const VcCliFiles f(R"({"table": [{"name": "vcA", "nodes": 0}]})");
    check_vc_cli_bad(f, "cfg.json: cluster.virtual_clusters.table[0].nodes");
  }
  SECTION("a strategy that does not queue per VC") {
    const VcCliFiles f(R"({"table": [{"name": "vcA", "nodes": 2}, {"name": "vcB", "nodes": 2}]})", "", R"(["eight"])");
    check_vc_cli_bad(f, "strategy 'eight' does not queue jobs per virtual cluster");
  }
}

TEST_CASE("sim::cli: virtual clusters need a trace whose jobs name them", "[sim][cli][vc]") {
  test::TempDir dir;
  const std::string cfg = dir / "cfg.json";
  test::write_whole_file(cfg, R"({"cluster": {"nodes": 4, "gpus_per_node": 8, "virtual_clusters":
      {"table": [{"name": "vcA", "nodes": 2}]}}, "workload": {"catalog": "paper", "jobs": 5, "arrival": {"process": "poisson"}},
      "levels": [{"name": "one", "load": 0.5}],
      "strategies": ["fifo"], "seeds": 1})");
  const test::CliResult v = test::run_cli("validate --config " + test::shell_quote(cfg));
  CHECK(v.code == 2);
  CHECK_THAT(v.err, Contains("cfg.json: cluster.virtual_clusters: needs a workload trace whose jobs name their "
                             "virtual cluster"));
}

TEST_CASE("sim::cli: strategies says which strategies run on virtual clusters", "[sim][cli][vc]") {
  const test::CliResult r = test::run_cli("strategies");
  REQUIRE(r.code == 0);
  const std::string line = "    On virtual clusters (cluster.virtual_clusters): one queue per VC, on its nodes.\n";
  for (const char* name : {"\nfifo  (", "\nsrtf  (", "\nsjf  (", "\nqssf  ("}) {
    const std::size_t at = r.out.find(name);
    REQUIRE(at != std::string::npos);
    const std::size_t next = r.out.find("\n", r.out.find("\n", at + 1) + 1);  // after the description line
    CHECK(r.out.compare(next + 1, line.size(), line) == 0);
  }
  std::size_t count = 0;
  for (std::size_t at = r.out.find(line); at != std::string::npos; at = r.out.find(line, at + 1))
    ++count;
  CHECK(count == 4);
}
