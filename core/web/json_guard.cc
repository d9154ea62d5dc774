#include "core/web/json_guard.h"

namespace actorcrawl {

std::string json_shape_problem(std::string_view text, const JsonShapeLimits& limits) {
  // For each open bracket: whether it is an object, and its members so far
  // (commas at its own level, plus one once it holds anything).
  struct Open {
    bool object;
    std::size_t members;
  };
  std::vector<Open> open;
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
      continue;
    }
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r')
      continue;
    if (!open.empty() && open.back().members == 0 && c != '}' && c != ']')
      open.back().members = 1;  // the first member or element has begun
    if (c == '"') {
      in_string = true;
    } else if (c == '{' || c == '[') {
      if (open.size() >= limits.max_depth)
        return "nested deeper than " + std::to_string(limits.max_depth) + " levels";
      open.push_back(Open{c == '{', 0});
    } else if (c == '}' || c == ']') {
      if (!open.empty())
        open.pop_back();
    } else if (c == ',' && !open.empty()) {
      Open& o = open.back();
      if (++o.members > limits.max_object_members && o.object)
        return "an object of more than " + std::to_string(limits.max_object_members) + " members";
    }
  }
  return "";
}

}  // namespace actorcrawl
