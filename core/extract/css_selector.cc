#include "core/extract/css_selector.h"

#include <re2/re2.h>
#include <unicode/utf8.h>

#include <cstdint>
#include <optional>
#include <vector>

#include "core/encoding/percent_encoding.h"
#include "core/extract/message_quote.h"
#include "core/web/ascii.h"

namespace actorcrawl {

CssSelectorError::CssSelectorError(std::string_view selector, std::size_t position, const std::string& what)
    : std::runtime_error("CSS selector '" + quote_for_message(selector) + "' at position " + std::to_string(position) +
                         ": " + what),
      position_(position) {}

std::string xpath_string_literal(std::string_view text) {
  if (text.find('\'') == std::string_view::npos)
    return "'" + std::string(text) + "'";
  if (text.find('"') == std::string_view::npos)
    return "\"" + std::string(text) + "\"";
  // Runs of apostrophes go in double quotes, everything else in single.
  std::string out = "concat(";
  std::size_t i = 0;
  bool first = true;
  while (i < text.size()) {
    const bool quotes = text[i] == '\'';
    std::size_t j = i;
    while (j < text.size() && (text[j] == '\'') == quotes) ++j;
    if (!first) out += ", ";
    first = false;
    const char delimiter = quotes ? '"' : '\'';
    out += delimiter;
    out.append(text.substr(i, j - i));
    out += delimiter;
    i = j;
  }
  return out + ")";
}

namespace {

enum class PseudoElement { none, text, attr };

// One compound selector: an element test and conditions on it, each an
// XPath boolean relative to the element.
struct Compound {
  std::string element = "*";  // lowercased; "*" for any
  std::vector<std::string> conditions;
};

struct ComplexSelector {
  std::vector<Compound> compounds;
  std::vector<char> combinators;  // [i] joins compounds[i] and [i + 1]: ' ', '>', '+', '~'
  PseudoElement pseudo = PseudoElement::none;
  std::string attribute;  // for ::attr(), lowercased
};

// Names XPath takes as they are in a name test; others are compared with
// name(), as cssselect does.
bool is_plain_xpath_name(std::string_view name) {
  if (name.empty() || !(ascii::is_alpha(name[0]) || name[0] == '_'))
    return false;
  for (char c : name)
    if (!((ascii::is_alpha(c) || ascii::is_digit(c)) || c == '_' || c == '.' || c == '-'))
      return false;
  return true;
}

// `axis::name`, with the element's conditions as predicates.
std::string step(std::string_view axis, const Compound& c) {
  std::string out(axis);
  out += "::";
  if (c.element == "*" || is_plain_xpath_name(c.element)) {
    out += c.element;
  } else {
    out += "*[name() = " + xpath_string_literal(c.element) + "]";
  }
  for (const auto& condition : c.conditions) out += "[" + condition + "]";
  return out;
}

bool has_predicates(const Compound& c) {
  return !c.conditions.empty() || (c.element != "*" && !is_plain_xpath_name(c.element));
}

// `name` of an attribute, for conditions.
std::string attribute_ref(std::string_view name) {
  if (is_plain_xpath_name(name))
    return "@" + std::string(name);
  return "attribute::*[name() = " + xpath_string_literal(name) + "]";
}

// An XPath boolean, relative to a node matching compounds[i], that holds
// when compounds[0..i-1] match to its left. Built from the left so a long
// selector does not recurse.
std::string left_relation(const ComplexSelector& cs, std::size_t subject) {
  std::string relation;  // of compounds[i - 1], for the loop's i
  for (std::size_t i = 1; i <= subject; ++i) {
    const Compound& left = cs.compounds[i - 1];
    const char combinator = cs.combinators[i - 1];
    const std::string further = relation.empty() ? "" : "[" + relation + "]";
    if (combinator == '>') {
      relation = step("parent", left) + further;
    } else if (combinator == '+') {
      // [1] alone on its step, so libxml2 stops at the first sibling.
      relation = "preceding-sibling::*[1]/" + step("self", left) + further;
    } else {
      // parsel reads `div ::text` as the text nodes in the div's
      // descendant-or-self (cssselect's descendant combinator ends in
      // descendant-or-self::*), so a bare `*` subject before a
      // pseudo-element includes the element on the left itself.
      const bool or_self = combinator == ' ' && i == subject && cs.pseudo != PseudoElement::none &&
                           cs.compounds[i].element == "*" && cs.compounds[i].conditions.empty();
      const std::string candidates =
          step(combinator == ' ' ? (or_self ? "ancestor-or-self" : "ancestor") : "preceding-sibling", left);
      if (further.empty()) {
        // A trailing [1] stops the filter at the first candidate that holds.
        relation = candidates + (has_predicates(left) ? "[1]" : "");
      } else {
        // The nearest candidate (proximity position 1) is enough when the
        // relation further left can only gain by moving nearer: a nearer
        // ancestor has every ancestor a farther one has; siblings share
        // their parent and ancestors, and a nearer one has more siblings
        // before it. Otherwise each candidate is tried until one holds.
        const char further_combinator = cs.combinators[i - 2];
        const bool nearest_suffices =
            combinator == ' ' ? further_combinator == ' ' : further_combinator != '+';
        relation = nearest_suffices ? candidates + "[1]" + further : candidates + further + "[1]";
      }
    }
  }
  return relation;
}

// The subject's test as one XPath boolean (for groups and :not()).
std::string self_test(const Compound& c) {
  if (c.element == "*" && c.conditions.empty())
    return "";
  return step("self", c);
}

std::string pseudo_suffix(const ComplexSelector& cs) {
  switch (cs.pseudo) {
    case PseudoElement::text:
      return "/text()";
    case PseudoElement::attr:
      return "/" + attribute_ref(cs.attribute);
    case PseudoElement::none:
      break;
  }
  return "";
}

std::string subject_path(const ComplexSelector& cs) {
  std::string path = step("descendant-or-self", cs.compounds.back());
  if (cs.compounds.size() > 1)
    path += "[" + left_relation(cs, cs.compounds.size() - 1) + "]";
  return path + pseudo_suffix(cs);
}

// The conditions of :nth-child(an+b) and its kin on the siblings before
// (or after, for the -last- forms) that pass `sibling_test` ("*" or the
// element's name).
std::string nth_condition(std::int64_t a, std::int64_t b, const std::string& axis, const std::string& sibling_test) {
  const std::string siblings = axis + "::" + sibling_test;
  // "There are at least k such siblings": the k-th exists. A positional
  // predicate alone on its step stops libxml2 at the k-th sibling, where
  // count() would walk them all (quadratic over a long list).
  const auto at_least = [&](std::int64_t k) { return siblings + "[" + std::to_string(k) + "]"; };
  const std::int64_t before = b - 1;  // an + b - 1 siblings before
  if (a == 0) {
    if (before < 0)
      return "false()";
    if (before == 0)
      return "not(" + at_least(1) + ")";
    return at_least(before) + " and not(" + at_least(before + 1) + ")";
  }
  if (a > 0 && before <= 0 && a == 1)
    return "";  // every element
  if (a < 0 && before < 0)
    return "false()";
  std::vector<std::string> parts;
  if (a > 0 && before > 0)
    parts.push_back(at_least(before));
  if (a < 0)
    parts.push_back("not(" + at_least(before + 1) + ")");
  if (a != 1 && a != -1) {
    const std::int64_t modulus = a < 0 ? -a : a;
    const std::int64_t offset = ((-before) % modulus + modulus) % modulus;
    std::string count = "count(" + siblings + ")";
    if (offset != 0)
      count = "(" + count + " + " + std::to_string(offset) + ")";
    parts.push_back(count + " mod " + std::to_string(modulus) + " = 0");
  }
  std::string out;
  for (const auto& p : parts) out += (out.empty() ? "" : " and ") + p;
  return out;
}

// A code point from a CSS escape, as UTF-8 (ICU's encoder).
void append_utf8(std::string& out, char32_t cp) {
  std::uint8_t bytes[U8_MAX_LENGTH];
  std::int32_t length = 0;
  U8_APPEND_UNSAFE(bytes, length, static_cast<UChar32>(cp));
  out.append(reinterpret_cast<const char*>(bytes), static_cast<std::size_t>(length));
}

// Characters, as XPath's string-length() counts them.
std::size_t utf8_length(std::string_view s) {
  std::size_t n = 0;
  for (char c : s)
    if ((static_cast<unsigned char>(c) & 0xC0) != 0x80) ++n;
  return n;
}

// CSS whitespace is the WHATWG ASCII whitespace.
bool is_css_whitespace(char c) { return ascii::is_html_space(c); }

// Reads one selector group, by CSS Syntax's rules for identifiers,
// strings, escapes and comments.
class SelectorReader {
 public:
  explicit SelectorReader(std::string_view selector) : s_(selector) {}

