#include "core/extract/xpath_names.h"

namespace actorcrawl {

namespace {

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

// NCName characters, ASCII as XML has them and every non-ASCII byte (a
// name's UTF-8 continues it; the compiler has judged the rest).
bool is_name_start(char c) {
  const auto u = static_cast<unsigned char>(c);
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || u >= 0x80;
}
bool is_name_char(char c) { return is_name_start(c) || (c >= '0' && c <= '9') || c == '-' || c == '.'; }

bool is_node_type(std::string_view name) {
  return name == "comment" || name == "text" || name == "processing-instruction" || name == "node";
}

bool is_operator_name(std::string_view name) {
  return name == "and" || name == "or" || name == "mod" || name == "div";
}

// The kinds of token the disambiguation rules look back at.
enum class Previous { none, opener, operand };

}  // namespace

XPathNames xpath_names(std::string_view x) {
  XPathNames out;
  std::size_t depth = 0;
  // "If there is a preceding token and [it] is not one of @, ::, (, [, , or
  // an Operator, then a * must be recognized as a MultiplyOperator and an
  // NCName must be recognized as an OperatorName" (XPath 1.0, 3.7): after
  // an operand, a name is an operator; elsewhere it is a name.
  Previous previous = Previous::none;
  std::size_t i = 0;
  const std::size_t n = x.size();
  while (i < n) {
    const char c = x[i];
    if (is_space(c)) {
      ++i;
      continue;
    }
    if (c == '"' || c == '\'') {  // a literal: nothing inside counts
      const std::size_t end = x.find(c, i + 1);
      i = end == std::string_view::npos ? n : end + 1;
      previous = Previous::operand;
      continue;
    }
    if (c == '(' || c == '[') {
      ++depth;
      out.max_nesting = std::max(out.max_nesting, depth);
      previous = Previous::opener;
      ++i;
      continue;
    }
    if (c == ')' || c == ']') {
      depth = depth > 0 ? depth - 1 : 0;
      previous = Previous::operand;
      ++i;
      continue;
    }
    if (c == '$') {  // a variable reference: $QName
      std::size_t end = i + 1;
      while (end < n && (is_name_char(x[end]) || x[end] == ':')) ++end;
      out.variables.emplace_back(x.substr(i + 1, end - i - 1));
      i = end;
      previous = Previous::operand;
      continue;
    }
    if (c == '*') {
      // A name test after an opener or operator, a multiplication after an
      // operand.
      previous = previous == Previous::operand ? Previous::opener : Previous::operand;
      ++i;
      continue;
    }
    if ((c >= '0' && c <= '9') || (c == '.' && i + 1 < n && x[i + 1] >= '0' && x[i + 1] <= '9')) {
      while (i < n && ((x[i] >= '0' && x[i] <= '9') || x[i] == '.')) ++i;
      previous = Previous::operand;
      continue;
    }
    if (c == '.' || c == '@') {  // . and .. are operands; @ opens a name
      previous = c == '@' ? Previous::opener : Previous::operand;
      i += c == '.' && i + 1 < n && x[i + 1] == '.' ? 2 : 1;
      continue;
    }
    if (is_name_start(c)) {
      std::size_t end = i;
      while (end < n && is_name_char(x[end])) ++end;
      // prefix:local (one colon, not the axis separator ::), or prefix:*
      if (end + 1 < n && x[end] == ':' && x[end + 1] != ':' && (is_name_start(x[end + 1]) || x[end + 1] == '*')) {
        ++end;
        if (x[end] == '*')
          ++end;
        else
          while (end < n && is_name_char(x[end])) ++end;
      }
      const std::string_view name = x.substr(i, end - i);
      i = end;
      if (previous == Previous::operand && is_operator_name(name)) {
        previous = Previous::opener;
        continue;
      }
      std::size_t next = i;
      while (next < n && is_space(x[next])) ++next;
      if (next + 1 < n && x[next] == ':' && x[next + 1] == ':') {  // an axis
        i = next + 2;
        previous = Previous::opener;
        continue;
      }
      if (next < n && x[next] == '(' && !is_node_type(name))
        out.functions.emplace_back(name);
      previous = Previous::operand;
      continue;
    }
    // Operators and the rest: / // | + - = != < <= > >= ,
    previous = Previous::opener;
    ++i;
  }
  return out;
}

}  // namespace actorcrawl
