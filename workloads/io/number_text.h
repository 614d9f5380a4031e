// workloads/io/number_text.h — the one short form of a number in messages and tables: printf's %.6g (six significant
// digits, exponent when needed), so every message and report writes the same value the same way; and `formatted`,
// a number in a given printf format.
#pragma once

#include <cstdio>
#include <string>

namespace ringsched {

inline std::string number_text(double v) {
  char buf[48];
  std::snprintf(buf, sizeof buf, "%.6g", v);
  return buf;
}

// `v` written with a printf format of one double ("%.3f", "%.1f%%", "%+.2f"): the fixed-precision cells of tables
// and messages. The format is the caller's literal.
inline std::string formatted(const char* format, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, format, v);
  return buf;
}

}  // namespace ringsched
