// workloads/io/closest_name.cpp — the closest valid name to a mistyped one (Levenshtein distance), for "did you mean".
#include "workloads/io/closest_name.h"

#include <algorithm>
#include <cstddef>
#include <vector>

namespace ringsched {
namespace {

// Edits between a and b: insertions, deletions, substitutions and swaps of two neighbours ("sedes" -> "seeds" is
// one), the optimal-string-alignment distance.
std::size_t edit_distance(const std::string& a, const std::string& b) {
  const std::size_t w = b.size() + 1;
  std::vector<std::size_t> d((a.size() + 1) * w);
  for (std::size_t j = 0; j < w; ++j)
    d[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    d[i * w] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
      std::size_t best = std::min({d[(i - 1) * w + j] + 1, d[i * w + j - 1] + 1, d[(i - 1) * w + j - 1] + cost});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1])
        best = std::min(best, d[(i - 2) * w + j - 2] + 1);
      d[i * w + j] = best;
    }
  }
  return d[a.size() * w + b.size()];
}

}  // namespace

std::optional<std::string> closest_name(const std::string& word, const std::vector<std::string>& candidates) {
  // Under 3 characters one edit is most of the word ("t4" is no typo of "t0"); names are short, and a very long word
  // (a hostile key) is no typo of one and would cost its length times theirs.
  if (word.size() < 3 || word.size() > 256) return std::nullopt;
  std::optional<std::string> best;
  std::size_t best_d = 0;
  for (const auto& c : candidates) {
    const std::size_t d = edit_distance(word, c);
    if (!best || d < best_d) {
      best = c;
      best_d = d;
    }
  }
  if (best && best_d <= std::min<std::size_t>(3, std::max<std::size_t>(1, word.size() / 3))) return best;
  std::optional<std::string> prefixed;
  for (const auto& c : candidates) {
    if (word.size() >= 3 && c.rfind(word, 0) == 0) {
      if (prefixed) return std::nullopt;  // ambiguous
      prefixed = c;
    }
  }
  return prefixed;
}

}  // namespace ringsched
