// sim/experiment.cpp — experiment config parsing and the parallel, order-preserving replicate runner.
#include "sim/experiment.h"

#include <atomic>
#include <filesystem>
#include <stdexcept>
#include <thread>

#include "workloads/json_reader.h"

namespace ringsched {

std::vector<std::pair<std::string, double>> default_levels() {
  return {{"light", 0.3}, {"moderate", 0.6}, {"heavy", 0.9}, {"extreme", 1.5}};
}

std::string table3_config_text() {
  return R"({
  "description": "Table 3 of arXiv 1908.08082: 64 GPUs (8 nodes x 8), Poisson arrivals of ResNet-110/CIFAR-10 jobs, four contention levels, the paper's strategies plus optimus.",
  "cluster": {"nodes": 8, "gpus_per_node": 8},
  "workload": {
    "catalog": "paper",
    "jobs": 100,
    "arrival": {"process": "poisson"}
  },
  "levels": [
    {"name": "light", "load": 0.3},
    {"name": "moderate", "load": 0.6},
    {"name": "heavy", "load": 0.9},
    {"name": "extreme", "load": 1.5}
  ],
  "strategies": ["eight", "precompute", "exploratory", "optimus"],
  "restart": {"cost_s": 10},
  "seeds": 20,
  "base_seed": 1
}
)";
}

namespace {

StrategySpec parse_strategy(const JsonReader& r) {
  StrategySpec s;
  s.json_path = r.path();
  if (r.is_string()) {
    s.name = r.as_string();
  } else {
    r.expect_object({"name", "label", "beliefs", "params"});
    s.name = r.at("name").as_string();
    s.label = r.string_or("label", "");
    s.beliefs = r.string_or("beliefs", "");
    if (auto p = r.maybe("params")) s.params = p->value();
  }
  const StrategyInfo info = find_strategy(s.name, r.where());
  if (s.beliefs.empty()) {
    s.beliefs = info.default_beliefs;
  } else {
    (void)make_belief_source(s.beliefs, r.file() + ": " + r.path() + ".beliefs");
  }
  if (s.label.empty()) s.label = s.beliefs == info.default_beliefs ? s.name : s.name + "[" + s.beliefs + "]";
  // Validate params now (unknown keys, types) by building one instance.
  JsonReader pr(s.params, r.file(), r.path() + ".params");
  pr.expect_object(info.params);
  (void)info.make(pr);
  return s;
}

}  // namespace

