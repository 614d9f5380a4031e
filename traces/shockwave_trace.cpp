// traces/shockwave_trace.cpp — the "shockwave" trace format: its reader (12 columns, or 13 with an explicit batch
// schedule) and what a row means (a job type with a number of steps on its scale factor's GPUs, whose speed changes
// at epoch boundaries by its batch-size schedule).
#include "traces/shockwave_trace.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <memory>
#include <stdexcept>

#include "models/scale_table.h"
#include "traces/gavel_trace.h"
#include "workloads/io/csv.h"
#include "workloads/io/input_file.h"
#include "workloads/shockwave.h"

namespace ringsched {
namespace {

const std::vector<std::string> kShockwaveColumns = {
    "job_type",      "command", "working_directory", "num_steps_arg", "needs_data_dir", "total_steps",
    "scale_factor",  "mode",    "priority_weight",   "SLO",           "duration",       "arrival_time",
    "batch_schedule"};
constexpr int kShockwaveMaxEpochs = 1'000'000;

// Streams the file's non-blank lines as tab-separated rows of a table with Shockwave's column names (12, or 13 with
// batch_schedule); the layout is the first line's.
void for_each_shockwave_line(const std::string& path,
                             const std::function<void(const CsvTable&, const CsvRow&)>& on_row) {
  CsvTable t;
  t.file = path;
  CsvRow row;
  int number = 0;
  auto take_line = [&](std::string& text) {
    if (++number == 1 && text.rfind("\xEF\xBB\xBF", 0) == 0) text.erase(0, 3);
    if (!text.empty() && text.back() == '\r') text.pop_back();
    if (text.find_first_not_of(" \t") == std::string::npos) return;
    row.line = number;
    row.fields.clear();
    for (std::size_t start = 0;;) {
      const std::size_t tab = text.find('\t', start);
      row.fields.push_back(text.substr(start, tab == std::string::npos ? std::string::npos : tab - start));
      if (tab == std::string::npos) break;
      start = tab + 1;
    }
    const std::string at = path + ":" + std::to_string(number) + ": ";
    if (t.header.empty()) {
      if (row.fields.size() != 12 && row.fields.size() != 13) {
        throw InputError(at + std::to_string(row.fields.size()) + " tab-separated columns; a Shockwave trace has 12 (" +
                         join_names({kShockwaveColumns.begin(), kShockwaveColumns.end() - 1}) +
                         "), or 13 with batch_schedule");
      }
      t.header.assign(kShockwaveColumns.begin(), kShockwaveColumns.begin() + static_cast<long>(row.fields.size()));
    } else if (row.fields.size() != t.header.size()) {
      throw InputError(at + std::to_string(row.fields.size()) + " tab-separated columns where the first line has " +
                       std::to_string(t.header.size()));
    }
    for (auto& f : row.fields) {
      const auto b = f.find_first_not_of(' ');
      const auto e = f.find_last_not_of(' ');
      f = b == std::string::npos ? std::string() : f.substr(b, e - b + 1);
    }
    on_row(t, row);
  };
  for_each_input_line(path, "trace file", take_line);
  if (t.header.empty()) throw InputError(path + ":1: empty trace (no jobs)");
}

// "16,16,32" -> {16, 16, 32}: positive integers up to 2^20, at most kShockwaveMaxEpochs.
std::vector<int> parse_shockwave_batch_column(const CsvTable& t, const CsvRow& row, int col) {
  const std::string& text = t.text(row, col);
  std::vector<int> out;
  for (std::size_t start = 0; start <= text.size();) {
    const std::size_t comma = std::min(text.find(',', start), text.size());
    const std::string item = text.substr(start, comma - start);
    if (item.empty() || item.size() > 7 || item.find_first_not_of("0123456789") != std::string::npos ||
        std::stoi(item) < 1 || std::stoi(item) > (1 << 20)) {
      t.fail(row, "column 'batch_schedule': '" + item.substr(0, 20) + "' is not a batch size (an integer 1..1048576)");
    }
    if (out.size() >= static_cast<std::size_t>(kShockwaveMaxEpochs))
      t.fail(row, "column 'batch_schedule': more than 1,000,000 epochs");
    out.push_back(std::stoi(item));
    start = comma + 1;
  }
  return out;
}

// The job's steps per second at batch b on `gpus` GPUs: the catalog's class of that job type, on V100s where it has
// them (Shockwave's simulator reads only the V100 throughputs), else its reference speed; 0 without the class or,
// for a throughputs table, without a measurement at that scale factor.
double shockwave_batch_rate(const Catalog& cat, const std::string& model, int b, int gpus) {
  const int cls = cat.find(model + " (batch size " + std::to_string(b) + ")");
  if (cls < 0) return 0.0;
  const JobClass& c = cat.classes[static_cast<std::size_t>(cls)];
  const models::StepTimeModel* v100 = speed_on(c, "v100");
  // A throughputs table answers only at the scale factors it measured, as Shockwave's look-up does (another is a
  // KeyError there); the table's value is steps per second of a batch-1 class.
  if (const auto* table = dynamic_cast<const models::ScaleTableStepTime*>(v100))
    return table->measured(gpus) * global_batch(c, gpus);
  return v100 != nullptr ? class_throughput_on(c, "v100", gpus, 1) : class_throughput(c, gpus, 1);
}

// One row's job: its fields checked, its batch schedule (given or by its mode's rule) and speeds.
TraceJob shockwave_row(const CsvTable& t, const CsvRow& row, double unit, const std::string& time_unit,
                       const Catalog& cat) {
  TraceJob j;
  j.line = row.line;
  j.name = "line-" + std::to_string(row.line);
  j.application = t.text(row, 0);
  std::string model;
  int b0 = 0;
  if (!split_shockwave_job_type(j.application, model, b0))
    t.fail(row, "column 'job_type': '" + j.application.substr(0, 60) + "' is not '<model> (batch size <B>)'");
  const int dataset = shockwave_dataset_size(model);
  if (dataset == 0)
    t.fail(row, "column 'job_type': unknown model '" + model +
                    "' (Shockwave's: ResNet-18, ResNet-50, Transformer, "
                    "LM, Recommendation, A3C, CycleGAN)");
  j.steps = t.positive(row, 5);
  if (j.steps < 1.0 || j.steps > 1e15) t.fail(row, "column 'total_steps': " + t.text(row, 5) + " is outside 1..1e15");
  j.gpus = t.integer_in(row, 6, 1, 1 << 20);
  ShockwaveMode mode{};
  if (!parse_shockwave_mode(t.text(row, 7), mode))
    t.fail(row,
           "column 'mode': unknown job mode '" + t.text(row, 7).substr(0, 40) + "' (valid: static, accordion, gns)");
  if (t.number(row, 8) != 1.0)
    t.fail(row, "column 'priority_weight': " + t.text(row, 8) + " (only 1 is supported: every job has one weight)");
  if (t.number(row, 9) != -1.0) t.fail(row, "column 'SLO': " + t.text(row, 9) + " (only -1, no SLO, is supported)");
  (void)t.non_negative(row, 10);  // Shockwave's driver replaces it by the sum of the epochs' durations
  j.submit_s = t.non_negative(row, 11) * unit;
  if (!(j.submit_s <= kMaxTraceSeconds))
    t.fail(row, "column 'arrival_time': " + t.text(row, 11) + " " + time_unit + " is beyond 1e12 s");
  const double epochs = std::ceil(j.steps / std::ceil(static_cast<double>(dataset) / b0));
  if (epochs > kShockwaveMaxEpochs)
    t.fail(row, "column 'total_steps': " + t.text(row, 5) + " steps are more than 1,000,000 epochs of " + model);
  const int n = static_cast<int>(epochs);
  try {
    std::vector<int> batches;
    if (t.header.size() == 13) {
      batches = parse_shockwave_batch_column(t, row, 12);
      if (batches.size() < static_cast<std::size_t>(n)) {
        t.fail(row, "column 'batch_schedule': " + std::to_string(batches.size()) +
                        " batch sizes, shorter than the job's " + std::to_string(n) + " epochs");
      }
      if (batches[0] != b0) t.fail(row, "column 'batch_schedule': it starts at another batch than the job type's");
    } else {
      batches = shockwave_batches(mode, model, b0, n, j.gpus);
    }
    const auto rate = [&](int b) { return shockwave_batch_rate(cat, model, b, j.gpus); };
    j.schedule = std::make_shared<const EpochSchedule>(shockwave_schedule(batches, n, j.steps, dataset, rate));
  } catch (const std::invalid_argument& e) {
    t.fail(row, std::string(e.what()) + " of " + model + " on " + std::to_string(j.gpus) + " GPU(s) (catalog " +
                    cat.name + ")");
  }
  j.batch_size = b0;
  return j;
}

class ShockwaveTraceFormat final : public TraceFormat {
 public:
  [[nodiscard]] std::string name() const override { return "shockwave"; }
  [[nodiscard]] std::string description() const override {
    return "Shockwave's trace files: tab-separated job type, steps, scale factor, batch-size mode (static, accordion, "
           "gns) and arrival per line (12 columns, or 13 with an explicit batch_schedule); the job type is the class";
  }
  [[nodiscard]] std::vector<std::string> keys() const override { return {}; }
  [[nodiscard]] bool reads_seconds() const override { return true; }

