// test/sim/two_jobs.h — the hand-worked two-job workload of the engine tests: job "a" arrives at 0 with 40,000
// samples, job "b" at 50 with 10,000, both of the catalog's first class.
#pragma once

#include <memory>
#include <utility>

#include "workloads/workload.h"

namespace ringsched::test {

inline Workload two_jobs(std::shared_ptr<const Catalog> catalog) {
  Workload w;
  w.catalog = std::move(catalog);
  JobTruth a;
  a.id = 0;
  a.arrival = 0.0;
  a.work_samples = 40000.0;
  a.name = "a";
  JobTruth b;
  b.id = 1;
  b.arrival = 50.0;
  b.work_samples = 10000.0;
  b.name = "b";
  w.jobs = {a, b};
  return w;
}

}  // namespace ringsched::test
