// workloads/io/csv.cpp — the CSV reader.
#include "workloads/io/csv.h"

#include <charconv>
#include <cmath>
#include <functional>
#include <limits>
#include <stdexcept>
#include <utility>

#include "workloads/io/closest_name.h"
#include "workloads/io/input_file.h"
#include "workloads/io/json_reader.h"

namespace ringsched {
namespace {

std::string trim(const std::string& s) {
  std::size_t a = 0;
  std::size_t b = s.size();
  while (a < b && (s[a] == ' ' || s[a] == '\t' || s[a] == '\r'))
    ++a;
  while (b > a && (s[b - 1] == ' ' || s[b - 1] == '\t' || s[b - 1] == '\r'))
    --b;
  return s.substr(a, b - a);
}

}  // namespace

int CsvTable::column(const std::string& name) const {
  for (std::size_t i = 0; i < header.size(); ++i) {
    if (header[i] == name) return static_cast<int>(i);
  }
  return -1;
}

int CsvTable::require_column(const std::string& name) const {
  const int c = column(name);
  if (c < 0) {
    // The header is not quoted: a config may name any file, and its first line is no business of the message. A
    // column name close to the one asked for is a typo and is shown.
    const auto near = closest_name(name, header);
    throw InputError(file + ":1: missing column '" + name + "' (the header has " + std::to_string(header.size()) +
                     (header.size() == 1 ? " column" : " columns") +
                     (near ? "; did you mean '" + *near + "'?" : std::string(", none of that name")) + ")");
  }
  return c;
}

void CsvTable::fail(const CsvRow& row, const std::string& message) const {
  throw InputError(file + ":" + std::to_string(row.line) + ": " + message);
}

const std::string& CsvTable::text(const CsvRow& row, int col) const {
  return row.fields.at(static_cast<std::size_t>(col));
}

double CsvTable::number(const CsvRow& row, int col) const {
  const std::string& s = text(row, col);
  const std::string name = header[static_cast<std::size_t>(col)];
  if (s.empty()) fail(row, "column '" + name + "': empty, expected a number");
  double v = 0.0;
  const char* first = s.data();
  const char* last = s.data() + s.size();
  if (*first == '+') ++first;
  const auto res = std::from_chars(first, last, v);
  if (res.ec != std::errc() || res.ptr != last || !std::isfinite(v)) {
    fail(row, "column '" + name + "': expected a finite number, got '" + s + "'");
  }
  return v;
}

double CsvTable::positive(const CsvRow& row, int col) const {
  const double v = number(row, col);
  if (!(v > 0.0))
    fail(row, "column '" + header[static_cast<std::size_t>(col)] + "': must be > 0, got " + text(row, col));
  if (v < std::numeric_limits<double>::min()) {
    fail(row, "column '" + header[static_cast<std::size_t>(col)] + "': " + text(row, col) +
                  " is a denormal number (below 2.2e-308)");
  }
  return v;
}

double CsvTable::non_negative(const CsvRow& row, int col) const {
  const double v = number(row, col);
  if (!(v >= 0.0)) {
    fail(row, "column '" + header[static_cast<std::size_t>(col)] + "': must be >= 0, got " + text(row, col));
  }
  return v;
}

int CsvTable::integer_in(const CsvRow& row, int col, int lo, int hi) const {
  const double v = number(row, col);
  if (v != std::floor(v) || v < lo || v > hi) {
    fail(row, "column '" + header[static_cast<std::size_t>(col)] + "': expected an integer in [" + std::to_string(lo) +
                  ", " + std::to_string(hi) + "], got " + text(row, col));
  }
  return static_cast<int>(v);
}

namespace {

// The incremental parser behind parse_csv and for_each_csv_row: bytes arrive in chunks of any size (a quote escape
// or the byte-order mark may straddle two), rows leave through `emit` with their 1-based line.
class CsvParser {
 public:
  // `given_header` non-empty: a headerless text whose columns it names (a first row equal to it is read as the
  // header all the same).
  CsvParser(std::string origin, std::function<void(const CsvTable&, const CsvRow&)> emit,
            std::size_t max_row_bytes = kMaxLineBytes, std::vector<std::string> given_header = {})
      : emit_(std::move(emit)), max_row_bytes_(max_row_bytes), header_given_(!given_header.empty()) {
    table_.file = std::move(origin);
    table_.header = std::move(given_header);
  }

  void feed(const char* data, std::size_t size) {
    std::size_t i = 0;
    if (prefix_.size() < 3) {  // hold the first three bytes until it is known whether they are a byte-order mark
      while (i < size && prefix_.size() < 3)
        prefix_ += data[i++];
      if (prefix_.size() < 3) return;
      if (prefix_ != "\xEF\xBB\xBF") consume(prefix_.data(), prefix_.size());
    }
    consume(data + i, size - i);
  }

  // Ends the text: flushes a last row without a newline; throws for an unterminated quote or no header.
  const CsvTable& finish() {
    if (prefix_.size() < 3) {
      const std::string held = prefix_;
      prefix_ = "done";
      consume(held.data(), held.size());
    }
    if (quote_pending_) {  // the text ended right after a closing quote
      quote_pending_ = false;
      in_quotes_ = false;
      closed_at_ = cur_.size();
    }
    if (in_quotes_) throw InputError(table_.file + ":" + std::to_string(row_line_) + ": unterminated quoted field");
    if (!cur_.empty() || !row_.fields.empty()) end_row();
    if (table_.header.empty()) throw InputError(table_.file + ":1: empty file (expected a header row)");
    if (header_given_ && first_row_) throw InputError(table_.file + ":1: empty file (no rows)");
    return table_;
  }

