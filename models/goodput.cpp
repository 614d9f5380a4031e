// models/goodput.cpp — batch configurations, the efficiency gain, the step-time model, its fit (L-BFGS-B, the
// Fortran 3.0 code SciPy also uses, from Debian's liblbfgsb) and the goodput-maximising batch choice.
#include "models/goodput.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <mutex>
#include <stdexcept>
#include <string>

extern "C" {
// L-BFGS-B 3.0 (Byrd, Lu, Nocedal, Zhu), reverse communication; gfortran passes the lengths of the two
// CHARACTER*60 arguments last.
void ringsched_silence_fortran_stdout(int* ok);  // models/lbfgsb_quiet.f90
// L-BFGS-B calls timer(ttime) (Fortran cpu_time, a getrusage system call) on every iteration only to report its own
// run time, which ringsched never reads; those calls were a quarter of a `pollux` run's CPU. The library calls it
// through its PLT, so this definition (exported from the executable) takes its place. The search is unchanged.
void timer_(double* ttime) {
  *ttime = 0.0;
}
void setulb_(int* n, int* m, double* x, double* l, double* u, int* nbd, double* f, double* g, double* factr,
             double* pgtol, double* wa, int* iwa, char* task, int* iprint, char* csave, int* lsave, int* isave,
             double* dsave, std::size_t task_len, std::size_t csave_len);
}

