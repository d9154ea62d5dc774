#include "core/web/json_spans.h"

#include <nlohmann/json.hpp>

namespace actorcrawl {

namespace {

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

std::size_t skip_space(std::string_view t, std::size_t i) {
  while (i < t.size() && is_space(t[i])) ++i;
  return i;
}

// The end of the string that starts at `i` (its opening quote).
std::size_t string_end(std::string_view t, std::size_t i) {
  for (++i; i < t.size(); ++i) {
    if (t[i] == '\\')
      ++i;
    else if (t[i] == '"')
      return i + 1;
  }
  return t.size();
}

// The end of the value that starts at `i`: a string, a balanced object or
// array (strings inside skipped), or a scalar up to its delimiter.
std::size_t value_end(std::string_view t, std::size_t i) {
  if (i >= t.size())
    return i;
  if (t[i] == '"')
    return string_end(t, i);
  if (t[i] == '{' || t[i] == '[') {
    std::size_t depth = 0;
    while (i < t.size()) {
      const char c = t[i];
      if (c == '"') {
        i = string_end(t, i);
        continue;
      }
      if (c == '{' || c == '[')
        ++depth;
      else if ((c == '}' || c == ']') && --depth == 0)
        return i + 1;
      ++i;
    }
    return i;
  }
  while (i < t.size() && t[i] != ',' && t[i] != '}' && t[i] != ']' && !is_space(t[i])) ++i;
  return i;
}

std::string_view trimmed(std::string_view t) {
  std::size_t b = skip_space(t, 0);
  std::size_t e = t.size();
  while (e > b && is_space(t[e - 1])) --e;
  return t.substr(b, e - b);
}

}  // namespace

bool for_each_json_member(std::string_view object_text,
                          const std::function<void(const std::string&, std::string_view)>& member) {
  const std::string_view t = trimmed(object_text);
  if (t.empty() || t.front() != '{')
    return false;
  std::size_t i = skip_space(t, 1);
  while (i < t.size() && t[i] == '"') {
    const std::size_t key_end = string_end(t, i);
    const auto key = nlohmann::json::parse(t.substr(i, key_end - i), nullptr, false);
    i = skip_space(t, key_end);
    if (i >= t.size() || t[i] != ':')
      return true;
    i = skip_space(t, i + 1);
    const std::size_t end = value_end(t, i);
    if (key.is_string())
      member(key.get_ref<const std::string&>(), t.substr(i, end - i));
    i = skip_space(t, end);
    if (i < t.size() && t[i] == ',')
      i = skip_space(t, i + 1);
  }
  return true;
}

bool for_each_json_element(std::string_view array_text, const std::function<void(std::string_view)>& element) {
  const std::string_view t = trimmed(array_text);
  if (t.empty() || t.front() != '[')
    return false;
  std::size_t i = skip_space(t, 1);
  while (i < t.size() && t[i] != ']') {
    const std::size_t end = value_end(t, i);
    element(t.substr(i, end - i));
    i = skip_space(t, end);
    if (i < t.size() && t[i] == ',')
      i = skip_space(t, i + 1);
  }
  return true;
}

}  // namespace actorcrawl
