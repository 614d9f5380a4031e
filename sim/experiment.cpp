// sim/experiment.cpp — experiment config parsing and the parallel, order-preserving replicate runner.
#include "sim/experiment.h"

#include <algorithm>
#include <atomic>
#include <filesystem>
#include <stdexcept>
#include <thread>

#include "sim/observers.h"
#include "sim/optimality_gap.h"
#include "sim/parallel.h"
#include "sim/topology_config.h"
#include "workloads/json_reader.h"
#include "workloads/pollux.h"

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
  } else if (s.beliefs != "online") {  // online needs the catalog's loss curves: checked in parse_rest
    (void)make_belief_source(s.beliefs, r.file() + ": " + r.path() + ".beliefs");
  }
  if (s.label.empty()) s.label = s.beliefs == info.default_beliefs ? s.name : s.name + "[" + s.beliefs + "]";
  // Validate params now (unknown keys, types) by building one instance.
  JsonReader pr(s.params, r.file(), r.path() + ".params");
  pr.expect_object(info.params);
  (void)info.make(pr);
  return s;
}

ExperimentConfig parse_rest(const JsonReader& r, ExperimentConfig& c);

// "pollux" (unless a built-in catalog of that name exists) is the six Pollux applications of the shipped data with
// measured-table truth (workloads/pollux.h), work_sigma 0 (set workload.work_sigma); anything else: load_catalog.
std::shared_ptr<const Catalog> load_experiment_catalog(const std::string& name, const std::string& base_dir) {
  if (name == "pollux" && builtin_catalog_text(name).empty()) {
    return std::make_shared<const Catalog>(pollux_catalog(default_pollux_dir(), 0.0));
  }
  return std::make_shared<const Catalog>(load_catalog(name, base_dir));
}

// workload.batch_mode / large_batch_penalty / work_sigma: per-config overrides applied to every class (the
// catalog is left untouched when none is given).
std::shared_ptr<const Catalog> apply_class_overrides(const JsonReader& wl, std::shared_ptr<const Catalog> catalog) {
  if (!wl.has("batch_mode") && !wl.has("large_batch_penalty") && !wl.has("work_sigma")) return catalog;
  Catalog copy = *catalog;
  if (auto bm = wl.maybe("batch_mode")) {
    const std::string mode = bm->as_string();
    BatchMode m = BatchMode::kFixedGlobal;
    if (mode == "fixed_per_worker") {
      m = BatchMode::kFixedPerWorker;
    } else if (mode != "fixed_global") {
      bm->fail("unknown batch mode '" + mode + "' (valid: fixed_global, fixed_per_worker)");
    }
    for (auto& cls : copy.classes)
      cls.batch_mode = m;
  }
  if (auto pen = wl.maybe("large_batch_penalty")) {
    const double p = pen->as_non_negative();
    if (p > 10.0) pen->fail("must be <= 10");
    for (const auto& cls : copy.classes) {
      if (cls.batch_mode != BatchMode::kFixedPerWorker) {
        pen->fail("applies to fixed_per_worker classes only; class '" + cls.name +
                  "' is fixed_global (set workload.batch_mode to fixed_per_worker)");
      }
    }
    for (auto& cls : copy.classes)
      cls.large_batch_penalty = p;
  }
  if (auto ws = wl.maybe("work_sigma")) {
    const double sigma = ws->as_non_negative();
    if (sigma > 3.0) ws->fail("must be <= 3");
    for (auto& cls : copy.classes)
      cls.work_sigma = sigma;
  }
  return std::make_shared<const Catalog>(std::move(copy));
}

