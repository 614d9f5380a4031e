// workloads/io/json_reader.cpp — validated JSON access with file + JSON-path error messages.
#include "workloads/io/json_reader.h"

#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <deque>
#include <fstream>
#include <limits>
#include <optional>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "workloads/io/closest_name.h"
#include "workloads/io/input_file.h"

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

// Appends code point `cp` to `out` as UTF-8.
void append_utf8(std::uint32_t cp, std::string& out) {
  if (cp < 0x80) {
    out += static_cast<char>(cp);
  } else if (cp < 0x800) {
    out += static_cast<char>(0xC0 | (cp >> 6));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    out += static_cast<char>(0xE0 | (cp >> 12));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (cp >> 18));
    out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  }
}

// The four hex digits at raw[i..i+4) as a number; false when they are not four hex digits.
bool hex4(std::string_view raw, std::size_t i, std::uint32_t& out) {
  if (i + 4 > raw.size()) return false;
  out = 0;
  for (std::size_t k = i; k < i + 4; ++k) {
    const char c = raw[k];
    const int d = c >= '0' && c <= '9'   ? c - '0'
                  : c >= 'a' && c <= 'f' ? c - 'a' + 10
                  : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                         : -1;
    if (d < 0) return false;
    out = out * 16 + static_cast<std::uint32_t>(d);
  }
  return true;
}

// A JSON string's text between its quotes, escapes decoded ("\u0061" and "a" are the same key). Malformed escapes are
// kept as written: such text fails the parser anyway.
std::string decode_json_string(std::string_view raw) {
  std::string out;
  out.reserve(raw.size());
  for (std::size_t i = 0; i < raw.size(); ++i) {
    if (raw[i] != '\\' || i + 1 >= raw.size()) {
      out += raw[i];
      continue;
    }
    const char e = raw[++i];
    switch (e) {
      case 'b':
        out += '\b';
        break;
      case 'f':
        out += '\f';
        break;
      case 'n':
        out += '\n';
        break;
      case 'r':
        out += '\r';
        break;
      case 't':
        out += '\t';
        break;
      case 'u': {
        std::uint32_t cp = 0;
        if (!hex4(raw, i + 1, cp)) {
          out += "\\u";
          break;
        }
        i += 4;
        std::uint32_t low = 0;
        if (cp >= 0xD800 && cp < 0xDC00 && i + 2 < raw.size() && raw[i + 1] == '\\' && raw[i + 2] == 'u' &&
            hex4(raw, i + 3, low) && low >= 0xDC00 && low < 0xE000) {
          cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
          i += 6;
        }
        append_utf8(cp, out);
        break;
      }
      default:  // \" \\ \/
        out += e;
        break;
    }
  }
  return out;
}

// One open array or object while scanning: an object's keys so far (where each first appeared) and the key being
// read; an array's current index. Most objects have a few keys: those are searched in a short list, and only an
// object with many keys gets a hash table (parse speed: the scan runs over every JSON file read).
struct JsonFrame {
  static constexpr std::size_t kShort = 16;
  bool object = false;
  bool expect_key = false;  // an object before its next key (after '{' or ',')
  std::size_t index = 0;    // an array's element
  std::vector<std::pair<std::string_view, std::size_t>> few;
  std::unordered_map<std::string_view, std::size_t> many;
  std::string_view key;

  void reset(bool is_object) {
    object = is_object;
    expect_key = is_object;
    index = 0;
    few.clear();
    if (!many.empty()) many = {};
    key = {};
  }

  // Records `k` first seen at byte `at`; returns where it was first seen when it was seen before.
  std::optional<std::size_t> add_key(std::string_view k, std::size_t at) {
    key = k;
    if (many.empty()) {
      for (const auto& [seen, where] : few)
        if (seen == k) return where;
      if (few.size() < kShort) {
        few.emplace_back(k, at);
        return std::nullopt;
      }
      many.insert(few.begin(), few.end());
    }
    const auto [it, fresh] = many.emplace(k, at);
    if (fresh) return std::nullopt;
    return it->second;
  }
};

