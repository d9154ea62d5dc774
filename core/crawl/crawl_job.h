// One URL leased out of the frontier for fetching. The seq is the frontier
// row's key: every stage that reports back about a URL names it by seq, so a
// lease can be settled or returned exactly once.
#pragma once

#include <cstdint>
#include <string>

namespace actorcrawl {

struct CrawlJob {
  std::uint64_t seq = 0;
  std::string url;       // normalized
  std::string host_key;  // host[:port], the politeness and affinity key
  std::int32_t depth = 0;
};

}  // namespace actorcrawl

namespace actorcrawl {

// A link a page led to, already resolved, normalized and found in scope.
struct DiscoveredLink {
  std::string url;
  std::string host_key;
};

}  // namespace actorcrawl
