// traces/philly_trace.cpp — the "philly_log" trace format: streaming Philly's cluster_job_log (a JSON array) one job
// at a time, each job's submit time, GPUs, run time, attempts, status, user and virtual cluster, and the jobs that
// are not part of the workload (counted in Trace::skipped).
#include "traces/philly_trace.h"

#include <algorithm>
#include <functional>
#include <vector>

#include "traces/recorded_run.h"
#include "traces/trace_time.h"
#include "workloads/io/input_file.h"

namespace ringsched {
namespace {

// The largest job object accepted (a job of thousands of attempts is a few hundred kB).
constexpr std::size_t kMaxPhillyJobBytes = std::size_t{16} << 20;

// Splits a streamed JSON array into its elements' texts (each a JSON object), with the index and first line of each,
// without holding the file: only one job's text at a time.
class PhillyArraySplitter {
 public:
  using OnJob = std::function<void(const std::string& text, std::size_t index, int line)>;
  PhillyArraySplitter(std::string path, OnJob on_job) : path_(std::move(path)), on_job_(std::move(on_job)) {}

  void feed(const char* data, std::size_t size) {
    for (std::size_t i = 0; i < size; ++i, ++offset_)
      take(data[i]);
  }

  void finish() const {
    if (state_ == State::kBefore) fail(line_, "empty file: a Philly job log is a JSON array of jobs");
    if (state_ != State::kDone) fail(line_, "the file ends inside the job array (a truncated download?)");
  }

 private:
  enum class State { kBefore, kFirst, kAfterComma, kAfterJob, kInJob, kDone };

  [[noreturn]] void fail(int line, const std::string& message) const {
    throw InputError(path_ + ":" + std::to_string(line) + ": " + message);
  }