  std::vector<ComplexSelector> read_group() {
    std::vector<ComplexSelector> group;
    skip_whitespace();
    if (at_end())
      fail("empty selector");
    for (;;) {
      group.push_back(read_complex());
      if (at_end())
        break;
      ++pos_;  // ','
      skip_whitespace();
      if (at_end())
        fail("expected a selector after ','");
    }
    return group;
  }

 private:
  [[noreturn]] void fail(const std::string& what) const { throw CssSelectorError(s_, pos_, what); }
  [[noreturn]] void fail_at(std::size_t pos, const std::string& what) const {
    throw CssSelectorError(s_, pos, what);
  }

  bool at_end() const { return pos_ >= s_.size(); }
  char peek(std::size_t ahead = 0) const { return pos_ + ahead < s_.size() ? s_[pos_ + ahead] : '\0'; }
  bool more(std::size_t ahead) const { return pos_ + ahead < s_.size(); }

  std::string found() const {
    if (at_end())
      return "the end";
    return "'" + std::string(1, peek()) + "'";
  }

  // Skips whitespace and comments; whether there was whitespace.
  bool skip_whitespace() {
    bool space = false;
    for (;;) {
      if (!at_end() && is_css_whitespace(peek())) {
        ++pos_;
        space = true;
      } else if (peek() == '/' && peek(1) == '*') {
        const std::size_t end = s_.find("*/", pos_ + 2);
        if (end == std::string_view::npos)
          fail("unterminated comment");
        pos_ = end + 2;
      } else {
        return space;
      }
    }
  }

