// sim/experiments/strategy_name.cpp — "name" or "name[beliefs]": the strategy and belief source a text names, checked.
#include "sim/experiments/strategy_name.h"

#include <algorithm>
#include <vector>

#include "models/input_error.h"
#include "sim/beliefs/belief_sources.h"
#include "strategies/registry.h"
#include "workloads/io/json_reader.h"

namespace ringsched {

StrategyName parse_strategy_name(const std::string& text, const std::string& where) {
  const auto malformed = [&](const std::string& why) {
    const std::string shown = text.size() > 60 ? text.substr(0, 57) + "..." : text;
    throw InputError(where + ": '" + shown + "': " + why +
                     " (write a strategy as name or name[beliefs], e.g. srtf or srtf[oracle])");
  };
  if (text.empty()) malformed("empty strategy name");
  StrategyName out;
  const auto open = text.find('[');
  if (open == std::string::npos) {
    if (text.find(']') != std::string::npos) malformed("']' without '['");
    out.name = text;
  } else {
    if (text.back() != ']' || text.find('[', open + 1) != std::string::npos || text.find(']') != text.size() - 1) {
      malformed("the belief source must close the name with one ']'");
    }
    out.name = text.substr(0, open);
    out.beliefs = text.substr(open + 1, text.size() - open - 2);
    if (out.name.empty()) malformed("no strategy before '['");
    if (out.beliefs.empty()) malformed("no belief source between '[' and ']'");
  }
  (void)find_strategy(out.name, where);
  if (!out.beliefs.empty()) {
    const auto sources = belief_source_names();
    if (std::find(sources.begin(), sources.end(), out.beliefs) == sources.end()) {
      throw InputError(where + ": " + text + ": unknown belief source '" + out.beliefs +
                       "' (valid: " + join_names(sources) + ")");
    }
  }
  return out;
}

}  // namespace ringsched