// workload.trace: reads the trace once (rows are shared by every replicate; only per-job noise depends on the seed)
// and checks every row against the catalog now, so bad rows fail validation with file:line.
void parse_trace(const JsonReader& tr, const std::string& base_dir, ExperimentConfig& c) {
  tr.expect_object({"file", "format", "time_unit", "time_scale", "columns", "submit_format", "class", "max_gpus"});
  const auto file = tr.at("file");
  std::filesystem::path p(file.as_string());
  if (p.is_relative() && !base_dir.empty()) p = std::filesystem::path(base_dir) / p;
  const std::string format = tr.string_or("format", "pollux");
  const std::string unit = tr.string_or("time_unit", "s");
  double unit_s = 1.0;
  try {
    unit_s = time_unit_seconds(unit, tr.where() + ".time_unit");
  } catch (const InputError&) {
    tr.at("time_unit").fail("unknown time unit '" + unit + "' (valid: s, ms, min, h)");
  }
  TraceWorkloadSpec spec;
  spec.time_scale = tr.positive_or("time_scale", 1.0);
  spec.gpus_per_node = c.gpus_per_node;
  spec.max_gpus = static_cast<int>(tr.integer_in_or("max_gpus", 1, c.total_gpus(), c.total_gpus()));
  Trace trace;
  try {
    if (format == "pollux") {
      for (const char* key : {"columns", "submit_format", "class"}) {
        if (tr.has(key)) tr.at(key).fail("only for format \"generic\"");
      }
      trace = read_pollux_workload(p.string());
      spec.time_scale *= unit_s;  // Pollux files give seconds; time_unit reinterprets them
    } else if (format == "generic") {
      GenericTraceSpec g;
      g.time_unit = unit;
      g.submit_format = tr.string_or("submit_format", "auto");
      if (g.submit_format != "auto" && g.submit_format != "number" && g.submit_format != "datetime") {
        tr.at("submit_format").fail("unknown value '" + g.submit_format + "' (valid: auto, number, datetime)");
      }
      if (auto cols = tr.maybe("columns")) {
        cols->expect_object({"submit", "duration", "gpus"});
        g.submit_column = cols->string_or("submit", g.submit_column);
        g.duration_column = cols->string_or("duration", g.duration_column);
        g.gpus_column = cols->string_or("gpus", g.gpus_column);
      }
      spec.class_name = tr.string_or("class", "");
      if (!spec.class_name.empty() && c.catalog->find(spec.class_name) < 0) {
        tr.at("class").fail("class '" + spec.class_name + "' is not in catalog " + c.catalog->name +
                            " (classes: " + join_names(c.catalog->class_names()) + ")");
      }
      trace = read_generic_trace(p.string(), g);
    } else {
      tr.at("format").fail("unknown trace format '" + format + "' (valid: pollux, generic)");
    }
  } catch (const InputError& e) {
    const std::string msg = e.what();
    if (msg.rfind(c.origin + ": ", 0) == 0) throw;  // already names the config
    throw InputError(file.where() + ": " + msg);
  }
  const int rows = static_cast<int>(trace.jobs.size());
  c.jobs = rows;
  c.trace_spec = spec;
  c.trace = std::make_shared<const Trace>(std::move(trace));
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
  cluster.expect_object({"nodes", "gpus_per_node", "topology", "placement"});
  c.nodes = static_cast<int>(cluster.at("nodes").as_integer_in(1, 100000));
  c.gpus_per_node = static_cast<int>(cluster.at("gpus_per_node").as_integer_in(1, 1024));
  if (static_cast<long>(c.nodes) * c.gpus_per_node > 1'000'000) cluster.fail("more than 1,000,000 GPUs is absurd");
  if (auto topo = cluster.maybe("topology")) c.topology = parse_topology(*topo, c.nodes, c.gpus_per_node);
  if (auto pl = cluster.maybe("placement")) {
    const PlacementConfig pc = parse_placement(*pl);
    c.placement = pc.policy;
    c.defragment = pc.defragment;
  }

  const auto wl = r.at("workload");
  wl.expect_object({"catalog", "jobs", "arrival", "speed_sigma", "loss_sigma", "trace", "batch_mode",
                    "large_batch_penalty", "work_sigma"});
  const auto cat = wl.at("catalog");
  if (cat.is_object()) {
    c.catalog = std::make_shared<const Catalog>(parse_catalog(cat.value(), origin, cat.path()));
  } else {
    try {
      c.catalog = load_experiment_catalog(cat.as_string(), base_dir);
    } catch (const InputError& e) {
      throw InputError(cat.where() + ": " + e.what());
    }
  }
  c.catalog = apply_class_overrides(wl, c.catalog);
  try {
    check_catalog_fits_cluster(*c.catalog, c.total_gpus(), c.catalog->origin);
  } catch (const InputError& e) {
    throw InputError(wl.where() + ".catalog: " + e.what());
  }
  c.speed_sigma = wl.non_negative_or("speed_sigma", 0.0);
  if (c.speed_sigma > 3.0) wl.at("speed_sigma").fail("must be <= 3");
  c.loss_sigma = wl.non_negative_or("loss_sigma", 0.02);
  if (c.loss_sigma > 3.0) wl.at("loss_sigma").fail("must be <= 3");
  if (auto tr = wl.maybe("trace")) {
    // Trace-driven arrivals: one level named "trace", jobs = the trace's rows (capped by workload.jobs).
    if (wl.has("arrival")) wl.at("arrival").fail("give either workload.arrival or workload.trace, not both");
    if (r.has("levels")) r.at("levels").fail("levels need Poisson arrivals; a trace fixes its own arrival times");
    parse_trace(*tr, base_dir, c);
    if (auto j = wl.maybe("jobs")) c.jobs = std::min(c.jobs, static_cast<int>(j->as_integer_in(1, 10'000'000)));
    try {
      TraceWorkloadSpec spec = c.trace_spec;
      spec.max_jobs = c.jobs;
      (void)workload_from_trace(*c.trace, c.catalog, spec, 0);  // unknown applications fail here with file:line
    } catch (const InputError& e) {
      throw InputError(tr->at("file").where() + ": " + e.what());
    }
    LevelSpec level;
    level.name = "trace";
    c.levels.push_back(level);
    return parse_rest(r, c);
  }
  c.jobs = static_cast<int>(wl.at("jobs").as_integer_in(1, 10'000'000));

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
  return parse_rest(r, c);
}

