// workloads/json_reader.cpp — validated JSON access with file + JSON-path error messages.
#include "workloads/json_reader.h"

#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <limits>
#include <utility>

#include "workloads/input_file.h"

namespace ringsched {
namespace {

std::string type_name(const nlohmann::json& v) {
  return v.type_name();
}

std::string short_value(const nlohmann::json& v) {
  std::string s = v.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  if (s.size() > 40) s = s.substr(0, 37) + "...";
  return s;
}

// The line and column of byte `at` (1-based).
std::pair<std::size_t, std::size_t> line_col(const std::string& text, std::size_t at) {
  std::size_t line = 1;
  std::size_t col = 1;
  for (std::size_t i = 0; i < std::min(at, text.size()); ++i) {
    if (text[i] == '\n') {
      ++line;
      col = 1;
    } else {
      ++col;
    }
  }
  return {line, col};
}

// Refuses nesting deeper than kMaxJsonDepth before the parser sees it: tens of thousands of levels overflow the stack
// of the parser's and the library's recursive code (a crash with no message).
void check_json_depth(const std::string& text, const std::string& origin) {
  std::size_t depth = 0;
  bool in_string = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      if (c == '\\') {
        ++i;
      } else if (c == '"') {
        in_string = false;
      }
    } else if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      if (++depth > kMaxJsonDepth) {
        const auto [line, col] = line_col(text, i);
        throw InputError(origin + ":" + std::to_string(line) + ":" + std::to_string(col) +
                         ": JSON nested deeper than " + std::to_string(kMaxJsonDepth) +
                         " levels of arrays and objects (ringsched's files need fewer than 10)");
      }
    } else if ((c == ']' || c == '}') && depth > 0) {
      --depth;
    }
  }
}

// Memory this process may still take: the address-space limit (ulimit -v) less what it maps now, and what the
// machine has available; 0 when unknown.
std::size_t memory_left() {
  std::size_t left = 0;
  if (std::ifstream meminfo("/proc/meminfo"); meminfo) {
    std::string key;
    std::size_t kb = 0;
    std::string unit;
    while (meminfo >> key >> kb >> unit) {
      if (key == "MemAvailable:") {
        left = kb * 1024;
        break;
      }
    }
  }
  rlimit lim{};
  if (::getrlimit(RLIMIT_AS, &lim) == 0 && lim.rlim_cur != RLIM_INFINITY) {
    std::size_t mapped = 0;
    if (std::ifstream statm("/proc/self/statm"); statm) {
      std::size_t pages = 0;
      if (statm >> pages) mapped = pages * static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
    }
    const std::size_t cap = lim.rlim_cur > mapped ? static_cast<std::size_t>(lim.rlim_cur) - mapped : 0;
    left = left == 0 ? cap : std::min(left, cap);
  }
  return left;
}

// A parsed document takes up to ~16 bytes per byte of text (a value per number or bracket, a node per key); when that
// cannot fit, the library would throw std::bad_alloc while freeing the half-built document (std::terminate, exit 134,
// no message). Refused here with the sizes instead.
void check_json_memory(const std::string& text, const std::string& origin) {
  if (text.size() < (std::size_t{8} << 20)) return;  // small documents: never a concern
  const std::size_t need = 16 * text.size();
  const std::size_t left = memory_left();
  if (left == 0 || need <= left) return;
  throw InputError(origin + ": " + std::to_string(text.size() >> 20) + " MB of JSON needs about " +
                   std::to_string(need >> 20) + " MB of memory to read, and this process can have about " +
                   std::to_string(left >> 20) + " MB (ulimit -v or the machine's free memory)");
}

}  // namespace

nlohmann::json parse_json_text(const std::string& text, const std::string& origin) {
  check_json_depth(text, origin);
  check_json_memory(text, origin);
  try {
    return nlohmann::json::parse(text);
  } catch (const nlohmann::json::parse_error& e) {
    const auto [line, col] = line_col(text, e.byte > 0 ? e.byte - 1 : 0);
    std::string what = e.what();
    const auto pos = what.find("parse error");
    if (pos != std::string::npos) what = what.substr(pos);
    throw InputError(origin + ":" + std::to_string(line) + ":" + std::to_string(col) + ": malformed JSON: " + what);
  } catch (const nlohmann::json::exception& e) {
    // out_of_range.406: a number beyond a double (1e309). nlohmann gives no position; the message quotes the number.
    std::string what = e.what();
    const auto pos = what.find("number overflow");
    throw InputError(origin + ": malformed JSON: " +
                     (pos != std::string::npos ? what.substr(pos) + " (numbers must fit a double)" : what));
  }
}

nlohmann::json read_json_file(const std::string& path) {
  return parse_json_text(read_input_file(path, "JSON file"), path);
}

JsonReader::JsonReader(const nlohmann::json& value, std::string file, std::string path)
    : value_(&value), file_(std::move(file)), path_(std::move(path)) {}

std::string JsonReader::where() const {
  return file_ + ": " + (path_.empty() ? std::string("(top level)") : path_);
}

void JsonReader::fail(const std::string& message) const {
  throw InputError(where() + ": " + message);
}

bool JsonReader::has(const std::string& key) const {
  return value_->is_object() && value_->contains(key);
}

