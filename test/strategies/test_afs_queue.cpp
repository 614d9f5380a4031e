// test/strategies/test_afs_queue.cpp — afs's incremental decide_changes (strategies/common/afs_queue.h) against its
// dense decide on long random sequences of snapshots: arrivals, completions and progress, speed tables with ties,
// plateaus, superlinear and non-concave stretches, minimums above 1, and GPUs from scarce to plentiful.
#include <catch2/catch.hpp>

#include <map>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "strategies/registry.h"
#include "strategies/strategy.h"

using namespace ringsched;

namespace {

// Believed speeds from a table (w = 1 .. size, the last value beyond), a fixed work.
class AfsTableBelief final : public Belief {
 public:
  AfsTableBelief(std::vector<double> speeds, double work) : speeds_(std::move(speeds)), work_(work) {}
  [[nodiscard]] double throughput(int w, int /*nodes*/) const override {
    if (w <= 0) return 0.0;
    return speeds_[static_cast<std::size_t>(std::min(w, static_cast<int>(speeds_.size())) - 1)];
  }
  [[nodiscard]] double total_work() const override { return work_; }
  [[nodiscard]] std::string source() const override { return "table"; }
  [[nodiscard]] bool fixed() const override { return true; }
  [[nodiscard]] bool observes() const override { return false; }

 private:
  std::vector<double> speeds_;
  double work_;
};

// Speed templates on 1 .. 12 GPUs (scaled by powers of two: the same r and g bit for bit).
std::vector<double> afs_template(int kind) {
  switch (kind) {
    case 0:  // linear: every job of this kind ties on r and g
      return {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12};
    case 1:  // concave
      return {1, 1.8, 2.5, 3.1, 3.6, 4.0, 4.3, 4.5, 4.6, 4.65, 4.7, 4.72};
    case 2:  // superlinear start (g >= 1), then concave
      return {1, 2.5, 4.5, 6, 7, 7.5, 7.8, 8, 8.1, 8.15, 8.2, 8.2};
    case 3:  // exactly doubling, then a plateau (end point 4)
      return {1, 2, 3, 3.5, 3.5, 4, 5, 6, 7, 8, 9, 10};
    case 4:  // slow second GPU, fast third: r rises with the count
      return {1, 1.1, 2.5, 2.7, 4.5, 4.6, 6, 6.1, 6.2, 6.3, 6.4, 6.5};
    case 5:  // accelerating: r and g rise for several counts
      return {1, 1.05, 1.3, 2.0, 3.5, 6, 9, 10, 10.5, 10.8, 11, 11.1};
    case 6:  // flat from the start: the first count is the end point
      return {3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3};
    default:  // falls after 6
      return {1, 1.9, 2.7, 3.4, 4.0, 4.5, 4.4, 4.3, 4.2, 4.1, 4.0, 3.9};
  }
}

class AfsFakeViews final : public JobViews {
 public:
  std::map<int, JobView> views;
  [[nodiscard]] const JobView& view(int job_id) const override { return views.at(job_id); }
};

}  // namespace

TEST_CASE("strategies::afs: decide_changes matches decide over random snapshot sequences", "[strategies][afs]") {
  for (const int total : {16, 64, 200}) {
    for (const std::uint32_t seed : {1u, 2u, 3u}) {
      DYNAMIC_SECTION("GPUs " << total << " seed " << seed) {
        std::mt19937 rng(seed * 7919u + static_cast<std::uint32_t>(total));
        auto uniform = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
        const StrategyInfo info = find_strategy("afs", "test");
        const nlohmann::json params = nlohmann::json::object();
        auto inc = info.make(JsonReader(params, "test"));
        auto dense = info.make(JsonReader(params, "test"));
        REQUIRE(inc->incremental());
        std::vector<std::unique_ptr<JobPublic>> pubs;
        std::vector<std::unique_ptr<Belief>> beliefs;
        AfsFakeViews fake;
        std::map<int, int> held;  // the incremental decisions' counts, by active id
        int next_id = 0;
        int checked = 0;
        int busy = 0;
        const int target = total * 3 / 2 + 20;  // active jobs the arrivals aim at (more than the GPUs)
        for (int step = 0; step < 400; ++step) {
          Snapshot s;
          s.now = step;
          s.total_gpus = total;
          s.gpus_per_node = 4;
          s.views = &fake;
          std::vector<int> arrived;
          std::vector<int> finished;
          // Progress for the jobs that held GPUs since the last decision (zero sometimes: lengths stay tied).
          for (auto& [id, w] : held) {
            if (w > 0) fake.views[id].work_done += static_cast<double>(w * uniform(0, 2) * 400);
          }
          // Completions: some holders, now and then a waiting job too.
          for (auto it = held.begin(); it != held.end();) {
            const bool done = it->second > 0 ? uniform(0, 9) == 0 : uniform(0, 99) == 0;
            if (!done) {
              ++it;
              continue;
            }
            finished.push_back(it->first);
            fake.views.erase(it->first);
            it = held.erase(it);
          }
          // Arrivals: bursts that swing the load from scarce to plentiful GPUs.
          const int phase = (step / 50) % 3;
          const int want = phase == 0 ? target : phase == 1 ? total / 6 : target / 2;
          const int room = std::max(0, want - static_cast<int>(held.size()));
          for (int k = uniform(0, std::min(room, 12)); k > 0; --k) {
            auto p = std::make_unique<JobPublic>();
            p->id = next_id++;
            p->name = "job-" + std::to_string(p->id);
            p->cls.min_gpus = uniform(0, 5) == 0 ? uniform(2, 5) : 1;
            p->cls.max_gpus = uniform(0, 3) == 0 ? uniform(1, 6) : 12;
            std::vector<double> speeds = afs_template(uniform(0, 7));
            const double scale = static_cast<double>(1 << uniform(0, 2));
            for (double& f : speeds)
              f *= scale;
            beliefs.push_back(std::make_unique<AfsTableBelief>(speeds, 4000.0 * uniform(1, 3)));
            JobView v;
            v.pub = p.get();
            v.belief = beliefs.back().get();
            fake.views[p->id] = v;
            held[p->id] = 0;
            arrived.push_back(p->id);
            pubs.push_back(std::move(p));
          }
          s.arrived = arrived;
          s.finished = finished;
          s.active_jobs = held.size();
          // The incremental decision, applied.
          const Decision d = inc->decide_changes(s);
          for (const auto& [id, w, pool, nodes] : d.changes) {
            REQUIRE(held.count(id) == 1);
            held[id] = w;
          }
          for (auto& [id, v] : fake.views)
            v.gpus = held[id];
          // The dense decision on the same jobs (in id order, as the engine's snapshot lists them).
          std::vector<JobView> jobs;
          for (const auto& [id, v] : fake.views)
            jobs.push_back(v);
          Snapshot ds = s;
          ds.views = nullptr;
          ds.arrived = {};
          ds.finished = {};
          ds.jobs = jobs;
          const Decision e = dense->decide(ds);
          REQUIRE(e.jobs.size() == jobs.size());
          int used = 0;
          for (std::size_t i = 0; i < jobs.size(); ++i) {
            INFO("step " << step << " job " << jobs[i].pub->id);
            REQUIRE(held[jobs[i].pub->id] == e.jobs[i].gpus);
            used += e.jobs[i].gpus;
          }
          ++checked;
          if (used == total) ++busy;
        }
        CHECK(checked == 400);
        CHECK(busy > 100);  // most decisions hand out every GPU (the saturated case is what is compared)
      }
    }
  }
}
