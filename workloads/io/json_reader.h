// workloads/io/json_reader.h — validated reading of JSON input: every error names the file and the JSON path
// ("cfg.json: workload.arrival.load: must be > 0, got -1") and is thrown as ringsched::InputError (exit 2).
#pragma once

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "models/input_error.h"

namespace ringsched {

// Reads and parses a JSON file; parse errors name the file, line and column.
nlohmann::json read_json_file(const std::string& path);
// The deepest nesting of arrays and objects parse_json_text accepts (deeper input is an InputError naming the line).
inline constexpr std::size_t kMaxJsonDepth = 128;
// Parses JSON text; `origin` names the source in messages.
nlohmann::json parse_json_text(const std::string& text, const std::string& origin);

class JsonReader {
 public:
  JsonReader(const nlohmann::json& value, std::string file, std::string path = "");

  [[nodiscard]] const nlohmann::json& value() const { return *value_; }
  [[nodiscard]] const std::string& file() const { return file_; }
  [[nodiscard]] const std::string& path() const { return path_; }
  [[nodiscard]] std::string where() const;  // "file: path" (or "file: (top level)")

  [[noreturn]] void fail(const std::string& message) const;

  [[nodiscard]] bool is_object() const { return value_->is_object(); }
  [[nodiscard]] bool is_array() const { return value_->is_array(); }
  [[nodiscard]] bool is_string() const { return value_->is_string(); }
  [[nodiscard]] bool has(const std::string& key) const;

  // Fails unless this is an object whose keys are all in `allowed` (the message lists them).
  void expect_object(const std::vector<std::string>& allowed) const;
  [[nodiscard]] JsonReader at(const std::string& key) const;  // required member
  [[nodiscard]] std::optional<JsonReader> maybe(const std::string& key) const;
  [[nodiscard]] std::vector<JsonReader> elements() const;  // requires an array
  [[nodiscard]] std::vector<JsonReader> non_empty_elements() const;

  [[nodiscard]] double as_number() const;
  [[nodiscard]] double as_positive() const;      // > 0, finite
  [[nodiscard]] double as_non_negative() const;  // >= 0, finite
  // Within [lo, hi] (finite); an input beyond an absurd-size cap fails naming the cap.
  [[nodiscard]] double as_number_in(double lo, double hi) const;
  [[nodiscard]] std::int64_t as_integer() const;
  [[nodiscard]] std::int64_t as_integer_in(std::int64_t lo, std::int64_t hi) const;
  [[nodiscard]] std::string as_string() const;
  [[nodiscard]] bool as_bool() const;

  // Convenience: member with a documented default when absent.
  [[nodiscard]] double number_or(const std::string& key, double fallback) const;
  [[nodiscard]] double positive_or(const std::string& key, double fallback) const;
  [[nodiscard]] double non_negative_or(const std::string& key, double fallback) const;
  [[nodiscard]] std::int64_t integer_in_or(const std::string& key, std::int64_t lo, std::int64_t hi,
                                           std::int64_t fallback) const;
  [[nodiscard]] std::string string_or(const std::string& key, const std::string& fallback) const;
  [[nodiscard]] bool bool_or(const std::string& key, bool fallback) const;

 private:
  const nlohmann::json* value_;
  std::string file_;
  std::string path_;
};

// "unknown key (valid keys here: a, jobs); did you mean 'jobs'?" (the suggestion when `key` is close to one of them,
// workloads/io/closest_name.h) — for readers that check keys without expect_object.
std::string unknown_key_message(const std::string& key, const std::vector<std::string>& allowed);

// "a, b, c" — for messages that list valid names.
std::string join_names(const std::vector<std::string>& names);

}  // namespace ringsched