void JsonReader::expect_object(const std::vector<std::string>& allowed) const {
  if (!value_->is_object()) fail("must be an object, got " + type_name(*value_));
  for (const auto& item : value_->items()) {
    if (std::find(allowed.begin(), allowed.end(), item.key()) == allowed.end()) {
      const std::string child = path_.empty() ? item.key() : path_ + "." + item.key();
      throw InputError(file_ + ": " + child + ": unknown key (valid keys here: " + join_names(allowed) + ")");
    }
  }
}

JsonReader JsonReader::at(const std::string& key) const {
  if (!value_->is_object()) fail("must be an object, got " + type_name(*value_));
  const std::string child = path_.empty() ? key : path_ + "." + key;
  auto it = value_->find(key);
  if (it == value_->end()) throw InputError(file_ + ": " + child + ": required key is missing");
  return JsonReader(*it, file_, child);
}

std::optional<JsonReader> JsonReader::maybe(const std::string& key) const {
  if (!has(key)) return std::nullopt;
  return at(key);
}

std::vector<JsonReader> JsonReader::elements() const {
  if (!value_->is_array()) fail("must be an array, got " + type_name(*value_));
  std::vector<JsonReader> out;
  out.reserve(value_->size());
  for (std::size_t i = 0; i < value_->size(); ++i) {
    out.emplace_back((*value_)[i], file_, path_ + "[" + std::to_string(i) + "]");
  }
  return out;
}

std::vector<JsonReader> JsonReader::non_empty_elements() const {
  auto out = elements();
  if (out.empty()) fail("must not be empty");
  return out;
}

double JsonReader::as_number() const {
  if (!value_->is_number()) fail("must be a number, got " + type_name(*value_) + " " + short_value(*value_));
  const double v = value_->get<double>();
  if (!std::isfinite(v)) fail("must be finite");
  return v;
}

double JsonReader::as_positive() const {
  const double v = as_number();
  if (!(v > 0.0)) fail("must be > 0, got " + short_value(*value_));
  if (v < std::numeric_limits<double>::min())
    fail("must be at least 2.2e-308 (a denormal number), got " + short_value(*value_));
  return v;
}

double JsonReader::as_number_in(double lo, double hi) const {
  const double v = as_number();
  if (v < lo || v > hi) {
    char buf[96];
    std::snprintf(buf, sizeof buf, "must be between %.17g and %.17g, got ", lo, hi);
    fail(buf + short_value(*value_));
  }
  return v;
}

double JsonReader::as_non_negative() const {
  const double v = as_number();
  if (v < 0.0) fail("must be >= 0, got " + short_value(*value_));
  return v;
}

std::int64_t JsonReader::as_integer() const {
  if (!value_->is_number_integer()) {
    if (value_->is_number_float()) {
      const double d = value_->get<double>();
      if (std::isfinite(d) && std::floor(d) == d && std::fabs(d) < 9e15) return static_cast<std::int64_t>(d);
    }
    fail("must be an integer, got " + type_name(*value_) + " " + short_value(*value_));
  }
  if (value_->is_number_unsigned() &&
      value_->get<std::uint64_t>() > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())) {
    fail("must be an integer below 2^63, got " + short_value(*value_));
  }
  return value_->get<std::int64_t>();
}

std::int64_t JsonReader::as_integer_in(std::int64_t lo, std::int64_t hi) const {
  const std::int64_t v = as_integer();
  if (v < lo || v > hi) {
    fail("must be between " + std::to_string(lo) + " and " + std::to_string(hi) + ", got " + short_value(*value_));
  }
  return v;
}

std::string JsonReader::as_string() const {
  if (!value_->is_string()) fail("must be a string, got " + type_name(*value_) + " " + short_value(*value_));
  return value_->get<std::string>();
}

bool JsonReader::as_bool() const {
  if (!value_->is_boolean()) fail("must be true or false, got " + type_name(*value_) + " " + short_value(*value_));
  return value_->get<bool>();
}

double JsonReader::number_or(const std::string& key, double fallback) const {
  auto m = maybe(key);
  return m ? m->as_number() : fallback;
}

double JsonReader::positive_or(const std::string& key, double fallback) const {
  auto m = maybe(key);
  return m ? m->as_positive() : fallback;
}

double JsonReader::non_negative_or(const std::string& key, double fallback) const {
  auto m = maybe(key);
  return m ? m->as_non_negative() : fallback;
}

std::int64_t JsonReader::integer_in_or(const std::string& key, std::int64_t lo, std::int64_t hi,
                                       std::int64_t fallback) const {
  auto m = maybe(key);
  return m ? m->as_integer_in(lo, hi) : fallback;
}

std::string JsonReader::string_or(const std::string& key, const std::string& fallback) const {
  auto m = maybe(key);
  return m ? m->as_string() : fallback;
}

bool JsonReader::bool_or(const std::string& key, bool fallback) const {
  auto m = maybe(key);
  return m ? m->as_bool() : fallback;
}

std::string join_names(const std::vector<std::string>& names) {
  std::string out;
  for (std::size_t i = 0; i < names.size(); ++i) {
    if (i) out += ", ";
    out += names[i];
  }
  return out;
}

}  // namespace ringsched