ExperimentConfig parse_experiment(const nlohmann::json& doc, const std::string& origin, const std::string& base_dir) {
  JsonReader r(doc, origin);
  r.expect_object(
      {"description", "cluster", "workload", "levels", "strategies", "restart", "seeds", "base_seed", "output"});
  ExperimentConfig c;
  c.origin = origin;
  c.source = doc;
  c.description = r.string_or("description", "");

  const auto cluster = r.at("cluster");
  cluster.expect_object({"nodes", "gpus_per_node"});
  c.nodes = static_cast<int>(cluster.at("nodes").as_integer_in(1, 100000));
  c.gpus_per_node = static_cast<int>(cluster.at("gpus_per_node").as_integer_in(1, 1024));
  if (static_cast<long>(c.nodes) * c.gpus_per_node > 1'000'000) cluster.fail("more than 1,000,000 GPUs is absurd");

  const auto wl = r.at("workload");
  wl.expect_object({"catalog", "jobs", "arrival", "speed_sigma"});
  const auto cat = wl.at("catalog");
  if (cat.is_object()) {
    c.catalog = std::make_shared<const Catalog>(parse_catalog(cat.value(), origin, cat.path()));
  } else {
    try {
      c.catalog = std::make_shared<const Catalog>(load_catalog(cat.as_string(), base_dir));
    } catch (const InputError& e) {
      throw InputError(cat.where() + ": " + e.what());
    }
  }
  try {
    check_catalog_fits_cluster(*c.catalog, c.total_gpus(), c.catalog->origin);
  } catch (const InputError& e) {
    throw InputError(wl.where() + ".catalog: " + e.what());
  }
  c.jobs = static_cast<int>(wl.at("jobs").as_integer_in(1, 10'000'000));
  c.speed_sigma = wl.non_negative_or("speed_sigma", 0.0);
  if (c.speed_sigma > 3.0) wl.at("speed_sigma").fail("must be <= 3");

  const auto arrival = wl.at("arrival");
  arrival.expect_object({"process", "load", "rate_per_hour"});
  const auto process = arrival.at("process");
  if (process.as_string() != "poisson") {
    process.fail("unknown arrival process '" + process.as_string() + "' (valid: poisson)");
  }
  auto resolve = [&](const JsonReader& holder, LevelSpec& level) {
    const bool has_load = holder.has("load");
    const bool has_rate = holder.has("rate_per_hour");
    if (has_load && has_rate) holder.fail("give either load or rate_per_hour, not both");
    if (has_load) {
      level.load = holder.at("load").as_positive();
      if (level.load > 100.0) holder.at("load").fail("must be <= 100 (offered load, 1 = the cluster's capacity)");
      level.rate_per_s = rate_for_load(*c.catalog, level.load, c.total_gpus(), c.gpus_per_node);
    } else if (has_rate) {
      level.rate_per_s = holder.at("rate_per_hour").as_positive() / 3600.0;
      level.load = 0.0;
    } else {
      return false;
    }
    return true;
  };

  if (auto levels = r.maybe("levels")) {
    if (arrival.has("load") || arrival.has("rate_per_hour")) {
      arrival.fail("give load/rate_per_hour either here or in levels, not both");
    }
    for (const auto& lr : levels->non_empty_elements()) {
      lr.expect_object({"name", "load", "rate_per_hour"});
      LevelSpec level;
      level.name = lr.at("name").as_string();
      if (level.name.empty()) lr.at("name").fail("must not be empty");
      for (const auto& other : c.levels) {
        if (other.name == level.name) lr.at("name").fail("duplicate level name '" + level.name + "'");
      }
      if (!resolve(lr, level)) lr.fail("needs load or rate_per_hour");
      c.levels.push_back(level);
    }
  } else {
    LevelSpec level;
    level.name = "default";
    if (!resolve(arrival, level)) arrival.fail("needs load or rate_per_hour (or give top-level levels)");
    c.levels.push_back(level);
  }

  for (const auto& sr : r.at("strategies").non_empty_elements()) {
    StrategySpec s = parse_strategy(sr);
    for (const auto& other : c.strategies) {
      if (other.label == s.label) sr.fail("duplicate strategy label '" + s.label + "' (give a distinct \"label\")");
    }
    c.strategies.push_back(std::move(s));
  }

  if (auto restart = r.maybe("restart")) {
    restart->expect_object({"cost_s", "cost_per_gpu_s"});
    c.restart_cost_s = restart->non_negative_or("cost_s", 10.0);
    c.restart_cost_per_gpu_s = restart->non_negative_or("cost_per_gpu_s", 0.0);
    if (c.restart_cost_s > 86400.0) restart->at("cost_s").fail("must be <= 86400 (one day)");
  }
  c.seeds = static_cast<int>(r.integer_in_or("seeds", 1, 100000, 20));
  c.base_seed = static_cast<std::uint64_t>(r.integer_in_or("base_seed", 0, (std::int64_t{1} << 53), 1));
  if (auto out = r.maybe("output")) {
    out->expect_object({"events"});
    const std::string ev = out->string_or("events", "first_seed");
    if (ev == "none") {
      c.events = EventsMode::kNone;
    } else if (ev == "first_seed") {
      c.events = EventsMode::kFirstSeed;
    } else if (ev == "all") {
      c.events = EventsMode::kAll;
    } else {
      out->at("events").fail("unknown value '" + ev + "' (valid: none, first_seed, all)");
    }
  }
  return c;
}

ExperimentConfig load_experiment(const std::string& path) {
  const auto doc = read_json_file(path);
  const auto dir = std::filesystem::path(path).parent_path().string();
  return parse_experiment(doc, path, dir);
}

