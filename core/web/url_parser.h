// The WHATWG URL Standard's basic URL parser, for the schemes a crawler
// fetches (http, https): a link is resolved the way a browser resolves it
// when a person clicks it. '\' is a '/', "///host/path" and "https:host/" have
// hosts, tabs and newlines inside are removed, the host goes through
// url_host.h, and each component is percent-encoded with the standard's set
// for it. Url (url.h) applies the crawler's own normalization afterwards.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace actorcrawl {

enum class UrlError;

// A parsed http(s) URL: what the standard's URL record holds, less the
// userinfo and the fragment, which the crawler drops (url.h).
struct ParsedUrl {
  std::string scheme;                 // "http" or "https"
  std::string host;                   // serialized (url_host.h)
  std::optional<std::uint16_t> port;  // none for the scheme's default
  std::string path;                   // serialized: "/" and the segments
  std::optional<std::string> query;   // without the '?'; "" for a bare '?'
};

// Parses `input` against `base` (null: an absolute URL is required). Fails
// with `why` set: unsupported_scheme for any scheme but http(s) (mailto:,
// javascript:, ftp:, file:, ...), missing_host, malformed, empty (nothing
// but spaces and no base).
std::optional<ParsedUrl> parse_url(std::string_view input, const ParsedUrl* base, UrlError* why);

}  // namespace actorcrawl
