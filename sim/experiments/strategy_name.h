// sim/experiments/strategy_name.h — the one reader of a strategy written as text, "name" or "name[beliefs]", shared
// by --strategies, Python's strategies= (both through sim/cli/run_options) and a config's strategy lists.
#pragma once

#include <string>

namespace ringsched {

struct StrategyName {
  std::string name;     // a registered strategy
  std::string beliefs;  // a belief source; empty when the text gave none (the strategy's default applies)
};

// Splits and checks `text`: the strategy must be registered and the belief source, when given, known. Failures are
// InputError prefixed by `where` ("--strategies", "cfg.json: strategies[1]"): an unknown strategy lists the valid
// ones, an unknown belief source the valid sources, and a malformed text ("", "srtf[", "srtf[oracle]x", "[oracle]")
// says what is expected.
StrategyName parse_strategy_name(const std::string& text, const std::string& where);

}  // namespace ringsched
