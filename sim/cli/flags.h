// sim/cli/flags.h — strict flag values and typo suggestions for the command line: numbers are written in decimal
// (no hex, no NaN or infinity; the offending text quoted, the flag named), and an unknown subcommand or flag is
// named with the closest valid one.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "workloads/io/closest_name.h"

namespace ringsched::cli {

// Decimal integers only ("12", "-3"; not "0x10", "1e3", "12.0", "abc").
CLI::Validator strict_integer();
// A value that must not be empty (`--out ""` would otherwise be silently ignored).
CLI::Validator non_empty();
// Finite decimal numbers only ("0.5", "1e-3", "30"; not "nan", "inf", "0x1p3", "1e309").
CLI::Validator strict_number();

// The candidate closest to `word` by edit distance, when close enough to be a typo of it (workloads/io/closest_name.h,
// shared with the JSON readers' unknown-key messages).
using ringsched::closest_name;

// Checks argv before CLI11 parses it: an unknown subcommand, or a long flag the chosen subcommand does not have, is
// returned as one message naming it and the closest valid name (CLI11 says only "A subcommand is required" or
// "--config is required" for a typo of them); "" when argv is fine as far as names go.
std::string check_names(const CLI::App& app, int argc, const char* const* argv);

}  // namespace ringsched::cli