  [[nodiscard]] Trace read(const std::string& path, const JsonReader& /*options*/, const std::string& time_unit,
                           const Catalog& catalog, TraceWorkloadSpec& spec) const override {
    return read_shockwave_trace(path, time_unit, catalog, static_cast<std::size_t>(std::max(0, spec.max_jobs)));
  }

  [[nodiscard]] int row_class(const TraceJob& row, const Catalog& cat, int /*default_class*/,
                              const std::string& at) const override {
    const int cls = cat.find(row.application);
    if (cls < 0) {
      throw InputError(at + "job type '" + row.application + "' is not a class of catalog " + cat.name +
                       " (classes: " + join_names(cat.class_names()) + ")");
    }
    return cls;
  }

  // The steps the trace gives, as samples at the size the job asked for; the schedule's phase ends in the same unit.
  void fill_job(const TraceJob& row, const JobClass& c, int asked, int /*gpus_per_node*/, double /*z_work*/,
                JobTruth& job) const override {
    const double per_step = trace_samples_per_step(c, asked);
    job.work_samples = row.steps * per_step;
    job.schedule = row.schedule;
    if (row.schedule && per_step != 1.0) {
      auto scaled = std::make_shared<EpochSchedule>(*row.schedule);
      for (double& end : scaled->phase_end)
        end *= per_step;
      job.schedule = std::move(scaled);
    }
  }

  // The job's run time alone (Shockwave's: the sum of its epochs' durations) times its GPUs.
  [[nodiscard]] double offered_gpu_seconds(const TraceJob& row, const JobClass& /*c*/, int asked,
                                           int /*gpus_per_node*/) const override {
    return row.schedule ? row.schedule->isolated_s * asked : 0.0;
  }
};

}  // namespace

Trace read_shockwave_trace(const std::string& path, const std::string& time_unit, const Catalog& catalog,
                           std::size_t keep) {
  const double unit = time_unit_seconds(time_unit, path + ": time_unit");
  Trace tr;
  tr.file = path;
  tr.format = &shockwave_trace_format();
  TraceRows kept(path, keep);
  for_each_shockwave_line(
      path, [&](const CsvTable& t, const CsvRow& row) { kept.add(shockwave_row(t, row, unit, time_unit, catalog)); });
  kept.finish(tr, true);
  return tr;
}

const TraceFormat& shockwave_trace_format() {
  static const ShockwaveTraceFormat format;
  return format;
}
const TraceFormatRegistrar shockwave_trace_registrar{shockwave_trace_format, 35};

}  // namespace ringsched