  static bool is_name_start(char c) {
    return ascii::is_alpha(c) || c == '_' || static_cast<unsigned char>(c) >= 0x80;
  }
  static bool is_name_char(char c) { return is_name_start(c) || ascii::is_digit(c) || c == '-'; }
  bool valid_escape_at(std::size_t ahead) const {
    return peek(ahead) == '\\' && more(ahead + 1) && peek(ahead + 1) != '\n' && peek(ahead + 1) != '\r' &&
           peek(ahead + 1) != '\f';
  }
  bool starts_identifier() const {
    if (peek() == '-')
      return (more(1) && (is_name_start(peek(1)) || peek(1) == '-')) || valid_escape_at(1);
    return (!at_end() && is_name_start(peek())) || valid_escape_at(0);
  }
  bool starts_name() const { return (!at_end() && is_name_char(peek())) || valid_escape_at(0); }

  // After a backslash: a hex code point (with one optional whitespace after
  // it) or the next character as it is.
  void read_escape(std::string& out) {
    const std::size_t start = pos_;
    ++pos_;
    if (at_end())
      fail_at(start, "a backslash at the end");
    if (is_hex_digit(peek())) {
      char32_t cp = 0;
      int digits = 0;
      while (digits < 6 && !at_end() && is_hex_digit(peek())) {
        cp = cp * 16 + static_cast<char32_t>(hex_digit_value(peek()));
        ++pos_;
        ++digits;
      }
      if (peek() == '\r' && peek(1) == '\n')
        pos_ += 2;
      else if (!at_end() && is_css_whitespace(peek()))
        ++pos_;
      if (cp == 0 || (cp >= 0xD800 && cp <= 0xDFFF) || cp > 0x10FFFF)
        cp = 0xFFFD;
      append_utf8(out, cp);
      return;
    }
    out += peek();
    ++pos_;
  }

  std::string read_name() {
    std::string out;
    while (starts_name()) {
      if (peek() == '\\')
        read_escape(out);
      else
        out += s_[pos_++];
    }
    return out;
  }

  std::string read_identifier(const char* what) {
    if (!starts_identifier())
      fail("expected " + std::string(what) + ", found " + found());
    return read_name();
  }

