#include "tests/unit/trace/mermaid_sequence.h"

#include <algorithm>
#include <functional>
#include <set>
#include <string>

#include "core/web/ascii.h"

namespace actorcrawl::testing {

namespace {

using ascii::is_digit;

// Mermaid lines are indented with blanks and tabs only.
std::string_view trim(std::string_view text) {
  return ascii::trim_if(text, [](char c) { return c == ' ' || c == '\t'; });
}

bool is_id_start(char c) { return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_'; }
bool is_id_char(char c) { return is_id_start(c) || is_digit(c); }

// Consumes an identifier at the front of `text`; empty if there is none.
std::string_view take_id(std::string_view& text) {
  if (text.empty() || !is_id_start(text.front()))
    return {};
  std::size_t n = 1;
  while (n < text.size() && is_id_char(text[n]))
    ++n;
  const std::string_view id = text.substr(0, n);
  text.remove_prefix(n);
  return id;
}

bool has_control(std::string_view text) {
  return std::any_of(text.begin(), text.end(), [](char c) {
    const auto u = static_cast<unsigned char>(c);
    return (u < 0x20 && c != '\t') || u == 0x7F;
  });
}

}  // namespace

bool is_valid_mermaid_sequence(std::string_view text) {
  std::set<std::string, std::less<>> declared;
  bool header = false;
  while (!text.empty()) {
    const auto end = text.find('\n');
    std::string_view raw = text.substr(0, end);
    text = end == std::string_view::npos ? std::string_view{} : text.substr(end + 1);
    if (has_control(raw))
      return false;  // a '\r' included: the subset has none
    std::string_view line = trim(raw);
    if (line.empty())
      continue;
    if (!header) {
      if (line != "sequenceDiagram")
        return false;
      header = true;
      continue;
    }
    constexpr std::string_view kParticipant = "participant ";
    if (line.substr(0, kParticipant.size()) == kParticipant) {
      std::string_view rest = trim(line.substr(kParticipant.size()));
      const std::string_view id = take_id(rest);
      if (id.empty() || rest.empty() || rest.front() != ' ')
        return false;
      rest = trim(rest);
      if (rest.substr(0, 3) != "as ")
        return false;
      const std::string_view label = trim(rest.substr(3));
      if (label.empty() || label.find_first_of(";#:") != std::string_view::npos)
        return false;
      if (!declared.emplace(id).second)
        return false;  // declared twice
      continue;
    }
    std::string_view rest = line;
    const std::string_view from = take_id(rest);
    rest = trim(rest);
    if (rest.substr(0, 4) == "-->>")
      rest.remove_prefix(4);
    else if (rest.substr(0, 3) == "->>")
      rest.remove_prefix(3);
    else
      return false;
    rest = trim(rest);
    const std::string_view to = take_id(rest);
    rest = trim(rest);
    if (from.empty() || to.empty() || rest.empty() || rest.front() != ':')
      return false;
    if (declared.find(from) == declared.end() || declared.find(to) == declared.end())
      return false;
    const std::string_view message = trim(rest.substr(1));
    if (message.empty() || message.find_first_of(";#") != std::string_view::npos)
      return false;
  }
  return header;
}

}  // namespace actorcrawl::testing
