#include "core/web/url.h"

#include <boost/url/authority_view.hpp>
#include <boost/url/ipv6_address.hpp>
#include <boost/url/params_encoded_ref.hpp>
#include <boost/url/parse.hpp>
#include <boost/url/url.hpp>
#include <boost/url/url_view.hpp>

#include <exception>
#include <utility>

#include "core/web/ascii.h"

// How the pieces fit together:
//
//  1. lenient_reference() turns whatever a page or a user wrote into a valid
//     RFC 3986 reference the way a browser would read it: trimmed, tabs and
//     newlines removed, fragment cut, '\' read as '/', userinfo dropped, and
//     every byte a component may not hold percent-encoded.
//  2. Boost.URL parses that reference and is the judge of its syntax
//     (notably of the authority: IPv4, IPv6, reg-name, port).
//  3. Reference resolution (RFC 3986 section 5.2) and the path and
//     percent-encoding normalization are done here rather than with
//     url_base::resolve()/normalize(), because Boost.URL 1.81 keeps ".."
//     segments that climb above the root ("http://a/../g", following erratum
//     4547, where browsers and section 5.4.2 give "http://a/g") and decodes
//     every character a component allows, not only the unreserved ones, so
//     "?q=a%26b" would become "?q=a&b", a different query.
//
// Internationalized host names are not converted to punycode: a host with a
// non-ASCII byte (raw or percent-encoded) is refused as malformed.

