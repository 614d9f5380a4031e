// traces/trace_time.cpp — parsing the date-times of traces (with fractions and UTC offsets) into UTC seconds.
#include "traces/trace_time.h"

#include <cstddef>

namespace ringsched {
namespace {

// Reads exactly `n` digits at `pos` into `out`.
bool trace_digits(std::string_view s, std::size_t& pos, std::size_t n, unsigned& out) {
  if (pos + n > s.size()) return false;
  out = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const char c = s[pos + i];
    if (c < '0' || c > '9') return false;
    out = out * 10 + static_cast<unsigned>(c - '0');
  }
  pos += n;
  return true;
}

bool trace_expect(std::string_view s, std::size_t& pos, char c) {
  if (pos >= s.size() || s[pos] != c) return false;
  ++pos;
  return true;
}

// The offset east of UTC in seconds at `pos` ("", "Z", "+08:00", "+0800", "-05:00"); false if malformed.
bool trace_offset(std::string_view s, std::size_t& pos, double& offset_s) {
  offset_s = 0.0;
  if (pos == s.size()) return true;
  if (s[pos] == 'Z') return ++pos == s.size();
  if (s[pos] != '+' && s[pos] != '-') return false;
  const double sign = s[pos++] == '-' ? -1.0 : 1.0;
  unsigned oh = 0;
  unsigned om = 0;
  if (!trace_digits(s, pos, 2, oh)) return false;
  if (pos < s.size() && s[pos] == ':') ++pos;
  if (!trace_digits(s, pos, 2, om) || pos != s.size() || oh > 23 || om > 59) return false;
  offset_s = sign * (oh * 3600.0 + om * 60.0);
  return true;
}

}  // namespace

bool parse_trace_datetime(std::string_view s, double& out) {
  std::size_t pos = 0;
  unsigned y = 0;
  unsigned mo = 0;
  unsigned d = 0;
  unsigned h = 0;
  unsigned mi = 0;
  unsigned se = 0;
  if (!trace_digits(s, pos, 4, y) || !trace_expect(s, pos, '-') || !trace_digits(s, pos, 2, mo) ||
      !trace_expect(s, pos, '-') || !trace_digits(s, pos, 2, d)) {
    return false;
  }
  if (pos >= s.size() || (s[pos] != ' ' && s[pos] != 'T')) return false;
  ++pos;
  if (!trace_digits(s, pos, 2, h) || !trace_expect(s, pos, ':') || !trace_digits(s, pos, 2, mi) ||
      !trace_expect(s, pos, ':') || !trace_digits(s, pos, 2, se)) {
    return false;
  }
  double fraction = 0.0;
  if (pos < s.size() && s[pos] == '.') {
    ++pos;
    double scale = 0.1;
    const std::size_t first = pos;
    while (pos < s.size() && s[pos] >= '0' && s[pos] <= '9') {
      fraction += scale * (s[pos++] - '0');
      scale /= 10.0;
    }
    if (pos == first) return false;
  }
  double offset_s = 0.0;
  if (!trace_offset(s, pos, offset_s)) return false;
  if (mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || se > 60) return false;
  out = static_cast<double>(days_from_civil(y, mo, d)) * 86400.0 + h * 3600.0 + mi * 60.0 + se + fraction - offset_s;
  return true;
}

long long days_from_civil(long long y, unsigned m, unsigned d) {
  y -= m <= 2 ? 1 : 0;
  const long long era = (y >= 0 ? y : y - 399) / 400;
  const auto yoe = static_cast<unsigned>(y - era * 400);
  const unsigned doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + static_cast<long long>(doe) - 719468;
}

}  // namespace ringsched