namespace {

// The config after workload/levels: strategies, restart, seeds, output.
ExperimentConfig parse_rest(const JsonReader& r, ExperimentConfig& c) {
  for (const auto& sr : r.at("strategies").non_empty_elements()) {
    StrategySpec s = parse_strategy(sr);
    for (const auto& other : c.strategies) {
      if (other.label == s.label) sr.fail("duplicate strategy label '" + s.label + "' (give a distinct \"label\")");
    }
    if (s.beliefs == "online") {
      for (const auto& cls : c.catalog->classes) {
        if (!cls.convergence) {
          sr.fail("belief source 'online' needs a loss curve for every class; class '" + cls.name + "' of catalog '" +
                  c.catalog->name + "' has none (add \"convergence\" to the class, docs/config.md, or use the " +
                  "\"pollux\" catalog)");
        }
      }
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
    out->expect_object({"events", "optimality_gap"});
    c.optimality_gap = out->bool_or("optimality_gap", false);
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
  return std::move(c);
}

}  // namespace

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
  if (config.trace) {
    TraceWorkloadSpec spec = config.trace_spec;
    spec.max_jobs = config.jobs;
    spec.speed_sigma = config.speed_sigma;
    return workload_from_trace(*config.trace, config.catalog, spec, seed);
  }
  PoissonSpec spec;
  spec.rate_per_s = config.levels[static_cast<std::size_t>(level)].rate_per_s;
  spec.jobs = config.jobs;
  spec.speed_sigma = config.speed_sigma;
  return generate_poisson_workload(config.catalog, spec, seed);
}

EngineConfig engine_config(const ExperimentConfig& config, std::uint64_t seed, bool keep_events) {
  EngineConfig ec;
  ec.nodes = config.nodes;
  ec.gpus_per_node = config.gpus_per_node;
  ec.restart_cost_s = config.restart_cost_s;
  ec.restart_cost_per_gpu_s = config.restart_cost_per_gpu_s;
  ec.record_events = keep_events;
  ec.seed = seed;
  ec.topology = config.topology;
  ec.placement = config.placement;
  ec.defragment = config.defragment;
  return ec;
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
  GapRecorder* gap = nullptr;
  if (config.optimality_gap) {
    auto rec = std::make_unique<GapRecorder>(std::move(strat));
    gap = rec.get();
    strat = std::move(rec);
  }
  auto wl = std::make_shared<const Workload>(make_workload(config, level, cell.seed));
  auto beliefs = spec.beliefs == "online"
                     ? make_online_source(make_loss_observer(wl, config.loss_sigma, cell.seed), nullptr)
                     : make_belief_source(spec.beliefs, config.origin + ": " + spec.json_path);
  const EngineConfig ec = engine_config(config, cell.seed, keep_events);
  RunResult rr = simulate(*wl, *strat, *beliefs, ec);
  cell.metrics = compute_metrics(rr, config.total_gpus());
  if (gap != nullptr) set_gap_metrics(cell.metrics, gap->gaps());
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
  parallel_for_index(total, threads, [&](std::size_t i) {
    const int seed_index = static_cast<int>(i % static_cast<std::size_t>(config.seeds));
    const int strategy =
        static_cast<int>((i / static_cast<std::size_t>(config.seeds)) % static_cast<std::size_t>(n_strats));
    const int level =
        static_cast<int>(i / (static_cast<std::size_t>(config.seeds) * static_cast<std::size_t>(n_strats)));
    const bool keep = config.events == EventsMode::kAll || (config.events == EventsMode::kFirstSeed && seed_index == 0);
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
  });
  return result;
}

}  // namespace ringsched
