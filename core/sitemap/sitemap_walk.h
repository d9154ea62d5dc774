// One crawl's way through sitemaps: which sitemap documents to fetch, in
// what order, and what their entries become. Plain state, no I/O: whoever
// fetches (the HostSelector's workers) and whoever queues pages (the
// Frontier) drive it, and it can be tested and resumed without either.
//
// Where sitemaps come from:
//   - the Sitemap: lines of a host's robots.txt (on_robots); the sitemap
//     may then list any URL of that robots.txt's host, wherever it lives
//     itself (cross-submission, sitemap_scope.h), besides URLs under its
//     own directory;
//   - when a robots.txt names none and the caller asks for it (a seed's
//     host), the host's /sitemap.xml, marked `guessed` (a 404 there is
//     normal, not a fault of the site);
//   - add_sitemap: a sitemap URL given by the user.
// These are depth 0. An index's child sitemaps are one deeper; they may
// list what their index could (its grants) and what lies under their own
// directory.
//
// Rules, each refusal counted under its name (SitemapWalkCounts):
//   - each sitemap URL (normalized) is fetched at most once per crawl, so
//     a loop of indexes (A names B, B names A) ends: "sitemap_seen". A URL
//     named again while still queued gains the new grants instead;
//   - depth: documents deeper than max_depth are not fetched
//     ("sitemap_depth"); with the default 3, robots.txt -> index -> index
//     -> index -> urlset is the longest chain. The protocol allows no
//     index in an index at all; real sites nest one or two;
//   - per host (of the sitemap's URL): at most max_documents_per_host
//     documents queued ("sitemap_host_cap");
//   - per host (of the page URL): at most max_urls_per_host page URLs
//     handed out ("sitemap_url_cap");
//   - a Sitemap: line that is not an http(s) URL: "sitemap_bad_url".
//   - a redirect: its target is a document of its own, at the same depth,
//     with the grants of the one that redirected (that host sent the
//     crawler there) and its own directory's; queued like any other, so its
//     host's robots.txt and politeness apply, and a loop ends as
//     "sitemap_seen". More than max_redirects hops in a row:
//     "sitemap_redirects"; a Location that is no http(s) URL:
//     "sitemap_bad_url"; one whose path names no sitemap document (no
//     "sitemap" in it, no .xml, .gz or .txt file), such as a site's home
//     page in place of a missing /sitemap.xml: "sitemap_redirect_to_page"
//     (the crawl fetches that page as a page; asking for it as a sitemap
//     too would request it twice).
//
// Driving it (one document at a time or many; the walk keeps no parser):
//   walk.on_robots(robots_url, rules.sitemaps(), /*guess=*/is_seed_host);
//   while (auto fetch = walk.next()) {          // when a fetch slot is free
//     SitemapParser parser(fetch->scope);       // where the body arrives
//     for (chunk : body) {
//       parser.feed(chunk);
//       for (auto& page : walk.take(*fetch, parser))
//         frontier.offer(page.url, /*depth=*/1, page.lastmod_ms);
//     }
//     parser.finish();
//     ... take() once more, then walk.finish(*fetch, parser.report());
//     // or, when the fetch itself failed: walk.fetch_failed(*fetch, reason)
//     // or, when it answered with a redirect: walk.redirected(*fetch, location)
//   }
// The parser may run elsewhere (another actor, another process): take()
// and finish() have overloads on plain values (the entries and the
// report), which are what a message would carry. Every fetch handed out
// by next() must end with exactly one finish(), fetch_failed() or
// redirected(); the walk is over when idle().
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "core/sitemap/sitemap_parser.h"
#include "core/sitemap/sitemap_scope.h"
#include "core/web/url.h"

