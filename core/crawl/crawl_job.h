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

inline bool operator==(const DiscoveredLink& a, const DiscoveredLink& b) {
  return a.url == b.url && a.host_key == b.host_key;
}

// Sitemap documents are fetched under the HostScheduler's leases like
// pages (their host's robots.txt and politeness clock apply), but they are
// no frontier rows: their seqs carry this bit, which frontier seqs (row
// keys counted from 1) never reach, and robots.txt transfer tokens (bit 63)
// do not use.
inline constexpr std::uint64_t kSitemapSeqBit = 1ULL << 62;
inline bool is_sitemap_seq(std::uint64_t seq) { return (seq & kSitemapSeqBit) != 0; }

// A URL a sitemap named: a page for the frontier (with its host key), or a
// child sitemap of an index on its way back from a parse lane (host_key
// empty). lastmod_ms is the entry's <lastmod> in Unix epoch milliseconds,
// 0 when it had none or one that could not be read.
struct SitemapLink {
  std::string url;
  std::string host_key;
  std::int64_t lastmod_ms = 0;
};

}  // namespace actorcrawl
