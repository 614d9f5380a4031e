// workloads/csv.cpp — the CSV reader.
#include "workloads/csv.h"

#include <charconv>
#include <cmath>
#include <limits>

#include "workloads/input_file.h"
#include "workloads/json_reader.h"

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
    throw InputError(file + ":1: missing column '" + name + "' (columns: " + join_names(header) + ")");
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

CsvTable parse_csv(const std::string& text, const std::string& origin) {
  CsvTable t;
  t.file = origin;
  std::vector<std::string> fields;
  std::string cur;
  bool in_quotes = false;
  bool quoted = false;
  int line = 1;
  int row_line = 1;
  auto end_row = [&]() {
    fields.push_back(quoted ? cur : trim(cur));
    cur.clear();
    quoted = false;
    const bool blank = fields.size() == 1 && fields[0].empty();
    if (!blank) {
      if (t.header.empty()) {
        t.header = fields;
      } else {
        if (fields.size() != t.header.size()) {
          throw InputError(origin + ":" + std::to_string(row_line) + ": expected " + std::to_string(t.header.size()) +
                           " fields (" + join_names(t.header) + "), got " + std::to_string(fields.size()));
        }
        t.rows.push_back(CsvRow{row_line, fields});
      }
    }
    fields.clear();
  };
  // A UTF-8 byte-order mark (spreadsheets write one) is not part of the first column's name.
  const std::size_t start = text.rfind("\xEF\xBB\xBF", 0) == 0 ? 3 : 0;
  for (std::size_t i = start; i < text.size(); ++i) {
    const char ch = text[i];
    if (in_quotes) {
      if (ch == '"') {
        if (i + 1 < text.size() && text[i + 1] == '"') {
          cur += '"';
          ++i;
        } else {
          in_quotes = false;
        }
      } else {
        if (ch == '\n') ++line;
        cur += ch;
      }
    } else if (ch == '"' && trim(cur).empty()) {
      in_quotes = true;
      quoted = true;
      cur.clear();
    } else if (ch == ',') {
      fields.push_back(quoted ? cur : trim(cur));
      cur.clear();
      quoted = false;
    } else if (ch == '\n') {
      end_row();
      ++line;
      row_line = line;
    } else {
      cur += ch;
    }
  }
  if (in_quotes) throw InputError(origin + ":" + std::to_string(row_line) + ": unterminated quoted field");
  if (!cur.empty() || !fields.empty()) end_row();
  if (t.header.empty()) throw InputError(origin + ":1: empty file (expected a header row)");
  return t;
}

CsvTable read_csv_file(const std::string& path) {
  return parse_csv(read_input_file(path, "CSV file"), path);
}

}  // namespace ringsched
