// models/allreduce.cpp — all-reduce costs (Eqs. 2-4).
#include "models/allreduce.h"

#include <cmath>

namespace ringsched::models {

bool parse_allreduce_algo(const std::string& name, AllreduceAlgo& out) {
  if (name == "ring") {
    out = AllreduceAlgo::kRing;
  } else if (name == "halving_doubling") {
    out = AllreduceAlgo::kHalvingDoubling;
  } else if (name == "binary_blocks") {
    out = AllreduceAlgo::kBinaryBlocks;
  } else {
    return false;
  }
  return true;
}

std::string to_string(AllreduceAlgo algo) {
  switch (algo) {
    case AllreduceAlgo::kRing:
      return "ring";
    case AllreduceAlgo::kHalvingDoubling:
      return "halving_doubling";
    case AllreduceAlgo::kBinaryBlocks:
      return "binary_blocks";
  }
  return "ring";
}

std::vector<std::string> allreduce_algo_names() {
  return {"ring", "halving_doubling", "binary_blocks"};
}

double ring_allreduce_time(int p, double n_bytes, const AllreduceParams& c) {
  if (p <= 1) return 0.0;
  const double pd = p;
  const double frac = (pd - 1.0) / pd;
  return 2.0 * (pd - 1.0) * c.alpha + 2.0 * frac * n_bytes * c.beta + frac * n_bytes * c.gamma;
}

double halving_doubling_allreduce_time(int p, double n_bytes, const AllreduceParams& c) {
  if (p <= 1) return 0.0;
  const double pd = p;
  const double frac = (pd - 1.0) / pd;
  const double steps = std::ceil(std::log2(pd));
  return 2.0 * steps * c.alpha + 2.0 * frac * n_bytes * c.beta + frac * n_bytes * c.gamma;
}

std::vector<int> binary_blocks(int p) {
  std::vector<int> blocks;
  for (int bit = 30; bit >= 0; --bit) {
    if (p & (1 << bit)) blocks.push_back(1 << bit);
  }
  return blocks;
}

double binary_blocks_allreduce_time(int p, double n_bytes, const AllreduceParams& c) {
  if (p <= 1) return 0.0;
  const std::vector<int> blocks = binary_blocks(p);
  double t = halving_doubling_allreduce_time(blocks.front(), n_bytes, c);
  for (std::size_t i = 1; i < blocks.size(); ++i) {
    const double piece = n_bytes / static_cast<double>(blocks[i]);
    t += 2.0 * (c.alpha + piece * (c.beta + 0.5 * c.gamma));
  }
  return t;
}

double allreduce_time(AllreduceAlgo algo, int p, double n_bytes, const AllreduceParams& c) {
  switch (algo) {
    case AllreduceAlgo::kRing:
      return ring_allreduce_time(p, n_bytes, c);
    case AllreduceAlgo::kHalvingDoubling:
      return halving_doubling_allreduce_time(p, n_bytes, c);
    case AllreduceAlgo::kBinaryBlocks:
      return binary_blocks_allreduce_time(p, n_bytes, c);
  }
  return 0.0;
}

}  // namespace ringsched::models
