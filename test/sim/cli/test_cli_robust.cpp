// test/sim/cli/test_cli_robust.cpp — the command line against hostile sizes and a hostile system (issue 33): 50,000
// digits in a number flag, a deeply nested measurement file, a trace line of megabytes, and a system that refuses
// every new thread; each is one clear line and an exit code, never a crash.
#include <catch2/catch.hpp>

#include <sys/wait.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "test/sanitized.h"
#include "test/sim/cli_util.h"

using Catch::Matchers::Contains;
using Catch::Matchers::StartsWith;
using ringsched::test::CliResult;
using ringsched::test::run_cli;
using ringsched::test::shell_quote;
using ringsched::test::TempDir;

namespace {

const std::filesystem::path kRobustExamples =
    std::filesystem::path(RINGSCHED_TEST_DIR) / ".." / "workloads" / "examples";

std::string robust_tiny_config() {
  return shell_quote((kRobustExamples / "tiny-2node.json").string());
}

}  // namespace

TEST_CASE("sim::cli: 50,000 digits in a number flag are refused naming the flag, not crashed on", "[cli][bounded]") {
  const std::string digits(50000, '7');
  const std::string sim = "simulate --config " + robust_tiny_config() + " ";
  const std::string points = shell_quote(std::string(RINGSCHED_TEST_DIR) + "/fixtures/heldout/points-eq5.csv");
  const struct {
    std::string args;
    std::string flag;
  } cases[] = {
      {sim + "--seeds " + digits, "--seeds"},
      {sim + "--jobs " + digits, "--jobs"},
      {sim + "--threads " + digits, "--threads"},
      {sim + "--restart-cost " + digits, "--restart-cost"},
      {sim + "--restart-cost 0." + digits, "--restart-cost"},
      {"table3 --noise-sigma " + digits, "--noise-sigma"},
      {"table3 --train-runs " + digits, "--train-runs"},
      {"fit --csv " + points + " --model-size " + digits, "--model-size"},
  };
  for (const auto& c : cases) {
    INFO(c.flag);
    const CliResult r = run_cli(c.args);
    CHECK(r.code == 2);
    CHECK_THAT(r.err, Contains(c.flag + ": '7777") || Contains(c.flag + ": '0.777"));
    CHECK_THAT(r.err, Contains("characters long; a number here takes at most 64"));
    CHECK(r.err.size() < 400);  // the value is quoted cut short
  }
}

TEST_CASE("sim::cli: a number flag of 64 characters is read, 65 are refused with the length", "[cli][bounded]") {
  const std::string sim = "simulate --config " + robust_tiny_config() + " --seeds 1 --jobs 4 --quiet --restart-cost ";
  const std::string v64 = std::string(61, '0') + "2.5";  // 2.5 s, written in 64 characters
  REQUIRE(v64.size() == 64);
  CHECK(run_cli(sim + v64).code == 0);
  const CliResult r = run_cli(sim + "0" + v64);
  CHECK(r.code == 2);
  CHECK_THAT(r.err, Contains("--restart-cost: '000") && Contains("is 65 characters long"));
  // check --tolerance reads its number by hand: the same cap.
  const CliResult tol =
      run_cli("check --baseline a.json --results b.json --tolerance mean_jct_s=" + std::string(50000, '1'));
  CHECK(tol.code == 2);
  CHECK_THAT(tol.err, Contains("--tolerance: 'mean_jct_s=1111") && Contains("50000 characters long; at most 64"));
}

TEST_CASE("sim::cli: fit --measurement: a file nested 100,000 deep is refused with file:line (exit 2)",
          "[cli][bounded]") {
  TempDir tmp;
  const std::string deep = tmp / "deep.json";
  // A complete file but for "version": the reader quoted the wrong-typed value, dumping it recursively (a crash).
  std::ofstream(deep) << R"({"schema": "ringsched.measurement", "version": )" << std::string(100000, '[')
                      << std::string(100000, ']')
                      << R"(, "machine": {"hostname": "h", "cpu_model": "c", "device": "cpu"}, "backend": "cpu",
    "world_size": 1, "nodes": 1, "hostnames": ["h"], "model": {"layers": [2, 2], "parameters": 6, "gradient_bytes": 24},
    "settings": {"warmup": 0, "repeats": 1, "allreduce_algorithm": "default"},
    "compute": [{"per_worker_batch": 8, "seconds": {"mean": 1, "min": 1, "max": 1, "repeats": [1]}}],
    "allreduce": [], "timestamp": "t", "command_line": "c"})";
  const CliResult r = run_cli("fit --measurement " + shell_quote(deep));
  CHECK(r.code == 2);
  CHECK_THAT(r.err, StartsWith("ringsched: error: " + deep + ":1:") && Contains("nested deeper than 128 levels"));
}

TEST_CASE("sim::cli: simulate: a trace line of megabytes is refused with file:line (exit 2), not held whole",
          "[cli][bounded]") {
  TempDir tmp;
  const std::string row = "ResNet-18 (batch size 64)\tcmd\t--num_steps\tFalse\t100\t0\t1\n";
  std::ofstream(tmp / "long.trace", std::ios::binary) << row << std::string(4u << 20, 'x') << "\n" << row;
  std::ofstream(tmp / "cfg.json") << R"({"cluster": {"pools": [{"gpu_type": "v100", "nodes": 2, "gpus_per_node": 1}]},
    "workload": {"catalog": "gavel", "trace": {"file": "long.trace", "format": "gavel"}},
    "strategies": ["gavel_fifo_perf"], "scheduler": {"interval_s": 360}, "seeds": 1})";
  const CliResult r = run_cli("simulate --quiet --config " + shell_quote(tmp / "cfg.json"));
  CHECK(r.code == 2);
  CHECK_THAT(r.err, Contains("long.trace:2: a line longer than the limit of 1048576 bytes"));
}

TEST_CASE("sim::cli: simulate: a system that refuses every new thread gets the same results on the calling thread",
          "[cli][threads]") {
  if (ringsched::test::kSanitized) return;  // the sanitizers' shadow memory needs more address space than the cap
  // glibc gives each new thread a stack of the stack limit: at 4 GB of stack under a 3 GB address-space cap, every
  // thread the run asks for (the interrupt watcher, 4 replicate workers) is refused with EAGAIN, as on a machine at
  // its process or memory limit; the main thread's stack grows on demand and is unaffected.
  const std::string args = "simulate --config " + robust_tiny_config() + " --seeds 3 --format csv";
  const CliResult normal = run_cli(args + " --threads 4");
  REQUIRE(normal.code == 0);
  TempDir tmp;
  const std::string out = tmp / "stdout";
  const std::string err = tmp / "stderr";
  const std::string cmd = "ulimit -s 4000000 && ulimit -v 3000000 && exec " + shell_quote(RINGSCHED_BINARY) + " " +
                          args + " --threads 4 >" + shell_quote(out) + " 2>" + shell_quote(err) + " </dev/null";
  const int status = std::system(("bash -c " + shell_quote(cmd)).c_str());
  const std::string err_text = ringsched::test::read_whole_file(err);
  INFO(err_text);
  REQUIRE(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 0);
  CHECK(ringsched::test::read_whole_file(out) == normal.out);
  CHECK_THAT(err_text, Contains("ringsched: warning: the system refused a thread to watch for interrupts"));
  CHECK_THAT(err_text,
             Contains("ringsched: warning: the system refused a new thread") && Contains("continuing on 1 of the"));
}
