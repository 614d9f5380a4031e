// traces/trace_time.h — the date-times of traces that record them (philly_log, acme): "YYYY-MM-DD HH:MM:SS" (or
// with 'T'), optional fractional seconds, an optional UTC offset ("+08:00", "+0800", "-05:00", "Z"), read as UTC
// seconds since 1970-01-01 (a time without an offset is taken as UTC).
#pragma once

#include <string_view>

namespace ringsched {

// True and `out` set for a well-formed date-time; false for anything else (the caller names the file:line).
bool parse_trace_datetime(std::string_view text, double& out);

// Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's days_from_civil); the generic format's reader
// uses it too.
long long days_from_civil(long long y, unsigned m, unsigned d);

}  // namespace ringsched
