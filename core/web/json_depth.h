// How deep a JSON text's arrays and objects nest, looked at before
// nlohmann sees it: its dump() (and its parser's callers walking the
// result) recurse, so a hostile `[[[[...` of a million levels from a file
// or a database would overflow the stack. Read from the bytes, strings
// skipped; not a check of the syntax, which the parser makes.
#pragma once

#include <string_view>

namespace actorcrawl {

// Whether the brackets of `text` outside its strings nest at most `limit`
// deep.
inline bool json_nests_within(std::string_view text, int limit) {
  int depth = 0;
  bool in_string = false;
  bool escaped = false;
  for (const char c : text) {
    if (in_string) {
      if (escaped)
        escaped = false;
      else if (c == '\\')
        escaped = true;
      else if (c == '"')
        in_string = false;
    } else if (c == '"') {
      in_string = true;
    } else if (c == '{' || c == '[') {
      if (++depth > limit)
        return false;
    } else if (c == '}' || c == ']') {
      --depth;
    }
  }
  return true;
}

}  // namespace actorcrawl
