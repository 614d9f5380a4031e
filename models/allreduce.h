// models/allreduce.h — all-reduce cost models (Eqs. 2-4): ring, recursive halving/doubling, binary blocks.
#pragma once

#include <string>
#include <vector>

namespace ringsched::models {

enum class AllreduceAlgo { kRing, kHalvingDoubling, kBinaryBlocks };

// alpha: seconds per message (latency), beta: seconds per byte transferred, gamma: seconds per byte reduced.
struct AllreduceParams {
  double alpha = 0.0;
  double beta = 0.0;
  double gamma = 0.0;
};

// Parses "ring", "halving_doubling", "binary_blocks"; returns false on an unknown name.
bool parse_allreduce_algo(const std::string& name, AllreduceAlgo& out);
std::string to_string(AllreduceAlgo algo);
std::vector<std::string> allreduce_algo_names();

// Eq. 2: 2(p-1)a + 2((p-1)/p) n b + ((p-1)/p) n g.
double ring_allreduce_time(int p, double n_bytes, const AllreduceParams& c);

// Eq. 3 (Rabenseifner): 2 log2(p) a + 2((p-1)/p) n b + ((p-1)/p) n g. For p not a power of two this
// function uses ceil(log2 p) latency steps (use binary blocks for a faithful non-power-of-two cost).
double halving_doubling_allreduce_time(int p, double n_bytes, const AllreduceParams& c);

// Eq. 4, binary blocks (Rabenseifner and Traff, EuroPVM/MPI 2004). p = 2^k1 + 2^k2 + ... (k1 > k2 > ...).
// The largest block runs halving/doubling on all n bytes; each smaller block i+1 hands its partial result
// (n / 2^k(i+1) bytes per process) to block i in the reduce-scatter phase and receives it back in the allgather
// phase, so each block boundary adds 2 (a + (n / 2^k(i+1)) (b + g/2)). The extra cost grows with the gap
// between consecutive power-of-two blocks (a block of 1 behind a block of 8 moves the whole vector).
// For p a power of two this equals halving_doubling_allreduce_time.
double binary_blocks_allreduce_time(int p, double n_bytes, const AllreduceParams& c);

double allreduce_time(AllreduceAlgo algo, int p, double n_bytes, const AllreduceParams& c);

// The power-of-two blocks of p, largest first (binary digits of p).
std::vector<int> binary_blocks(int p);

}  // namespace ringsched::models