// "workload.jobs", "levels[1].name": the JSON path of the key being read in frames[0..depth).
std::string frames_path(const std::vector<JsonFrame>& frames, std::size_t depth) {
  std::string path;
  for (std::size_t d = 0; d < depth; ++d) {
    const JsonFrame& f = frames[d];
    if (f.object) {
      if (!path.empty()) path += '.';
      path += f.key;
    } else {
      path += "[" + std::to_string(f.index) + "]";
    }
  }
  return path;
}

// One pass over the text before the parser sees it. Refuses nesting deeper than kMaxJsonDepth at once: tens of
// thousands of levels overflow the stack of the parser's and the library's recursive code (a crash with no message).
// Returns the first key given twice in one object as "origin:line:col: path: key given twice (first at line L)", or
// "": the caller reports it once the text parses (a malformed text's first error is its syntax). nlohmann::json
// would keep the last silently, and one of two values the user wrote would be ignored.
std::string scan_json(const std::string& text, const std::string& origin) {
  std::vector<JsonFrame> frames;    // reused: frames[0..depth) are open
  std::deque<std::string> decoded;  // keys that had escapes, decoded (frames keep views of them)
  std::size_t depth = 0;
  std::string duplicate;
  const char* const data = text.data();
  const std::size_t n = text.size();
  for (std::size_t i = 0; i < n; ++i) {
    const char c = data[i];
    if (c == '"') {
      const std::size_t start = i + 1;
      bool escaped = false;
      for (++i; i < n && data[i] != '"'; ++i) {
        if (data[i] == '\\') {
          escaped = true;
          ++i;
        }
      }
      if (depth == 0 || !frames[depth - 1].object || !frames[depth - 1].expect_key) continue;
      JsonFrame& f = frames[depth - 1];
      f.expect_key = false;
      std::string_view key(data + start, std::min(i, n) - start);
      if (escaped) key = decoded.emplace_back(decode_json_string(key));
      const auto first = f.add_key(key, start - 1);
      if (first && duplicate.empty()) {  // the first one; the scan goes on for the depth limit
        const auto [line, col] = line_col(text, start - 1);
        duplicate = origin + ":" + std::to_string(line) + ":" + std::to_string(col) + ": " +
                    frames_path(frames, depth) + ": key given twice (first at line " +
                    std::to_string(line_col(text, *first).first) + ")";
      }
    } else if (c == '[' || c == '{') {
      if (++depth > kMaxJsonDepth) {
        const auto [line, col] = line_col(text, i);
        throw InputError(origin + ":" + std::to_string(line) + ":" + std::to_string(col) +
                         ": JSON nested deeper than " + std::to_string(kMaxJsonDepth) +
                         " levels of arrays and objects (ringsched's files need fewer than 10)");
      }
      if (frames.size() < depth) frames.emplace_back();
      frames[depth - 1].reset(c == '{');
    } else if ((c == ']' || c == '}') && depth > 0) {
      --depth;
    } else if (c == ',' && depth > 0) {
      JsonFrame& f = frames[depth - 1];
      if (f.object) {
        f.expect_key = true;
      } else {
        ++f.index;
      }
    }
  }
  return duplicate;
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
  const std::string duplicate = scan_json(text, origin);
  check_json_memory(text, origin);
  try {
    nlohmann::json doc = nlohmann::json::parse(text);
    if (!duplicate.empty()) throw InputError(duplicate);
    return doc;
  } catch (const nlohmann::json::parse_error& e) {
    const auto [line, col] = line_col(text, e.byte > 0 ? e.byte - 1 : 0);
    std::string what = e.what();
    const auto pos = what.find("parse error");
    if (pos != std::string::npos) what = what.substr(pos);
    // nlohmann quotes the text it last read ("last read: '...'"): the file's own content (a config may name any file,
    // and a string token runs to the end of its line). Line and column say where; the text stays out.
    if (const auto quoted = what.find("; last read: '"); quoted != std::string::npos) {
      const auto expected = what.rfind("'; expected ");
      what = what.substr(0, quoted) +
             (expected != std::string::npos && expected > quoted ? what.substr(expected + 1) : std::string());
    }
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
      throw InputError(file_ + ": " + child + ": " + unknown_key_message(item.key(), allowed));
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

std::string unknown_key_message(const std::string& key, const std::vector<std::string>& allowed) {
  const auto near = closest_name(key, allowed);
  return "unknown key (valid keys here: " + join_names(allowed) + ")" +
         (near ? "; did you mean '" + *near + "'?" : std::string());
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
