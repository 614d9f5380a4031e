// sim/sweeps/sweep_spec.h — a sweep file: a base experiment config (a file, inline, builtin:table3 or
// builtin:heldout) plus axes over any config key by JSON path, as a cartesian product or an explicit cell list;
// its expansion into cells and its hash (what --resume checks). See docs/sweeps.md.
#pragma once

#include <cstdint>
#include <string>
#include <variant>
#include <vector>

#include <nlohmann/json.hpp>

namespace ringsched {

// The version of the sweep results format (sweep.json), part of the config hash that --resume checks.
inline constexpr int kSweepFormatVersion = 1;

// "cluster.nodes", "levels[0].load", "strategies[1].params.x": object keys separated by '.', array indices in [].
using JsonPathSegment = std::variant<std::string, std::size_t>;
// Throws InputError "where: ..." on a malformed path.
std::vector<JsonPathSegment> parse_json_path(const std::string& path, const std::string& where);
// The value at the path, or nullptr when it does not exist. `missing` (if given) receives a reason.
const nlohmann::json* find_json_path(const nlohmann::json& doc, const std::vector<JsonPathSegment>& path,
                                     std::string* missing = nullptr);

struct SweepAxis {
  std::string name;  // column name (default: the path)
  std::string path;  // JSON path into the base experiment config
  std::vector<JsonPathSegment> segments;
  std::vector<nlohmann::json> values;  // empty for the columns of an explicit cell list
};

struct SweepSpec {
  std::string origin;  // the sweep file, for messages
  std::string description;
  nlohmann::json base;      // the base experiment config (with "seeds" set from "replicates")
  std::string base_origin;  // where the base came from (the sweep file, a config file or builtin:table3)
  std::string base_dir;     // resolves relative paths inside the base (catalog files)
  std::vector<SweepAxis> axes;
  // One entry per cell, in output order: one value per axis (null = this cell leaves that key as in the base).
  std::vector<std::vector<nlohmann::json>> cells;
  std::string config_hash;  // "fnv1a64:<16 hex>" of the canonical sweep (base, axes, cells)

  [[nodiscard]] std::size_t size() const { return cells.size(); }
  // The experiment config document of one cell (the base with the cell's values written at the axis paths).
  [[nodiscard]] nlohmann::json cell_document(std::size_t cell) const;
  // "restart.cost_s=10, cluster.nodes=4" (axis names), for messages and the check command.
  [[nodiscard]] std::string cell_label(std::size_t cell) const;
};

// Parses and expands a sweep file; errors are InputError naming the sweep file and the JSON path (exit code 2).
SweepSpec parse_sweep(const nlohmann::json& doc, const std::string& origin, const std::string& base_dir);
SweepSpec load_sweep(const std::string& path);

// An axis value as text: strings raw, everything else as compact JSON ("" for null).
std::string axis_value_text(const nlohmann::json& v);

// FNV-1a 64-bit of text, as "fnv1a64:<16 hex digits>".
std::string fnv1a64_hex(const std::string& text);

}  // namespace ringsched