  [[nodiscard]] CsvTable& table() { return table_; }

 private:
  void consume(const char* data, std::size_t size) {
    for (std::size_t i = 0; i < size; ++i) {
      const char ch = data[i];
      if (++row_bytes_ > max_row_bytes_) line_too_long(table_.file, row_line_, "row", max_row_bytes_);
      if (quote_pending_) {  // a quote inside quotes: "" is an escaped quote, anything else ends the quoted part
        quote_pending_ = false;
        if (ch == '"') {
          cur_ += '"';
          continue;
        }
        in_quotes_ = false;
        closed_at_ = cur_.size();
      }
      if (in_quotes_) {
        if (ch == '"') {
          quote_pending_ = true;
        } else {
          if (ch == '\n') ++line_;
          cur_ += ch;
        }
      } else if (ch == '"' && trim(cur_).empty()) {
        in_quotes_ = true;
        quoted_ = true;
        cur_.clear();
      } else if (ch == ',') {
        end_field();
      } else if (ch == '\n') {
        end_row();
        ++line_;
        row_line_ = line_;
        row_bytes_ = 0;
      } else {
        cur_ += ch;
      }
    }
  }

  // A quoted field is its text between the quotes; only spaces, tabs or a CR (a CRLF line end) may follow the closing
  // quote.
  void end_field() {
    if (quoted_) {
      if (!trim(cur_.substr(closed_at_)).empty()) {
        throw InputError(table_.file + ":" + std::to_string(row_line_) + ": text after the closing quote of field " +
                         std::to_string(row_.fields.size() + 1) + " (a quoted field ends at its closing quote)");
      }
      cur_.resize(closed_at_);
      row_.fields.push_back(cur_);
    } else {
      row_.fields.push_back(trim(cur_));
    }
    cur_.clear();
    quoted_ = false;
  }

  void end_row() {
    end_field();
    const bool blank = row_.fields.size() == 1 && row_.fields[0].empty();
    if (!blank) {
      const bool first = first_row_;
      first_row_ = false;
      if (table_.header.empty()) {
        table_.header = row_.fields;
      } else if (first && header_given_ && row_.fields == table_.header) {
        // the header of a file that has one
      } else {
        if (row_.fields.size() != table_.header.size()) {
          throw InputError(table_.file + ":" + std::to_string(row_line_) + ": expected " +
                           std::to_string(table_.header.size()) +
                           (header_given_ ? " fields (" + join_names(table_.header) + ")"
                                          : std::string(" fields as in the header (line 1)")) +
                           ", got " + std::to_string(row_.fields.size()));
        }
        row_.line = row_line_;
        emit_(table_, row_);
      }
    }
    row_.fields.clear();
  }

  std::function<void(const CsvTable&, const CsvRow&)> emit_;
  CsvTable table_;
  CsvRow row_;
  std::string cur_;
  std::string prefix_;
  bool in_quotes_ = false;
  bool quote_pending_ = false;
  bool quoted_ = false;
  std::size_t closed_at_ = 0;  // where the closing quote of a quoted field was (cur_'s length then)
  std::size_t max_row_bytes_;
  std::size_t row_bytes_ = 0;  // bytes of the row so far (its quoted line breaks included)
  int line_ = 1;
  int row_line_ = 1;
  bool header_given_ = false;
  bool first_row_ = true;
};

}  // namespace

CsvTable parse_csv(const std::string& text, const std::string& origin) {
  std::vector<CsvRow> rows;
  CsvParser parser(origin, [&rows](const CsvTable& /*table*/, const CsvRow& row) { rows.push_back(row); });
  parser.feed(text.data(), text.size());
  parser.finish();
  CsvTable t = std::move(parser.table());
  t.rows = std::move(rows);
  return t;
}

CsvTable read_csv_file(const std::string& path) {
  return parse_csv(read_input_file(path, "CSV file"), path);
}

std::size_t for_each_csv_row(const std::string& path, const std::function<void(const CsvTable&, const CsvRow&)>& on_row,
                             std::size_t block_bytes) {
  std::size_t rows = 0;
  CsvParser parser(path, [&](const CsvTable& table, const CsvRow& row) {
    ++rows;
    on_row(table, row);
  });
  for_each_input_chunk(
      path, "CSV file", [&parser](const char* data, std::size_t size) { parser.feed(data, size); }, kMaxInputFileBytes,
      block_bytes);
  parser.finish();
  return rows;
}

std::size_t for_each_headerless_csv_row(const std::string& path, std::vector<std::string> header,
                                        const std::function<void(const CsvTable&, const CsvRow&)>& on_row,
                                        std::size_t block_bytes) {
  if (header.empty()) throw std::invalid_argument("for_each_headerless_csv_row: no column names");
  std::size_t rows = 0;
  CsvParser parser(
      path,
      [&](const CsvTable& table, const CsvRow& row) {
        ++rows;
        on_row(table, row);
      },
      kMaxLineBytes, std::move(header));
  for_each_input_chunk(
      path, "CSV file", [&parser](const char* data, std::size_t size) { parser.feed(data, size); }, kMaxInputFileBytes,
      block_bytes);
  parser.finish();
  return rows;
}

}  // namespace ringsched
