// traces/trace_format.h — the trace-format extension point: what a format reads from its file and what a row means
// (its class, its work, the GPU-seconds it offers), and the registry that names the formats. One file per format
// (traces/pollux_trace.cpp, traces/generic_trace.cpp), each registering itself; the recipe is in docs/extending.md.
#pragma once

#include <string>
#include <vector>

#include "traces/trace.h"
#include "workloads/io/json_reader.h"
#include "workloads/workload.h"

namespace ringsched {

class TraceFormat {
 public:
  virtual ~TraceFormat() = default;
  // The name configs give in workload.trace.format.
  [[nodiscard]] virtual std::string name() const = 0;
  // One line for docs and `validate`.
  [[nodiscard]] virtual std::string description() const = 0;
  // The workload.trace keys this format reads besides the common ones (file, format, time_unit, time_scale,
  // max_gpus, oversize, repeat); a key of another format fails naming the formats that take it.
  [[nodiscard]] virtual std::vector<std::string> keys() const = 0;
  // Whether read() converts times to seconds with time_unit. When false the rows keep the file's numbers and
  // time_unit scales arrivals later (spec.time_scale), so workload.trace.repeat's `every` is in the file's numbers.
  [[nodiscard]] virtual bool reads_seconds() const = 0;
  // Reads `path`. `options` is workload.trace (only this format's keys and the common ones are present); it may set
  // the spec fields it owns (e.g. the generic format's class). InputError naming the file:line or the JSON path.
  [[nodiscard]] virtual Trace read(const std::string& path, const JsonReader& options, const std::string& time_unit,
                                   const Catalog& catalog, TraceWorkloadSpec& spec) const = 0;
  // The catalog class of a row; `default_class` is workload.trace.class (0 when absent). `at` is "file:line: ".
  // InputError for a row the catalog cannot run (unknown class, a field outside the class's validated range).
  [[nodiscard]] virtual int row_class(const TraceJob& row, const Catalog& catalog, int default_class,
                                      const std::string& at) const = 0;
  // The job's work (and its batch where the row gives one), `asked` the GPUs the row asked for, `z_work` a standard
  // normal drawn for this row (per-job work noise).
  virtual void fill_job(const TraceJob& row, const JobClass& cls, int asked, int gpus_per_node, double z_work,
                        JobTruth& job) const = 0;
  // GPU-seconds the row asks for, for TraceNotes::offered_load.
  [[nodiscard]] virtual double offered_gpu_seconds(const TraceJob& row, const JobClass& cls, int asked,
                                                   int gpus_per_node) const = 0;
  // What `validate` prints about the columns for this catalog ("" = nothing).
  [[nodiscard]] virtual std::string column_notes(const Catalog& catalog) const;
};

// Every format, in order of rank (then name): the order `valid:` lists print.
[[nodiscard]] const std::vector<const TraceFormat*>& trace_format_registry();
[[nodiscard]] std::vector<std::string> trace_format_names();
// Throws InputError "<where>: unknown trace format 'x' (valid: ...)" for an unknown name.
[[nodiscard]] const TraceFormat& find_trace_format(const std::string& name, const std::string& where);

// A format file registers itself with one object at namespace scope (unique name, even in a unity build):
//   const TraceFormatRegistrar pollux_trace_registrar{pollux_trace_format, 10};
// `rank` orders the formats (pollux 10, generic 20, gavel 30, philly_log 40, acme 50, helios 60, pai 70; ties by
// name). The format is
// asked for on the first look-up; two formats of one name make it throw std::logic_error.
struct TraceFormatRegistrar {
  TraceFormatRegistrar(const TraceFormat& (*format)(), int rank);
};

}  // namespace ringsched
