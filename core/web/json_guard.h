// JSON from outside (a plugin's answer, a job's body, extraction rules, a
// trace file, an item read back from a database) is looked at before
// nlohmann sees it, in one pass over its bytes, strings skipped:
//   - nesting: nlohmann's parser, dump() and every caller walking the
//     result recurse, so a hostile `[[[[...` of a million levels would
//     overflow the stack;
//   - members of one object: nlohmann's ordered_json (which keeps keys in
//     the order written) looks each new key up among the ones before it,
//     quadratic in the members of one object.
// Not a check of the syntax, which the parser makes.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace actorcrawl {

struct JsonShapeLimits {
  std::size_t max_depth = 64;
  std::size_t max_object_members = 10000;
};

// "" when `text` fits the limits; otherwise what it exceeds, for a
// message: "nested deeper than 64 levels", "an object of more than 10000
// members".
std::string json_shape_problem(std::string_view text, const JsonShapeLimits& limits = {});

// Whether the brackets of `text` outside its strings nest at most `limit`
// deep.
inline bool json_nests_within(std::string_view text, std::size_t limit) {
  JsonShapeLimits limits;
  limits.max_depth = limit;
  limits.max_object_members = static_cast<std::size_t>(-1);
  return json_shape_problem(text, limits).empty();
}

}  // namespace actorcrawl