namespace actorcrawl {

struct SitemapWalkLimits {
  int max_depth = 3;
  std::size_t max_documents_per_host = 1'000;
  // A crawl that stops at max_pages gains nothing from more; the caller
  // sets it from there when that is smaller.
  std::size_t max_urls_per_host = 100'000;
  // Redirects followed in a row from one named sitemap (as for pages).
  int max_redirects = 5;
};

// One sitemap document to fetch.
struct SitemapFetch {
  std::string url;         // normalized
  std::string host_key;    // the host it is fetched from (politeness, caps)
  int depth = 0;           // 0: named by robots.txt, guessed or given; n: in an index at n-1
  bool guessed = false;    // /sitemap.xml tried because robots.txt named none
  std::string named_by;    // the robots.txt or index URL that named it, or the sitemap that redirected here ("" when given)
  int redirects = 0;       // redirects followed to reach it
  SitemapScope scope;      // where its URLs may point: the parser's argument
};

// What the walk has done, for metrics.log and the trace. Reason maps are
// ordered by name, so their text is stable.
struct SitemapWalkCounts {
  std::uint64_t sitemaps_queued = 0;    // accepted for fetching
  std::uint64_t sitemaps_fetched = 0;   // finish() calls (parsed, perhaps with an error)
  std::uint64_t sitemaps_failed = 0;    // fetch_failed() calls
  std::uint64_t sitemaps_redirected = 0;  // redirected() calls
  std::uint64_t indexes = 0;            // documents that were <sitemapindex>
  std::uint64_t urlsets = 0;            // documents that were <urlset> or text
  std::uint64_t urls_found = 0;         // page entries read in urlsets and text sitemaps
  std::uint64_t urls_accepted = 0;      // page URLs handed out for the frontier
  std::uint64_t urls_with_lastmod = 0;  // of those, with a <lastmod>
  // Sitemap URLs not fetched: sitemap_seen, sitemap_depth,
  // sitemap_host_cap, sitemap_bad_url, and the parser's drops of child
  // sitemaps in an index (other_host, ...).
  std::map<std::string, std::uint64_t> sitemaps_refused;
  // Documents that ended in an error: the parser's (SitemapError names)
  // and the fetch's (the reason given to fetch_failed).
  std::map<std::string, std::uint64_t> document_errors;
  // Page URLs dropped: the parser's reasons (SitemapDrop names) and
  // sitemap_url_cap.
  std::map<std::string, std::uint64_t> urls_dropped;
};

class SitemapWalk {
 public:
  explicit SitemapWalk(SitemapWalkLimits limits = {});

  // The robots.txt at `robots_url` (any URL of its host will do) was read,
  // and named `sitemaps` (RobotsRules::sitemaps(); text, not yet URLs).
  // When it named none and `guess_when_none`, the host's /sitemap.xml is
  // queued instead. Calling it again for a host (a robots.txt fetched
  // again) queues nothing twice.
  void on_robots(const Url& robots_url, const std::vector<std::string>& sitemaps, bool guess_when_none);

  // A sitemap URL given by the user (or read again from an earlier run):
  // depth 0, the protocol's scope (its own directory) and `grants`. False
  // when refused (counted).
  bool add_sitemap(std::string_view url, SitemapScope grants = {});

  // The next document to fetch, oldest first; nothing when none is queued.
  std::optional<SitemapFetch> next();

  // Entries read so far from the document of `fetch` (kind: what the
  // parser says it is). Child sitemaps of an index are queued; page URLs
  // (of a urlset or text sitemap) are returned for the frontier, past the
  // per-host cap.
  std::vector<SitemapEntry> take(const SitemapFetch& fetch, SitemapKind kind, std::vector<SitemapEntry> entries);
  // The same, drained from the parser reading that document.
  std::vector<SitemapEntry> take(const SitemapFetch& fetch, SitemapParser& parser);

  // The document of `fetch` is over: the parser's report (its counts and
  // error). Call after the last take().
  void finish(const SitemapFetch& fetch, const SitemapReport& report);
  // Its fetch failed (`reason`: the fetch's named reason, "http_404", ...).
  void fetch_failed(const SitemapFetch& fetch, std::string_view reason);
  // It answered with a redirect to `location` (absolute): the document is
  // over, and the target is queued in its place. False when the target was
  // refused (counted: sitemap_seen, sitemap_redirects, sitemap_bad_url,
  // sitemap_redirect_to_page, sitemap_host_cap).
  bool redirected(const SitemapFetch& fetch, std::string_view location);

  std::size_t queued() const { return queue_.size(); }
  std::size_t in_flight() const { return in_flight_; }
  bool idle() const { return queue_.empty() && in_flight_ == 0; }
  const SitemapWalkCounts& counts() const { return counts_; }
  const SitemapWalkLimits& limits() const { return limits_; }

 private:
  // Queues `url` at `depth` with `scope` added to its own directory's;
  // false (and counted) when refused.
  bool queue(const Url& url, int depth, SitemapScope scope, std::string named_by, bool guessed, int redirects = 0);

  struct Queued {
    int depth = 0;
    bool guessed = false;
    std::string named_by;
    int redirects = 0;
    SitemapScope scope;
  };

  SitemapWalkLimits limits_;
  std::deque<std::string> queue_;                     // URLs, oldest first
  std::unordered_map<std::string, Queued> waiting_;   // what next() needs of each queued URL
  std::unordered_set<std::string> seen_;              // every URL ever queued
  std::unordered_map<std::string, std::size_t> documents_per_host_;
  std::unordered_map<std::string, std::size_t> urls_per_host_;
  std::size_t in_flight_ = 0;
  SitemapWalkCounts counts_;
};

}  // namespace actorcrawl
