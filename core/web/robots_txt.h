// robots.txt as RFC 9309 (the Robots Exclusion Protocol) defines it: which
// group of rules applies to this crawler, and whether a path may be fetched.
//
// Parsing is done once per host; the result is a small immutable value that
// answers allowed() for every URL of that host. Everything here is plain C++
// so it can be unit-tested and fuzzed without an actor system.
//
// Decisions the RFC leaves open, made here:
//  - A user-agent line matches when the run of [A-Za-z_-] that starts its
//    value equals our product token, ignoring case ("ActorCrawl/1.0" matches
//    "actorcrawl"). "*" is the fallback group.
//  - A group's members are allow, disallow and crawl-delay lines; a
//    user-agent line after any member starts a new group. Sitemap and
//    unknown lines neither belong to a group nor end one.
//  - A pattern is normalized the same way as the path it is compared with:
//    percent-encoded unreserved characters are decoded ("%7e" is "~"), other
//    triplets keep their encoding with uppercase hex ("%2f" is "%2F", which
//    stays distinct from "/"), and non-ASCII, control and other bytes that a
//    URI may not hold raw are percent-encoded (RFC 9309 section 2.2.2).
//    '*' is a wildcard and a final '$' anchors the end; to match those
//    characters literally a pattern writes "%2A" and "%24" (section 2.2.3),
//    which also match a raw '*' or '$' in the path.
//  - The specificity of a rule is the length of its normalized pattern,
//    wildcards included.
//  - Several matched groups: rules are combined, the largest crawl-delay
//    wins (the politest reading).
//
// Limits that keep a hostile file cheap (each is a constant below):
//  - only the first kMaxBodyBytes of the body are parsed; a line cut by that
//    limit is dropped rather than read as a shorter, different rule;
//  - lines longer than kMaxLineBytes are ignored;
//  - at most kMaxRules rules are kept for this crawler and as many for "*";
//  - at most kMaxSitemaps sitemap URLs are kept;
//  - matching costs O(path + pattern) per rule whatever the wildcards, so a
//    pattern like "/*a*a*a*...$" cannot blow up.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace actorcrawl {

// The product token a user-agent string names, the part robots.txt groups
// are matched against: the leading run of [A-Za-z_-] after any leading
// whitespace, so "actorcrawl/0.1 (+https://example.org)" gives "actorcrawl".
// Empty when the string starts with anything else; then only "*" groups can
// apply.
std::string product_token_of(std::string_view user_agent);

// The rules of one host's robots.txt that apply to one crawler.
class RobotsRules {
 public:
  // Parsed bytes of a robots.txt body; RFC 9309 section 2.5 lets a crawler
  // stop at 500 KiB.
  static constexpr std::size_t kMaxBodyBytes = 512000;
  // Redirects followed to fetch robots.txt: RFC 9309 section 2.3.1.2 asks
  // for at least five.
  static constexpr int kMaxRedirects = 5;
  // Longer lines are ignored: no real rule needs them and they would only
  // make matching more expensive.
  static constexpr std::size_t kMaxLineBytes = 8192;
  // Rules kept per kind of group (ours, and "*"); the rest are ignored.
  static constexpr std::size_t kMaxRules = 10000;
  // Sitemap URLs kept; the rest are ignored.
  static constexpr std::size_t kMaxSitemaps = 1000;
  // Crawl-delays above one day are read as one day: such a value cannot be
  // meant literally, and it keeps the conversion to milliseconds in range.
  static constexpr std::int64_t kMaxCrawlDelayMs = 86'400'000;

  // Where the rules came from.
  enum class Source {
    parsed,        // a robots.txt body was parsed (it may hold no rules)
    allow_all,     // no robots.txt applies (4xx, RFC 9309 "unavailable")
    disallow_all,  // robots.txt could not be read (5xx, network error)
  };

  // Every path is allowed.
  static RobotsRules allow_all();
  // Every path but "/robots.txt" is disallowed.
  static RobotsRules disallow_all();

  // Parses a robots.txt body and keeps the group(s) that apply to
  // `product_token` (see product_token_of), or the "*" group(s) when none
  // names it. No group applying means no restrictions. Never fails: what
  // cannot be understood is ignored.
  static RobotsRules parse(std::string_view body, std::string_view product_token);

  // The rules implied by a fetch of /robots.txt (RFC 9309 section 2.3.1),
  // after the fetcher has followed up to five redirects:
  //   2xx             parse(body)
  //   3xx             allow_all (redirects exhausted: "unavailable")
  //   4xx             allow_all
  //   5xx, 0 or other disallow_all; 0 means no response at all (network
  //                   error, timeout).
  static RobotsRules from_response(int status_code, std::string_view body,
                                   std::string_view product_token);

  // Whether the crawler may fetch `path_and_query`: the path and query of
  // the URL as it will be requested ("/a/b?c=d"), percent-encoded as in the
  // URL; a missing leading '/' is assumed. "/robots.txt" itself is always
  // allowed.
  bool allowed(std::string_view path_and_query) const;

  // The Crawl-delay of the applying group(s), in milliseconds ("0.5" is
  // 500), or nothing when none was given or it was not a non-negative
  // decimal number of seconds.
  std::optional<std::int64_t> crawl_delay_ms() const { return crawl_delay_ms_; }

  // Sitemap URLs named anywhere in the file, in order, without duplicates.
  // They are not validated; the caller parses them as URLs.
  const std::vector<std::string>& sitemaps() const { return sitemaps_; }

  // Where these rules came from.
  Source source() const { return source_; }

  // Number of rules that apply (after the limits); for diagnostics.
  std::size_t rule_count() const { return rules_.size(); }

 private:
  // One allow or disallow line, compiled for matching.
  struct Rule {
    // A literal piece of the pattern between wildcards, with the failure
    // table that lets it be searched for in linear time (Knuth-Morris-Pratt).
    struct Segment {
      std::string text;
      std::vector<std::uint32_t> failure;
    };
    bool allow = false;
    std::size_t specificity = 0;  // octets of the normalized pattern
    bool has_wildcard = false;
    bool anchored = false;        // ends with '$'
    std::string prefix;           // before the first '*'
    std::vector<Segment> middle;  // between wildcards, in order
    std::string suffix;           // after the last '*' when anchored

    bool matches(std::string_view normalized_path) const;
  };
  // The line-by-line parser; defined in robots_txt.cc.
  class Parser;

  explicit RobotsRules(Source source) : source_(source) {}

  Source source_;
  std::vector<Rule> rules_;  // in order of precedence: the first match decides
  std::optional<std::int64_t> crawl_delay_ms_;
  std::vector<std::string> sitemaps_;
};

}  // namespace actorcrawl