  std::string read_string() {
    const char quote = peek();
    const std::size_t start = pos_;
    ++pos_;
    std::string out;
    for (;;) {
      if (at_end())
        fail_at(start, "unterminated string");
      const char c = peek();
      if (c == quote) {
        ++pos_;
        return out;
      }
      if (c == '\n' || c == '\r' || c == '\f')
        fail("a newline in a string");
      if (c == '\\') {
        if (peek(1) == '\n' || peek(1) == '\f') {
          pos_ += 2;  // an escaped newline continues the string
        } else if (peek(1) == '\r') {
          pos_ += peek(2) == '\n' ? 3 : 2;
        } else {
          read_escape(out);
        }
        continue;
      }
      out += c;
      ++pos_;
    }
  }

  ComplexSelector read_complex() {
    ComplexSelector cs;
    for (;;) {
      cs.compounds.push_back(read_compound(false));
      if (peek() == ':' && peek(1) == ':') {
        read_pseudo_element(cs);
        skip_whitespace();
        if (!at_end() && peek() != ',')
          fail("a pseudo-element must end its selector, found " + found());
        return cs;
      }
      const bool space = skip_whitespace();
      if (at_end() || peek() == ',')
        return cs;
      char combinator = ' ';
      if (peek() == '>' || peek() == '+' || peek() == '~') {
        combinator = peek();
        ++pos_;
        skip_whitespace();
        if (at_end() || peek() == ',')
          fail(std::string("expected a selector after '") + combinator + "'");
      } else if (!space) {
        fail("unexpected " + found());
      }
      cs.combinators.push_back(combinator);
    }
  }

  // A type or universal selector, then any #id, .class, [attr] and
  // :pseudo-classes. In a group's selector it may be empty before a
  // pseudo-element (`::text` is `*::text`).
  Compound read_compound(bool inside_not) {
    Compound c;
    bool any = false;
    if (peek() == '*') {
      ++pos_;
      any = true;
    } else if (starts_identifier()) {
      c.element = ascii::lowercase(read_name());
      any = true;
    }
    if (any && peek() == '|' && peek(1) != '=')
      fail("namespaces (ns|E) are not supported");
    for (;;) {
      const char ch = peek();
      if (at_end()) {
        break;
      } else if (ch == '#') {
        ++pos_;
        if (!starts_name())
          fail("expected an id after '#', found " + found());
        c.conditions.push_back("@id = " + xpath_string_literal(read_name()));
      } else if (ch == '.') {
        ++pos_;
        const std::string name = read_identifier("a class name after '.'");
        c.conditions.push_back("@class and contains(concat(' ', normalize-space(@class), ' '), " +
                               xpath_string_literal(" " + name + " ") + ")");
      } else if (ch == '[') {
        read_attribute(c);
      } else if (ch == ':' && peek(1) != ':') {
        read_pseudo_class(c, inside_not);
      } else {
        break;
      }
      any = true;
    }
    if (!any && !(!inside_not && peek() == ':' && peek(1) == ':'))
      fail("expected a selector, found " + found());
    return c;
  }

