#include "core/web/url.h"

#include <boost/url/authority_view.hpp>
#include <boost/url/ipv6_address.hpp>
#include <boost/url/params_encoded_ref.hpp>
#include <boost/url/parse.hpp>
#include <boost/url/url.hpp>
#include <boost/url/url_view.hpp>

#include <algorithm>
#include <array>
#include <exception>
#include <utility>

#include "core/encoding/percent_encoding.h"
#include "core/web/ascii.h"
#include "core/web/url_parser.h"

// How the pieces fit together:
//
//  1. parse_url() (url_parser.h) parses a URL, or resolves a reference
//     against a base, by the WHATWG URL Standard's basic URL parser, as a
//     browser does; the host by url_host.h (UTS #46, IPv4 numbers, IPv6).
//  2. canonical_text() then applies the crawler's own normalization for
//     dedup: userinfo and fragment are gone already, the default port too;
//     an empty query is dropped; percent-encoding is put in one form
//     (triplets of unreserved characters decoded, other hex uppercased) and
//     the few characters the standard leaves raw but RFC 3986 forbids ('|',
//     '^', '[', ']', '\' in a query, a '%' that starts no triplet, ...) are
//     encoded, so every stored URL is also a valid RFC 3986 URI for the tools
//     that read the database. docs/politeness.md lists these differences.
//  3. Boost.URL only edits a query's parameters (without_query_params) and
//     finds the parts of a text that is not in canonical form.

