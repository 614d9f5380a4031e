// strategies/common/service_estimator.cpp — Helios' history-based run-time estimator (see the header).
#include "strategies/common/service_estimator.h"

namespace ringsched {

std::string ServiceEstimator::key_user_name(const std::string& user, const std::string& name) {
  std::string k;
  k.reserve(user.size() + name.size() + 1);
  k += user;
  k += '\x1f';
  k += name;
  return k;
}

void ServiceEstimator::record(const std::string& user, const std::string& name, int gpus, double run_s) {
  all_.add(run_s);
  by_name_[name].add(run_s);
  if (user.empty()) return;  // unknown user: no user levels
  by_user_[user].add(run_s);
  std::string k = key_user_name(user, name);
  by_user_name_[k].add(run_s);
  k += '\x1f';
  k += std::to_string(gpus);
  by_user_name_gpus_[k].add(run_s);
}

ServiceEstimator::Estimate ServiceEstimator::estimate(const std::string& user, const std::string& name,
                                                      int gpus) const {
  if (all_.count == 0) return {prior_s_, Level::kPrior};
  if (!user.empty()) {
    std::string k = key_user_name(user, name);
    const auto un = by_user_name_.find(k);
    if (un != by_user_name_.end()) {
      k += '\x1f';
      k += std::to_string(gpus);
      const auto ung = by_user_name_gpus_.find(k);
      if (ung != by_user_name_gpus_.end()) return {ung->second.value(), Level::kUserNameGpus};
      return {un->second.value(), Level::kUserName};
    }
  }
  if (const auto n = by_name_.find(name); n != by_name_.end()) return {n->second.value(), Level::kName};
  if (!user.empty()) {
    if (const auto u = by_user_.find(user); u != by_user_.end()) return {u->second.value(), Level::kUser};
  }
  return {all_.value(), Level::kAll};
}

const char* to_string(ServiceEstimator::Level level) {
  switch (level) {
    case ServiceEstimator::Level::kUserNameGpus:
      return "user+name+gpus";
    case ServiceEstimator::Level::kUserName:
      return "user+name";
    case ServiceEstimator::Level::kName:
      return "name";
    case ServiceEstimator::Level::kUser:
      return "user";
    case ServiceEstimator::Level::kAll:
      return "all";
    case ServiceEstimator::Level::kPrior:
      return "prior";
  }
  return "prior";
}

}  // namespace ringsched
