// test/fuzz/fuzz_failure_trace.cpp — the `failure_trace` fuzz target (issue 38): a failure trace (CSV
// time_s,node,duration_s, cluster.failures.trace) read for an 8-node cluster, then its timeline replayed with random
// node failures on top; a bad trace may be refused (InputError), anything else is a finding, and so is a timeline
// that goes back in time or a node reported down (or up) twice in a row.
#include <cmath>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "models/input_error.h"
#include "sim/cluster/failures/failure_config.h"
#include "sim/cluster/failures/failure_process.h"
#include "test/fuzz/fuzz_entries.h"

namespace ringsched::fuzz {
namespace {

constexpr int kTraceNodes = 8;

void run_failure_trace(std::string_view data) {
  fail::FailureOptions o;
  try {
    o.trace = fail::parse_failure_trace(std::string(data), "failures.csv", kTraceNodes);
  } catch (const InputError&) {
    return;
  }
  o.node_mtbf_s = 3600.0 * static_cast<double>(1 + data.size() % 7);
  o.repair_s = 600.0;
  fail::FailureProcess p(o, kTraceNodes, nullptr, data.size());
  std::vector<char> down(kTraceNodes, 0);
  double last = 0.0;
  for (int step = 0; step < 4000 && std::isfinite(p.next_time()); ++step) {
    const double t = p.next_time();
    if (!(t >= last)) throw std::logic_error("failure_trace: time went back to " + std::to_string(t));
    last = t;
    const fail::HealthChange ch = p.step(t);
    for (int n : ch.down) {
      if (down[static_cast<std::size_t>(n)] != 0) throw std::logic_error("failure_trace: node down twice");
      down[static_cast<std::size_t>(n)] = 1;
    }
    for (int n : ch.up) {
      if (down[static_cast<std::size_t>(n)] == 0) throw std::logic_error("failure_trace: node up twice");
      down[static_cast<std::size_t>(n)] = 0;
    }
    for (int n = 0; n < kTraceNodes; ++n)
      if ((down[static_cast<std::size_t>(n)] != 0) != p.down(n)) throw std::logic_error("failure_trace: state");
  }
}

std::vector<std::string> failure_trace_seeds() {
  std::ifstream in(std::string(RINGSCHED_SOURCE_DIR) + "/test/fixtures/failures/trace.csv", std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return {s.str(), "time_s,node,duration_s\n0,0,1\n0,0,1\n5,7,1e6\n", "time_s,node,duration_s\n"};
}

const TargetRegistrar failure_trace_fuzz_target{
    {"failure_trace", "failure trace (time_s,node,duration_s) and the failure timeline it drives", run_failure_trace,
     failure_trace_seeds}};

}  // namespace
}  // namespace ringsched::fuzz
