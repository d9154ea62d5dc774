#include "core/web/url_parser.h"

#include <string>

#include "core/encoding/percent_encoding.h"
#include "core/web/ascii.h"
#include "core/web/url.h"
#include "core/web/url_host.h"

// The states of the standard's parser that a special scheme can reach, in
// the order it reaches them: scheme, special relative or authority, relative,
// relative slash, special authority (ignore) slashes, authority, host, port,
// path start, path, query, fragment. Non-special schemes never get past the
// scheme state here: the crawler fetches http and https only.

namespace actorcrawl {
namespace {

using ascii::is_alpha;
using ascii::is_digit;
using ascii::to_lower;

void fail(UrlError* why, UrlError e) {
  if (why != nullptr) *why = e;
}

// The C0 control percent-encode set (every byte of a non-ASCII code point
// included) plus the path set's additions.
bool in_path_set(unsigned char c) {
  if (c < 0x20 || c > 0x7E) return true;
  switch (c) {
    case ' ': case '"': case '#': case '<': case '>': case '?': case '`': case '{': case '}':
      return true;
    default:
      return false;
  }
}

// The special-query percent-encode set.
bool in_special_query_set(unsigned char c) {
  if (c < 0x20 || c > 0x7E) return true;
  switch (c) {
    case ' ': case '"': case '#': case '<': case '>': case '\'':
      return true;
    default:
      return false;
  }
}

std::uint16_t default_port(std::string_view scheme) { return scheme == "https" ? 443 : 80; }

bool iequals_ascii(std::string_view a, std::string_view b) { return ascii::iequals(a, b); }

bool is_single_dot(std::string_view s) { return s == "." || iequals_ascii(s, "%2e"); }

bool is_double_dot(std::string_view s) {
  return s == ".." || iequals_ascii(s, ".%2e") || iequals_ascii(s, "%2e.") || iequals_ascii(s, "%2e%2e");
}

bool is_slash(char c) { return c == '/' || c == '\\'; }

// The preprocessing: leading and trailing C0 controls and spaces go, and
// every tab and newline.
std::string preprocess(std::string_view raw) {
  std::size_t begin = 0;
  std::size_t end = raw.size();
  while (begin < end && static_cast<unsigned char>(raw[begin]) <= 0x20) ++begin;
  while (end > begin && static_cast<unsigned char>(raw[end - 1]) <= 0x20) --end;
  std::string out;
  out.reserve(end - begin);
  for (std::size_t i = begin; i < end; ++i) {
    const char c = raw[i];
    if (c != '\t' && c != '\n' && c != '\r') out += c;
  }
  return out;
}

class Parser {
 public:
  Parser(std::string input, const ParsedUrl* base, UrlError* why) : s_(std::move(input)), base_(base), why_(why) {}

  std::optional<ParsedUrl> run() {
    std::size_t pos = 0;
    std::string scheme;
    if (!s_.empty() && is_alpha(s_[0])) {
      std::size_t i = 1;
      while (i < s_.size() && (is_alpha(s_[i]) || is_digit(s_[i]) || s_[i] == '+' || s_[i] == '-' || s_[i] == '.'))
        ++i;
      if (i < s_.size() && s_[i] == ':') {
        for (std::size_t k = 0; k < i; ++k) scheme += to_lower(s_[k]);
        pos = i + 1;
      }
    }
    if (!scheme.empty()) {
      if (scheme != "http" && scheme != "https") {
        fail(why_, UrlError::unsupported_scheme);
        return std::nullopt;
      }
      url_.scheme = scheme;
      if (base_ != nullptr && base_->scheme == scheme) {
        // special relative or authority
        if (at(pos) == '/' && at(pos + 1) == '/') return authority(skip_slashes(pos + 2));
        return relative(pos);
      }
      return authority(skip_slashes(pos));  // special authority (ignore) slashes
    }
    if (base_ == nullptr) {
      fail(why_, s_.empty() ? UrlError::empty : UrlError::malformed);
      return std::nullopt;
    }
    url_.scheme = base_->scheme;
    return relative(0);
  }

 private:
  char at(std::size_t i) const { return i < s_.size() ? s_[i] : '\0'; }
  bool eof(std::size_t i) const { return i >= s_.size(); }

  std::size_t skip_slashes(std::size_t pos) const {
    while (!eof(pos) && is_slash(s_[pos])) ++pos;
    return pos;
  }

  void take_base_authority() {
    url_.host = base_->host;
    url_.port = base_->port;
  }

  std::optional<ParsedUrl> relative(std::size_t pos) {
    if (!eof(pos) && is_slash(s_[pos])) {
      // relative slash
      if (!eof(pos + 1) && is_slash(s_[pos + 1])) return authority(skip_slashes(pos + 2));
      take_base_authority();
      return path(pos + 1);
    }
    take_base_authority();
    // The base's segments: its serialized path is "/" and each segment.
    if (base_->path.empty())
      segments_ = "/";  // one empty segment
    else
      segments_ = base_->path[0] == '/' ? base_->path : "/" + base_->path;
    url_.query = base_->query;
    if (eof(pos)) return finish();
    if (s_[pos] == '?') return query(pos + 1);
    if (s_[pos] == '#') return finish();
    url_.query.reset();
    pop_segment();  // shorten the path
    return path(pos);
  }

