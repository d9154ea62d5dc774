#include "core/web/robots_txt.h"

#include <algorithm>
#include <unordered_set>
#include <utility>

#include "core/encoding/percent_encoding.h"
#include "core/web/ascii.h"

namespace actorcrawl {

namespace {

using ascii::iequals;
using ascii::is_alpha;
using ascii::is_digit;
using ascii::lowercase;
using ascii::to_lower;

bool is_token_char(char c) { return is_alpha(c) || c == '_' || c == '-'; }

// Whitespace inside a line; CR and LF end lines and never get here.
bool is_line_space(char c) { return c == ' ' || c == '\t' || c == '\v' || c == '\f'; }

std::string_view trim(std::string_view s) { return ascii::trim_if(s, is_line_space); }

// The leading run of product-token characters, RFC 9309 section 2.2.1.
std::string_view token_prefix(std::string_view s) {
  std::size_t n = 0;
  while (n < s.size() && is_token_char(s[n])) ++n;
  return s.substr(0, n);
}

// What a path or query may hold unencoded (RFC 3986 pchar plus '/' and
// '?'), except '*' and '$': those are special in patterns, so their literal
// form is "%2A" and "%24" on both sides of a comparison.
bool kept_raw(char c) {
  switch (c) {
    case '!': case '&': case '\'': case '(': case ')': case '+': case ',':
    case ';': case '=': case ':': case '@': case '/': case '?':
      return true;
    default:
      return is_unreserved(c);
  }
}

// Decoding only the unreserved characters is what RFC 9309 section 2.2.2
// asks: "%7E" and "~" are the same octet, "%2F" and "/" are not. Everything
// else not kept_raw is encoded: non-ASCII (a UTF-8 pattern against an
// encoded URL), controls, space, '*', '$', a '%' that starts no triplet,
// and what a URI never holds raw.
std::size_t append_canonical(std::string& out, std::string_view s, std::size_t i) {
  return append_canonical_percent(out, s, i, kept_raw);
}

// The path as rules see it: canonical percent-encoding, a leading '/'.
std::string normalize_path(std::string_view path) {
  std::string out;
  out.reserve(path.size() + 1);
  if (path.empty() || path.front() != '/') out += '/';
  for (std::size_t i = 0; i < path.size();) i += append_canonical(out, path, i);
  return out;
}

std::vector<std::uint32_t> failure_table(std::string_view needle) {
  std::vector<std::uint32_t> failure(needle.size(), 0);
  std::uint32_t k = 0;
  for (std::size_t i = 1; i < needle.size(); ++i) {
    while (k > 0 && needle[i] != needle[k]) k = failure[k - 1];
    if (needle[i] == needle[k]) ++k;
    failure[i] = k;
  }
  return failure;
}

// Knuth-Morris-Pratt: the first occurrence of `needle` in `hay` at or after
// `from`, in O(hay + needle) whatever the input. A naive search would be
// O(hay * needle) on inputs such as "aaaa...ab".
std::size_t find_linear(std::string_view hay, std::size_t from, std::string_view needle,
                        const std::vector<std::uint32_t>& failure) {
  if (needle.empty()) return from;
  std::uint32_t k = 0;
  for (std::size_t i = from; i < hay.size(); ++i) {
    while (k > 0 && hay[i] != needle[k]) k = failure[k - 1];
    if (hay[i] == needle[k]) ++k;
    if (k == needle.size()) return i + 1 - needle.size();
  }
  return std::string_view::npos;
}

bool starts_with(std::string_view s, std::string_view prefix) {
  return s.size() >= prefix.size() && s.compare(0, prefix.size(), prefix) == 0;
}

bool ends_with(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// "<seconds>[.<fraction>]" in milliseconds, clamped to a day; anything else
// (negative, exponent, unit suffix, empty) is not a delay.
std::optional<std::int64_t> parse_crawl_delay(std::string_view value) {
  constexpr std::int64_t kMaxSeconds = RobotsRules::kMaxCrawlDelayMs / 1000;
  std::size_t i = 0;
  bool any_digit = false;
  std::int64_t seconds = 0;
  for (; i < value.size() && is_digit(value[i]); ++i) {
    any_digit = true;
    // Stop growing once past the clamp, so no length of digits overflows.
    if (seconds <= kMaxSeconds) seconds = seconds * 10 + (value[i] - '0');
  }
  std::int64_t fraction_ms = 0;
  if (i < value.size() && value[i] == '.') {
    ++i;
    std::int64_t scale = 100;
    for (; i < value.size() && is_digit(value[i]); ++i) {
      any_digit = true;
      fraction_ms += (value[i] - '0') * scale;
      scale /= 10;
    }
  }
  if (!any_digit || i != value.size()) return std::nullopt;
  if (seconds > kMaxSeconds) return RobotsRules::kMaxCrawlDelayMs;
  return std::min(seconds * 1000 + fraction_ms, RobotsRules::kMaxCrawlDelayMs);
}

}  // namespace

std::string product_token_of(std::string_view user_agent) {
  while (!user_agent.empty() && is_line_space(user_agent.front())) user_agent.remove_prefix(1);
  return std::string(token_prefix(user_agent));
}

bool RobotsRules::Rule::matches(std::string_view path) const {
  if (!has_wildcard) return anchored ? path == prefix : starts_with(path, prefix);
  if (!starts_with(path, prefix)) return false;
  // Taking the leftmost occurrence of each piece is optimal for '*' globs:
  // any later occurrence leaves less room for the pieces after it. That is
  // what keeps matching linear instead of backtracking.
  std::size_t pos = prefix.size();
  for (const Segment& segment : middle) {
    pos = find_linear(path, pos, segment.text, segment.failure);
    if (pos == std::string_view::npos) return false;
    pos += segment.text.size();
  }
  if (!anchored) return true;
  return path.size() - pos >= suffix.size() && ends_with(path, suffix);
}

// Reads the body line by line, keeping only what applies to one product
// token. Groups are tracked as they appear because rules of groups that do
// not apply are dropped at once rather than stored.
class RobotsRules::Parser {
 public:
  explicit Parser(std::string_view product_token) : token_(product_token_of(product_token)) {}