  static bool blank(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

  void take(char c) {
    if (state_ == State::kInJob) {
      in_job(c);
    } else if (offset_ < 3 && state_ == State::kBefore && c == "\xEF\xBB\xBF"[offset_]) {
      // a byte-order mark
    } else if (!blank(c)) {
      between(c);
    }
    if (c == '\n') ++line_;
  }

  void between(char c) {
    const std::string at = "[" + std::to_string(index_) + "]: ";
    switch (state_) {
      case State::kBefore:
        if (c != '[') fail(line_, "a Philly job log is a JSON array of jobs ('[' expected)");
        state_ = State::kFirst;
        return;
      case State::kFirst:
        if (c == ']') {
          state_ = State::kDone;
          return;
        }
        [[fallthrough]];
      case State::kAfterComma:
        if (c != '{') fail(line_, at + "expected a job (a JSON object)");
        state_ = State::kInJob;
        job_.assign(1, c);
        job_line_ = line_;
        depth_ = 1;
        return;
      case State::kAfterJob:
        if (c == ',') {
          state_ = State::kAfterComma;
        } else if (c == ']') {
          state_ = State::kDone;
        } else {
          fail(line_, "expected ',' or ']' after job [" + std::to_string(index_ - 1) + "]");
        }
        return;
      case State::kDone:
        fail(line_, "text after the job array");
      case State::kInJob:
        return;
    }
  }

  void in_job(char c) {
    if (job_.size() >= kMaxPhillyJobBytes) {
      fail(job_line_, "[" + std::to_string(index_) + "]: a job longer than 16 MiB of JSON");
    }
    job_.push_back(c);
    if (in_string_) {
      if (escaped_) {
        escaped_ = false;
      } else if (c == '\\') {
        escaped_ = true;
      } else if (c == '"') {
        in_string_ = false;
      }
      return;
    }
    if (c == '"') {
      in_string_ = true;
    } else if (c == '{' || c == '[') {
      if (++depth_ > kMaxJsonDepth) {
        fail(line_,
             "[" + std::to_string(index_) + "]: JSON nested deeper than " + std::to_string(kMaxJsonDepth) + " levels");
      }
    } else if (c == '}' || c == ']') {
      if (--depth_ == 0) {
        on_job_(job_, index_++, job_line_);
        state_ = State::kAfterJob;
      }
    }
  }

  std::string path_;
  OnJob on_job_;
  State state_ = State::kBefore;
  std::size_t offset_ = 0;
  int line_ = 1;
  std::string job_;
  int job_line_ = 1;
  std::size_t index_ = 0;
  std::size_t depth_ = 0;
  bool in_string_ = false;
  bool escaped_ = false;
};

// One job's JSON, its errors at "file:line: [i]: ..." (the line of the error within the file); a key given twice in
// one object is refused (the parser would keep the last silently).
nlohmann::json parse_philly_job(const std::string& text, const std::string& path, std::size_t index, int line) {
  std::vector<std::vector<std::string>> keys;
  std::string duplicate;
  auto check = [&](int /*depth*/, nlohmann::json::parse_event_t event, nlohmann::json& parsed) {
    if (event == nlohmann::json::parse_event_t::object_start) {
      keys.emplace_back();
    } else if (event == nlohmann::json::parse_event_t::object_end && !keys.empty()) {
      keys.pop_back();
    } else if (event == nlohmann::json::parse_event_t::key && !keys.empty()) {
      const auto& k = parsed.get_ref<const std::string&>();
      if (duplicate.empty() && std::find(keys.back().begin(), keys.back().end(), k) != keys.back().end()) {
        duplicate = k;
      }
      keys.back().push_back(k);
    }
    return true;
  };
  const std::string at = "[" + std::to_string(index) + "]: ";
  try {
    nlohmann::json doc = nlohmann::json::parse(text, check);
    if (!duplicate.empty()) {
      throw InputError(path + ":" + std::to_string(line) + ": " + at + "key '" + duplicate + "' given twice");
    }
    return doc;
  } catch (const nlohmann::json::parse_error& e) {
    const std::size_t end = std::min(text.size(), e.byte > 0 ? e.byte - 1 : 0);
    const auto lines = std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(end), '\n');
    std::string what = e.what();
    if (const auto pos = what.find("parse error"); pos != std::string::npos) what = what.substr(pos);
    if (const auto quoted = what.find("; last read: '"); quoted != std::string::npos) what = what.substr(0, quoted);
    throw InputError(path + ":" + std::to_string(line + static_cast<int>(lines)) + ": " + at +
                     "malformed JSON: " + what);
  } catch (const nlohmann::json::exception& e) {
    throw InputError(path + ":" + std::to_string(line) + ": " + at + "malformed JSON: " + e.what());
  }
}

// A start or end time: false when absent (null, "None" or "": a logging gap), else the time in seconds.
bool philly_time(const JsonReader& v, double& out) {
  if (v.value().is_null()) return false;
  if (!v.is_string()) v.fail("expected a date-time like 2017-10-03 14:26:27 or null");
  const auto& s = v.value().get_ref<const std::string&>();
  if (s.empty() || s == "None") return false;
  if (!parse_trace_datetime(s, out)) {
    v.fail("expected a date-time like 2017-10-03 14:26:27 (YYYY-MM-DD HH:MM:SS) or null, got '" +
           (s.size() > 40 ? s.substr(0, 37) + "..." : s) + "'");
  }
  return true;
}

JobOutcome philly_outcome(const JsonReader& status) {
  const std::string s = status.as_string();
  if (s == "Pass") return JobOutcome::kCompleted;
  if (s == "Failed") return JobOutcome::kFailed;
  if (s == "Killed") return JobOutcome::kKilled;
  status.fail("unknown status '" + (s.size() > 40 ? s.substr(0, 37) + "..." : s) + "' (valid: Pass, Failed, Killed)");
}

// GPUs of one attempt: the GPUs listed in its detail entries, summed over its servers.
int philly_attempt_gpus(const JsonReader& attempt) {
  std::size_t gpus = 0;
  for (const JsonReader& server : attempt.at("detail").elements()) {
    (void)server.at("ip").as_string();
    gpus += server.at("gpus").elements().size();
  }
  if (gpus > (std::size_t{1} << 20)) attempt.at("detail").fail("more than 1048576 GPUs");
  return static_cast<int>(gpus);
}

enum class PhillyKeep { kJob, kNeverRan, kStillRunning, kZeroGpus };

// One job of the log into `j` (its attempts decide whether it is a job of the workload).
PhillyKeep philly_job(const JsonReader& r, TraceJob& j) {
  j.outcome = philly_outcome(r.at("status"));
  j.name = r.at("jobid").as_string();
  if (j.name.empty()) r.at("jobid").fail("empty job id");
  j.user = r.at("user").as_string();
  j.vc = r.at("vc").as_string();
  if (!philly_time(r.at("submitted_time"), j.submit_s)) r.at("submitted_time").fail("the job has no submit time");
  const auto attempts = r.at("attempts").elements();
  j.attempts = static_cast<int>(attempts.size());
  bool ran = false;
  bool gpus_known = false;
  bool last_open = false;
  double run = 0.0;
  for (const JsonReader& a : attempts) {
    double start = 0.0;
    double end = 0.0;
    const bool has_start = philly_time(a.at("start_time"), start);
    const bool has_end = philly_time(a.at("end_time"), end);
    const int gpus = philly_attempt_gpus(a);
    if (has_start && !gpus_known) {
      j.gpus = gpus;
      gpus_known = true;
    }
    last_open = has_start && !has_end;
    if (!has_start || !has_end) continue;
    if (end < start) a.at("end_time").fail("the attempt ends before it starts");
    run += end - start;
    ran = true;
  }
  j.duration_s = run;
  if (!(run <= kMaxTraceSeconds)) r.at("attempts").fail("a run time beyond 1e12 s");
  if (last_open) return PhillyKeep::kStillRunning;
  if (!ran) return PhillyKeep::kNeverRan;
  if (j.gpus == 0) return PhillyKeep::kZeroGpus;
  return PhillyKeep::kJob;
}

class PhillyTraceFormat final : public RecordedRunFormat {
 public:
  [[nodiscard]] std::string name() const override { return "philly_log"; }
  [[nodiscard]] std::string description() const override {
    return "Philly's job log (cluster_job_log, JSON): each job's run time over its attempts on its GPUs, with its "
           "status, user and virtual cluster";
  }
  [[nodiscard]] std::vector<std::string> keys() const override { return {"class"}; }

