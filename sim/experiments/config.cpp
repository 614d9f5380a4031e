// sim/experiments/config.cpp — experiment config parsing: one function per top-level key, each validating its values
// and naming the file and JSON path of anything wrong.
#include "sim/experiments/config.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>

#include "sim/beliefs/belief_sources.h"
#include "sim/experiments/strategy_name.h"
#include "sim/fitting/measurement_tables.h"
#include "strategies/registry.h"
#include "traces/trace_format.h"
#include "workloads/data_catalogs.h"
#include "workloads/io/input_path.h"
#include "workloads/io/json_reader.h"
#include "workloads/pollux.h"

namespace ringsched {

std::vector<std::pair<std::string, double>> default_levels() {
  return {{"light", 0.3}, {"moderate", 0.6}, {"heavy", 0.9}, {"extreme", 1.5}};
}

namespace {

// The file a config's string value names (workloads/io/input_path.h: relative to the config's folder, not above it
// unless "allow_parent_paths"); a refusal names the value's JSON path.
std::string resolve_path(const JsonReader& value, const std::string& base_dir) {
  try {
    return resolve_input_path(value.as_string(), base_dir);
  } catch (const InputError& e) {
    value.fail(e.what());
  }
}

// ---- workload ----

// A data-folder catalog (workloads/data_catalogs.h: "pollux", "pollux-goodput", "gavel", "shockwave") is built from its
// folder (its dir key, e.g. workload.pollux_dir, else the shipped one; "pollux" with work_sigma 0 unless
// workload.work_sigma); anything else: load_catalog. A dir key is refused with any other catalog (it would be ignored).
std::shared_ptr<const Catalog> load_experiment_catalog(const JsonReader& wl, const std::string& base_dir) {
  const auto cat = wl.at("catalog");
  const DataCatalogInfo* data = cat.is_object() ? nullptr : find_data_catalog(cat.as_string());
  for (const char* key : {"pollux_dir", "gavel_dir", "shockwave_dir"}) {
    if (!wl.has(key) || (data != nullptr && data->dir_key == key)) continue;
    std::vector<std::string> owners;
    for (const auto& d : data_catalogs())
      if (d.dir_key == key) owners.push_back("\"" + d.name + "\"");
    wl.at(key).fail("only with \"catalog\": " + join_names(owners));
  }
  if (cat.is_object())
    return std::make_shared<const Catalog>(parse_catalog(cat.value(), wl.file(), cat.path(), base_dir));
  const std::string name = cat.as_string();
  try {
    if (data != nullptr) {
      const std::string dir =
          wl.has(data->dir_key) ? resolve_path(wl.at(data->dir_key), base_dir) : data->default_dir();
      return std::make_shared<const Catalog>(data->build(dir));
    }
    return std::make_shared<const Catalog>(load_catalog(name, base_dir));
  } catch (const InputError& e) {
    const std::string msg = e.what();
    if (msg.rfind(wl.file() + ": ", 0) == 0) throw;  // already names the config
    throw InputError(cat.where() + ": " + msg);
  }
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

// The trace file in its format; keys of other formats fail naming the formats that take them.
Trace read_trace_file(const JsonReader& tr, const std::string& path, const TraceFormat& format, const std::string& unit,
                      ExperimentConfig& c) {
  for (const TraceFormat* other : trace_format_registry()) {
    for (const std::string& key : other->keys()) {
      const auto own = format.keys();
      if (!tr.has(key) || std::find(own.begin(), own.end(), key) != own.end()) continue;
      std::vector<std::string> owners;
      for (const TraceFormat* f : trace_format_registry()) {
        const auto k = f->keys();
        if (std::find(k.begin(), k.end(), key) != k.end()) owners.push_back("\"" + f->name() + "\"");
      }
      tr.at(key).fail("only for format " + join_names(owners));
    }
  }
  return format.read(path, tr, unit, *c.workload.catalog, c.workload.trace_spec);
}

// workload.trace.repeat {copies, every}: the trace tiled (repeat_trace); `every` in the trace's time_unit. Generic
// traces hold seconds already (unit_s converts), Pollux traces their file's numbers (time_scale converts later).
Trace parse_repeat(const JsonReader& rep, const Trace& trace, double unit_s) {
  rep.expect_object({"copies", "every"});
  const auto copies = rep.at("copies").as_integer_in(1, 10'000'000);
  const double every = rep.at("every").as_non_negative();
  if (!(static_cast<double>(copies - 1) * every * unit_s <= 1e12)) {
    rep.at("every").fail("the last copy would start beyond the simulated horizon of 1e12 s");
  }
  const double rows = static_cast<double>(trace.total_rows());
  if (rows * static_cast<double>(copies) > 10'000'000.0) {
    rep.at("copies").fail(std::to_string(copies) + " copies of " + std::to_string(trace.total_rows()) +
                          " rows exceed 10,000,000 jobs");
  }
  return repeat_trace(trace, static_cast<int>(copies), every * unit_s);
}

// workload.trace: reads the trace once (rows are shared by every replicate; only per-job noise depends on the seed)
// and checks every row against the catalog now, so bad rows fail validation with file:line.
void parse_trace(const JsonReader& tr, const std::string& base_dir, ExperimentConfig& c) {
  std::vector<std::string> keys = {"file", "format", "time_unit", "time_scale", "max_gpus", "oversize", "repeat"};
  for (const TraceFormat* f : trace_format_registry())
    for (const std::string& k : f->keys())
      if (std::find(keys.begin(), keys.end(), k) == keys.end()) keys.push_back(k);
  tr.expect_object(keys);
  const auto file = tr.at("file");
  const std::string path = resolve_path(file, base_dir);
  c.workload.trace_file = file.as_string();
  const TraceFormat* format = &find_trace_format("pollux", tr.where());
  if (auto f = tr.maybe("format")) {
    try {
      format = &find_trace_format(f->as_string(), f->where());
    } catch (const InputError& e) {
      f->fail(std::string(e.what()).substr(f->where().size() + 2));
    }
  }
  const std::string unit = tr.string_or("time_unit", "s");
  double unit_s = 1.0;
  try {
    unit_s = time_unit_seconds(unit, tr.where() + ".time_unit");
  } catch (const InputError&) {
    tr.at("time_unit").fail("unknown time unit '" + unit + "' (valid: s, ms, min, h)");
  }
  TraceWorkloadSpec& spec = c.workload.trace_spec;
  spec.time_scale = tr.positive_or("time_scale", 1.0);
  spec.max_gpus =
      static_cast<int>(tr.integer_in_or("max_gpus", 1, c.cluster.largest_pool_gpus(), c.cluster.largest_pool_gpus()));
  if (auto o = tr.maybe("oversize")) {
    try {
      spec.oversize = parse_oversize(o->as_string(), o->where());
    } catch (const InputError& e) {
      o->fail(std::string(e.what()).substr(o->where().size() + 2));
    }
  }
  Trace trace;
  try {
    trace = read_trace_file(tr, path, *format, unit, c);
  } catch (const InputError& e) {
    const std::string msg = e.what();
    if (msg.rfind(c.origin + ": ", 0) == 0) throw;  // already names the config
    throw InputError(file.where() + ": " + msg);
  }
  // A format that keeps the file's numbers (Pollux files give seconds) has them reinterpreted by time_unit here.
  if (!format->reads_seconds()) spec.time_scale *= unit_s;
  if (auto rep = tr.maybe("repeat")) trace = parse_repeat(*rep, trace, format->reads_seconds() ? unit_s : 1.0);
  c.workload.jobs = static_cast<int>(trace.total_rows());
  c.workload.trace = std::make_shared<const Trace>(std::move(trace));
}

// workload.measure {from_job, to_job}: the JCT metrics are taken over jobs from_job .. to_job - 1 only.
void parse_measure(const JsonReader& m, ExperimentConfig& c) {
  m.expect_object({"from_job", "to_job"});
  const int jobs = c.workload.jobs;
  c.workload.measure.first = static_cast<int>(m.at("from_job").as_integer_in(0, std::max(0, jobs - 1)));
  c.workload.measure.end = static_cast<int>(m.at("to_job").as_integer_in(c.workload.measure.first + 1, jobs));
}

// On a typed cluster every class runs on every pool's type: a speed per type (speed_by_type) for each pool (types
// the cluster lacks are not used: a catalog may serve several clusters), goodput tables per type for a goodput-model
// class (goodput.by_type), and a minimum that fits the largest pool.
std::vector<std::string> type_names(const JobClass& c) {
  std::vector<std::string> out;
  for (const auto& typed : c.goodput_by_type)
    out.push_back(typed.first);
  return out;
}

void check_catalog_types(const Catalog& cat, const ClusterConfig& cl, const std::string& where) {
  if (!cl.typed()) return;
  const int largest = cl.largest_pool_gpus();
  for (const JobClass& cls : cat.classes) {
    const std::string at = where + ": class '" + cls.name + "' of catalog " + cat.name + ": ";
    if (cls.goodput && cls.goodput_by_type.empty()) {
      throw InputError(at +
                       "a goodput-model class on a cluster with GPU pools needs its tables per GPU type "
                       "(goodput.by_type, docs/config.md)");
    }
    for (const GpuPool& p : cl.pools) {
      if (cls.goodput && goodput_on(cls, p.gpu_type) == nullptr) {
        throw InputError(at + "no goodput tables for GPU type '" + p.gpu_type +
                         "' of cluster.pools (types: " + join_names(type_names(cls)) + ")");
      }
      if (speed_on(cls, p.gpu_type) == nullptr) {
        throw InputError(at + "no speed for GPU type '" + p.gpu_type + "' of cluster.pools (add it to speed_by_type)");
      }
    }
    if (cls.min_gpus > largest) {
      throw InputError(at + "gpus.min " + std::to_string(cls.min_gpus) + " exceeds the largest pool (" +
                       std::to_string(largest) + " GPUs); a job runs on one pool at a time");
    }
  }
}

void parse_workload(const JsonReader& wl, const std::string& base_dir, ExperimentConfig& c) {
  wl.expect_object({"catalog", "jobs", "arrival", "speed_sigma", "loss_sigma", "trace", "batch_mode",
                    "large_batch_penalty", "work_sigma", "pollux_dir", "gavel_dir", "shockwave_dir", "measure"});
  WorkloadConfig& w = c.workload;
  w.catalog = apply_class_overrides(wl, load_experiment_catalog(wl, base_dir));
  try {
    check_catalog_fits_cluster(*w.catalog, c.total_gpus(), w.catalog->origin);
  } catch (const InputError& e) {
    throw InputError(wl.where() + ".catalog: " + e.what());
  }
  check_catalog_types(*w.catalog, c.cluster, wl.where() + ".catalog");
  w.speed_sigma = wl.non_negative_or("speed_sigma", 0.0);
  if (w.speed_sigma > 3.0) wl.at("speed_sigma").fail("must be <= 3");
  w.loss_sigma = wl.non_negative_or("loss_sigma", 0.02);
  if (w.loss_sigma > 3.0) wl.at("loss_sigma").fail("must be <= 3");
  if (auto tr = wl.maybe("trace")) {
    if (wl.has("arrival")) wl.at("arrival").fail("give either workload.arrival or workload.trace, not both");
    // The cap is known before the trace is read, so the reader holds only the rows a run uses (TraceRows).
    int cap = 0;
    if (auto j = wl.maybe("jobs")) cap = static_cast<int>(j->as_integer_in(1, 10'000'000));
    w.trace_spec.max_jobs = cap;
    parse_trace(*tr, base_dir, c);
    if (cap > 0) w.jobs = std::min(w.jobs, cap);
    try {
      TraceWorkloadSpec spec = w.trace_spec;
      spec.max_jobs = w.jobs;
      spec.gpus_per_node = c.cluster.gpus_per_node;
      // Unknown applications and requests the cluster cannot run fail here with file:line.
      w.trace_notes = trace_notes(*w.trace, *w.catalog, spec, c.total_gpus());
    } catch (const InputError& e) {
      throw InputError(tr->at("file").where() + ": " + e.what());
    }
  } else {
    w.jobs = static_cast<int>(wl.at("jobs").as_integer_in(1, 10'000'000));
  }
  if (auto m = wl.maybe("measure")) parse_measure(*m, c);
}

// ---- levels ----

// `load` or `rate_per_hour` of a level (or of workload.arrival); false when neither is given.
// The simulated clock stops at 1e12 s (sim/engine): arrivals spread over more than a tenth of that (jobs / rate) would
// fail every run after validation; refused here, naming the level's rate.
constexpr double kArrivalSpanLimit = 1e11;

void check_arrival_span(const JsonReader& at, const ExperimentConfig& c, const LevelSpec& level) {
  const double span = static_cast<double>(c.workload.jobs) / level.rate_per_s;
  if (span <= kArrivalSpanLimit) return;
  char buf[256];
  std::snprintf(buf, sizeof buf,
                "%d jobs at %.4g arrivals per hour take about %.3g s to arrive; the simulated clock stops at 1e12 s "
                "(raise the rate or give fewer jobs)",
                c.workload.jobs, level.rate_per_s * 3600.0, span);
  at.fail(buf);
}

// A class whose mean work takes beyond a tenth of the clock's horizon even at its fastest GPU count would fail every
// run after validation ("beyond the horizon"); refused here, naming the class.
void check_class_horizon(const JsonReader& wl, const ExperimentConfig& c) {
  for (const JobClass& cls : c.workload.catalog->classes) {
    double fastest = 0.0;
    int at = 0;
    try {
      for (int w = std::max(1, cls.min_gpus); w <= cls.max_gpus;
           w = w < cls.max_gpus ? std::min(2 * w, cls.max_gpus) : w + 1) {
        const int g = std::max(1, c.cluster.gpus_per_node);
        const double rate = class_throughput(cls, w, (w + g - 1) / g);
        if (rate > fastest) {
          fastest = rate;
          at = w;
        }
      }
    } catch (const std::exception&) {
      continue;  // speed kinds that need more than a count (checked where they run)
    }
    if (!(fastest > 0.0) || !(cls.work_samples > 0.0)) continue;
    const double t = cls.work_samples / fastest;
    if (t <= kArrivalSpanLimit) continue;
    char buf[320];
    std::snprintf(buf, sizeof buf,
                  "class '%s': its work (%.4g samples) takes at least %.3g s even at its fastest (%d GPUs, %.4g "
                  "samples/s); the simulated clock stops at 1e12 s (check its work, batch and speed)",
                  cls.name.c_str(), cls.work_samples, t, at, fastest);
    (wl.has("catalog") ? wl.at("catalog") : wl).fail(buf);
  }
}

bool resolve_rate(const JsonReader& holder, const ExperimentConfig& c, LevelSpec& level) {
  const bool has_load = holder.has("load");
  const bool has_rate = holder.has("rate_per_hour");
  if (has_load && has_rate) holder.fail("give either load or rate_per_hour, not both");
  if (has_load) {
    level.load = holder.at("load").as_positive();
    if (level.load > 100.0) holder.at("load").fail("must be <= 100 (offered load, 1 = the cluster's capacity)");
    level.rate_per_s = rate_for_load(*c.workload.catalog, level.load, c.total_gpus(), c.cluster.gpus_per_node);
    if (!(level.rate_per_s > 0.0 && std::isfinite(level.rate_per_s))) {
      holder.at("load").fail("gives an arrival rate of " + std::to_string(level.rate_per_s) +
                             " jobs/s: the catalog's mean GPU-seconds per job on 8 GPUs is not a positive finite "
                             "number (check the classes' work, batch and speed)");
    }
    check_arrival_span(holder.at("load"), c, level);
    return true;
  }
  if (has_rate) {
    level.rate_per_s = holder.at("rate_per_hour").as_positive() / 3600.0;
    level.load = 0.0;
    check_arrival_span(holder.at("rate_per_hour"), c, level);
    return true;
  }
  return false;
}

// workload.arrival of process "gavel": whose random streams (streams: "boost", the default, or "python": Gavel's own
// draws), and with python streams the job table's order (job_table: "published", the default, or "current") and
// Gavel's seed of the run's first seed (first_seed, default 0). Python streams need every model of the job table as
// a class of the catalog.
void parse_gavel_streams(const JsonReader& arrival, ExperimentConfig& c) {
  const std::string streams = arrival.string_or("streams", "boost");
  if (streams != "boost" && streams != "python") {
    arrival.at("streams").fail("unknown streams '" + streams + "' (valid: boost, python)");
  }
  c.workload.gavel_streams = streams == "python" ? GavelStreams::kPython : GavelStreams::kBoost;
  if (c.workload.gavel_streams == GavelStreams::kBoost) {
    for (const char* key : {"job_table", "first_seed"}) {
      if (arrival.has(key)) arrival.at(key).fail("only with \"streams\": \"python\"");
    }
    return;
  }
  const std::string table = arrival.string_or("job_table", "published");
  if (table != "published" && table != "current") {
    arrival.at("job_table").fail("unknown job table order '" + table + "' (valid: published, current)");
  }
  c.workload.gavel_job_table = table == "current" ? GavelJobTable::kCurrent : GavelJobTable::kPublished;
  c.workload.gavel_first_seed =
      static_cast<std::uint64_t>(arrival.integer_in_or("first_seed", 0, std::int64_t{1} << 53, 0));
  try {
    (void)gavel_table_classes(*c.workload.catalog, c.workload.gavel_job_table);
  } catch (const InputError& e) {
    arrival.at("streams").fail(e.what());
  }
}

// workload.arrival of process "gavel": multi-GPU jobs or not, and the GPU type durations are measured on (a type
// every class has a speed on).
void parse_gavel_arrival(const JsonReader& arrival, ExperimentConfig& c) {
  c.workload.gavel_multi_gpu = arrival.bool_or("multi_gpu", false);
  if (c.workload.gavel_multi_gpu && c.cluster.largest_pool_gpus() < 8) {
    arrival.at("multi_gpu")
        .fail("Gavel's multi-GPU jobs ask for up to 8 GPUs of one type; the largest pool has " +
              std::to_string(c.cluster.largest_pool_gpus()));
  }
  c.workload.gavel_reference_type = arrival.string_or("reference_gpu_type", "v100");
  for (const JobClass& cls : c.workload.catalog->classes) {
    if (speed_on(cls, c.workload.gavel_reference_type) == nullptr) {
      (arrival.has("reference_gpu_type") ? arrival.at("reference_gpu_type") : arrival)
          .fail("class '" + cls.name + "' has no speed on GPU type '" + c.workload.gavel_reference_type +
                "', which Gavel's generator measures durations on (use \"catalog\": \"gavel\")");
    }
  }
  parse_gavel_streams(arrival, c);
}

void parse_levels(const JsonReader& r, ExperimentConfig& c) {
  const auto wl = r.at("workload");
  if (c.workload.trace) {
    // Trace-driven arrivals: one level named "trace".
    if (r.has("levels")) r.at("levels").fail("levels need Poisson arrivals; a trace fixes its own arrival times");
    c.levels.push_back(LevelSpec{"trace", c.workload.trace_notes.offered_load, 0.0});
    return;
  }
  const auto arrival = wl.at("arrival");
  arrival.expect_object(
      {"process", "load", "rate_per_hour", "multi_gpu", "reference_gpu_type", "streams", "job_table", "first_seed"});
  const auto process = arrival.at("process");
  c.workload.arrival_process = process.as_string();
  if (c.workload.arrival_process != "poisson" && c.workload.arrival_process != "gavel") {
    process.fail("unknown arrival process '" + process.as_string() + "' (valid: poisson, gavel)");
  }
  const bool gavel = c.workload.arrival_process == "gavel";
  for (const char* key : {"multi_gpu", "reference_gpu_type", "streams", "job_table", "first_seed"}) {
    if (!gavel && arrival.has(key)) arrival.at(key).fail("only with \"process\": \"gavel\"");
  }
  if (gavel) parse_gavel_arrival(arrival, c);
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
      if (!resolve_rate(lr, c, level)) lr.fail("needs load or rate_per_hour");
      if (gavel && lr.has("load")) lr.at("load").fail("Gavel's arrivals take rate_per_hour (jobs per hour), not load");
      c.levels.push_back(level);
    }
    return;
  }
  LevelSpec level;
  level.name = "default";
  if (!resolve_rate(arrival, c, level)) arrival.fail("needs load or rate_per_hour (or give top-level levels)");
  if (gavel && arrival.has("load")) arrival.at("load").fail("Gavel's arrivals take rate_per_hour (jobs per hour)");
  c.levels.push_back(level);
}

// ---- strategies ----

StrategySpec parse_strategy(const JsonReader& r) {
  StrategySpec s;
  s.json_path = r.path();
  // "name" or "name[beliefs]", read as --strategies reads it (sim/experiments/strategy_name.h).
  if (r.is_string()) {
    const StrategyName n = parse_strategy_name(r.as_string(), r.where());
    s.name = n.name;
    s.beliefs = n.beliefs;
  } else {
    r.expect_object({"name", "label", "beliefs", "params"});
    const StrategyName n = parse_strategy_name(r.at("name").as_string(), r.at("name").where());
    s.name = n.name;
    s.label = r.string_or("label", "");
    s.beliefs = r.string_or("beliefs", "");
    if (!n.beliefs.empty() && r.has("beliefs")) {
      r.at("beliefs").fail("the name already gives a belief source ('" + r.at("name").as_string() +
                           "'); give it in one place");
    }
    if (!n.beliefs.empty()) s.beliefs = n.beliefs;
    if (auto p = r.maybe("params")) s.params = p->value();
  }
  const StrategyInfo info = find_strategy(s.name, r.where());
  if (s.beliefs.empty()) s.beliefs = info.default_beliefs;
  const auto names = belief_source_names();
  const JsonReader beliefs_at = r.is_object() && r.has("beliefs") ? r.at("beliefs") : r;
  if (std::find(names.begin(), names.end(), s.beliefs) == names.end()) {
    beliefs_at.fail("unknown belief source '" + s.beliefs + "' (valid: " + join_names(names) + ")");
  }
  if (s.beliefs == "none" && info.default_beliefs != "none") {
    beliefs_at.fail("strategy '" + s.name +
                    "' plans with beliefs about jobs' speed and work; \"none\" gives it none "
                    "(use its default, " +
                    info.default_beliefs + ", or another source)");
  }
  if (s.label.empty()) s.label = s.beliefs == info.default_beliefs ? s.name : s.name + "[" + s.beliefs + "]";
  // Validate params now (unknown keys, types) by building one instance.
  JsonReader pr(s.params, r.file(), r.path() + ".params");
  pr.expect_object(info.params);
  (void)info.make(pr);
  if (s.beliefs == "none" && info.plans_with_beliefs && info.plans_with_beliefs(pr)) {
    beliefs_at.fail("strategy '" + s.name +
                    "' plans with beliefs under these params; \"none\" gives it none (give it a source, e.g. " +
                    s.name + "[oracle])");
  }
  return s;
}

void parse_strategies(const JsonReader& list, ExperimentConfig& c) {
  for (const auto& sr : list.non_empty_elements()) {
    StrategySpec s = parse_strategy(sr);
    if (!c.cluster.typed() && find_strategy(s.name, sr.where()).needs_gpu_types) {
      sr.fail("strategy '" + s.name + "' runs only on a cluster with GPU types (cluster.pools)");
    }
    if (c.cluster.failures && find_strategy(s.name, sr.where()).places_nodes) {
      sr.fail("strategy '" + s.name +
              "' plans every node's GPUs itself, failed nodes included: not supported with "
              "cluster.failures yet (docs/failures.md)");
    }
    if (c.cluster.typed() && !find_strategy(s.name, sr.where()).gpu_types) {
      std::vector<std::string> typed;
      for (const auto& info : strategy_infos())
        if (info.gpu_types) typed.push_back(info.name);
      const std::string why = find_strategy(s.name, sr.where()).no_gpu_types_reason;
      sr.fail("strategy '" + s.name + "' does not choose GPU types" + (why.empty() ? "" : " (" + why + ")") +
              ", so it cannot run on a cluster with cluster.pools (strategies that do: " + join_names(typed) + ")");
    }
    if (c.cluster.virtual_clusters && !find_strategy(s.name, sr.where()).virtual_clusters) {
      std::vector<std::string> aware;
      for (const auto& info : strategy_infos())
        if (info.virtual_clusters) aware.push_back(info.name);
      sr.fail("strategy '" + s.name +
              "' does not queue jobs per virtual cluster, so it cannot run on a cluster with "
              "cluster.virtual_clusters (strategies that do: " +
              join_names(aware) + ")");
    }
    if (const auto& check = find_strategy(s.name, sr.where()).check_pools; check && c.cluster.typed()) {
      std::vector<std::string> types;
      for (const GpuPool& pool : c.cluster.pools)
        types.push_back(pool.gpu_type);
      const std::string why = check(JsonReader(s.params, sr.file(), sr.path() + ".params"), types);
      if (!why.empty()) sr.fail(why);
    }
    for (const auto& other : c.strategies) {
      if (other.label == s.label) sr.fail("duplicate strategy label '" + s.label + "' (give a distinct \"label\")");
    }
    for (const BeliefSourceInfo& source : belief_source_registry()) {
      if (source.name != s.beliefs || !source.check_catalog) continue;
      const std::string why = source.check_catalog(*c.workload.catalog);
      if (!why.empty()) sr.fail("belief source '" + s.beliefs + "' " + why);
    }
    // A per-class cap must name a class of the catalog (a typo would silently cap nothing).
    if (s.params.is_object() && s.params.contains("class_max_gpus") && s.params["class_max_gpus"].is_object()) {
      const JsonReader caps = sr.at("params").at("class_max_gpus");
      for (const auto& item : s.params["class_max_gpus"].items()) {
        if (c.workload.catalog->find(item.key()) < 0) {
          caps.at(item.key())
              .fail("no class '" + item.key() + "' in catalog '" + c.workload.catalog->name +
                    "' (classes: " + join_names(c.workload.catalog->class_names()) + ")");
        }
      }
    }
    c.strategies.push_back(std::move(s));
  }
}

// ---- beliefs ----

ProbePoint parse_probe(const JsonReader& p, const ClusterConfig& cl) {
  ProbePoint pp;
  if (p.is_string()) {
    const std::string s = p.as_string();
    if (s.empty() || s.size() > static_cast<std::size_t>(cl.nodes) ||
        s.find_first_not_of("123456789") != std::string::npos) {
      p.fail("a placement is one digit 1-9 per node, at most " + std::to_string(cl.nodes) +
             " nodes (e.g. \"44\": 4 GPUs on each of 2 nodes); got '" + s + "'");
    }
    pp.nodes = static_cast<int>(s.size());
    pp.label = s;
    pp.w = 0;
    for (char ch : s) {
      const int g = ch - '0';
      if (g > cl.gpus_per_node)
        p.fail("'" + s + "' puts " + std::to_string(g) + " GPUs on a node of " + std::to_string(cl.gpus_per_node));
      pp.w += g;
    }
    return pp;
  }
  if (p.is_object()) {
    p.expect_object({"gpus", "nodes"});
    pp.nodes = static_cast<int>(p.at("nodes").as_integer_in(1, cl.nodes));
    pp.w =
        static_cast<int>(p.at("gpus").as_integer_in(pp.nodes, static_cast<std::int64_t>(pp.nodes) * cl.gpus_per_node));
    return pp;
  }
  pp.w = static_cast<int>(p.as_integer_in(1, cl.total_gpus()));
  pp.packed = true;
  pp.nodes = packed_nodes(pp.w, cl.gpus_per_node);
  return pp;
}

TrainingSpec parse_training(const JsonReader& h, const ExperimentConfig& c) {
  TrainingSpec t;
  t.runs = static_cast<int>(h.integer_in_or("runs", 1, 1000, 5));
  t.seed = static_cast<std::uint64_t>(h.integer_in_or("seed", 0, (std::int64_t{1} << 53), 1000003));
  t.speed_sigma = h.non_negative_or("speed_sigma", c.workload.speed_sigma);
  if (t.speed_sigma > 3.0) h.at("speed_sigma").fail("must be <= 3");
  if (auto ws = h.maybe("work_sigma")) {
    t.work_sigma = ws->as_non_negative();
    if (*t.work_sigma > 3.0) ws->fail("must be <= 3");
  }
  t.measurement_sigma = h.non_negative_or("measurement_sigma", 0.05);
  if (t.measurement_sigma > 3.0) h.at("measurement_sigma").fail("must be <= 3");
  t.protocol = parse_fit_protocol(h.string_or("protocol", "paper"), h.where() + ".protocol");
  const std::string end = h.string_or("speed", "mid");
  if (end != "mid" && end != "high") h.at("speed").fail("unknown value '" + end + "' (valid: mid, high)");
  t.speed_high = end == "high";
  if (auto probes = h.maybe("probes")) {
    for (const auto& p : probes->non_empty_elements())
      t.probes.push_back(parse_probe(p, c.cluster));
  }
  t.gpus_per_node = c.cluster.gpus_per_node;
  t.max_gpus = c.total_gpus();
  return t;
}

void parse_beliefs(const JsonReader& b, ExperimentConfig& c) {
  // `history` (the catalog every source may plan with) and each source's own `beliefs.<name>` object, which the
  // source reads itself (BeliefSourceInfo::read_options).
  std::vector<std::string> keys = {"history"};
  for (const BeliefSourceInfo& source : belief_source_registry())
    if (source.read_options) keys.push_back(source.name);
  b.expect_object(keys);
  for (const BeliefSourceInfo& source : belief_source_registry()) {
    if (!source.read_options) continue;
    if (auto o = b.maybe(source.name)) source.read_options(*o, c.beliefs.options);
  }
  const auto h = b.maybe("history");
  if (!h) return;
  h->expect_object(
      {"from", "runs", "seed", "speed_sigma", "work_sigma", "measurement_sigma", "protocol", "probes", "speed"});
  const std::string from = h->string_or("from", "catalog");
  if (from == "catalog") {
    for (const auto& item : h->value().items()) {
      if (item.key() != "from") h->at(item.key()).fail("only with \"from\": \"training_runs\"");
    }
    return;
  }
  if (from != "training_runs") h->at("from").fail("unknown value '" + from + "' (valid: catalog, training_runs)");
  c.beliefs.training = parse_training(*h, c);
  const Catalog& truth = *c.workload.catalog;
  const TrainingData data = make_training_data(truth, *c.beliefs.training);
  c.beliefs.history = std::make_shared<const Catalog>(
      fit_history_catalog(class_facts(truth.classes), data, *c.beliefs.training, h->where()));
}

// ---- the rest ----

void parse_restart(const JsonReader& restart, ExperimentConfig& c) {
  restart.expect_object({"cost_s", "cost_per_gpu_s", "on_first_start"});
  c.restart.cost_s = restart.non_negative_or("cost_s", kDefaultRestartCostS);
  c.restart.cost_per_gpu_s = restart.non_negative_or("cost_per_gpu_s", 0.0);
  c.restart.on_first_start = restart.bool_or("on_first_start", false);
  if (c.restart.cost_s > 86400.0) restart.at("cost_s").fail("must be <= 86400 (one day)");
  if (c.restart.cost_per_gpu_s > 86400.0) restart.at("cost_per_gpu_s").fail("must be <= 86400 (one day per GPU)");
}

void parse_scheduler(const JsonReader& sch, ExperimentConfig& c) {
  sch.expect_object({"interval_s"});
  c.scheduler.interval_s = sch.non_negative_or("interval_s", 0.0);
  if (c.scheduler.interval_s > 86400.0) sch.at("interval_s").fail("must be <= 86400 (one day)");
  // A tiny round would tick billions of times over a run: rounds are 1 s or longer (0 = event-driven).
  if (c.scheduler.interval_s > 0.0 && c.scheduler.interval_s < 1.0) {
    sch.at("interval_s").fail("must be 0 (event-driven) or at least 1 s");
  }
}

void parse_output(const JsonReader& out, ExperimentConfig& c) {
  out.expect_object({"events", "optimality_gap", "prediction_errors", "breakdown", "series_s"});
  c.output.optimality_gap = out.bool_or("optimality_gap", false);
  c.output.prediction_errors = out.bool_or("prediction_errors", false);
  c.output.breakdown = out.bool_or("breakdown", false);
  if (out.maybe("series_s")) {
    c.output.series_s = out.positive_or("series_s", 0.0);
    if (c.output.series_s < kMinSeriesS || c.output.series_s > kMaxSeriesS)
      out.at("series_s").fail("must be between 0.001 and 1e9 seconds (the interval of series.csv's rows)");
  }
  const std::string ev = out.string_or("events", "first_seed");
  if (ev == "none") {
    c.output.events = EventsMode::kNone;
  } else if (ev == "first_seed") {
    c.output.events = EventsMode::kFirstSeed;
  } else if (ev == "all") {
    c.output.events = EventsMode::kAll;
  } else {
    out.at("events").fail("unknown value '" + ev + "' (valid: none, first_seed, all)");
  }
}

}  // namespace

