// sim/cli/flags.cpp — strict number validators and the subcommand/flag typo check.
#include "sim/cli/flags.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>

namespace ringsched::cli {
namespace {

std::string quote_text(const std::string& s) {
  return "'" + (s.size() > 40 ? s.substr(0, 37) + "..." : s) + "'";
}

bool is_digit(char c) {
  return c >= '0' && c <= '9';
}

// Skips the digits from `i`; returns how many there were.
std::size_t skip_digits(const std::string& s, std::size_t& i) {
  const std::size_t start = i;
  while (i < s.size() && is_digit(s[i]))
    ++i;
  return i - start;
}

// [+-]?[0-9]+ (one linear pass: a regex engine recurses per character and overflows the stack on long input).
bool is_decimal_integer(const std::string& s) {
  std::size_t i = 0;
  if (i < s.size() && (s[i] == '+' || s[i] == '-')) ++i;
  return skip_digits(s, i) > 0 && i == s.size();
}

// [+-]?([0-9]+[.]?[0-9]*|[.][0-9]+)([eE][+-]?[0-9]+)?
bool is_decimal_number(const std::string& s) {
  std::size_t i = 0;
  if (i < s.size() && (s[i] == '+' || s[i] == '-')) ++i;
  std::size_t mantissa = skip_digits(s, i);
  if (i < s.size() && s[i] == '.') {
    ++i;
    mantissa += skip_digits(s, i);
  }
  if (mantissa == 0) return false;
  if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
    ++i;
    if (i < s.size() && (s[i] == '+' || s[i] == '-')) ++i;
    if (skip_digits(s, i) == 0) return false;
  }
  return i == s.size();
}

// A number flag's value longer than this is refused before it is looked at (no number needs more digits).
constexpr std::size_t kMaxNumberChars = 64;

std::string too_long(const std::string& value) {
  return quote_text(value) + " is " + std::to_string(value.size()) + " characters long; a number here takes at most " +
         std::to_string(kMaxNumberChars);
}

}  // namespace

CLI::Validator strict_integer() {
  return CLI::Validator(
      [](std::string& value) -> std::string {
        if (value.size() > kMaxNumberChars) return too_long(value);
        if (!is_decimal_integer(value)) return quote_text(value) + " is not a whole number (write it in decimal)";
        return "";
      },
      "INT");
}

CLI::Validator non_empty() {
  return CLI::Validator([](std::string& value) -> std::string { return value.empty() ? "must not be empty" : ""; }, "");
}

CLI::Validator strict_number() {
  return CLI::Validator(
      [](std::string& value) -> std::string {
        if (value.size() > kMaxNumberChars) return too_long(value);
        if (!is_decimal_number(value)) return quote_text(value) + " is not a number (write it in decimal)";
        if (!std::isfinite(std::strtod(value.c_str(), nullptr))) return quote_text(value) + " is beyond a double";
        return "";
      },
      "NUMBER");
}

std::string check_names(const CLI::App& app, int argc, const char* const* argv) {
  std::vector<std::string> commands;
  for (const CLI::App* sub : app.get_subcommands([](const CLI::App*) { return true; }))
    commands.push_back(sub->get_name());
  const CLI::App* chosen = nullptr;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--") break;
    if (chosen == nullptr) {
      if (!arg.empty() && arg[0] == '-') continue;  // --help, --version: CLI11's
      for (const CLI::App* sub : app.get_subcommands([](const CLI::App*) { return true; }))
        if (sub->get_name() == arg) chosen = sub;
      if (chosen == nullptr) {
        const auto near = closest_name(arg, commands);
        std::string names;
        for (const auto& c : commands)
          names += (names.empty() ? "" : ", ") + c;
        return "unknown command " + quote_text(arg) + (near ? " (did you mean '" + *near + "'?)" : "") +
               "; commands: " + names;
      }
      continue;
    }
    if (arg.size() < 3 || arg.compare(0, 2, "--") != 0) continue;
    const std::string flag = arg.substr(0, arg.find('='));
    std::vector<std::string> flags = {"--help"};
    for (const CLI::Option* opt : chosen->get_options())
      for (const auto& l : opt->get_lnames())
        flags.push_back("--" + l);
    if (std::find(flags.begin(), flags.end(), flag) != flags.end()) continue;
    const auto near = closest_name(flag, flags);
    return chosen->get_name() + ": unknown flag " + quote_text(flag) +
           (near ? " (did you mean '" + *near + "'?)" : "") + "; see `ringsched " + chosen->get_name() + " --help`";
  }
  return "";
}

}  // namespace ringsched::cli
