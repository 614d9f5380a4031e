// workloads/rng.h — deterministic random streams: one Boost.Random engine per (seed, stream) pair, so that every
// replicate and every purpose (arrivals, noise, measurement) draws from its own reproducible sequence.
#pragma once

#include <cstdint>

#include <boost/random/mersenne_twister.hpp>

namespace ringsched {

using Rng = boost::random::mt19937_64;

// Named streams; values are part of the output format (changing them changes results).
enum class Stream : std::uint64_t {
  kArrivals = 1,
  kJobNoise = 2,
  kMeasurement = 3,
  kTraining = 4,
  kTrace = 5,
  kLoss = 6,
  kAgentSteps = 7,  // the steps a job's agent measures of its own runs (`agent` beliefs)
  kGavelJobs = 8,   // Gavel's job generator: scale factor, duration, job type (workloads/gavel_jobs.h)
  kFailures = 9,    // node and switch failures and repairs (cluster.failures; sim/cluster/failures/)
};

std::uint64_t splitmix64(std::uint64_t x);
Rng make_rng(std::uint64_t seed, Stream stream, std::uint64_t extra = 0);

// One standard normal deviate that depends only on (seed, stream, a, b) (splitmix64 hashing and Box-Muller): for
// noise that must not depend on the order in which it is asked for (e.g. the n-th loss evaluation of job j).
double keyed_normal(std::uint64_t seed, Stream stream, std::uint64_t a, std::uint64_t b);

}  // namespace ringsched
