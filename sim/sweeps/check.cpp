// sim/sweeps/check.cpp — baseline comparison for `ringsched check` and the CI regression gate.
#include "sim/sweeps/check.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <limits>
#include <map>
#include <numeric>
#include <set>
#include <sstream>

#include <boost/math/distributions/students_t.hpp>

#include "models/input_error.h"
#include "sim/engine/metrics.h"
#include "workloads/io/json_reader.h"
#include "workloads/io/number_text.h"

namespace ringsched {
namespace {

// A metric as written by sweep.json or summary.json: a number (finite, not denormal, |v| <= 1e30: seconds, counts and
// ratios of real runs are far below; larger ones overflow the means), or the writers' "nan" / "inf" / "-inf" text.
// Anything else is an input error naming where.
double metric_number(const nlohmann::json& j, const std::string& where) {
  if (j.is_number()) {
    const double v = j.get<double>();
    if (!(std::fabs(v) <= 1e30)) throw InputError(where + ": " + j.dump() + " is beyond any metric (|value| <= 1e30)");
    if (v != 0.0 && std::fabs(v) < std::numeric_limits<double>::min()) {
      throw InputError(where + ": " + j.dump() + " is a denormal number, not a metric");
    }
    return v;
  }
  if (j.is_string()) {
    const auto s = j.get<std::string>();
    if (s == "nan") return std::nan("");
    if (s == "inf") return HUGE_VAL;
    if (s == "-inf") return -HUGE_VAL;
  }
  throw InputError(where + ": expected a number, got " + std::string(j.type_name()) +
                   (j.is_string() ? " '" + j.get<std::string>().substr(0, 40) + "'" : ""));
}

// One replicate's metrics (or its error) into its group; a seed listed twice in a group is an input error.
void add_run(ResultGroup& g, std::set<std::uint64_t>& seeds, const nlohmann::json& run, const std::string& where) {
  if (run.contains("seed") && !seeds.insert(run.at("seed").get<std::uint64_t>()).second) {
    throw InputError(where + ": seed " + run.at("seed").dump() + " of " + g.key + " is listed twice");
  }
  if (run.contains("error")) {
    ++g.failed;
    return;
  }
  for (const auto& item : run.at("metrics").items())
    g.values[item.key()].push_back(metric_number(item.value(), where + ".metrics." + item.key()));
}

double mean_or_nan(const std::vector<double>& v) {
  return v.empty() ? std::nan("") : std::accumulate(v.begin(), v.end(), 0.0) / static_cast<double>(v.size());
}

}  // namespace

void add_tolerance(CheckOptions& options, const std::string& spec) {
  const auto eq = spec.find('=');
  const std::string metric = eq == std::string::npos ? "" : spec.substr(0, eq);
  const std::string value = eq == std::string::npos ? spec : spec.substr(eq + 1);
  if (value.size() > 64) {  // the same cap as the command line's number flags (sim/cli/flags.h)
    throw InputError("--tolerance: '" + spec.substr(0, 37) + "...': the number is " + std::to_string(value.size()) +
                     " characters long; at most 64");
  }
  if (metric.size() > 64)
    throw InputError("--tolerance: '" + spec.substr(0, 37) + "...': no metric has so long a name");
  double v = 0.0;
  try {
    std::size_t used = 0;
    v = std::stod(value, &used);
    if (used != value.size()) throw std::invalid_argument("trailing text");
  } catch (const std::exception&) {
    throw InputError("--tolerance: '" + spec + "': expected a number or METRIC=NUMBER (e.g. 0.05, mean_jct_s=0.02)");
  }
  if (!(v >= 0.0) || !std::isfinite(v)) throw InputError("--tolerance: '" + spec + "': must be >= 0");
  if (metric.empty()) {
    options.default_tolerance = v;
    return;
  }
  const auto& names = metric_names();
  if (std::find(names.begin(), names.end(), metric) == names.end()) {
    throw InputError("--tolerance: unknown metric '" + metric + "' (valid: " + join_names(names) + ")");
  }
  options.tolerance[metric] = v;
}

WelchResult welch_t_test(const std::vector<double>& a, const std::vector<double>& b) {
  WelchResult w;
  if (a.size() < 2 || b.size() < 2) return w;
  const Aggregate x = aggregate(a);
  const Aggregate y = aggregate(b);
  const double va = x.sd * x.sd / static_cast<double>(x.n);
  const double vb = y.sd * y.sd / static_cast<double>(y.n);
  const double se2 = va + vb;
  if (!(se2 > 0.0) || !std::isfinite(se2)) return w;
  const double t = (x.mean - y.mean) / std::sqrt(se2);
  // Welch-Satterthwaite df, computed on variances scaled by se2 so that metrics near 1e78 (se2^2 overflows) work.
  const double ra = va / se2;
  const double rb = vb / se2;
  const double df = 1.0 / (ra * ra / static_cast<double>(x.n - 1) + rb * rb / static_cast<double>(y.n - 1));
  if (!std::isfinite(t) || !(df > 0.0) || !std::isfinite(df)) return w;  // no test on such numbers
  try {
    const boost::math::students_t dist(df);
    w.p = 2.0 * boost::math::cdf(boost::math::complement(dist, std::fabs(t)));
  } catch (const std::exception&) {  // Boost.Math domain or overflow errors: no test rather than a crash
    return w;
  }
  w.available = true;
  w.t = t;
  w.df = df;
  return w;
}

std::vector<ResultGroup> load_result_groups(const nlohmann::json& doc, const std::string& origin) {
  std::vector<ResultGroup> out;
  try {
    if (doc.is_object() && doc.value("format", std::string()) == "ringsched-sweep") {
      std::size_t ci = 0;
      for (const auto& cell : doc.at("cells")) {
        const std::size_t cell_index = ci++;
        const std::string prefix = "cell [" + cell.at("label").get<std::string>() + "]";
        if (cell.contains("error")) {
          ResultGroup g;
          g.key = prefix;
          g.error = cell.at("error").get<std::string>();
          out.push_back(std::move(g));
          continue;
        }
        std::size_t gi = 0;
        for (const auto& grp : cell.at("groups")) {
          ResultGroup g;
          g.key = prefix + " level " + grp.at("level").get<std::string>() + ", strategy " +
                  grp.at("strategy").get<std::string>();
          std::set<std::uint64_t> seeds;
          std::size_t ri = 0;
          for (const auto& run : grp.at("runs")) {
            add_run(g, seeds, run,
                    origin + ": cells[" + std::to_string(cell_index) + "].groups[" + std::to_string(gi) + "].runs[" +
                        std::to_string(ri++) + "]");
          }
          ++gi;
          out.push_back(std::move(g));
        }
      }
      return out;
    }
    if (doc.is_object() && doc.contains("runs") && doc.contains("cells")) {
      std::map<std::string, std::set<std::uint64_t>> seeds;
      std::size_t ri = 0;
      for (const auto& run : doc.at("runs")) {
        const std::string key =
            "level " + run.at("level").get<std::string>() + ", strategy " + run.at("strategy").get<std::string>();
        auto it = std::find_if(out.begin(), out.end(), [&](const ResultGroup& g) { return g.key == key; });
        if (it == out.end()) {
          out.push_back(ResultGroup{key, "", 0, {}});
          it = out.end() - 1;
        }
        add_run(*it, seeds[key], run, origin + ": runs[" + std::to_string(ri++) + "]");
      }
      return out;
    }
  } catch (const nlohmann::json::exception& e) {
    throw InputError(origin + ": damaged results file: " + e.what());
  }
  throw InputError(origin + ": not a sweep.json (ringsched sweep) or summary.json (ringsched table3/simulate --out)");
}

namespace {

// One metric of one group: drifts when its mean moved beyond the tolerance and (with the Welch test) significantly.
void compare_metric(const std::string& key, const std::string& m, const std::vector<double>& base,
                    const std::vector<double>& res, const CheckOptions& options, CheckReport& rep) {
  const double mb = mean_or_nan(base);
  const double mr = mean_or_nan(res);
  const auto tol_it = options.tolerance.find(m);
  const double tol = tol_it == options.tolerance.end() ? options.default_tolerance : tol_it->second;
  if (std::isnan(mb) && std::isnan(mr)) return;
  const double diff = std::fabs(mr - mb);
  if (diff <= std::max(tol * std::fabs(mb), options.abs_tolerance)) return;
  std::string line = key + ": " + m + " " + formatted("%.6g", mb) + " -> " + formatted("%.6g", mr);
  if (mb != 0.0)
    line += " (" + formatted("%+.2f", 100.0 * (mr - mb) / std::fabs(mb)) + "%";
  else
    line += " (";
  line += (mb != 0.0 ? ", " : "") + std::string("tolerance ") + formatted("%.3g", 100.0 * tol) + "%";
  bool drift = true;
  if (options.welch) {
    const WelchResult w = welch_t_test(res, base);
    if (w.available) {
      line += "; Welch t = " + formatted("%.3g", w.t) + ", df = " + formatted("%.3g", w.df) +
              ", p = " + formatted("%.3g", w.p);
      drift = w.p < options.alpha;
      line += drift ? " < " : " >= ";
      line += formatted("%.3g", options.alpha);
    } else {
      line += "; no test (fewer than 2 replicates or no spread): tolerance decides";
    }
  }
  line += ")";
  if (drift) {
    ++rep.drifted;
    rep.drifts.push_back(line);
  } else {
    rep.notes.push_back(line + ": beyond tolerance but not significant");
  }
}

// One group present on both sides: its cell error, failed replicates and metrics.
void compare_group(const ResultGroup& b, const ResultGroup& r, const std::vector<std::string>& metrics,
                   const CheckOptions& options, CheckReport& rep) {
  if (b.error != r.error) {
    ++rep.drifted;
    rep.drifts.push_back(b.key + ": cell error changed: '" + b.error + "' -> '" + r.error + "'");
    return;
  }
  if (b.failed != r.failed) {
    ++rep.drifted;
    rep.drifts.push_back(b.key + ": failed replicates " + std::to_string(b.failed) + " -> " + std::to_string(r.failed));
  }
  for (const auto& m : metrics) {
    const auto bv = b.values.find(m);
    const auto rv = r.values.find(m);
    if (bv == b.values.end() && rv == r.values.end()) continue;
    ++rep.comparisons;
    if (bv == b.values.end() || rv == r.values.end()) {
      ++rep.drifted;
      if (b.values.empty() != r.values.empty()) {  // every replicate of one side failed: its mean is absent, not 0
        const auto shown = [](const auto& it, const ResultGroup& g) {
          return it == g.values.end() ? std::string("-") : formatted("%.6g", mean_or_nan(it->second));
        };
        rep.drifts.push_back(b.key + ": " + m + " " + shown(bv, b) + " -> " + shown(rv, r) +
                             " (no successful replicate in the " + (r.values.empty() ? "results" : "baseline") + ")");
      } else {
        rep.drifts.push_back(b.key + ": " + m + " present on one side only");
      }
      continue;
    }
    compare_metric(b.key, m, bv->second, rv->second, options, rep);
  }
}

}  // namespace

CheckReport check_results(const nlohmann::json& baseline, const std::string& baseline_origin,
                          const nlohmann::json& results, const std::string& results_origin,
                          const CheckOptions& options) {
  CheckReport rep;
  const auto base = load_result_groups(baseline, baseline_origin);
  const auto res = load_result_groups(results, results_origin);
  const std::string bh = baseline.is_object() ? baseline.value("config_hash", std::string()) : "";
  const std::string rh = results.is_object() ? results.value("config_hash", std::string()) : "";
  if (bh != rh) {
    rep.notes.push_back("config hashes differ (baseline " + (bh.empty() ? "none" : bh) + ", results " +
                        (rh.empty() ? "none" : rh) + "): the sweeps were not made from the same config");
  }
  const std::vector<std::string> metrics = options.metrics.empty() ? metric_names() : options.metrics;
  for (const auto& b : base) {
    ++rep.groups;
    const auto it = std::find_if(res.begin(), res.end(), [&](const ResultGroup& g) { return g.key == b.key; });
    if (it == res.end()) {
      ++rep.drifted;
      rep.drifts.push_back(b.key + ": missing from the results");
      continue;
    }
    compare_group(b, *it, metrics, options, rep);
  }
  for (const auto& r : res) {
    const bool known = std::any_of(base.begin(), base.end(), [&](const ResultGroup& g) { return g.key == r.key; });
    if (!known) {
      ++rep.drifted;
      rep.drifts.push_back(r.key + ": not in the baseline");
    }
  }
  return rep;
}

std::string CheckReport::render() const {
  std::ostringstream out;
  for (const auto& n : notes)
    out << "note: " << n << '\n';
  for (const auto& d : drifts)
    out << "DRIFT: " << d << '\n';
  out << "check: " << groups << " group(s), " << comparisons << " metric comparison(s): ";
  if (drifted == 0) {
    out << "no drift\n";
  } else {
    out << drifted << " drifted\n";
  }
  return out.str();
}

int check_command(const std::string& baseline_path, const std::string& results_path, const CheckOptions& options) {
  const auto& names = metric_names();
  for (const auto& m : options.metrics) {
    if (std::find(names.begin(), names.end(), m) == names.end()) {
      throw InputError("--metrics: unknown metric '" + m + "' (valid: " + join_names(names) + ")");
    }
  }
  if (!(options.alpha > 0.0 && options.alpha < 1.0)) throw InputError("--alpha: must be in (0, 1)");
  const auto baseline = read_json_file(baseline_path);
  const auto results = read_json_file(results_path);
  const CheckReport rep = check_results(baseline, baseline_path, results, results_path, options);
  std::cout << rep.render() << std::flush;
  return rep.drifted == 0 ? 0 : 1;
}

}  // namespace ringsched