namespace {

// Every run's per-job results are kept until the outputs are written: levels x strategies x seeds x jobs of them
// (about 200 bytes each). Beyond kMaxJobResults the run would exhaust memory; say so before starting.
constexpr double kMaxJobResults = 2e7;

void check_result_size(const ExperimentConfig& c) {
  const double n = static_cast<double>(c.levels.size()) * static_cast<double>(c.strategies.size()) *
                   static_cast<double>(c.seeds) * static_cast<double>(c.workload.jobs);
  if (n > kMaxJobResults) {
    char buf[320];
    std::snprintf(buf, sizeof buf,
                  "%s: levels x strategies x seeds x jobs = %zu x %zu x %d x %d = %.3g job results, more than the "
                  "%.0e this ringsched keeps in memory: lower seeds (or --seeds), workload.jobs (or --jobs), or split "
                  "the strategies or levels over a sweep",
                  c.origin.c_str(), c.levels.size(), c.strategies.size(), c.seeds, c.workload.jobs, n, kMaxJobResults);
    throw InputError(buf);
  }
}

}  // namespace

ExperimentConfig parse_experiment(const nlohmann::json& doc, const std::string& origin, const std::string& base_dir) {
  register_measurement_table_source();
  JsonReader r(doc, origin);
  r.expect_object({"description", "cluster", "workload", "levels", "strategies", "beliefs", "restart", "scheduler",
                   "seeds", "base_seed", "output", "allow_parent_paths"});
  const ParentPathsAllowed parent_paths(r.bool_or("allow_parent_paths", false));
  const InputBaseDir input_base(base_dir);  // cluster.topology.file (hosts_csv) resolves against it
  ExperimentConfig c;
  c.origin = origin;
  c.source = doc;
  c.description = r.string_or("description", "");
  c.cluster = parse_cluster(r.at("cluster"));
  parse_workload(r.at("workload"), base_dir, c);
  check_class_horizon(r.at("workload"), c);
  parse_levels(r, c);
  parse_strategies(r.at("strategies"), c);
  if (auto b = r.maybe("beliefs")) parse_beliefs(*b, c);
  if (auto restart = r.maybe("restart")) parse_restart(*restart, c);
  if (auto sch = r.maybe("scheduler")) parse_scheduler(*sch, c);
  c.seeds = static_cast<int>(r.integer_in_or("seeds", 1, 100000, 20));
  c.base_seed = static_cast<std::uint64_t>(r.integer_in_or("base_seed", 0, (std::int64_t{1} << 53), 1));
  if (auto out = r.maybe("output")) parse_output(*out, c);
  check_result_size(c);
  check_runs_can_finish(r, c);  // sim/experiments/run_checks.cpp: what would make every run fail
  return c;
}

ExperimentConfig load_experiment(const std::string& path) {
  const auto doc = read_json_file(path);
  const auto dir = std::filesystem::path(path).parent_path().string();
  return parse_experiment(doc, path, dir);
}

}  // namespace ringsched