  [[nodiscard]] Trace read(const std::string& path, const JsonReader& tr, const std::string& time_unit,
                           const Catalog& cat, TraceWorkloadSpec& spec) const override {
    if (time_unit != "s") tr.at("time_unit").fail("the Philly job log gives date-times: time_unit must be \"s\"");
    read_class_key(tr, cat, spec);
    return read_philly_log(path, static_cast<std::size_t>(std::max(0, spec.max_jobs)));
  }
};

}  // namespace

Trace read_philly_log(const std::string& path, std::size_t keep) {
  Trace tr;
  tr.file = path;
  tr.format = &philly_trace_format();
  TraceRows kept(path, keep);
  PhillyArraySplitter split(path, [&](const std::string& text, std::size_t index, int line) {
    const nlohmann::json doc = parse_philly_job(text, path, index, line);
    const JsonReader r(doc, path + ":" + std::to_string(line), "[" + std::to_string(index) + "]");
    if (!doc.is_object()) r.fail("expected a job (a JSON object)");
    TraceJob j;
    j.line = line;
    switch (philly_job(r, j)) {
      case PhillyKeep::kJob:
        kept.add(std::move(j));
        break;
      case PhillyKeep::kNeverRan:
        ++tr.skipped.never_ran;
        break;
      case PhillyKeep::kStillRunning:
        ++tr.skipped.still_running;
        break;
      case PhillyKeep::kZeroGpus:
        ++tr.skipped.zero_gpus;
        break;
    }
  });
  for_each_input_chunk(path, "trace file", [&](const char* data, std::size_t size) { split.feed(data, size); });
  split.finish();
  if (kept.rows() == 0) {
    throw InputError(path + ": no job to replay (" + std::to_string(tr.skipped.never_ran) + " never ran, " +
                     std::to_string(tr.skipped.still_running) + " still running, " +
                     std::to_string(tr.skipped.zero_gpus) + " with 0 GPUs)");
  }
  kept.finish(tr, true);
  return tr;
}

const TraceFormat& philly_trace_format() {
  static const PhillyTraceFormat format;
  return format;
}
const TraceFormatRegistrar philly_trace_registrar{philly_trace_format, 40};

}  // namespace ringsched
