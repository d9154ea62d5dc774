// A normalized absolute http(s) URL, and the rules that make one.
//
// Every URL the crawler keeps passes through Url::parse or Url::resolve, so
// the seen-set, the frontier and the database all compare one canonical
// spelling. Normalization follows RFC 3986 section 6 (via Boost.URL): scheme
// and host lowercased, default port dropped, dot segments removed,
// percent-encoding normalized (unreserved characters decoded, hex digits
// uppercased), fragment dropped, an empty path written as "/".
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/web/url_parser.h"

namespace actorcrawl {

// Why a string is not a crawlable URL. Stored as text in the database, so the
// names are part of the user-visible contract.
enum class UrlError {
  none,
  empty,               // nothing but whitespace
  malformed,           // not RFC 3986 syntax, even after lenient cleanup
  unsupported_scheme,  // mailto:, javascript:, ftp:, data:, ...
  missing_host,        // http:///path
  too_long,            // longer than Url::kMaxLength
};
const char* to_string(UrlError e);

class Url {
 public:
  // URLs longer than this are refused: real pages never need them, traps do.
  static constexpr std::size_t kMaxLength = 2048;

  // Parses an absolute http(s) URL. Leading/trailing ASCII whitespace is
  // trimmed; characters that browsers tolerate but RFC 3986 forbids (spaces,
  // non-ASCII, '|', ...) are percent-encoded rather than refused.
  static std::optional<Url> parse(std::string_view raw, UrlError* why = nullptr);

  // Resolves `ref` (an href as found in a page) against this URL per RFC 3986
  // section 5, then normalizes. Fails for non-http(s) results.
  std::optional<Url> resolve(std::string_view ref, UrlError* why = nullptr) const;

  // A URL from text that str() gave (a link the Processor resolved, a
  // frontier row), without parsing it again: its parts are found by a scan.
  // Text that did not come from str() must go through parse().
  static Url from_canonical(std::string text) { return Url(std::move(text)); }

  const std::string& str() const { return text_; }
  std::string scheme() const;  // "http" or "https"
  std::string host() const;    // lowercased; IPv6 without brackets
  std::uint16_t port() const;  // the effective port (80/443 when default)
  // "host" or "host:port" when the port is not the scheme's default: the key
  // of a node in the domain graph and of a politeness clock.
  std::string host_key() const;
  std::string path() const;    // encoded path, at least "/"
  std::string query() const;   // encoded query without '?', may be empty
  bool has_query() const;

  // This URL with the named query parameters removed. A name ending in '*'
  // is a prefix ("utm_*"). The remaining parameters keep their order.
  Url without_query_params(const std::vector<std::string>& names) const;

  friend bool operator==(const Url& a, const Url& b) { return a.text_ == b.text_; }
  friend bool operator!=(const Url& a, const Url& b) { return a.text_ != b.text_; }

 private:
  friend class UrlBase;

  // Takes canonical text (from_canonical) and finds its parts once.
  explicit Url(std::string text);
  Url() = default;
  // The canonical URL of a parsed one, its parts placed as it is written
  // (parse and resolve: no scan of the text they have just written).
  static std::optional<Url> from_parsed(const ParsedUrl& u, UrlError* why);

  // Where each part lies in text_ (kMaxLength fits 16 bits). Found by one
  // parse when the Url is made: the accessors run several times per link
  // (selection, scope, traps, politeness), and parsing the text again for
  // each was the larger part of link selection's cost.
  struct Span {
    std::uint16_t begin = 0;
    std::uint16_t size = 0;
  };
  std::string part(Span s) const { return text_.substr(s.begin, s.size); }
  bool find_parts_of_canonical_text();
  void find_parts_by_parsing();

  std::string text_;
  Span scheme_, host_, host_key_, path_, query_;
  std::uint16_t port_ = 0;
  bool has_query_ = false;
};

// A URL as the base of many references, split into the parser's record
// once: a page's links all resolve against the same base, and splitting it
// again for each link (four strings copied) was a tenth of link selection.
class UrlBase {
 public:
  explicit UrlBase(const Url& base);

  // What base.resolve(ref, why) gives.
  std::optional<Url> resolve(std::string_view ref, UrlError* why = nullptr) const;

 private:
  ParsedUrl parsed_;
};

}  // namespace actorcrawl
