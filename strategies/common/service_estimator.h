// strategies/common/service_estimator.h — the history-based run-time estimator of Helios' QSSF (SC'21; the
// artifact's NaiveEstimator): it learns from the jobs a run has finished (their measured run time) and estimates a
// new job's run time by the mean over the most alike finished jobs, by user, job name and GPU count.
#pragma once

#include <cstddef>
#include <string>
#include <unordered_map>

namespace ringsched {

// Estimated run time of a job = the mean measured run time of the finished jobs that share, in this order of
// preference (the first level with a finished job answers):
//   1. its user, its job name and its GPU count;
//   2. its user and its job name;
//   3. its job name (any user);
//   4. its user (any name);
//   5. every finished job;
//   6. nothing finished yet: `prior_s`.
// An empty user is unknown: levels 1, 2 and 4 are skipped for it (a trace without users would otherwise count every
// job as one user's). Names match exactly; the artifact also matches close names (Python's difflib, cutoff 0.6),
// which this does not. Each record and each estimate costs O(1) (hash maps of running sums; the strings are hashed
// once per call).
class ServiceEstimator {
 public:
  enum class Level { kUserNameGpus, kUserName, kName, kUser, kAll, kPrior };

  struct Estimate {
    double run_s = 0.0;  // estimated run time, seconds
    Level level = Level::kPrior;
  };

  explicit ServiceEstimator(double prior_s) : prior_s_(prior_s) {}

  // A finished job's measured run time (seconds, >= 0) on `gpus` GPUs.
  void record(const std::string& user, const std::string& name, int gpus, double run_s);
  [[nodiscard]] Estimate estimate(const std::string& user, const std::string& name, int gpus) const;
  // Estimated service (GPU-seconds): the estimated run time times `gpus`, QSSF's priority (lower first).
  [[nodiscard]] double service(const std::string& user, const std::string& name, int gpus) const {
    return estimate(user, name, gpus).run_s * static_cast<double>(gpus);
  }
  [[nodiscard]] std::size_t finished() const { return all_.count; }

 private:
  struct Mean {
    double sum = 0.0;
    std::size_t count = 0;
    void add(double x) {
      sum += x;
      ++count;
    }
    [[nodiscard]] double value() const { return sum / static_cast<double>(count); }
  };
  // Keys join the fields with a byte no name holds ('\x1f', the unit separator) so that ("a", "bc") and ("ab", "c")
  // differ.
  static std::string key_user_name(const std::string& user, const std::string& name);

  double prior_s_;
  Mean all_;
  std::unordered_map<std::string, Mean> by_user_name_gpus_;
  std::unordered_map<std::string, Mean> by_user_name_;
  std::unordered_map<std::string, Mean> by_name_;
  std::unordered_map<std::string, Mean> by_user_;
};

// "user+name+gpus", "user+name", "name", "user", "all", "prior": the level's name in docs and tests.
const char* to_string(ServiceEstimator::Level level);

}  // namespace ringsched