namespace actorcrawl {

namespace {

using ascii::hex_value;
using ascii::iequals;
using ascii::is_alpha;
using ascii::is_digit;
using ascii::is_hex;
using ascii::lowercase;
using ascii::to_lower;
using ascii::to_upper;

namespace urls = boost::urls;





bool is_unreserved(char c) {
  return is_alpha(c) || is_digit(c) || c == '-' || c == '.' || c == '_' || c == '~';
}

bool is_sub_delim(char c) {
  switch (c) {
    case '!': case '$': case '&': case '\'': case '(': case ')':
    case '*': case '+': case ',': case ';': case '=':
      return true;
    default:
      return false;
  }
}

bool allowed_in_path(char c) {
  return is_unreserved(c) || is_sub_delim(c) || c == ':' || c == '@' || c == '/';
}

bool allowed_in_query(char c) { return allowed_in_path(c) || c == '?'; }

bool allowed_in_reg_name(char c) { return is_unreserved(c) || is_sub_delim(c); }

// The C0 controls and space: what browsers trim from both ends of a URL.
bool is_trimmed(char c) { return static_cast<unsigned char>(c) <= 0x20; }

bool is_valid_scheme(std::string_view s) {
  if (s.empty() || !is_alpha(s[0])) return false;
  for (char c : s) {
    if (!is_alpha(c) && !is_digit(c) && c != '+' && c != '-' && c != '.') return false;
  }
  return true;
}

bool is_http_scheme(std::string_view s) {
  const std::string lower = lowercase(s);
  return lower == "http" || lower == "https";
}

void fail(UrlError* why, UrlError e) {
  if (why != nullptr) *why = e;
}

// Tabs and newlines anywhere in an href come from wrapped HTML attributes and
// are removed by browsers, as are leading and trailing controls and spaces.
std::string strip_whitespace(std::string_view raw) {
  std::size_t begin = 0;
  std::size_t end = raw.size();
  while (begin < end && is_trimmed(raw[begin])) ++begin;
  while (end > begin && is_trimmed(raw[end - 1])) --end;
  std::string out;
  out.reserve(end - begin);
  for (std::size_t i = begin; i < end; ++i) {
    const char c = raw[i];
    if (c != '\t' && c != '\n' && c != '\r') out += c;
  }
  return out;
}

// One pass that both makes a component valid and puts its percent-encoding in
// canonical form: triplets of unreserved characters are decoded, other
// triplets get uppercase hex, a '%' that starts no triplet and every byte the
// component may not hold (space, non-ASCII, '|', ...) are encoded.
std::string canonical_component(std::string_view in, bool (*allowed)(char)) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  out.reserve(in.size());
  for (std::size_t i = 0; i < in.size(); ++i) {
    const char c = in[i];
    if (c == '%' && i + 2 < in.size() && is_hex(in[i + 1]) && is_hex(in[i + 2])) {
      const char decoded = static_cast<char>(hex_value(in[i + 1]) * 16 + hex_value(in[i + 2]));
      if (is_unreserved(decoded)) {
        out += decoded;
      } else {
        out += '%';
        out += to_upper(in[i + 1]);
        out += to_upper(in[i + 2]);
      }
      i += 2;
    } else if (allowed(c)) {
      out += c;
    } else {
      const auto byte = static_cast<unsigned char>(c);
      out += '%';
      out += kHex[byte >> 4];
      out += kHex[byte & 0xF];
    }
  }
  return out;
}

// The "lenient" step: the cleaned-up reference text plus what had to be
// learned about it lexically.
struct LenientReference {
  std::string text;
  bool empty = false;  // nothing but whitespace
};

// Returns the authority without a "user:pass@" prefix. The last '@' ends the
// userinfo, as in browsers, so an unencoded '@' in a password is tolerated.
std::string_view without_userinfo(std::string_view authority) {
  const std::size_t at = authority.rfind('@');
  return at == std::string_view::npos ? authority : authority.substr(at + 1);
}

// Rewrites `raw` into a reference that Boost.URL can parse, or fails with
// unsupported_scheme. The split into scheme, authority, path and query is the
// lexical one of RFC 3986 appendix B; it only decides which characters each
// part may hold, the parse that follows still validates everything.
// `base_scheme` is the scheme of the URL the reference is resolved against,
// empty when there is none.
std::optional<LenientReference> lenient_reference(std::string_view raw,
                                                  std::string_view base_scheme, UrlError* why) {
  std::string s = strip_whitespace(raw);
  LenientReference ref;
  ref.empty = s.empty();
  // The fragment is never kept, and '#' can start nothing else.
  const std::size_t hash = s.find('#');
  if (hash != std::string::npos) s.resize(hash);

  std::string_view rest = s;
  std::string_view scheme;
  const std::size_t colon = rest.find_first_of(":/?");
  if (colon != std::string_view::npos && rest[colon] == ':' &&
      is_valid_scheme(rest.substr(0, colon))) {
    scheme = rest.substr(0, colon);
    rest.remove_prefix(colon + 1);
  }
  if (!scheme.empty() && !is_http_scheme(scheme)) {
    fail(why, UrlError::unsupported_scheme);
    return std::nullopt;
  }

  // For http(s) browsers read '\' as '/' everywhere before the query.
  std::string body(rest);
  const std::size_t query_start = body.find('?');
  for (std::size_t i = 0; i < body.size() && i < query_start; ++i) {
    if (body[i] == '\\') body[i] = '/';
  }
  rest = body;

  const bool has_authority = rest.substr(0, 2) == "//";
  // "http:g" against an http base is the relative "g": the non-strict
  // reading of RFC 3986 section 5.2.2, and what browsers do.
  if (!has_authority && !base_scheme.empty() && lowercase(scheme) == base_scheme) scheme = {};

  if (!scheme.empty()) {
    ref.text.append(scheme);
    ref.text += ':';
  }
  if (has_authority) {
    rest.remove_prefix(2);
    const std::size_t end = rest.find_first_of("/?");
    ref.text += "//";
    ref.text.append(without_userinfo(rest.substr(0, end)));
    rest.remove_prefix(end == std::string_view::npos ? rest.size() : end);
  }

  const std::size_t q = rest.find('?');
  std::string path = canonical_component(rest.substr(0, q), allowed_in_path);
  // "a:b" whose "a" is no scheme (say "1a:b") is a relative path to a
  // browser, but a ':' in the first segment is only valid after "./".
  if (scheme.empty() && !has_authority && !path.empty() && path[0] != '/') {
    const std::size_t first_colon = path.find(':');
    if (first_colon != std::string::npos && first_colon < path.find('/')) path.insert(0, "./");
  }
  ref.text += path;
  if (q != std::string_view::npos) {
    ref.text += '?';
    ref.text += canonical_component(rest.substr(q + 1), allowed_in_query);
  }
  return ref;
}

// RFC 3986 section 5.2.4 on an absolute path, with ".." at the root
// discarded as section 5.4.2 and browsers do.
std::string remove_dot_segments(std::string_view path) {
  std::vector<std::string_view> kept;
  bool trailing_slash = false;
  std::size_t pos = path.empty() || path[0] != '/' ? 0 : 1;
  while (pos <= path.size()) {
    std::size_t end = path.find('/', pos);
    if (end == std::string_view::npos) end = path.size();
    const std::string_view segment = path.substr(pos, end - pos);
    const bool last = end == path.size();
    if (segment == "." || segment == "..") {
      if (segment == ".." && !kept.empty()) kept.pop_back();
      // "a/." and "a/.." name a directory: the result ends with '/'.
      trailing_slash = last;
    } else {
      kept.push_back(segment);
      trailing_slash = false;
    }
    pos = end + 1;
  }
  std::string out;
  for (const std::string_view segment : kept) {
    out += '/';
    out.append(segment);
  }
  if (trailing_slash || out.empty()) out += '/';
  return out;
}

// RFC 3986 section 5.2.3.
std::string merge_paths(std::string_view base_path, std::string_view ref_path) {
  const std::size_t slash = base_path.rfind('/');
  std::string out(slash == std::string_view::npos ? std::string_view("/")
                                                  : base_path.substr(0, slash + 1));
  out.append(ref_path);
  return out;
}

// The components of a resolved reference, before normalization. The
// authority views into a buffer that the caller keeps alive.
struct Target {
  std::string scheme;
  std::optional<urls::authority_view> authority;
  std::string path;
  std::optional<std::string> query;
};

std::optional<std::string> query_of(const urls::url_view& u) {
  if (!u.has_query()) return std::nullopt;
  return std::string(u.encoded_query());
}

std::optional<urls::authority_view> authority_of(const urls::url_view& u) {
  if (!u.has_authority()) return std::nullopt;
  return u.authority();
}

Target target_of_absolute(const urls::url_view& ref) {
  return Target{std::string(ref.scheme()), authority_of(ref), std::string(ref.encoded_path()),
                query_of(ref)};
}

// RFC 3986 section 5.2.2 for a reference without a scheme.
Target target_of_relative(const urls::url_view& base, const urls::url_view& ref) {
  Target t{std::string(base.scheme()), authority_of(base), "", std::nullopt};
  const std::string_view ref_path = ref.encoded_path();
  if (ref.has_authority()) {
    t.authority = ref.authority();
    t.path = std::string(ref_path);
    t.query = query_of(ref);
  } else if (ref_path.empty()) {
    t.path = std::string(base.encoded_path());
    t.query = ref.has_query() ? query_of(ref) : query_of(base);
  } else if (ref_path[0] == '/') {
    t.path = std::string(ref_path);
    t.query = query_of(ref);
  } else {
    t.path = merge_paths(base.encoded_path(), ref_path);
    t.query = query_of(ref);
  }
  return t;
}

// The host as it appears in the canonical text, or nothing (with `why` set).
std::optional<std::string> canonical_host(const urls::authority_view& a, UrlError* why) {
  switch (a.host_type()) {
    case urls::host_type::ipv4:
      return std::string(a.encoded_host());
    case urls::host_type::ipv6:
      return "[" + a.host_ipv6_address().to_string() + "]";
    case urls::host_type::name: {
      const std::string host = lowercase(canonical_component(a.encoded_host(), allowed_in_reg_name));
      if (host.empty()) {
        fail(why, UrlError::missing_host);
        return std::nullopt;
      }
      // What stays encoded is non-ASCII (an IDN) or a byte no DNS name holds.
      if (host.find('%') != std::string::npos) {
        fail(why, UrlError::malformed);
        return std::nullopt;
      }
      // A decoded host must parse when written plainly, or the canonical
      // text would not parse again: "%31.2.3.4x" decodes to "1.2.3.4x", which
      // Boost.URL 1.81 refuses (it reads an IPv4 address, then fails on the
      // rest). Such a host is as malformed as its plain form.
      if (a.encoded_host().find('%') != std::string_view::npos) {
        if (!urls::parse_authority(host)) {
          fail(why, UrlError::malformed);
          return std::nullopt;
        }
      }
      return host;
    }
    case urls::host_type::none:
      fail(why, UrlError::missing_host);
      return std::nullopt;
    default:  // ipvfuture: nothing can connect to it
      fail(why, UrlError::malformed);
      return std::nullopt;
  }
}

std::uint16_t default_port(std::string_view scheme) { return scheme == "https" ? 443 : 80; }

// The ":port" suffix of the canonical text: empty for no port or the default
// one, nothing (malformed) for a port no socket can use.
std::optional<std::string> canonical_port_suffix(const urls::authority_view& a,
                                                 std::string_view scheme) {
  const std::string_view digits = a.port();
  if (!a.has_port() || digits.empty()) return std::string();
  unsigned long value = 0;
  for (const char c : digits) {
    value = value * 10 + static_cast<unsigned long>(c - '0');
    if (value > 65535) return std::nullopt;
  }
  if (value == 0) return std::nullopt;
  if (value == default_port(scheme)) return std::string();
  return ":" + std::to_string(value);
}

// Builds the canonical text of a resolved target. Its path and query are
// already valid and percent-normalized (see lenient_reference).
std::optional<std::string> canonical_text(const Target& t, UrlError* why) {
  const std::string scheme = lowercase(t.scheme);
  if (!is_http_scheme(scheme)) {
    fail(why, UrlError::unsupported_scheme);
    return std::nullopt;
  }
  if (!t.authority) {
    fail(why, UrlError::missing_host);
    return std::nullopt;
  }
  // Boost.URL 1.81 ends a port at its first non-digit and takes the rest
  // for the path ("h:8o/" -> port "8", path "o/"); an authority must be
  // followed by an absolute path or nothing.
  if (!t.path.empty() && t.path[0] != '/') {
    fail(why, UrlError::malformed);
    return std::nullopt;
  }
  const std::optional<std::string> host = canonical_host(*t.authority, why);
  if (!host) return std::nullopt;
  const std::optional<std::string> port = canonical_port_suffix(*t.authority, scheme);
  if (!port) {
    fail(why, UrlError::malformed);
    return std::nullopt;
  }
  std::string text = scheme + "://" + *host + *port + remove_dot_segments(t.path);
  if (t.query && !t.query->empty()) text += "?" + *t.query;
  if (text.size() > Url::kMaxLength) {
    fail(why, UrlError::too_long);
    return std::nullopt;
  }
  return text;
}

std::optional<urls::url_view> parse_reference(const std::string& text, UrlError* why) {
  auto parsed = urls::parse_uri_reference(text);
  if (!parsed) {
    fail(why, UrlError::malformed);
    return std::nullopt;
  }
  return *parsed;
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
  fail(why, UrlError::none);
  // Boost.URL signals some misuse by throwing; fuzzed input must never escape
  // as an exception.
  try {
    const std::optional<LenientReference> ref = lenient_reference(raw, {}, why);
    if (!ref) return std::nullopt;
    if (ref->empty) {
      fail(why, UrlError::empty);
      return std::nullopt;
    }
    const std::optional<urls::url_view> view = parse_reference(ref->text, why);
    if (!view) return std::nullopt;
    if (!view->has_scheme()) {
      fail(why, UrlError::malformed);
      return std::nullopt;
    }
    std::optional<std::string> text = canonical_text(target_of_absolute(*view), why);
    if (!text) return std::nullopt;
    return Url(std::move(*text));
  } catch (const std::exception&) {
    fail(why, UrlError::malformed);
    return std::nullopt;
  }
}

std::optional<Url> Url::resolve(std::string_view ref_raw, UrlError* why) const {
  fail(why, UrlError::none);
  try {
    const urls::url_view base = view_of(text_);
    const std::optional<LenientReference> ref = lenient_reference(ref_raw, base.scheme(), why);
    if (!ref) return std::nullopt;
    const std::optional<urls::url_view> view = parse_reference(ref->text, why);
    if (!view) return std::nullopt;
    const Target target =
        view->has_scheme() ? target_of_absolute(*view) : target_of_relative(base, *view);
    std::optional<std::string> text = canonical_text(target, why);
    if (!text) return std::nullopt;
    return Url(std::move(*text));
  } catch (const std::exception&) {
    fail(why, UrlError::malformed);
    return std::nullopt;
  }
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
  urls::url u(text_);
  auto params = u.encoded_params();
  for (auto it = params.begin(); it != params.end();) {
    const std::string key = (*it).key.decode();
    it = matches_name(key, names) ? params.erase(it) : std::next(it);
  }
  if (u.encoded_query().empty()) u.remove_query();
  return Url(std::string(u.buffer()));
}

}  // namespace actorcrawl
