// workloads/closest_name.cpp — the closest valid name to a mistyped one (Levenshtein distance), for "did you mean".
#include "workloads/closest_name.h"

#include <algorithm>
#include <cstddef>

namespace ringsched {
namespace {

std::size_t edit_distance(const std::string& a, const std::string& b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j)
    row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diag = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diag + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diag = up;
    }
  }
  return row[b.size()];
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
