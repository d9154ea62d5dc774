#include "service/http_request.h"

#include <algorithm>

#include "core/encoding/percent_encoding.h"
#include "core/web/ascii.h"

namespace actorcrawl {

std::size_t HttpRequest::header_count(std::string_view name) const {
  return static_cast<std::size_t>(
    std::count_if(headers.begin(), headers.end(), [&](const auto& h) { return ascii::iequals(h.first, name); }));
}

std::string HttpRequest::header(std::string_view name) const {
  for (const auto& [field, value] : headers)
    if (ascii::iequals(field, name))
      return value;
  return {};
}

std::optional<std::string> HttpRequest::param(std::string_view name) const {
  for (const auto& [key, value] : params)
    if (key == name)
      return value;
  return std::nullopt;
}

bool HttpRequest::closes() const {
  // Connection is a list of tokens (RFC 9110 section 7.6.1), in any case,
  // over one field or several.
  bool close = false, keep_alive = false;
  for (const auto& [field, value] : headers) {
    if (!ascii::iequals(field, "Connection"))
      continue;
    std::string_view rest = value;
    while (!rest.empty()) {
      const auto comma = rest.find(',');
      const auto token = ascii::trim(rest.substr(0, comma));
      close = close || ascii::iequals(token, "close");
      keep_alive = keep_alive || ascii::iequals(token, "keep-alive");
      rest = comma == std::string_view::npos ? std::string_view{} : rest.substr(comma + 1);
    }
  }
  return close || (version == "HTTP/1.0" && !keep_alive);
}

namespace {

std::string form_decoded(std::string_view text) {
  std::string spaced{text};
  std::replace(spaced.begin(), spaced.end(), '+', ' ');
  return percent_decode(spaced);
}

}  // namespace

std::vector<std::pair<std::string, std::string>> parse_query(std::string_view query) {
  std::vector<std::pair<std::string, std::string>> out;
  while (!query.empty()) {
    const auto amp = query.find('&');
    const auto pair = query.substr(0, amp);
    query = amp == std::string_view::npos ? std::string_view{} : query.substr(amp + 1);
    if (pair.empty())
      continue;
    const auto equals = pair.find('=');
    out.emplace_back(form_decoded(pair.substr(0, equals)),
                     equals == std::string_view::npos ? std::string{} : form_decoded(pair.substr(equals + 1)));
  }
  return out;
}

std::string query_quoted(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    if (is_unreserved(c))
      out += c;
    else
      append_percent_encoded(out, static_cast<unsigned char>(c));
  }
  return out;
}

}  // namespace actorcrawl
