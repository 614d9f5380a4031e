// workloads/io/closest_name.h — "did you mean" suggestions: the valid name closest to a mistyped one, shared by the
// command line (subcommands, flags) and the JSON readers (unknown keys in configs, catalogs, sweep files).
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace ringsched {

// The candidate closest to `word` by edit distance (a swap of two neighbouring letters is one edit), when close enough
// to be a typo of it: at most a third of the word wrong (and at most 3 edits), or the one candidate `word` is a prefix
// of; none for a word under 3 characters.
std::optional<std::string> closest_name(const std::string& word, const std::vector<std::string>& candidates);

}  // namespace ringsched
