// test/sim/function_spans.h — the size rules' reader: the functions of a C++ source with the lines each spans
// (from the line of its opening brace's head to its closing brace), found by a brace scan over the text with
// comments, string and character literals blanked. A brace opens a function when no function is open and the text
// before it (since the last ';', '{' or '}') holds a '(' and does not start with a control keyword or a
// namespace/class/struct/enum/union; lambdas and blocks inside a function count towards it.
#pragma once

#include <cctype>
#include <string>
#include <vector>

namespace ringsched::test {

struct FunctionSpan {
  std::string head;  // the declaration before the brace, whitespace collapsed
  int first_line = 0;
  int lines = 0;
};

// `text` with comments and literals replaced by spaces (newlines kept, so line numbers hold).
inline std::string blank_comments_and_literals(const std::string& text) {
  std::string out = text;
  enum { kCode, kLine, kBlock, kString, kChar, kRaw } st = kCode;
  std::string raw_end;
  for (std::size_t i = 0; i < out.size(); ++i) {
    const char c = out[i];
    const char n = i + 1 < out.size() ? out[i + 1] : '\0';
    switch (st) {
      case kCode:
        if (c == '/' && n == '/')
          st = kLine, out[i] = ' ';
        else if (c == '/' && n == '*')
          st = kBlock, out[i] = ' ';
        else if (c == 'R' && n == '"' && (i == 0 || !std::isalnum(static_cast<unsigned char>(out[i - 1])))) {
          const std::size_t open = out.find('(', i + 2);
          raw_end = ")" + out.substr(i + 2, open - (i + 2)) + "\"";
          st = kRaw;
        } else if (c == '"')
          st = kString;
        else if (c == '\'' && (i == 0 || !std::isalnum(static_cast<unsigned char>(out[i - 1]))))
          st = kChar;
        break;
      case kLine:
        if (c == '\n')
          st = kCode;
        else
          out[i] = ' ';
        break;
      case kBlock:
        if (c == '*' && n == '/')
          out[i] = out[i + 1] = ' ', ++i, st = kCode;
        else if (c != '\n')
          out[i] = ' ';
        break;
      case kString:
      case kChar:
        if (c == '\\')
          out[i] = ' ', out[i + 1] = out[i + 1] == '\n' ? '\n' : ' ', ++i;
        else if (c == (st == kString ? '"' : '\''))
          st = kCode;
        else if (c != '\n')
          out[i] = ' ';
        break;
      case kRaw:
        if (out.compare(i, raw_end.size(), raw_end) == 0)
          i += raw_end.size() - 1, st = kCode;
        else if (c != '\n')
          out[i] = ' ';
        break;
    }
  }
  return out;
}

inline bool opens_function(std::string head) {
  std::string collapsed;
  for (char c : head) {
    if (std::isspace(static_cast<unsigned char>(c))) {
      if (!collapsed.empty() && collapsed.back() != ' ') collapsed += ' ';
    } else {
      collapsed += c;
    }
  }
  head = collapsed;
  while (!head.empty() && head.front() == ' ')
    head.erase(head.begin());
  if (head.find('(') == std::string::npos) return false;
  for (const char* kw : {"if", "for", "while", "switch", "catch", "else", "do", "namespace", "class", "struct", "enum",
                         "union", "return", "case"}) {
    const std::string k = kw;
    if (head.compare(0, k.size(), k) == 0 &&
        (head.size() == k.size() ||
         !(std::isalnum(static_cast<unsigned char>(head[k.size()])) || head[k.size()] == '_')))
      return false;
  }
  return head.find('#') == std::string::npos || head.find('(') < head.find('#');
}

// The functions of a source text (see the file comment).
inline std::vector<FunctionSpan> function_spans(const std::string& source) {
  const std::string text = blank_comments_and_literals(source);
  std::vector<FunctionSpan> out;
  std::vector<bool> is_function;  // per open brace
  int function_depth = -1;        // depth of the open function's brace, -1 = none
  int line = 1;
  int head_line = 1;
  std::string head;
  for (char c : text) {
    if (c == '{') {
      const bool fn = function_depth < 0 && opens_function(head);
      if (fn) {
        function_depth = static_cast<int>(is_function.size());
        out.push_back({head, head_line, 0});
      }
      is_function.push_back(fn);
      head.clear();
      head_line = line;
    } else if (c == '}') {
      if (!is_function.empty()) {
        if (is_function.back()) {
          out.back().lines = line - out.back().first_line + 1;
          function_depth = -1;
        }
        is_function.pop_back();
      }
      head.clear();
      head_line = line;
    } else if (c == ';') {
      head.clear();
      head_line = line;
    } else {
      if (head.empty() && std::isspace(static_cast<unsigned char>(c))) {
        if (c == '\n') ++line, head_line = line;
        continue;
      }
      if (head.empty()) head_line = line;
      head += c;
      if (c == '\n') ++line;
      continue;
    }
    if (c == '\n') ++line;
  }
  return out;
}

}  // namespace ringsched::test