  void line(std::string_view line) {
    if (line.size() > kMaxLineBytes) return;
    const std::size_t hash = line.find('#');
    if (hash != std::string_view::npos) line = line.substr(0, hash);
    const std::size_t colon = line.find(':');
    if (colon == std::string_view::npos) return;
    const std::string_view key = trim(line.substr(0, colon));
    const std::string_view value = trim(line.substr(colon + 1));
    if (iequals(key, "user-agent")) {
      user_agent(value);
    } else if (iequals(key, "allow")) {
      rule(true, value);
    } else if (iequals(key, "disallow")) {
      rule(false, value);
    } else if (iequals(key, "crawl-delay")) {
      crawl_delay(value);
    } else if (iequals(key, "sitemap")) {
      sitemap(value);
    }
  }

  RobotsRules finish() && {
    RobotsRules rules(Source::parsed);
    // A group naming us, even an empty one, replaces "*" entirely.
    if (seen_ours_) {
      rules.rules_ = std::move(ours_.rules);
      rules.crawl_delay_ms_ = ours_.crawl_delay_ms;
    } else if (seen_star_) {
      rules.rules_ = std::move(star_.rules);
      rules.crawl_delay_ms_ = star_.crawl_delay_ms;
    }
    // Most specific first, allow before disallow among equals: then the
    // first rule that matches a path decides it (section 2.2.2).
    std::stable_sort(rules.rules_.begin(), rules.rules_.end(), [](const Rule& a, const Rule& b) {
      if (a.specificity != b.specificity) return a.specificity > b.specificity;
      return a.allow && !b.allow;
    });
    rules.sitemaps_ = std::move(sitemaps_);
    return rules;
  }

 private:
  // What the groups of one kind (ours, or "*") add up to.
  struct Combined {
    std::vector<Rule> rules;
    std::optional<std::int64_t> crawl_delay_ms;
  };

  void user_agent(std::string_view value) {
    if (group_has_members_) {
      // The previous group is complete: this line starts the next one.
      group_is_ours_ = group_is_star_ = group_has_members_ = false;
    }
    in_group_ = true;
    if (!value.empty() && value.front() == '*' && (value.size() == 1 || is_line_space(value[1]))) {
      group_is_star_ = seen_star_ = true;
      return;
    }
    const std::string_view name = token_prefix(value);
    if (!name.empty() && iequals(name, token_)) group_is_ours_ = seen_ours_ = true;
  }

  // Called for each member line; false when the line belongs to no group
  // (it comes before the first user-agent line) and must be ignored.
  bool member() {
    if (!in_group_) return false;
    group_has_members_ = true;
    return true;
  }

  void rule(bool allow, std::string_view pattern) {
    if (!member() || pattern.empty()) return;  // "Disallow:" forbids nothing
    if (!group_is_ours_ && !group_is_star_) return;
    const Rule compiled = compile(allow, pattern);
    if (group_is_ours_ && ours_.rules.size() < kMaxRules) ours_.rules.push_back(compiled);
    if (group_is_star_ && star_.rules.size() < kMaxRules) star_.rules.push_back(compiled);
  }

  void crawl_delay(std::string_view value) {
    if (!member()) return;
    const std::optional<std::int64_t> ms = parse_crawl_delay(value);
    if (!ms) return;
    for (Combined* kind : {group_is_ours_ ? &ours_ : nullptr, group_is_star_ ? &star_ : nullptr}) {
      if (kind != nullptr) kind->crawl_delay_ms = std::max(kind->crawl_delay_ms.value_or(0), *ms);
    }
  }

