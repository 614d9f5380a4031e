// sim/heldout.cpp — held-out truth, training runs, fitted beliefs, the replicate runner and the error table.
#include "sim/heldout.h"

#include "sim/observers.h"
#include "sim/parallel.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdio>
#include <sstream>
#include <stdexcept>
#include <thread>

#include <boost/random/normal_distribution.hpp>

#include "models/table_speed.h"
#include "workloads/pollux.h"
#include "workloads/rng.h"

namespace ringsched {
namespace {

double lognormal(double sigma, double z) {
  return std::exp(sigma * z - 0.5 * sigma * sigma);
}

const models::TableStepTime& table_of(const JobClass& c) {
  const auto* t = dynamic_cast<const models::TableStepTime*>(c.speed.get());
  if (t == nullptr) throw std::logic_error("held-out: class '" + c.name + "' has no measured table");
  return *t;
}

std::pair<std::string, std::string> split_spec(const std::string& s) {
  const auto pos = s.find('[');
  if (pos != std::string::npos && s.back() == ']') return {s.substr(0, pos), s.substr(pos + 1, s.size() - pos - 2)};
  return {s, ""};
}

}  // namespace

TrainingData make_training_data(const Catalog& truth, FitProtocol protocol, int runs, double sigma,
                                double measurement_sigma, int gpus_per_node, std::uint64_t seed) {
  TrainingData d;
  d.points.resize(truth.classes.size());
  d.work.resize(truth.classes.size());
  boost::random::normal_distribution<double> gauss(0.0, 1.0);
  for (std::size_t ci = 0; ci < truth.classes.size(); ++ci) {
    const JobClass& c = truth.classes[ci];
    const auto measured = table_of(c).points();
    Rng rng = make_rng(seed, Stream::kTraining, ci);
    for (int r = 0; r < runs; ++r) {
      const double speed = lognormal(sigma, gauss(rng));
      d.work[ci].push_back(c.work_samples * lognormal(sigma, gauss(rng)));
      for (const auto& p : measured) {
        const double z = gauss(rng);  // drawn for every point: keeps the stream independent of the protocol
        if (!protocol_profiles(protocol, p.w, p.nodes, gpus_per_node)) continue;
        d.points[ci].push_back(models::SpeedPoint{p.w, p.nodes, p.local_batch * p.w,
                                                  p.step_seconds / speed * lognormal(measurement_sigma, z)});
      }
    }
  }
  return d;
}

Catalog fit_history_catalog(const std::vector<JobClass>& classes_public, const TrainingData& data, FitProtocol protocol,
                            const std::string& origin) {
  Catalog cat;
  cat.name = "history";
  cat.description = "fitted on training runs (protocol " + to_string(protocol) + ")";
  cat.origin = origin;
  for (std::size_t i = 0; i < classes_public.size(); ++i) {
    const JobClass& pub = classes_public[i];
    JobClass c;
    c.name = pub.name;
    c.description = "history fit of " + pub.name;
    c.batch_mode = pub.batch_mode;
    c.batch_size = pub.batch_size;
    c.model_size_mparams = pub.model_size_mparams;
    c.weight = pub.weight;
    c.min_gpus = pub.min_gpus;
    c.max_gpus = pub.max_gpus;
    c.large_batch_penalty = pub.large_batch_penalty;
    c.speed =
        fit_speed_points(protocol, data.points.at(i), pub.model_size_mparams, origin + ": class " + pub.name).model();
    double sum = 0.0;
    for (double w : data.work.at(i))
      sum += w;
    if (data.work.at(i).empty()) throw InputError(origin + ": class " + pub.name + ": no training runs");
    c.work_samples = sum / static_cast<double>(data.work.at(i).size());
    cat.classes.push_back(std::move(c));
  }
  return cat;
}

HeldoutResult run_heldout(const HeldoutOptions& o) {
  const std::string dir = o.pollux_dir.empty() ? default_pollux_dir() : o.pollux_dir;
  const FitProtocol protocol = parse_fit_protocol(o.protocol, "held-out protocol");
  auto truth = std::make_shared<const Catalog>(pollux_catalog(dir, o.sigma));
  const TrainingData training =
      make_training_data(*truth, protocol, o.train_runs, o.sigma, o.measurement_sigma, o.gpus_per_node, o.train_seed);
  auto history = std::make_shared<const Catalog>(fit_history_catalog(truth->classes, training, protocol, dir));

  HeldoutResult hr;
  hr.protocol = to_string(protocol);
  ExperimentConfig& c = hr.config;
  c.origin = "builtin:heldout";
  c.description = "held-out: six Pollux applications, measured-table truth, beliefs fitted on training runs";
  c.nodes = o.nodes;
  c.gpus_per_node = o.gpus_per_node;
  c.catalog = truth;
  c.jobs = o.jobs;
  c.speed_sigma = o.sigma;
  c.seeds = o.seeds;
  c.base_seed = o.base_seed;
  c.restart_cost_s = o.restart_cost_s;
  c.events = EventsMode::kNone;
  for (const auto& [name, load] : default_levels()) {
    c.levels.push_back(LevelSpec{name, load, rate_for_load(*truth, load, c.total_gpus(), c.gpus_per_node)});
  }
  for (const auto& s : o.strategies) {
    auto [name, beliefs] = split_spec(s);
    const StrategyInfo info = find_strategy(name, "held-out strategies");
    StrategySpec spec;
    spec.name = name;
    spec.beliefs = beliefs.empty() ? info.default_beliefs : beliefs;
    if (spec.beliefs != "none" && spec.beliefs != "history" && spec.beliefs != "oracle" &&
        spec.beliefs != "exploration" && spec.beliefs != "online") {
      throw InputError("held-out strategies: " + s + ": unknown belief source '" + spec.beliefs +
                       "' (valid: exploration, history, none, online, oracle)");
    }
    spec.label = spec.beliefs == info.default_beliefs ? name : name + "[" + spec.beliefs + "]";
    spec.json_path = "strategies";
    c.strategies.push_back(spec);
  }

  const auto source_for = [&](const std::string& beliefs, const std::shared_ptr<const Workload>& wl,
                              std::uint64_t seed) -> std::shared_ptr<const BeliefSource> {
    if (beliefs == "history") return make_fitted_history_source(history);
    if (beliefs == "exploration") {
      return make_exploration_source(make_speed_measurer(wl, o.measurement_sigma, o.gpus_per_node, seed), history);
    }
    if (beliefs == "online") return make_online_source(make_loss_observer(wl, o.loss_sigma, seed), history);
    return make_belief_source(beliefs, "held-out");
  };

  for (const auto& cls : truth->classes)
    table_of(cls).reset_stats();
  const int L = static_cast<int>(c.levels.size());
  const int S = static_cast<int>(c.strategies.size());
  const std::size_t total =
      static_cast<std::size_t>(L) * static_cast<std::size_t>(S) * static_cast<std::size_t>(c.seeds);
  hr.result.runs.resize(total);
  parallel_for_index(total, o.threads, [&](std::size_t i) {
    const int seed_index = static_cast<int>(i % static_cast<std::size_t>(c.seeds));
    const int strategy = static_cast<int>((i / static_cast<std::size_t>(c.seeds)) % static_cast<std::size_t>(S));
    const int level = static_cast<int>(i / (static_cast<std::size_t>(c.seeds) * static_cast<std::size_t>(S)));
    CellRun& cell = hr.result.runs[i];
    cell.level = level;
    cell.strategy = strategy;
    cell.seed_index = seed_index;
    cell.seed = c.base_seed + static_cast<std::uint64_t>(seed_index);
    try {
      const StrategySpec& spec = c.strategies[static_cast<std::size_t>(strategy)];
      const StrategyInfo info = find_strategy(spec.name, "held-out");
      JsonReader pr(spec.params, c.origin, spec.json_path);
      auto strat = info.make(pr);
      auto wl = std::make_shared<const Workload>(make_workload(c, level, cell.seed));
      auto beliefs = source_for(spec.beliefs, wl, cell.seed);
      const EngineConfig ec = engine_config(c, cell.seed, false);
      RunResult rr = simulate(*wl, *strat, *beliefs, ec);
      cell.metrics = compute_metrics(rr, c.total_gpus());
      cell.events_processed = rr.events_processed;
      cell.jobs = std::move(rr.jobs);
    } catch (const std::exception& e) {
      cell.error = e.what();
    }
  });
  for (const auto& cls : truth->classes) {
    const auto st = table_of(cls).stats();
    hr.table_lookups += st.lookups;
    hr.table_clamped += st.clamped;
  }

  // Prediction errors on the jobs of the first level, every seed (classes and noise do not depend on the level).
  // `online` is scored after 25%, 50% and 75% of each job's true work (its losses up to there reported).
  struct Scored {
    std::string label;
    std::string source;
    double progress;
  };
  const std::vector<Scored> scored = {{"oracle", "oracle", 0.0},           {"history", "history", 0.0},
                                      {"exploration", "exploration", 0.0}, {"online@25%", "online", 0.25},
                                      {"online@50%", "online", 0.5},       {"online@75%", "online", 0.75}};
  for (const Scored& sc : scored) {
    PredictionError pe;
    pe.source = sc.label;
    double s_sum = 0.0;
    double s16_sum = 0.0;
    double w_sum = 0.0;
    std::size_t s_n = 0;
    std::size_t s16_n = 0;
    for (int si = 0; si < c.seeds; ++si) {
      const std::uint64_t seed = c.base_seed + static_cast<std::uint64_t>(si);
      auto wl = std::make_shared<const Workload>(make_workload(c, 0, seed));
      auto source = source_for(sc.source, wl, seed);
      BeliefContext ctx{truth.get(), c.gpus_per_node};
      for (const JobTruth& t : wl->jobs) {
        const JobClass& cls = truth->classes[static_cast<std::size_t>(t.class_index)];
        const JobPublic pub = public_facts(t, cls, c.total_gpus());
        const auto belief = source->make(pub, ctx, source->needs_truth() ? &t : nullptr);
        if (!belief) continue;
        belief->observe_progress(sc.progress * t.work_samples);
        ++pe.jobs;
        for (int w = 1; w <= pub.max_gpus; ++w) {
          const int nodes = packed_nodes(w, c.gpus_per_node);
          const double truth_rate = class_throughput(cls, w, nodes, t.speed_factor);
          const double ape = std::abs(belief->throughput(w, nodes) - truth_rate) / truth_rate;
          s_sum += ape;
          ++s_n;
          if (w >= 16) {
            s16_sum += ape;
            ++s16_n;
          }
        }
        w_sum += std::abs(belief->total_work() - t.work_samples) / t.work_samples;
      }
    }
    pe.speed_mape = s_n > 0 ? 100.0 * s_sum / static_cast<double>(s_n) : 0.0;
    pe.speed_mape_16 = s16_n > 0 ? 100.0 * s16_sum / static_cast<double>(s16_n) : 0.0;
    pe.work_mape = pe.jobs > 0 ? 100.0 * w_sum / pe.jobs : 0.0;
    hr.errors.push_back(pe);
  }
  return hr;
}

namespace {
std::string f1(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f", v);
  return buf;
}
}  // namespace

nlohmann::json heldout_json(const HeldoutResult& r) {
  nlohmann::json errs = nlohmann::json::array();
  for (const auto& e : r.errors) {
    errs.push_back({{"source", e.source},
                    {"jobs", e.jobs},
                    {"speed_mape_pct", e.speed_mape},
                    {"speed_mape_16plus_pct", e.speed_mape_16},
                    {"work_mape_pct", e.work_mape}});
  }
  return nlohmann::json{{"protocol", r.protocol},
                        {"summary", summary_json(r.config, r.result)},
                        {"prediction_errors", errs},
                        {"table_lookups", r.table_lookups},
                        {"table_clamped", r.table_clamped}};
}

std::string render_heldout(const HeldoutResult& r, Format f) {
  if (f == Format::kJson) return heldout_json(r).dump(2) + "\n";
  std::ostringstream out;
  out << render_table3(r.config, r.result, f);
  if (f == Format::kCsv) {
    out << "\nsource,jobs,speed_mape_pct,speed_mape_16plus_pct,work_mape_pct\n";
    for (const auto& e : r.errors) {
      out << e.source << ',' << e.jobs << ',' << e.speed_mape << ',' << e.speed_mape_16 << ',' << e.work_mape << '\n';
    }
    return out.str();
  }
  out << "\nPrediction error of each belief source on the held-out jobs (first level, all seeds; speed over every GPU "
         "count 1-64, packed on 4-GPU nodes; history fitted under protocol "
      << r.protocol << "; online@P%: the online belief once the job has done P% of its true work):\n\n";
  out << "| belief source | used by | jobs | speed MAPE | speed MAPE 16+ GPUs | work MAPE "
         "|\n|---|---|---|---|---|---|\n";
  for (const auto& e : r.errors) {
    const char* used = e.source == "oracle"        ? "precompute[oracle] (reference)"
                       : e.source == "history"     ? "precompute, optimus (and exploratory's work)"
                       : e.source == "exploration" ? "what exploratory measures (1, 2, 4, 8 GPUs)"
                                                   : "optimus[online] (speed as history; work refitted as it runs)";
    out << "| " << e.source << " | " << used << " | " << e.jobs << " | " << f1(e.speed_mape) << "% | "
        << f1(e.speed_mape_16) << "% | " << f1(e.work_mape) << "% |\n";
  }
  const double pct =
      r.table_lookups > 0 ? 100.0 * static_cast<double>(r.table_clamped) / static_cast<double>(r.table_lookups) : 0.0;
  out << "\nMeasured-table lookups outside the measured range (answered by clamping): " << r.table_clamped << " of "
      << r.table_lookups << " (" << f1(pct) << "%).\n";
  return out.str();
}

}  // namespace ringsched