namespace actorcrawl {

namespace {

using ascii::iequals;
using ascii::is_alpha;
using ascii::is_digit;
using ascii::lowercase;
using ascii::to_lower;

namespace urls = boost::urls;

constexpr bool is_sub_delim(char c) {
  switch (c) {
    case '!': case '$': case '&': case '\'': case '(': case ')':
    case '*': case '+': case ',': case ';': case '=':
      return true;
    default:
      return false;
  }
}

// What a canonical path keeps raw: RFC 3986's pchar and '/'; a query also
// '?'. Tables, since append_canonical_percent_encoding asks for every byte
// of every link's path and query, through a function pointer.
constexpr bool raw_in_path(char c) {
  return is_unreserved(c) || is_sub_delim(c) || c == ':' || c == '@' || c == '/';
}

template <bool (*Raw)(char)>
constexpr std::array<bool, 256> byte_table() {
  std::array<bool, 256> table{};
  for (int b = 0; b < 256; ++b)
    table[static_cast<std::size_t>(b)] = Raw(static_cast<char>(b));
  return table;
}

constexpr bool raw_in_query(char c) { return raw_in_path(c) || c == '?'; }
constexpr std::array<bool, 256> kRawInPath = byte_table<raw_in_path>();
constexpr std::array<bool, 256> kRawInQuery = byte_table<raw_in_query>();

bool allowed_in_path(char c) { return kRawInPath[static_cast<unsigned char>(c)]; }
bool allowed_in_query(char c) { return kRawInQuery[static_cast<unsigned char>(c)]; }

std::uint16_t default_port(std::string_view scheme) { return scheme == "https" ? 443 : 80; }

void fail(UrlError* why, UrlError e) {
  if (why != nullptr) *why = e;
}

// The crawler's canonical text of a parsed URL (step 2 above).
std::optional<std::string> canonical_text(const ParsedUrl& u, UrlError* why) {
  // Port 0 is a URL the standard accepts, but no server listens there: a
  // crawler refuses it rather than fail to connect, again and again.
  if (u.port && *u.port == 0) {
    fail(why, UrlError::malformed);
    return std::nullopt;
  }
  // The standard lets a host hold '"', '`', '{' and '}', which no DNS name
  // and no RFC 3986 host can: refused, so that every stored URL is a URI.
  // (A loop, not find_first_of: that calls memchr once a host byte, a
  // tenth of the cost of resolving a link.)
  const auto not_in_uri_host = [](char c) { return c == '"' || c == '`' || c == '{' || c == '}'; };
  if (std::any_of(u.host.begin(), u.host.end(), not_in_uri_host)) {
    fail(why, UrlError::malformed);
    return std::nullopt;
  }
  std::string text;
  // Room for the usual case, where no byte is percent-encoded anew.
  text.reserve(u.scheme.size() + 3 + u.host.size() + 6 + u.path.size() + (u.query ? u.query->size() + 1 : 0));
  text += u.scheme;
  text += "://";
  text += u.host;
  if (u.port) {
    text += ':';
    text += std::to_string(*u.port);
  }
  append_canonical_percent_encoding(text, u.path, allowed_in_path);
  if (u.query && !u.query->empty()) {
    text += '?';
    append_canonical_percent_encoding(text, *u.query, allowed_in_query);
  }
  if (text.size() > Url::kMaxLength) {
    fail(why, UrlError::too_long);
    return std::nullopt;
  }
  return text;
}

// text_ is always canonical, so parsing it again cannot fail; an empty view
// keeps the accessors total anyway.
urls::url_view view_of(const std::string& text) {
  auto parsed = urls::parse_uri(text);
  return parsed ? *parsed : urls::url_view();
}

}  // namespace

const char* to_string(UrlError e) {
  switch (e) {
    case UrlError::none: return "none";
    case UrlError::empty: return "empty";
    case UrlError::malformed: return "malformed";
    case UrlError::unsupported_scheme: return "unsupported_scheme";
    case UrlError::missing_host: return "missing_host";
    case UrlError::too_long: return "too_long";
  }
  return "malformed";
}

std::optional<Url> Url::parse(std::string_view raw, UrlError* why) {
  const std::optional<ParsedUrl> parsed = parse_url(raw, nullptr, why);
  if (!parsed) return std::nullopt;
  return from_parsed(*parsed, why);
}

// canonical_text writes "scheme://host[:port]path[?query]": each part lies
// where it was written. (find_parts_of_canonical_text finds the same by a
// scan, for text from elsewhere; a test holds the two to each other.)
std::optional<Url> Url::from_parsed(const ParsedUrl& u, UrlError* why) {
  std::optional<std::string> text = canonical_text(u, why);
  if (!text) return std::nullopt;
  const auto span = [](std::size_t begin, std::size_t end) {
    return Span{static_cast<std::uint16_t>(begin), static_cast<std::uint16_t>(end - begin)};
  };
  Url url;
  url.text_ = std::move(*text);
  const std::size_t scheme_end = u.scheme.size();
  const std::size_t authority = scheme_end + 3;
  const std::size_t host_end = authority + u.host.size();
  const bool bracketed = !u.host.empty() && u.host.front() == '[';
  const std::size_t path_begin = u.port ? url.text_.find('/', host_end) : host_end;
  const std::size_t question = url.text_.find('?', path_begin);
  url.scheme_ = span(0, scheme_end);
  url.host_ = bracketed ? span(authority + 1, host_end - 1) : span(authority, host_end);
  url.host_key_ = span(authority, path_begin);
  url.path_ = span(path_begin, question == std::string::npos ? url.text_.size() : question);
  url.has_query_ = question != std::string::npos;
  url.query_ = url.has_query_ ? span(question + 1, url.text_.size()) : Span{};
  url.port_ = u.port ? *u.port : default_port(u.scheme);
  return url;
}

std::optional<Url> Url::resolve(std::string_view ref, UrlError* why) const { return UrlBase(*this).resolve(ref, why); }

UrlBase::UrlBase(const Url& base) {
  parsed_.scheme = base.scheme();
  const std::uint16_t port = base.port();
  parsed_.port = port == default_port(parsed_.scheme) ? std::nullopt : std::optional<std::uint16_t>{port};
  parsed_.host = base.host_key();
  if (parsed_.port) parsed_.host.resize(parsed_.host.size() - 1 - std::to_string(*parsed_.port).size());
  parsed_.path = base.path();
  if (base.has_query()) parsed_.query = base.query();
}

std::optional<Url> UrlBase::resolve(std::string_view ref, UrlError* why) const {
  const std::optional<ParsedUrl> parsed = parse_url(ref, &parsed_, why);
  if (!parsed) return std::nullopt;
  return Url::from_parsed(*parsed, why);
}

Url::Url(std::string text) : text_(std::move(text)) {
  if (!find_parts_of_canonical_text())
    find_parts_by_parsing();
}

// Canonical text is "scheme://host[:port]/path[?query]" with a bracketed
// IPv6 host: its parts are found by a scan, ten times cheaper than a parse.
// Anything else (userinfo, a fragment) falls back to Boost.URL.
bool Url::find_parts_of_canonical_text() {
  const std::string_view t = text_;
  const auto span = [](std::size_t begin, std::size_t end) {
    return Span{static_cast<std::uint16_t>(begin), static_cast<std::uint16_t>(end - begin)};
  };
  const std::size_t scheme_end = t.find("://");
  if (scheme_end == std::string_view::npos || t.size() > kMaxLength)
    return false;
  const std::size_t authority = scheme_end + 3;
  const std::size_t path_begin = t.find('/', authority);
  if (path_begin == std::string_view::npos || t.find('#') != std::string_view::npos)
    return false;
  const std::string_view auth = t.substr(authority, path_begin - authority);
  if (auth.empty() || auth.find('@') != std::string_view::npos)
    return false;
  std::size_t host_begin = authority, host_end;
  std::size_t port_at = std::string_view::npos;  // index of ':' before the port
  if (auth.front() == '[') {
    const std::size_t close = t.find(']', authority);
    if (close == std::string_view::npos || close >= path_begin)
      return false;
    host_begin = authority + 1;
    host_end = close;
    if (close + 1 < path_begin) {
      if (t[close + 1] != ':')
        return false;
      port_at = close + 1;
    }
  } else {
    const std::size_t colon = auth.find(':');
    host_end = colon == std::string_view::npos ? path_begin : authority + colon;
    if (colon != std::string_view::npos)
      port_at = authority + colon;
  }
  std::uint32_t port = 0;
  if (port_at != std::string_view::npos) {
    if (port_at + 1 == path_begin || path_begin - port_at > 6)
      return false;
    for (std::size_t i = port_at + 1; i < path_begin; ++i) {
      if (t[i] < '0' || t[i] > '9')
        return false;
      port = port * 10 + static_cast<std::uint32_t>(t[i] - '0');
    }
    if (port > 65535)
      return false;
  }
  const std::size_t question = t.find('?', path_begin);
  scheme_ = span(0, scheme_end);
  host_ = span(host_begin, host_end);
  host_key_ = span(authority, path_begin);
  path_ = span(path_begin, question == std::string_view::npos ? t.size() : question);
  has_query_ = question != std::string_view::npos;
  query_ = has_query_ ? span(question + 1, t.size()) : Span{};
  port_ = port_at != std::string_view::npos ? static_cast<std::uint16_t>(port)
                                            : default_port(t.substr(0, scheme_end));
  return true;
}

void Url::find_parts_by_parsing() {
  const urls::url_view v = view_of(text_);
  const char* const base = text_.data();
  auto span_of = [base](std::string_view s) {
    return Span{static_cast<std::uint16_t>(s.data() == nullptr ? 0 : s.data() - base),
                static_cast<std::uint16_t>(s.size())};
  };
  scheme_ = span_of(v.scheme());
  host_ = span_of(v.encoded_host_address());
  host_key_ = span_of(v.encoded_host_and_port());
  path_ = span_of(v.encoded_path());
  query_ = span_of(v.encoded_query());
  has_query_ = v.has_query();
  port_ = v.has_port() ? v.port_number() : default_port(v.scheme());
}

std::string Url::scheme() const { return part(scheme_); }

std::string Url::host() const {
  return part(host_);
}

std::uint16_t Url::port() const { return port_; }

std::string Url::host_key() const {
  return part(host_key_);
}

std::string Url::path() const { return part(path_); }

std::string Url::query() const { return part(query_); }

bool Url::has_query() const { return has_query_; }

namespace {

bool matches_name(std::string_view key, const std::vector<std::string>& names) {
  for (const std::string& name : names) {
    if (!name.empty() && name.back() == '*') {
      const std::string_view prefix(name.data(), name.size() - 1);
      if (key.substr(0, prefix.size()) == prefix) return true;
    } else if (key == name) {
      return true;
    }
  }
  return false;
}

}  // namespace

Url Url::without_query_params(const std::vector<std::string>& names) const {
  if (!has_query() || names.empty()) return *this;
  // Canonical text always parses; a URL that does not is left as it is
  // rather than let Boost.URL's exception out.
  auto parsed = urls::parse_uri(text_);
  if (!parsed) return *this;
  urls::url u(*parsed);
  auto params = u.encoded_params();
  for (auto it = params.begin(); it != params.end();) {
    const std::string key = (*it).key.decode();
    it = matches_name(key, names) ? params.erase(it) : std::next(it);
  }
  if (u.encoded_query().empty()) u.remove_query();
  return Url(std::string(u.buffer()));
}

}  // namespace actorcrawl