  void sitemap(std::string_view value) {
    if (value.empty() || sitemaps_.size() >= kMaxSitemaps) return;
    if (seen_sitemaps_.insert(std::string(value)).second) sitemaps_.emplace_back(value);
  }

  static Rule compile(bool allow, std::string_view pattern) {
    Rule rule;
    rule.allow = allow;
    if (pattern.back() == '$') {
      rule.anchored = true;
      pattern.remove_suffix(1);
    }
    std::vector<std::string> pieces(1);
    std::size_t wildcards = 0;
    for (std::size_t i = 0; i < pattern.size();) {
      if (pattern[i] == '*') {
        ++wildcards;
        // "**" means what "*" means; an empty piece would only cost time.
        if (!pieces.back().empty() || pieces.size() == 1) pieces.emplace_back();
        ++i;
      } else {
        i += append_canonical(pieces.back(), pattern, i);
      }
    }
    rule.specificity = wildcards + (rule.anchored ? 1 : 0);
    for (const std::string& piece : pieces) rule.specificity += piece.size();
    rule.has_wildcard = wildcards > 0;
    // "/a*$" ends with any sequence, so the anchor changes nothing.
    if (rule.has_wildcard && pieces.back().empty()) rule.anchored = false;
    rule.prefix = std::move(pieces.front());
    std::size_t end = pieces.size();
    if (rule.has_wildcard && rule.anchored) rule.suffix = std::move(pieces[--end]);
    for (std::size_t i = 1; i < end; ++i) {
      if (pieces[i].empty()) continue;
      Rule::Segment segment;
      segment.failure = failure_table(pieces[i]);
      segment.text = std::move(pieces[i]);
      rule.middle.push_back(std::move(segment));
    }
    return rule;
  }

  const std::string token_;
  bool in_group_ = false;           // a user-agent line has been seen
  bool group_has_members_ = false;  // the current group has a member line
  bool group_is_ours_ = false;      // the current group names our token
  bool group_is_star_ = false;      // the current group names "*"
  bool seen_ours_ = false;
  bool seen_star_ = false;
  Combined ours_;
  Combined star_;
  std::vector<std::string> sitemaps_;
  std::unordered_set<std::string> seen_sitemaps_;
};

RobotsRules RobotsRules::allow_all() { return RobotsRules(Source::allow_all); }

RobotsRules RobotsRules::disallow_all() { return RobotsRules(Source::disallow_all); }

RobotsRules RobotsRules::parse(std::string_view body, std::string_view product_token) {
  std::string_view text = body.substr(0, kMaxBodyBytes);
  if (body.size() > kMaxBodyBytes && body[kMaxBodyBytes] != '\n' && body[kMaxBodyBytes] != '\r') {
    // The limit cut a line: drop its start, which could read as a shorter
    // rule than the one written ("Disallow: /a" from "Disallow: /about").
    const std::size_t last_end = text.find_last_of("\r\n");
    text = last_end == std::string_view::npos ? std::string_view() : text.substr(0, last_end + 1);
  }
  if (starts_with(text, "\xEF\xBB\xBF")) text.remove_prefix(3);

  Parser parser(product_token);
  // Lines end with CR, LF or CRLF (RFC 9309 section 2.2).
  while (!text.empty()) {
    const std::size_t end = text.find_first_of("\r\n");
    if (end == std::string_view::npos) {
      parser.line(text);
      break;
    }
    parser.line(text.substr(0, end));
    const bool crlf = text[end] == '\r' && end + 1 < text.size() && text[end + 1] == '\n';
    text.remove_prefix(end + (crlf ? 2 : 1));
  }
  return std::move(parser).finish();
}

RobotsRules RobotsRules::from_response(int status_code, std::string_view body,
                                       std::string_view product_token) {
  if (status_code >= 200 && status_code < 300) return parse(body, product_token);
  // Section 2.3.1.2: past the redirect limit the file may be treated as
  // unavailable; section 2.3.1.3: 4xx is unavailable.
  if (status_code >= 300 && status_code < 500) return allow_all();
  // Section 2.3.1.4: a server error or no answer means the crawler cannot
  // know what is allowed, so nothing is.
  return disallow_all();
}

bool RobotsRules::allowed(std::string_view path_and_query) const {
  if (source_ == Source::allow_all) return true;
  const std::string path = normalize_path(path_and_query);
  if (path == "/robots.txt") return true;  // section 2.2.2: implicitly allowed
  if (source_ == Source::disallow_all) return false;
  // rules_ is in order of precedence (see Parser::finish).
  for (const Rule& rule : rules_) {
    if (rule.matches(path)) return rule.allow;
  }
  return true;
}

}  // namespace actorcrawl
