// sim/cluster/network/shares.h — the contention model on one connected component of jobs (jobs joined by shared
// links): each job's rate while it communicates, its shared iteration time and slowdown (docs/network.md).
//
// A job's communication time per iteration is flow_bytes / its rate per hop; alone the rate is `alone_rate`. Shared:
// extra = flow_bytes x (1 / rate - 1 / alone_rate), shared iteration = iteration_s + (1 - overlap) x extra, slowdown =
// shared iteration / iteration_s (a job whose rate is its alone rate keeps slowdown exactly 1). Its mean throughput per
// flow is flow_bytes / shared iteration (at most its rate).
//
// A ring's hops move in lock-step (each step waits for the slowest hop), so a job is ONE max-min entity: its rate r
// is on every hop, and a link that k of its hops cross carries k x r. (Max-min over the separate hops would give a
// fast hop bandwidth its ring cannot use.)
// activity "always" (every flow always on): one weighted max-min over the component's jobs.
// activity "expected": a competitor that moves flow_bytes every shared iteration occupies on average its mean
// throughput on every link of its path; job j therefore sees each competitor as an entity capped at that mean
// (weight unchanged) on j's own links, itself uncapped, and its rate is its weighted max-min rate there (what the
// competitors leave, never less than its weighted share while all are active; for two jobs with one hop each on one
// link of capacity C: rate_A = max(C - mean_B, C w_A / (w_A + w_B))). Means depend on the shared iteration times,
// so they are iterated from the alone means (every job's update from the previous round's means, damped per job:
// a job whose update overshoots, changing direction, takes half steps) until every mean's update is within 1e-9
// (relative) of it, at most kMaxRounds rounds (then the last round stands and `residual` says how far it was).
#pragma once

#include <span>
#include <vector>

namespace ringsched::net {

inline constexpr int kMaxRounds = 100;

struct ShareJob {
  std::vector<int> links;    // link indices (into the component's capacity array) its hops cross; a link
                             // k of its hops cross is listed k times
  double flow_bytes = 0.0;   // bytes each flow carries per iteration
  double iteration_s = 0.0;  // iteration time alone (> 0)
  double alone_rate = 0.0;   // bytes/s per hop alone (alone_rate() over the same links)
  double weight = 1.0;       // priority weight (> 0)
};

struct Share {
  double rate = 0.0;         // bytes/s per hop while it communicates
  double iteration_s = 0.0;  // shared iteration time
  double slowdown = 1.0;     // shared / alone iteration time, >= 1
  double mean_rate = 0.0;    // mean bytes/s per flow: flow_bytes / shared iteration
};

struct ShareResult {
  std::vector<Share> jobs;
  int rounds = 0;         // fixed-point rounds ("expected"; 1 for "always")
  double residual = 0.0;  // "expected": the last round's largest relative gap between a mean and its update
  bool settled = true;    // false when "expected" stopped at kMaxRounds with residual above 1e-9
};

// A job's rate per hop alone: the smallest capacity / (hops crossing it) over its links (infinity without links).
double alone_rate(std::span<const double> capacity, std::span<const int> links);

// Every job of one component; `always` selects activity "always" (else "expected").
ShareResult component_shares(std::span<const double> capacity, std::span<const ShareJob> jobs, double overlap,
                             bool always);

}  // namespace ringsched::net
