// JSON written out the one way every part of the crawler writes it:
// compact (or indented), and never an exception for text that is not UTF-8
// (a page's title, a header, a client's bytes: any of it may be), whose
// invalid sequences become U+FFFD instead.
#pragma once

#include <string>

namespace actorcrawl {

// `Json` is nlohmann::json or nlohmann::ordered_json; `indent` -1 is
// compact, as dump() takes it.
template <class Json>
std::string json_text(const Json& value, int indent = -1) {
  return value.dump(indent, ' ', false, Json::error_handler_t::replace);
}

}  // namespace actorcrawl
