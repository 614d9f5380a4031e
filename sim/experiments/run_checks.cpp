// sim/experiments/run_checks.cpp — check_runs_can_finish (declared in config.h, called last by parse_experiment):
// each check refuses a config whose every value is valid on its own but whose every run would fail or never end
// (trace rows past the clock's horizon, a restart not shorter than the round, a class Gavel's generator cannot time),
// naming the JSON path (and file:line for a trace row) to change. `validate`, `simulate`, `table3`, sweeps and Python
// all parse configs with parse_experiment.

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "sim/engine/engine.h"
#include "sim/engine/rounds.h"
#include "sim/experiments/config.h"
#include "traces/trace_format.h"
#include "workloads/io/json_reader.h"
#include "workloads/io/number_text.h"

namespace ringsched {
namespace {

// The most samples per second a job of the class reaches on any GPU count it may hold, on any GPU type of the
// cluster (0 when its speed needs more than a count, e.g. a goodput-model class: its work is then not checked).
double fastest_rate(const JobClass& cls, const ClusterConfig& cl) {
  const int hi = std::min(cls.max_gpus, cl.largest_pool_gpus());
  double best = 0.0;
  try {
    for (int w = std::max(1, cls.min_gpus); w <= hi; ++w) {
      if (!cl.typed()) best = std::max(best, class_throughput(cls, w, packed_nodes(w, cl.gpus_per_node)));
      for (const GpuPool& p : cl.pools) {
        if (w <= p.gpus() && speed_on(cls, p.gpu_type) != nullptr) {
          best = std::max(best, class_throughput_on(cls, p.gpu_type, w, packed_nodes(w, p.gpus_per_node)));
        }
      }
    }
  } catch (const std::exception&) {
    return 0.0;
  }
  return std::isfinite(best) ? best : 0.0;
}

// The first decision a job arriving at `t` can get: at t (event-driven) or at the first round at or after t.
double first_decision(double t, double interval_s) {
  if (!(interval_s > 0.0) || !std::isfinite(t)) return t;
  RoundClock rounds(interval_s);
  return rounds.next_at_or_after(t);
}

// Every trace row a run uses must be able to finish by the horizon: its first decision (arrival after time_scale,
// repeat and the round grid) plus its work at its class's fastest rate (a generous speed factor given speed_sigma).
// Otherwise the engine stops every run at that row; refused here naming the setting that put it there.
void check_trace_rows(const JsonReader& root, const ExperimentConfig& c) {
  const Trace& trace = *c.workload.trace;
  const Catalog& cat = *c.workload.catalog;
  const TraceWorkloadSpec& spec = c.workload.trace_spec;
  const int generic = spec.class_name.empty() ? 0 : std::max(0, cat.find(spec.class_name));
  const double luck = std::exp(8.0 * c.workload.speed_sigma);  // a speed factor no job reaches
  std::vector<double> fastest(cat.classes.size(), -1.0);
  const std::size_t n = std::min(trace.jobs.size(), static_cast<std::size_t>(std::max(0, c.workload.jobs)));
  const JsonReader tr = root.at("workload").at("trace");
  for (std::size_t i = 0; i < n; ++i) {
    const TraceJob& tj = trace.jobs[i];
    const std::string at = trace.file + ":" + std::to_string(tj.line) + ": ";
    const int k = trace.format->row_class(tj, cat, generic, at);
    const JobClass& cls = cat.classes[static_cast<std::size_t>(k)];
    const int hi = spec.max_gpus > 0 ? std::min(cls.max_gpus, spec.max_gpus) : cls.max_gpus;
    if (std::clamp(tj.gpus, std::min(cls.min_gpus, hi), hi) != tj.gpus && spec.oversize == Oversize::kDrop) continue;
    if (fastest[static_cast<std::size_t>(k)] < 0.0) fastest[static_cast<std::size_t>(k)] = fastest_rate(cls, c.cluster);
    // A goodput-model job's speed is its model's, not the count's: only its arrival is checked.
    const double rate = cls.goodput ? 0.0 : fastest[static_cast<std::size_t>(k)] * luck;
    JobTruth job;
    trace.format->fill_job(tj, cls, tj.gpus, c.cluster.gpus_per_node, 0.0, job);
    const double need = rate > 0.0 ? job.work_samples / rate : 0.0;
    const double arrival = tj.submit_s * spec.time_scale;
    const double start = first_decision(arrival, c.scheduler.interval_s);
    if (start < kSimHorizonS && start + need <= kSimHorizonS) continue;
    const std::string row = at + "job '" + tj.name + "' (class " + cls.name + ")";
    const std::string stop = "; the simulated clock stops at 1e12 s, so every run would fail there";
    if (!(first_decision(0.0, c.scheduler.interval_s) + need <= kSimHorizonS)) {
      tr.at("file").fail(row + ": its work (" + number_text(job.work_samples) + " samples) takes at least " +
                         number_text(need) + " s even at its class's fastest (" + number_text(rate) + " samples/s)" +
                         stop + " (check the row's steps or duration)");
    }
    const std::string when =
        row + " arrives at " + number_text(arrival) + " s and needs at least " + number_text(need) + " s" + stop;
    const bool copy = tr.has("repeat") && tj.name.find('~') != std::string::npos;
    if (copy) tr.at("repeat").at("every").fail(when + " (lower repeat.every or repeat.copies)");
    if (tr.has("time_scale")) tr.at("time_scale").fail(when + " (lower time_scale)");
    tr.at("file").fail(when);
  }
}

// On a cluster with virtual clusters every trace row a run uses must name one of its VCs and ask at most the GPUs that
// VC has (a larger job would wait forever at the head of its VC's queue).
void check_trace_vcs(const JsonReader& root, const ExperimentConfig& c) {
  if (!c.cluster.virtual_clusters) return;
  if (!c.workload.trace) {
    root.at("cluster")
        .at("virtual_clusters")
        .fail(
            "needs a workload trace whose jobs name their virtual cluster (a `vc` column or field); generated jobs "
            "name "
            "none");
  }
  const VirtualClusters& vcs = *c.cluster.virtual_clusters;
  const Trace& trace = *c.workload.trace;
  const std::size_t n = std::min(trace.jobs.size(), static_cast<std::size_t>(std::max(0, c.workload.jobs)));
  const JsonReader tr = root.at("workload").at("trace");
  for (std::size_t i = 0; i < n; ++i) {
    const TraceJob& tj = trace.jobs[i];
    const std::string row = trace.file + ":" + std::to_string(tj.line) + ": job '" + tj.name + "'";
    const int vc = vcs.index_of(tj.vc);
    if (vc < 0) tr.at("file").fail(row + (tj.vc.empty() ? " " : ": ") + vcs.refusal(tj.vc));
    const int gpus = vcs.table[static_cast<std::size_t>(vc)].nodes * c.cluster.gpus_per_node;
    if (tj.gpus > gpus) {
      tr.at("file").fail(row + " asks " + std::to_string(tj.gpus) + " GPUs; its virtual cluster '" + tj.vc + "' has " +
                         std::to_string(gpus));
    }
  }
}

// Round-based runs: a job moved in one round that is still restarting at the next makes no progress when the policy
// moves it again (time-sharing policies do each round), so the run would tick on to the horizon without a word.
void check_restart_vs_round(const JsonReader& root, const ExperimentConfig& c) {
  const double round = c.scheduler.interval_s;
  if (!(round > 0.0)) return;
  int most = 1;
  for (const JobClass& cls : c.workload.catalog->classes) {
    const int gpus = std::min(cls.max_gpus, c.cluster.largest_pool_gpus());
    most = std::max(most, gpus);
    const double own = cls.restart_cost_s + c.restart.cost_per_gpu_s * gpus;  // goodput.restart_s
    if (cls.restart_cost_s >= 0.0 && own >= round) {
      root.at("scheduler")
          .at("interval_s")
          .fail("class '" + cls.name + "': a restart of " + number_text(own) +
                " s (its goodput.restart_s + restart.cost_per_gpu_s x " + std::to_string(gpus) +
                " GPUs) is not shorter than the round (" + number_text(round) +
                " s); shorten the restart or lengthen the round");
    }
  }
  const double cost = c.restart.cost_s + c.restart.cost_per_gpu_s * most;
  if (cost < round) return;
  const std::string msg = "a restart of " + number_text(cost) + " s (restart.cost_s " + number_text(c.restart.cost_s) +
                          " + restart.cost_per_gpu_s " + number_text(c.restart.cost_per_gpu_s) + " x " +
                          std::to_string(most) + " GPUs) is not shorter than the round (scheduler.interval_s " +
                          number_text(round) +
                          " s): a job moved in one round would still be restarting when the next may move it again, "
                          "and under a policy that does so no job ever progresses; shorten the restart or lengthen "
                          "the round";
  const auto restart = root.maybe("restart");
  if (restart && restart->has("cost_s")) restart->at("cost_s").fail(msg);
  if (restart && restart->has("cost_per_gpu_s")) restart->at("cost_per_gpu_s").fail(msg);
  root.at("scheduler").at("interval_s").fail(msg);
}

// Gavel's generator gives a job of scale factor sf the duration it would take alone on sf GPUs of the reference
// type: a throughput there of 0 (or below the smallest normal double, whose step time overflows) gives no duration,
// and a run fails at the first such job.
void check_gavel_reference(const JsonReader& root, const ExperimentConfig& c) {
  if (c.workload.trace || c.workload.arrival_process != "gavel") return;
  const std::string& ref = c.workload.gavel_reference_type;
  for (const JobClass& cls : c.workload.catalog->classes) {
    for (int sf : {1, 2, 4, 8}) {
      if (sf > cls.max_gpus || (sf > 1 && !c.workload.gavel_multi_gpu)) continue;
      const double rate = class_throughput_on(cls, ref, sf, 1);
      if (rate >= DBL_MIN && std::isfinite(rate)) continue;
      const JsonReader arrival = root.at("workload").at("arrival");
      (arrival.has("reference_gpu_type") ? arrival.at("reference_gpu_type") : arrival)
          .fail("class '" + cls.name + "' of catalog " + c.workload.catalog->name + " (" + c.workload.catalog->origin +
                ") has throughput " + number_text(rate) + " on " + std::to_string(sf) + " " + ref +
                " GPU(s), where Gavel's generator measures job durations: its jobs would have no duration and "
                "every run would fail (fix the throughput or choose another reference_gpu_type)");
    }
  }
}

}  // namespace

void check_runs_can_finish(const JsonReader& root, const ExperimentConfig& c) {
  if (c.workload.trace) check_trace_rows(root, c);
  check_trace_vcs(root, c);
  check_restart_vs_round(root, c);
  check_gavel_reference(root, c);
}

}  // namespace ringsched
