// traces/trace_format.cpp — the registry of trace formats: the one line per format is here.
#include "traces/trace_format.h"

#include "models/input_error.h"
#include "workloads/catalog.h"

namespace ringsched {

std::string TraceFormat::column_notes(const Catalog& /*catalog*/) const {
  return "";
}

const std::vector<const TraceFormat*>& trace_format_registry() {
  static const std::vector<const TraceFormat*> formats = {&pollux_trace_format(), &generic_trace_format(),
                                                          &gavel_trace_format()};
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
