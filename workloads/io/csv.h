// workloads/io/csv.h — a small hand-written CSV reader for measured tables and traces: a header row, comma-separated
// fields (double-quoted fields with "" escapes allowed), every row keeping its 1-based line number for messages.
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <vector>

#include "models/input_error.h"
#include "workloads/io/input_file.h"

namespace ringsched {

struct CsvRow {
  int line = 0;  // 1-based line in the file
  std::vector<std::string> fields;
};

struct CsvTable {
  std::string file;  // the path it was read from (or the origin given)
  std::vector<std::string> header;
  std::vector<CsvRow> rows;  // blank lines skipped

  // Index of a header column, or -1.
  [[nodiscard]] int column(const std::string& name) const;
  // Index of a required column; throws InputError "file:1: missing column 'x' (columns: a, b)".
  [[nodiscard]] int require_column(const std::string& name) const;

  // Field access with InputError "file:line: column 'x': ..." messages.
  [[nodiscard]] const std::string& text(const CsvRow& row, int col) const;
  [[nodiscard]] double number(const CsvRow& row, int col) const;        // finite
  [[nodiscard]] double positive(const CsvRow& row, int col) const;      // > 0
  [[nodiscard]] double non_negative(const CsvRow& row, int col) const;  // >= 0
  [[nodiscard]] int integer_in(const CsvRow& row, int col, int lo, int hi) const;
  [[noreturn]] void fail(const CsvRow& row, const std::string& message) const;
};

// Parses CSV text; `origin` names it in messages. Throws InputError for an empty text (no header), a row whose
// field count differs from the header's, or an unterminated quote.
CsvTable parse_csv(const std::string& text, const std::string& origin);
// Reads and parses a file; a missing or unreadable file is an InputError naming it.
CsvTable read_csv_file(const std::string& path);
// Streams a file row by row without holding it whole (traces of millions of rows): `on_row` gets each data row with
// the table so far (its file and header; `rows` stays empty), so CsvTable's checked accessors and messages work.
// The same rules, limits and messages as read_csv_file; returns the number of data rows. Reads blocks of
// `block_bytes` (tests use tiny blocks so that quotes, escapes and rows straddle them).
std::size_t for_each_csv_row(const std::string& path, const std::function<void(const CsvTable&, const CsvRow&)>& on_row,
                             std::size_t block_bytes = kReadBlockBytes);
// The same for a headerless file (Alibaba PAI's tables, whose column names ship in separate .header files): `header`
// (non-empty) names the columns and every row must have that many fields; a first row equal to `header` is taken as
// the file's own header (a file converted with one) and not passed on. An empty file is an error as above.
std::size_t for_each_headerless_csv_row(const std::string& path, std::vector<std::string> header,
                                        const std::function<void(const CsvTable&, const CsvRow&)>& on_row,
                                        std::size_t block_bytes = kReadBlockBytes);

}  // namespace ringsched
