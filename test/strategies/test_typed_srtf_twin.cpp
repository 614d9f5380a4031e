// test/strategies/test_typed_srtf_twin.cpp — the C++ twin of the heterogeneity-aware SRTF written in Python
// (examples/python/typed_srtf.py), a test-only strategy run on test/fixtures/typed-srtf/config.json. Its JCTs are the
// golden files test/fixtures/golden/typed-srtf.{jobs,runs}.csv, which python/tests/test_typed.py checks the Python
// policy against: the same policy in both languages gives exactly the same runs (RINGSCHED_UPDATE_GOLDEN=1 rewrites).
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <limits>
#include <memory>
#include <string>
#include <tuple>
#include <vector>

#include "sim/engine/engine.h"
#include "sim/engine/metrics.h"
#include "sim/experiments/replicate.h"
#include "strategies/strategy.h"
#include "test/sim/cli_util.h"
#include "workloads/io/json_reader.h"
#include "workloads/io/number_text.h"

using namespace ringsched;

namespace {

// typed_srtf.py's TypedSrtf, line for line: afresh at every decision, jobs in order of believed remaining work / best
// believed throughput over the types at `gpus` GPUs (ties: arrival, id), each to the fastest type with room (ties:
// the pool listed first; types where it cannot run skipped), else 0.
class TypedSrtfTwin final : public Strategy {
 public:
  explicit TypedSrtfTwin(int gpus) : gpus_(gpus) {}
  [[nodiscard]] std::string name() const override { return "typed_srtf_twin"; }

  Decision decide(const Snapshot& s) override {
    Decision d = empty_decision(s);
    std::vector<int> free = pool_gpus(s);
    struct Entry {
      double left;
      double arrival;
      int id;
      std::size_t k;
      int need;
      std::vector<double> rates;
    };
    std::vector<Entry> plan;
    for (std::size_t k = 0; k < s.jobs.size(); ++k) {
      const JobView& v = s.jobs[k];
      const int need = std::max(v.pub->cls.min_gpus, std::min(gpus_, v.pub->cls.max_gpus));
      std::vector<double> rates;
      double best = -std::numeric_limits<double>::infinity();
      for (const PoolInfo& p : s.pools) {
        rates.push_back(v.belief->throughput_on(p.gpu_type, need, packed_nodes(need, p.gpus_per_node)));
        best = std::max(best, rates.back());
      }
      const double left = best > 0.0 ? believed_remaining(v) / best : std::numeric_limits<double>::infinity();
      plan.push_back({left, v.pub->arrival, v.pub->id, k, need, std::move(rates)});
    }
    std::sort(plan.begin(), plan.end(), [](const Entry& a, const Entry& b) {
      return std::tie(a.left, a.arrival, a.id) < std::tie(b.left, b.arrival, b.id);
    });
    for (const Entry& e : plan) {
      int chosen = -1;
      for (std::size_t p = 0; p < free.size(); ++p) {
        if (e.rates[p] > 0.0 && free[p] >= e.need &&
            (chosen < 0 || e.rates[p] > e.rates[static_cast<std::size_t>(chosen)]))
          chosen = static_cast<int>(p);
      }
      if (chosen < 0) continue;  // waits (0 GPUs)
      free[static_cast<std::size_t>(chosen)] -= e.need;
      d.jobs[e.k].gpus = e.need;
      d.jobs[e.k].pool = chosen;
    }
    return d;
  }

 private:
  int gpus_;
};

std::string twin_exact(double v) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  return buf;
}

// Compares (or with RINGSCHED_UPDATE_GOLDEN=1 rewrites) test/fixtures/golden/typed-srtf.<name>.
void check_twin_golden(const std::string& name, const std::string& text) {
  const auto path = std::filesystem::path(RINGSCHED_TEST_DIR) / "fixtures" / "golden" / ("typed-srtf." + name);
  const char* update = std::getenv("RINGSCHED_UPDATE_GOLDEN");
  if (update != nullptr && std::string(update) == "1") {
    std::ofstream(path, std::ios::binary) << text;
    WARN("rewrote " << path.string());
    return;
  }
  INFO(path.string() << " (set RINGSCHED_UPDATE_GOLDEN=1 to regenerate after an intended change)");
  REQUIRE(std::filesystem::exists(path));
  CHECK(ringsched::test::read_whole_file(path) == text);
}

}  // namespace

TEST_CASE("strategies::TypedSrtfTwin: the C++ twin of examples/python/typed_srtf.py gives the golden JCTs",
          "[strategies][pools][python]") {
  const std::string dir = std::string(RINGSCHED_TEST_DIR) + "/fixtures/typed-srtf";
  const ExperimentConfig c = parse_experiment(read_json_file(dir + "/config.json"), "config.json", dir);
  REQUIRE(c.cluster.typed());
  REQUIRE(c.strategies.size() == 1);  // its beliefs (oracle) are the twin's
  std::string jobs = "level,seed,job_id,gpu_type,first_start_s,finish_s,jct_s,restarts\n";
  std::string runs = "level,seed,mean_jct_s,median_jct_s,p95_jct_s,makespan_s\n";
  int slow_starts = 0;  // allocations on the slow pool (pool 0)
  int restarted = 0;
  for (int level = 0; level < static_cast<int>(c.levels.size()); ++level) {
    for (int r = 0; r < c.seeds; ++r) {
      const std::uint64_t seed = c.base_seed + static_cast<std::uint64_t>(r);
      auto wl = std::make_shared<const Workload>(make_workload(c, level, seed));
      const auto beliefs = make_beliefs(c, c.strategies[0].beliefs, wl, seed);
      TypedSrtfTwin twin(4);
      const RunResult rr = simulate(*wl, twin, *beliefs, engine_config(c, seed, true));
      const RunMetrics m = compute_metrics(rr, c.total_gpus(), c.workload.measure);
      const std::string prefix = c.levels[static_cast<std::size_t>(level)].name + "," + std::to_string(seed) + ",";
      REQUIRE(m.jobs == 40);
      for (const auto& j : rr.jobs) {
        jobs += prefix + std::to_string(j.id) + "," + j.gpu_type + "," + number_text(j.first_start) + "," +
                number_text(j.finish) + "," + number_text(j.finish - j.arrival) + "," + std::to_string(j.restarts) +
                "\n";
        restarted += j.restarts > 0 ? 1 : 0;
      }
      for (const auto& e : rr.events)
        slow_starts += e.to > 0 && e.pool == 0 ? 1 : 0;
      runs += prefix + twin_exact(m.mean_jct_s) + "," + twin_exact(m.median_jct_s) + "," + twin_exact(m.p95_jct_s) +
              "," + twin_exact(m.makespan_s) + "\n";
    }
  }
  // The runs exercise what the policy does: jobs start on the slow type when the fast one is full and are preempted
  // or moved (every job ends on the fast type: a job on slow GPUs moves to fast ones as soon as they have room).
  CHECK(slow_starts > 0);
  CHECK(restarted > 0);
  check_twin_golden("jobs.csv", jobs);
  check_twin_golden("runs.csv", runs);
}
