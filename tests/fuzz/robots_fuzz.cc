// libFuzzer target for core/web/robots_txt: any bytes must parse, and queries
// on the result must be total. Two properties are checked beyond "does not
// crash":
//  - the invariants of the public interface (limits, "/robots.txt");
//  - the linear-time matcher agrees with a plain dynamic-programming glob
//    matcher on small patterns over an alphabet where normalization is the
//    identity, with the longest-match and allow-wins-ties rules on top.

#include "core/web/robots_txt.h"

#include <fuzzer/FuzzedDataProvider.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

namespace {

using actorcrawl::RobotsRules;

[[noreturn]] void fail(const char* what) {
  std::fprintf(stderr, "robots_fuzz: %s\n", what);
  std::abort();
}

void check_invariants(const RobotsRules& rules, std::string_view path) {
  (void)rules.allowed(path);
  (void)rules.allowed("/");
  (void)rules.allowed("");
  if (!rules.allowed("/robots.txt")) fail("/robots.txt refused");
  if (rules.rule_count() > RobotsRules::kMaxRules) fail("too many rules kept");
  if (rules.sitemaps().size() > RobotsRules::kMaxSitemaps) fail("too many sitemaps kept");
  if (const auto delay = rules.crawl_delay_ms()) {
    if (*delay < 0 || *delay > RobotsRules::kMaxCrawlDelayMs) fail("crawl-delay out of range");
  }
}

// Reference matcher: does `pattern` ('*' any sequence, anchored at the end
// when `anchored`, otherwise a prefix match) match `path`? O(n*m), fine for
// the short strings it gets here.
bool glob_matches(std::string_view pattern, bool anchored, std::string_view path) {
  // reach[j]: the pattern so far can end exactly at path position j.
  std::vector<char> reach(path.size() + 1, 0);
  reach[0] = 1;
  for (const char p : pattern) {
    std::vector<char> next(path.size() + 1, 0);
    if (p == '*') {
      char any = 0;
      for (std::size_t j = 0; j <= path.size(); ++j) {
        any |= reach[j];
        next[j] = any;
      }
    } else {
      for (std::size_t j = 0; j < path.size(); ++j) {
        if (reach[j] && path[j] == p) next[j + 1] = 1;
      }
    }
    reach.swap(next);
  }
  if (anchored) return reach[path.size()] != 0;
  for (const char r : reach) {
    if (r) return true;
  }
  return false;
}

// Bytes mapped onto characters that normalization leaves alone.
std::string small_string(FuzzedDataProvider& in, std::string_view alphabet, std::size_t max) {
  const std::string raw = in.ConsumeRandomLengthString(max);
  std::string out;
  for (const char c : raw) out += alphabet[static_cast<unsigned char>(c) % alphabet.size()];
  return out;
}

void differential(const std::uint8_t* data, std::size_t size) {
  FuzzedDataProvider in(data, size);
  const bool disallow_anchored = in.ConsumeBool();
  const bool allow_anchored = in.ConsumeBool();
  const std::string disallow = small_string(in, "ab/*", 24);
  const std::string allow = small_string(in, "ab/*", 24);
  std::string path = small_string(in, "ab/", 64);

  std::string body = "User-agent: *\n";
  body += "Disallow: " + disallow + (disallow_anchored ? "$" : "") + "\n";
  body += "Allow: " + allow + (allow_anchored ? "$" : "") + "\n";
  const RobotsRules rules = RobotsRules::parse(body, "actorcrawl");
  const bool got = rules.allowed(path);

  if (path.empty() || path[0] != '/') path.insert(0, "/");
  // An empty pattern is no rule; a lone "$" is a rule that matches nothing
  // here, since every path holds at least '/'.
  const bool d = !disallow.empty() || disallow_anchored
                     ? glob_matches(disallow, disallow_anchored, path) : false;
  const bool a = !allow.empty() || allow_anchored ? glob_matches(allow, allow_anchored, path)
                                                  : false;
  const std::size_t d_len = disallow.size() + (disallow_anchored ? 1 : 0);
  const std::size_t a_len = allow.size() + (allow_anchored ? 1 : 0);
  const bool expected = !d || (a && a_len >= d_len);
  if (got != expected) {
    std::fprintf(stderr, "disallow '%s%s' allow '%s%s' path '%s': got %d, expected %d\n",
                 disallow.c_str(), disallow_anchored ? "$" : "", allow.c_str(),
                 allow_anchored ? "$" : "", path.c_str(), got, expected);
    fail("matcher disagrees with the reference");
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);

  // The whole input as a robots.txt; the path queried is its last line, so
  // paths that resemble the patterns in the file come up often.
  const std::size_t last_line = input.find_last_of("\r\n");
  const std::string_view path =
      last_line == std::string_view::npos ? input : input.substr(last_line + 1);
  check_invariants(RobotsRules::parse(input, "actorcrawl"), path);

  // The product token taken from the first line, as if it were our
  // User-Agent, so group selection sees arbitrary tokens too.
  const std::string token = actorcrawl::product_token_of(input.substr(0, input.find('\n')));
  check_invariants(RobotsRules::parse(input, token), path);

  for (const int status : {0, 200, 301, 404, 503}) {
    check_invariants(RobotsRules::from_response(status, input, "actorcrawl"), path);
  }

  differential(data, size);
  return 0;
}
