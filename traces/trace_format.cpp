// traces/trace_format.cpp — the registry of trace formats (each format file registers itself).
#include "traces/trace_format.h"

#include "models/input_error.h"
#include "workloads/catalog.h"

#include <algorithm>
#include <stdexcept>
#include <utility>

namespace ringsched {

std::string TraceFormat::column_notes(const Catalog& /*catalog*/) const {
  return "";
}

namespace {

struct FormatRegistration {
  const TraceFormat& (*format)();
  int rank;
};

std::vector<FormatRegistration>& format_registrations() {
  static std::vector<FormatRegistration> registrations;
  return registrations;
}

std::vector<const TraceFormat*> sorted_formats() {
  std::vector<std::pair<int, const TraceFormat*>> ranked;
  for (const auto& r : format_registrations())
    ranked.emplace_back(r.rank, &r.format());
  std::sort(ranked.begin(), ranked.end(), [](const auto& a, const auto& b) {
    return a.first != b.first ? a.first < b.first : a.second->name() < b.second->name();
  });
  std::vector<const TraceFormat*> out;
  for (const auto& [rank, f] : ranked) {
    for (const TraceFormat* seen : out)
      if (seen->name() == f->name())
        throw std::logic_error("trace format '" + f->name() + "' is registered twice (TraceFormatRegistrar)");
    out.push_back(f);
  }
  return out;
}

}  // namespace

TraceFormatRegistrar::TraceFormatRegistrar(const TraceFormat& (*format)(), int rank) {
  format_registrations().push_back({format, rank});
}

// Registrars run during static initialisation, before any look-up (main and the tests start later).
const std::vector<const TraceFormat*>& trace_format_registry() {
  static const std::vector<const TraceFormat*> formats = sorted_formats();
  return formats;
}

std::vector<std::string> trace_format_names() {
  std::vector<std::string> names;
  for (const TraceFormat* f : trace_format_registry())
    names.push_back(f->name());
  return names;
}

const TraceFormat& find_trace_format(const std::string& name, const std::string& where) {
  for (const TraceFormat* f : trace_format_registry())
    if (f->name() == name) return *f;
  throw InputError(where + ": unknown trace format '" + name + "' (valid: " + join_names(trace_format_names()) + ")");
}

}  // namespace ringsched