  void read_attribute(Compound& c) {
    ++pos_;  // '['
    skip_whitespace();
    if (peek() == '*' || peek() == '|')
      fail("namespaces in attribute selectors are not supported");
    const std::string name = ascii::lowercase(read_identifier("an attribute name"));
    if (peek() == '|' && peek(1) != '=')
      fail("namespaces in attribute selectors are not supported");
    skip_whitespace();
    const std::string attr = attribute_ref(name);
    if (peek() == ']') {
      ++pos_;
      c.conditions.push_back(attr);
      return;
    }
    std::string op;
    if (peek() == '=') {
      op = "=";
      ++pos_;
    } else if ((peek() == '~' || peek() == '|' || peek() == '^' || peek() == '$' || peek() == '*') &&
               peek(1) == '=') {
      op = std::string(1, peek()) + "=";
      pos_ += 2;
    } else {
      fail("expected an attribute operator (=, ~=, |=, ^=, $=, *=) or ']', found " + found());
    }
    skip_whitespace();
    std::string value;
    if (peek() == '"' || peek() == '\'')
      value = read_string();
    else
      value = read_identifier("an attribute value (an identifier or a quoted string)");
    skip_whitespace();
    if (peek() != ']') {
      if (starts_identifier())
        fail("attribute flags ([a=v i]) are not supported");
      fail("expected ']', found " + found());
    }
    ++pos_;
    const std::string literal = xpath_string_literal(value);
    if (op == "=") {
      c.conditions.push_back(attr + " = " + literal);
    } else if (op == "~=") {
      bool has_space = value.empty();
      for (char ch : value) has_space = has_space || is_css_whitespace(ch);
      c.conditions.push_back(has_space ? "false()"
                                       : attr + " and contains(concat(' ', normalize-space(" + attr + "), ' '), " +
                                             xpath_string_literal(" " + value + " ") + ")");
    } else if (op == "|=") {
      c.conditions.push_back(attr + " and (" + attr + " = " + literal + " or starts-with(" + attr + ", " +
                             xpath_string_literal(value + "-") + "))");
    } else if (value.empty()) {
      c.conditions.push_back("false()");  // ^=, $=, *= with "" match nothing
    } else if (op == "^=") {
      c.conditions.push_back(attr + " and starts-with(" + attr + ", " + literal + ")");
    } else if (op == "$=") {
      // XPath 1.0 has no ends-with(); string-length counts characters.
      c.conditions.push_back(attr + " and substring(" + attr + ", string-length(" + attr + ") - " +
                             std::to_string(utf8_length(value) - 1) + ") = " + literal);
    } else {
      c.conditions.push_back(attr + " and contains(" + attr + ", " + literal + ")");
    }
  }

  // The element test for the -of-type pseudo-classes.
  std::string type_test(const Compound& c, std::size_t at, const std::string& pseudo) const {
    if (c.element == "*")
      fail_at(at, "':" + pseudo + "' needs an element type (it is not supported after '*' or alone)");
    if (is_plain_xpath_name(c.element))
      return c.element;
    return "*[name() = " + xpath_string_literal(c.element) + "]";
  }

  void read_pseudo_class(Compound& c, bool inside_not) {
    const std::size_t start = pos_;
    ++pos_;  // ':'
    const std::string name = ascii::lowercase(read_identifier("a pseudo-class name after ':'"));
    if (peek() == '(') {
      ++pos_;
      if (name == "not") {
        if (inside_not)
          fail_at(start, "':not()' inside ':not()' is not supported");
        skip_whitespace();
        const Compound inner = read_compound(true);
        skip_whitespace();
        if (peek() != ')')
          fail("':not()' takes one compound selector without combinators; expected ')', found " + found());
        ++pos_;
        const std::string test = self_test(inner);
        c.conditions.push_back(test.empty() ? "false()" : "not(" + test + ")");
        return;
      }
      const bool nth = name == "nth-child" || name == "nth-last-child" || name == "nth-of-type" ||
                       name == "nth-last-of-type";
      if (!nth)
        fail_at(start, "unsupported pseudo-class ':" + name + "()'");
      const std::size_t argument_start = pos_;
      const std::size_t close = s_.find(')', pos_);
      if (close == std::string_view::npos)
        fail_at(argument_start, "expected ')' after ':" + name + "('");
      const std::string argument(s_.substr(argument_start, close - argument_start));
      pos_ = close + 1;
      const auto ab = parse_an_plus_b(argument);
      if (!ab)
        fail_at(argument_start, "invalid an+b '" + argument + "' in ':" + name + "()' (try odd, even, 3, 2n+1, -n+3)");
      const bool last = name.find("last") != std::string::npos;
      const std::string test = name.find("of-type") != std::string::npos ? type_test(c, start, name + "()") : "*";
      const std::string condition =
          nth_condition(ab->first, ab->second, last ? "following-sibling" : "preceding-sibling", test);
      if (!condition.empty())
        c.conditions.push_back(condition);
      return;
    }
    if (name == "first-child") {
      c.conditions.push_back("not(preceding-sibling::*[1])");
    } else if (name == "last-child") {
      c.conditions.push_back("not(following-sibling::*[1])");
    } else if (name == "only-child") {
      c.conditions.push_back("not(preceding-sibling::*[1]) and not(following-sibling::*[1])");
    } else if (name == "first-of-type" || name == "last-of-type" || name == "only-of-type") {
      const std::string test = type_test(c, start, name);
      const std::string before = "not(preceding-sibling::" + test + "[1])";
      const std::string after = "not(following-sibling::" + test + "[1])";
      c.conditions.push_back(name == "first-of-type"  ? before
                             : name == "last-of-type" ? after
                                                      : before + " and " + after);
    } else if (name == "root") {
      c.conditions.push_back("not(parent::*)");
    } else if (name == "empty") {
      c.conditions.push_back("not(*) and not(string-length())");
    } else {
      fail_at(start, "unsupported pseudo-class ':" + name + "'");
    }
  }

