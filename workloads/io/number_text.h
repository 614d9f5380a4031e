// workloads/io/number_text.h — the one short form of a number in messages and tables: printf's %.6g (six significant
// digits, exponent when needed), so every message and report writes the same value the same way.
#pragma once

#include <cstdio>
#include <string>

namespace ringsched {

inline std::string number_text(double v) {
  char buf[48];
  std::snprintf(buf, sizeof buf, "%.6g", v);
  return buf;
}

}  // namespace ringsched
