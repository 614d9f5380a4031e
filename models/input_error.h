// models/input_error.h — the one exception type for bad user input (files, JSON paths, flags): exit code 2.
#pragma once

#include <stdexcept>
#include <string>

namespace ringsched {

// Thrown for invalid input. what() is a complete one-line message that names the file and the line or JSON path,
// e.g. "cfg.json: workload.arrival.rate: must be > 0, got -1". Command lines catch it and exit with code 2.
class InputError : public std::runtime_error {
 public:
  explicit InputError(const std::string& message) : std::runtime_error(message) {}
};

}  // namespace ringsched
