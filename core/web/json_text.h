// JSON written out the one way every part of the crawler writes it:
// compact (or indented), and never an exception for text that is not UTF-8
// (a page's title, a header, a client's bytes: any of it may be), whose
// invalid sequences become U+FFFD instead.
#pragma once

#include <string>
#include <string_view>

namespace actorcrawl {

// `Json` is nlohmann::json or nlohmann::ordered_json; `indent` -1 is
// compact, as dump() takes it.
template <class Json>
std::string json_text(const Json& value, int indent = -1) {
  return value.dump(indent, ' ', false, Json::error_handler_t::replace);
}

// Appends `text` as a JSON string literal, quotes included, without a JSON
// value in between: what the writers that build their lines by hand (the
// message trace, the service's paged answers) use. Invalid UTF-8 bytes
// become U+FFFD, as json_text() writes them.
void append_json_string(std::string& out, std::string_view text);

}  // namespace actorcrawl
