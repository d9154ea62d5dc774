// The members of a JSON object and the elements of a JSON array as spans
// of its text, found without building the document: for answers that may
// hold millions of elements of which a few are kept (a plugin's items and
// links), and for values to be stored exactly as they were written. One
// pass, no recursion. Only for text nlohmann::json::accept() has accepted
// (and json_guard.h has bounded): it does not check the syntax.
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <string_view>

namespace actorcrawl {

// Calls `member(key, value)` for each member of the object `object_text`
// (whitespace around it allowed), in order: `key` decoded (escapes
// resolved), `value` the member's value as written. False when the text is
// no object.
bool for_each_json_member(std::string_view object_text,
                          const std::function<void(const std::string& key, std::string_view value)>& member);

// Calls `element(value)` for each element of the array `array_text`, in
// order, each as written (no surrounding whitespace). False when the text
// is no array.
bool for_each_json_element(std::string_view array_text, const std::function<void(std::string_view value)>& element);

}  // namespace actorcrawl