  // The last segment goes, if there is one. A segment holds no '/' (a
  // percent-encoded one stays "%2F"), so the last '/' starts it.
  void pop_segment() {
    if (!segments_.empty()) segments_.resize(segments_.rfind('/'));
  }

  std::optional<ParsedUrl> authority(std::size_t pos) {
    std::size_t end = pos;
    while (!eof(end) && !is_slash(s_[end]) && s_[end] != '?' && s_[end] != '#') ++end;
    std::string_view auth = std::string_view(s_).substr(pos, end - pos);
    // The last '@' ends the userinfo, which is dropped.
    const std::size_t at_sign = auth.rfind('@');
    if (at_sign != std::string_view::npos) {
      auth.remove_prefix(at_sign + 1);
      if (auth.empty()) {
        fail(why_, UrlError::missing_host);
        return std::nullopt;
      }
    }
    // host, then port: a ':' outside brackets starts the port.
    std::size_t colon = std::string_view::npos;
    bool in_brackets = false;
    for (std::size_t i = 0; i < auth.size(); ++i) {
      if (auth[i] == '[') in_brackets = true;
      if (auth[i] == ']') in_brackets = false;
      if (auth[i] == ':' && !in_brackets) {
        colon = i;
        break;
      }
    }
    const std::string_view host_text = auth.substr(0, colon);
    if (host_text.empty()) {
      fail(why_, UrlError::missing_host);
      return std::nullopt;
    }
    auto host = parse_url_host(host_text);
    if (!host) {
      fail(why_, UrlError::malformed);
      return std::nullopt;
    }
    url_.host = std::move(*host);
    if (colon != std::string_view::npos) {
      const std::string_view digits = auth.substr(colon + 1);
      std::uint32_t value = 0;
      for (const char c : digits) {
        if (!is_digit(c)) {
          fail(why_, UrlError::malformed);
          return std::nullopt;
        }
        value = value * 10 + static_cast<std::uint32_t>(c - '0');
        if (value > 65535) {
          fail(why_, UrlError::malformed);
          return std::nullopt;
        }
      }
      if (!digits.empty() && value != default_port(url_.scheme)) url_.port = static_cast<std::uint16_t>(value);
    }
    // path start: a first '/' or '\' belongs to no segment.
    if (!eof(end) && is_slash(s_[end])) ++end;
    return path(end);
  }

  // Each segment is written after a '/' where it ends up, then taken back
  // when it turns out to be "." or "..".
  std::optional<ParsedUrl> path(std::size_t pos) {
    std::size_t segment_start = segments_.size();
    segments_ += '/';
    while (true) {
      const bool end = eof(pos);
      const char c = end ? '\0' : s_[pos];
      if (end || is_slash(c) || c == '?' || c == '#') {
        const bool slash = !end && is_slash(c);
        const std::string_view segment = std::string_view(segments_).substr(segment_start + 1);
        if (is_double_dot(segment)) {
          segments_.resize(segment_start);
          pop_segment();
          if (!slash) segments_ += '/';  // an empty last segment
        } else if (is_single_dot(segment)) {
          segments_.resize(segment_start);
          if (!slash) segments_ += '/';
        }
        if (end || c == '#') return finish();
        if (c == '?') return query(pos + 1);
        segment_start = segments_.size();
        segments_ += '/';
      } else {
        const auto b = static_cast<unsigned char>(c);
        if (in_path_set(b)) {
          append_percent_encoded(segments_, b);
        } else {
          segments_ += c;
        }
      }
      ++pos;
    }
  }

  std::optional<ParsedUrl> query(std::size_t pos) {
    std::string q;
    while (!eof(pos) && s_[pos] != '#') {
      const auto b = static_cast<unsigned char>(s_[pos]);
      if (in_special_query_set(b)) {
        append_percent_encoded(q, b);
      } else {
        q += s_[pos];
      }
      ++pos;
    }
    url_.query = std::move(q);
    return finish();
  }

  std::optional<ParsedUrl> finish() {
    url_.path = segments_.empty() ? "/" : std::move(segments_);
    return std::move(url_);
  }

  std::string s_;
  const ParsedUrl* base_;
  UrlError* why_;
  ParsedUrl url_;
  // The path's segments as they are serialized: "/" before each. An empty
  // string is no segment, "/" one empty segment.
  std::string segments_;
};

}  // namespace

std::optional<ParsedUrl> parse_url(std::string_view input, const ParsedUrl* base, UrlError* why) {
  fail(why, UrlError::none);
  return Parser(preprocess(input), base, why).run();
}

}  // namespace actorcrawl