namespace ringsched::models {
namespace {

constexpr double kRoundEps = 1e-8;  // the artifact's tolerance for floor/ceil

int ceil_eps(double v) {
  return static_cast<int>(std::ceil(v - kRoundEps));
}

}  // namespace

BatchConfig fixed_batch_config(double batch_size, int replicas, double init_batch, double max_batch, double max_local,
                               bool force_accum_on_one) {
  BatchConfig c;
  c.replicas = replicas;
  const int local = ceil_eps(batch_size / replicas);
  c.accum_steps = ceil_eps(static_cast<double>(local) / max_local) - 1;
  if (replicas == 1 && (force_accum_on_one || batch_size > init_batch)) c.accum_steps = std::max(1, c.accum_steps);
  c.atomic_bsz = ceil_eps(static_cast<double>(local) / (c.accum_steps + 1));
  const int count = replicas * (c.accum_steps + 1);
  c.atomic_bsz = std::min(c.atomic_bsz, static_cast<int>(max_batch / count));
  return c;
}

double efficiency_gain(const GradStats& g, double batch_size, double init_batch) {
  const double scale = batch_size / init_batch;
  const double denom = g.var / scale + g.sqr;
  return denom > 0.0 ? (g.var + g.sqr) / denom : 1.0;
}

double accumulated_step(const StepSync& s, int accum_steps) {
  return s.step + (s.step - s.sync) * accum_steps;
}

double predict_accum_time(const PerfParams& p, double atomic_bsz) {
  return p.alpha_c + p.beta_c * atomic_bsz;
}

double predict_network_time(const PerfParams& p, int nodes, int replicas) {
  double bottleneck = 1e-8;
  double retrogress = 1e-8;
  if (nodes > 1) {
    bottleneck = p.alpha_n;
    retrogress = p.beta_n;
  } else if (replicas > 1) {
    bottleneck = p.alpha_r;
    retrogress = p.beta_r;
  }
  return bottleneck + retrogress * std::max(static_cast<double>(replicas) - 2.0, 1e-8);
}

double predict_optim_time(const PerfParams& p, double accum_time, double network_time) {
  return std::exp(std::log(std::pow(accum_time, p.gamma) + std::pow(network_time, p.gamma)) / p.gamma);
}

double model_throughput(const PerfParams& p, int nodes, int replicas, double atomic_bsz, int accum_steps) {
  const double accum = predict_accum_time(p, atomic_bsz);
  const double net = predict_network_time(p, nodes, replicas);
  const double total = accum_steps * accum + predict_optim_time(p, accum, net);
  return static_cast<double>(replicas) * atomic_bsz * (accum_steps + 1) / total;
}

namespace {

// A profile point with the logs of its measurements (constant during a fit).
struct FitPoint {
  const ProfilePoint* q;
  double log_compute;  // log(step - sync)
  double log_step;
};

// Objective of fit_perf_params and its gradient. Each logarithm is taken once and reused (the same value as taking
// it again).
double fit_objective(const std::vector<FitPoint>& pts, const double* x, double* grad) {
  const PerfParams p = PerfParams::from_array({x[0], x[1], x[2], x[3], x[4], x[5], x[6]});
  const double n = static_cast<double>(pts.size());
  double s1 = 0.0;
  double s2 = 0.0;
  std::array<double, 7> g1{};
  std::array<double, 7> g2{};
  for (const FitPoint& fp : pts) {
    const ProfilePoint& q = *fp.q;
    const double pa = predict_accum_time(p, q.atomic_bsz);
    const double net = predict_network_time(p, q.nodes, q.replicas);
    const double ag = std::pow(pa, p.gamma);
    const double ng = std::pow(net, p.gamma);
    const double sum = ag + ng;
    const double log_sum = std::log(sum);
    const double log_pa = std::log(pa);
    const double plo = log_sum / p.gamma;
    const double e1 = log_pa - fp.log_compute;
    const double e2 = plo - fp.log_step;
    s1 += e1 * e1;
    s2 += e2 * e2;
    // d log(pa) / d(alpha_c, beta_c)
    g1[0] += e1 / pa;
    g1[1] += e1 * q.atomic_bsz / pa;
    // d plo / d pa, d net, d gamma
    const double dpa = ag / pa / sum;
    const double dnet = ng / net / sum;
    const double dg = -log_sum / (p.gamma * p.gamma) + (ag * log_pa + ng * std::log(net)) / (p.gamma * sum);
    g2[0] += e2 * dpa;
    g2[1] += e2 * dpa * q.atomic_bsz;
    const double retro = std::max(static_cast<double>(q.replicas) - 2.0, 1e-8);
    if (q.nodes > 1) {
      g2[2] += e2 * dnet;
      g2[3] += e2 * dnet * retro;
    } else if (q.replicas > 1) {
      g2[4] += e2 * dnet;
      g2[5] += e2 * dnet * retro;
    }
    g2[6] += e2 * dg;
  }
  const double err1 = std::sqrt(s1 / n);
  const double err2 = std::sqrt(s2 / n);
  const double rn = (p.beta_n / p.alpha_n);
  const double rr = (p.beta_r / p.alpha_r);
  const double f = err1 + err2 + 1e-3 * (p.gamma - 1.0) * (p.gamma - 1.0) + 1e-2 * (rn * rn + rr * rr);
  if (grad != nullptr) {
    for (int k = 0; k < 7; ++k) {
      const double d1 = err1 > 0.0 ? g1[static_cast<std::size_t>(k)] / (n * err1) : 0.0;
      const double d2 = err2 > 0.0 ? g2[static_cast<std::size_t>(k)] / (n * err2) : 0.0;
      grad[k] = d1 + d2;
    }
    grad[6] += 2e-3 * (p.gamma - 1.0);
    grad[2] += -2e-2 * p.beta_n * p.beta_n / (p.alpha_n * p.alpha_n * p.alpha_n);
    grad[3] += 2e-2 * p.beta_n / (p.alpha_n * p.alpha_n);
    grad[4] += -2e-2 * p.beta_r * p.beta_r / (p.alpha_r * p.alpha_r * p.alpha_r);
    grad[5] += 2e-2 * p.beta_r / (p.alpha_r * p.alpha_r);
  }
  return f;
}

// SciPy's minimize(method="L-BFGS-B") defaults: m = 10, factr = ftol / eps = 1e7, pgtol = 1e-5, 15000 iterations
// and evaluations.
void minimise_lbfgsb(const std::vector<FitPoint>& pts, double* x, double* lo, double* hi) {
  static std::once_flag silenced;
  std::call_once(silenced, [] {
    int ok = 0;
    ringsched_silence_fortran_stdout(&ok);
    if (ok == 0)
      std::fprintf(stderr, "ringsched: warning: /dev/null not writable; L-BFGS-B may print line-search notes\n");
  });
  int n = 7;
  int m = 10;
  int nbd[7];
  for (int i = 0; i < 7; ++i)
    nbd[i] = std::isfinite(hi[i]) ? 2 : 1;
  double f = 0.0;
  double g[7] = {};
  double factr = 1e7;
  double pgtol = 1e-5;
  std::vector<double> wa(static_cast<std::size_t>(2 * m * n + 5 * n + 11 * m * m + 8 * m));
  std::vector<int> iwa(static_cast<std::size_t>(3 * n));
  char task[60];
  char csave[60];
  int lsave[4] = {};
  int isave[44] = {};
  double dsave[29] = {};
  int iprint = -1;
  std::memset(task, ' ', sizeof task);
  std::memcpy(task, "START", 5);
  std::memset(csave, ' ', sizeof csave);
  int iterations = 0;
  int evaluations = 0;
  for (;;) {
    setulb_(&n, &m, x, lo, hi, nbd, &f, g, &factr, &pgtol, wa.data(), iwa.data(), task, &iprint, csave, lsave, isave,
            dsave, sizeof task, sizeof csave);
    if (std::strncmp(task, "FG", 2) == 0) {
      f = fit_objective(pts, x, g);
      ++evaluations;
      if (!std::isfinite(f)) {
        // Leave the search where it was; a non-finite objective cannot guide it.
        std::memset(task, ' ', sizeof task);
        std::memcpy(task, "STOP", 4);
      }
    } else if (std::strncmp(task, "NEW_X", 5) == 0) {
      if (++iterations >= 15000 || evaluations > 15000) {
        std::memset(task, ' ', sizeof task);
        std::memcpy(task, "STOP", 4);
      }
    } else {
      break;
    }
  }
}

}  // namespace

PerfParams fit_perf_params(const std::vector<ProfilePoint>& profile) {
  if (profile.empty()) throw std::invalid_argument("fit_perf_params: no profile points");
  for (const auto& q : profile) {
    if (!(q.step > q.sync) || !(q.sync >= 0.0) || !(q.atomic_bsz > 0.0) || q.replicas < 1 || q.nodes < 1 ||
        q.nodes > q.replicas || !std::isfinite(q.step)) {
      throw std::invalid_argument(
          "fit_perf_params: a profile point needs step > sync >= 0, a positive batch and "
          "1 <= nodes <= replicas");
    }
  }
  double x[7] = {1e-1, 1e-2, 1e-1, 1e-2, 1e-1, 1e-2, 1.0 + 1e-3};
  double lo[7] = {1e-8, 1e-8, 1e-8, 1e-8, 1e-8, 1e-8, 1.0};
  double hi[7];
  for (int i = 0; i < 6; ++i)
    hi[i] = std::numeric_limits<double>::infinity();
  hi[6] = 10.0;
  bool one_bsz = true;
  bool multi_node = false;
  bool one_node_multi = false;
  bool above_two = false;
  double accum_sum = 0.0;
  for (const auto& q : profile) {
    one_bsz = one_bsz && q.atomic_bsz == profile.front().atomic_bsz;
    multi_node = multi_node || q.nodes > 1;
    one_node_multi = one_node_multi || (q.nodes == 1 && q.replicas > 1);
    above_two = above_two || q.replicas > 2;
    accum_sum += q.step - q.sync;
  }
  auto fix = [&](int i, double v) { x[i] = lo[i] = hi[i] = v; };
  if (one_bsz) fix(0, accum_sum / static_cast<double>(profile.size()) / 2.0);
  if (!multi_node) {
    fix(2, lo[2]);
    fix(3, lo[3]);
  }
  if (!one_node_multi) {
    fix(4, lo[4]);
    fix(5, lo[5]);
  }
  if (!above_two) {
    fix(3, lo[3]);
    fix(5, lo[5]);
  }
  std::vector<FitPoint> pts;
  pts.reserve(profile.size());
  for (const auto& q : profile)
    pts.push_back(FitPoint{&q, std::log(q.step - q.sync), std::log(q.step)});
  minimise_lbfgsb(pts, x, lo, hi);
  if (!multi_node) {
    x[2] = std::max(x[2], x[4] * 1.1);
    x[3] = std::max(x[3], x[5] * 1.1);
  }
  return PerfParams::from_array({x[0], x[1], x[2], x[3], x[4], x[5], x[6]});
}

double GoodputModel::evaluate(int nodes, int replicas, int atomic_bsz, int accum_steps) const {
  const double batch = static_cast<double>(replicas) * atomic_bsz * (accum_steps + 1);
  const double scale = batch / init_batch;
  return model_throughput(perf, nodes, replicas, atomic_bsz, accum_steps) * efficiency_gain(grad, batch, init_batch) /
         scale;
}

double GoodputModel::optimize(int nodes, int replicas, BatchConfig& cfg) const {
  // 50 global batches from max(init, min atomic x replicas) to max, geometrically (numpy.geomspace: 10 ** linspace
  // of the logs, the ends exact). The grid depends only on its ends: a thread keeps the last few it computed.
  const double lo = std::max(init_batch, min_atomic * replicas);
  const double hi = max_batch;
  constexpr int kNum = 50;
  struct Grid {
    double lo;
    double hi;
    std::array<double, kNum> batch;
  };
  thread_local std::array<Grid, 8> grids{};
  thread_local std::size_t next_grid = 0;
  const Grid* grid = nullptr;
  for (const Grid& gr : grids) {
    if (gr.lo == lo && gr.hi == hi) grid = &gr;
  }
  if (grid == nullptr) {
    Grid& gr = grids[next_grid++ % grids.size()];
    gr.lo = lo;
    gr.hi = hi;
    const double l0 = std::log10(lo);
    const double step = (std::log10(hi) - l0) / (kNum - 1);
    for (int i = 0; i < kNum; ++i)
      gr.batch[static_cast<std::size_t>(i)] = std::pow(10.0, i * step + l0);
    gr.batch.front() = lo;
    gr.batch.back() = hi;
    grid = &gr;
  }
  // The network time and its power do not depend on the batch: predict_optim_time and model_throughput unrolled.
  const double net = predict_network_time(perf, nodes, replicas);
  const double net_pow = std::pow(net, perf.gamma);
  double best = 0.0;
  bool found = false;
  int last_atomic = -1;
  int last_accum = -1;
  for (const double batch : grid->batch) {
    const double local = batch / replicas;
    int accum = ceil_eps(local / max_atomic) - 1;
    if (replicas == 1 && local > init_batch + kRoundEps) accum = std::max(accum, 1);
    const int atomic = ceil_eps(local / (accum + 1));
    if (atomic < min_atomic || atomic > max_atomic) continue;
    if (atomic == last_atomic && accum == last_accum) continue;  // same configuration, same goodput: never better
    last_atomic = atomic;
    last_accum = accum;
    const double accum_time = predict_accum_time(perf, atomic);
    const double optim = std::exp(std::log(std::pow(accum_time, perf.gamma) + net_pow) / perf.gamma);
    const double total = accum * accum_time + optim;
    const double samples = static_cast<double>(replicas) * atomic * (accum + 1);
    const double g = samples / total * efficiency_gain(grad, samples, init_batch) / (samples / init_batch);
    if (!found || g > best) {
      best = g;
      found = true;
      cfg = BatchConfig{replicas, atomic, accum};
    }
  }
  return found ? best : 0.0;
}

}  // namespace ringsched::models
