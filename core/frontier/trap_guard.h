// Defences against crawler traps: sites that generate an endless supply of
// distinct URLs (relative-link loops, calendars, session ids in the query,
// ever-growing paths). The Frontier asks admit() about each newly discovered
// URL before queueing it; a refused URL is recorded by the caller under the
// rule's name, so the names below are part of the user-visible contract:
//
//   "max_url_length"               the normalized URL is longer than the limit
//   "max_repeated_path_segments"   some path segment occurs more than the
//                                  limit times (/a/b/a/b/a/b/a/b/, /x/x/x/x/);
//                                  segments are compared as encoded, and
//                                  empty ones count too (/a////////)
//   "max_pages_per_host"           the host (host key, so "host:port" for a
//                                  non-default port) already has the limit
//                                  of accepted URLs
//   "max_query_variants_per_path"  scheme+host+path already has the limit of
//                                  distinct query strings accepted
//
// Rules are checked in that order and the first that refuses is reported.
// Each limit is the largest number allowed, and 0 turns its rule off (for
// max_url_length and max_repeated_path_segments too, where 0 would
// otherwise refuse every URL). Limits are fixed at construction.
//
// Memory. Only rules that are on keep state, and only accepted (or
// remembered) URLs count:
//   - per host: one map entry (host key string + count) per host;
//   - per path with a query: one map entry keyed by a 64-bit hash of
//     scheme+host+path (~70 bytes), plus a sorted vector of 64-bit hashes of
//     the distinct queries seen there, only until it holds the limit; the
//     path is then "saturated", its vector is freed and every further new
//     query there is refused. So under 16 x limit bytes of hashes (vector
//     capacity included) per unsaturated path, nothing beyond the map entry
//     once saturated. URLs without a query cost nothing here.
// Distinct queries are told apart by a 64-bit hash, and paths too: a
// collision (odds ~3e-8 among a million paths) only makes two paths or two
// queries share a count.
//
// Not thread-safe: owned by the Frontier, like the seen-set.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "core/web/url.h"

namespace actorcrawl {

class TrapGuard {
 public:
  struct Limits {
    std::size_t max_url_length = 1024;
    std::size_t max_repeated_path_segments = 3;
    std::size_t max_pages_per_host = 0;
    std::size_t max_query_variants_per_path = 100;
  };

  explicit TrapGuard(Limits limits);

  // nullopt if the URL may be queued, and then it is counted; otherwise the
  // name of the rule that refuses it, and nothing is counted. Meant for URLs
  // not seen before (the seen-set filters repeats first): a repeat counts
  // again for its host, and is refused once its path is saturated since the
  // saturated path no longer knows which queries it accepted.
  std::optional<std::string> admit(const Url& url);

  // For resume: counts a URL accepted in an earlier run, without checks. A
  // host may so end up above its limit; it then admits nothing more.
  void remember(const Url& url);

  const Limits& limits() const { return limits_; }

 private:
  struct QueryVariants {
    std::vector<std::uint64_t> hashes;  // sorted; emptied once saturated
    bool saturated = false;
  };

  // Records `query` for the path; false (recording nothing) when `enforce`
  // and the path already has its limit of distinct queries.
  bool add_query(std::string_view path_prefix, std::string_view query, bool enforce);

  Limits limits_;
  std::unordered_map<std::string, std::size_t> pages_per_host_;
  std::unordered_map<std::uint64_t, QueryVariants> queries_per_path_;
};

}  // namespace actorcrawl