const CellRun& ExperimentResult::run(const ExperimentConfig& c, int level, int strategy, int seed_index) const {
  const auto n_s = c.strategies.size();
  const auto idx =
      (static_cast<std::size_t>(level) * n_s + static_cast<std::size_t>(strategy)) * static_cast<std::size_t>(c.seeds) +
      static_cast<std::size_t>(seed_index);
  return runs.at(idx);
}

Workload make_workload(const ExperimentConfig& config, int level, std::uint64_t seed) {
  PoissonSpec spec;
  spec.rate_per_s = config.levels[static_cast<std::size_t>(level)].rate_per_s;
  spec.jobs = config.jobs;
  spec.speed_sigma = config.speed_sigma;
  return generate_poisson_workload(config.catalog, spec, seed);
}

CellRun run_cell(const ExperimentConfig& config, int level, int strategy, int seed_index, bool keep_events) {
  CellRun cell;
  cell.level = level;
  cell.strategy = strategy;
  cell.seed_index = seed_index;
  cell.seed = config.base_seed + static_cast<std::uint64_t>(seed_index);
  const StrategySpec& spec = config.strategies[static_cast<std::size_t>(strategy)];
  const StrategyInfo info = find_strategy(spec.name, config.origin + ": " + spec.json_path);
  JsonReader pr(spec.params, config.origin, spec.json_path + ".params");
  auto strat = info.make(pr);
  auto beliefs = make_belief_source(spec.beliefs, config.origin + ": " + spec.json_path);
  const Workload wl = make_workload(config, level, cell.seed);
  EngineConfig ec;
  ec.nodes = config.nodes;
  ec.gpus_per_node = config.gpus_per_node;
  ec.restart_cost_s = config.restart_cost_s;
  ec.restart_cost_per_gpu_s = config.restart_cost_per_gpu_s;
  ec.record_events = keep_events;
  ec.seed = cell.seed;
  RunResult rr = simulate(wl, *strat, *beliefs, ec);
  cell.metrics = compute_metrics(rr, config.total_gpus());
  cell.events_processed = rr.events_processed;
  cell.jobs = std::move(rr.jobs);
  cell.events = std::move(rr.events);
  return cell;
}

ExperimentResult run_experiment(const ExperimentConfig& config, int threads) {
  const int n_levels = static_cast<int>(config.levels.size());
  const int n_strats = static_cast<int>(config.strategies.size());
  const std::size_t total =
      static_cast<std::size_t>(n_levels) * static_cast<std::size_t>(n_strats) * static_cast<std::size_t>(config.seeds);
  ExperimentResult result;
  result.runs.resize(total);
  if (threads <= 0) threads = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  threads = static_cast<int>(std::min<std::size_t>(static_cast<std::size_t>(threads), std::max<std::size_t>(total, 1)));
  std::atomic<std::size_t> next{0};
  auto worker = [&]() {
    for (;;) {
      const std::size_t i = next.fetch_add(1);
      if (i >= total) return;
      const int seed_index = static_cast<int>(i % static_cast<std::size_t>(config.seeds));
      const int strategy =
          static_cast<int>((i / static_cast<std::size_t>(config.seeds)) % static_cast<std::size_t>(n_strats));
      const int level =
          static_cast<int>(i / (static_cast<std::size_t>(config.seeds) * static_cast<std::size_t>(n_strats)));
      const bool keep =
          config.events == EventsMode::kAll || (config.events == EventsMode::kFirstSeed && seed_index == 0);
      try {
        result.runs[i] = run_cell(config, level, strategy, seed_index, keep);
      } catch (const std::exception& e) {
        CellRun failed;
        failed.level = level;
        failed.strategy = strategy;
        failed.seed_index = seed_index;
        failed.seed = config.base_seed + static_cast<std::uint64_t>(seed_index);
        failed.error = e.what();
        result.runs[i] = std::move(failed);
      }
    }
  };
  if (threads <= 1) {
    worker();
  } else {
    std::vector<std::thread> pool;
    for (int t = 0; t < threads; ++t)
      pool.emplace_back(worker);
    for (auto& t : pool)
      t.join();
  }
  return result;
}

}  // namespace ringsched
