// sim/cli/flags.cpp — strict number validators and the subcommand/flag typo check.
#include "sim/cli/flags.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <regex>

namespace ringsched::cli {
namespace {

std::string quote_text(const std::string& s) {
  return "'" + (s.size() > 40 ? s.substr(0, 37) + "..." : s) + "'";
}

}  // namespace

CLI::Validator strict_integer() {
  return CLI::Validator(
      [](std::string& value) -> std::string {
        static const std::regex integer("[+-]?[0-9]+");
        if (!std::regex_match(value, integer))
          return quote_text(value) + " is not a whole number (write it in decimal)";
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
        static const std::regex number("[+-]?([0-9]+[.]?[0-9]*|[.][0-9]+)([eE][+-]?[0-9]+)?");
        if (!std::regex_match(value, number)) return quote_text(value) + " is not a number (write it in decimal)";
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
