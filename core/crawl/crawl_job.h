// One URL leased out of the frontier for fetching. A lease is (seq, attempt):
// the seq is the frontier row's key, the attempt counts the leases of that
// row in this run. Every stage that reports back about a URL names both, so a
// lease is settled or returned exactly once, and a late report of an earlier
// attempt (a worker that was given up on, whose URL went out again) can never
// settle the lease that replaced it.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace actorcrawl {

struct CrawlJob {
  std::uint64_t seq = 0;
  std::string url;       // normalized
  std::string host_key;  // host[:port], the frontier's key for the URL
  std::int32_t depth = 0;
  std::uint32_t attempt = 0;  // 1 for the row's first lease in this run, then 2, ...

  // A redirect chain is followed by the crawler, hop by hop, each hop
  // scheduled like any URL (its host's robots.txt and politeness): the URL
  // to fetch now and its host, and the hops already taken. Empty fetch_url:
  // the job fetches `url` itself.
  std::string fetch_url{};
  std::string fetch_host_key{};
  std::vector<std::string> hop_urls{};       // each URL that answered with a redirect
  std::vector<std::int32_t> hop_statuses{};  // and its status

  // A revisit: the stored page's ETag and Last-Modified (as received), sent
  // back as If-None-Match / If-Modified-Since with the request for `url`
  // only, never with a redirect hop. Empty: an unconditional request.
  std::string etag{};
  std::string last_modified{};
  // The stored page's content_digest: a response with the same payload is
  // archived as a revisit (identical-payload-digest), not a second copy.
  std::string stored_digest{};

  const std::string& target_url() const { return fetch_url.empty() ? url : fetch_url; }
  // The politeness, robots.txt and worker-affinity key of this fetch.
  const std::string& target_host() const { return fetch_url.empty() ? host_key : fetch_host_key; }
};

// A link a page led to, already resolved, normalized and found in scope.
struct DiscoveredLink {
  std::string url;
  std::string host_key;
};

}  // namespace actorcrawl
