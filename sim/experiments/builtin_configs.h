// sim/experiments/builtin_configs.h — the two configs `ringsched table3` runs: `in-sample` (the paper's setting,
// builtin:table3) and `held-out` (measured Pollux jobs, beliefs fitted on training runs, builtin:heldout). The same
// texts are workloads/examples/table3.json and heldout.json (a test keeps them equal); a sweep may name either as its
// base. `ringsched table3 --show-config in-sample|held-out` prints them.
#pragma once

#include <string>
#include <vector>

namespace ringsched {

// "in-sample", "held-out".
std::vector<std::string> builtin_config_names();
// The JSON text of a built-in config; InputError listing the names for an unknown one.
std::string builtin_config_text(const std::string& name);
// "builtin:table3" for in-sample, "builtin:heldout" for held-out (the origin in messages and summary.json).
std::string builtin_config_origin(const std::string& name);
// The built-in name of an origin ("builtin:heldout" -> "held-out"), or "" when it is not one.
std::string builtin_config_name_of_origin(const std::string& origin);

// builtin_config_text("in-sample").
std::string table3_config_text();

}  // namespace ringsched