  // CSS Syntax's An+B: odd, even, an integer, or [+-]?[0-9]*n ([+-] [0-9]+)?
  static std::optional<std::pair<std::int64_t, std::int64_t>> parse_an_plus_b(const std::string& raw) {
    const std::string text = ascii::lowercase(ascii::trim_if(raw, ascii::is_html_space));
    if (text == "odd")
      return std::make_pair(std::int64_t{2}, std::int64_t{1});
    if (text == "even")
      return std::make_pair(std::int64_t{2}, std::int64_t{0});
    static const RE2 integer("([+-]?[0-9]{1,9})");
    static const RE2 series("([+-]?)([0-9]{0,9})n(?:[ \\t\\n\\r\\f]*([+-])[ \\t\\n\\r\\f]*([0-9]{1,9}))?");
    std::string sign, digits, b_sign, b_digits;
    if (RE2::FullMatch(text, integer, &digits))
      return std::make_pair(std::int64_t{0}, std::stoll(digits));
    if (!RE2::FullMatch(text, series, &sign, &digits, &b_sign, &b_digits))
      return std::nullopt;
    std::int64_t a = digits.empty() ? 1 : std::stoll(digits);
    if (sign == "-")
      a = -a;
    std::int64_t b = b_digits.empty() ? 0 : std::stoll(b_digits);
    if (b_sign == "-")
      b = -b;
    return std::make_pair(a, b);
  }

  void read_pseudo_element(ComplexSelector& cs) {
    const std::size_t start = pos_;
    pos_ += 2;  // '::'
    const std::string name = ascii::lowercase(read_identifier("a pseudo-element name after '::'"));
    if (name == "text" && peek() != '(') {
      cs.pseudo = PseudoElement::text;
      return;
    }
    if (name == "attr" && peek() == '(') {
      ++pos_;
      skip_whitespace();
      cs.attribute = ascii::lowercase(read_identifier("an attribute name in '::attr()'"));
      skip_whitespace();
      if (peek() != ')')
        fail("expected ')' after the attribute name, found " + found());
      ++pos_;
      cs.pseudo = PseudoElement::attr;
      return;
    }
    fail_at(start, "unsupported pseudo-element '::" + name + (peek() == '(' ? "()" : "") +
                       "' (supported: ::text, ::attr(name))");
  }

  std::string_view s_;
  std::size_t pos_ = 0;
};

}  // namespace

std::string css_to_xpath(std::string_view selector) {
  if (selector.find('\0') != std::string_view::npos)
    throw CssSelectorError(selector, selector.find('\0'), "a NUL character");
  const std::vector<ComplexSelector> group = SelectorReader(selector).read_group();
  if (group.size() == 1)
    return subject_path(group.front());
  bool same_pseudo = true;
  for (const auto& cs : group)
    same_pseudo = same_pseudo && cs.pseudo == group.front().pseudo && cs.attribute == group.front().attribute;
  if (!same_pseudo) {
    // Text or attribute nodes of some and elements of others: only a union
    // holds them all.
    std::string out;
    for (const auto& cs : group) out += (out.empty() ? "" : " | ") + subject_path(cs);
    return out;
  }
  // One pass over the document for the whole group: each selector becomes
  // an alternative of one predicate.
  std::string alternatives;
  for (const auto& cs : group) {
    std::string test = step("self", cs.compounds.back());
    if (cs.compounds.size() > 1)
      test += "[" + left_relation(cs, cs.compounds.size() - 1) + "]";
    alternatives += (alternatives.empty() ? "" : " or ") + test;
  }
  return "descendant-or-self::*[" + alternatives + "]" + pseudo_suffix(group.front());
}

}  // namespace actorcrawl
