// Messages of the crawl's sitemaps (docs/sitemaps.md): the HostSelector
// schedules each sitemap document under its host's robots.txt and
// politeness clock; a FetchWorker fetches it and reads it as it streams in;
// a parse lane of the Processor keeps its page URLs to the crawl's scope
// (off the HostSelector's thread) and sends what it named back; the
// HostSelector's walk turns that into page URLs for the Frontier, child
// sitemaps to fetch, and an outcome for Storage.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <caf/meta/type_name.hpp>

#include "core/crawl/crawl_job.h"
#include "core/crawl/records.h"
#include "core/hosts/sitemap_ledger.h"
#include "core/sitemap/sitemap_parser.h"
#include "messages/frontier.h"

namespace actorcrawl {

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, SitemapLink& x) {
  return f(caf::meta::type_name("SitemapLink"), x.url, x.host_key, x.lastmod_ms);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, SitemapRow& x) {
  return f(caf::meta::type_name("SitemapRow"), x.url, x.host_key, x.status, x.reason, x.urls_found, x.urls_accepted,
           x.fetched_at_ms, x.named_by);
}

// Where a sitemap's URLs may point: one origin and the path under it.
// Inspected as part of sitemap_fetch, with no type ID of its own.
template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, SitemapScope::Grant& x) {
  return f(caf::meta::type_name("SitemapScope::Grant"), x.origin, x.path);
}

// HostSelector -> FetchWorker: fetch one sitemap document (job.seq carries
// kSitemapSeqBit). One try, no retries: a failure is the document's outcome,
// and the next run tries again. `grants`: its SitemapScope, where its URLs
// may point, passed on to the parse lane.
struct sitemap_fetch {
  CrawlJob job;
  std::vector<SitemapScope::Grant> grants;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, sitemap_fetch& x) {
  return f(caf::meta::type_name("sitemap_fetch"), x.job, x.grants);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, SitemapCounts& x) {
  return f(caf::meta::type_name("SitemapCounts"), x.urls_found, x.urls_accepted, x.dropped, x.lastmod_missing,
           x.lastmod_invalid);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, SitemapReport& x) {
  return f(caf::meta::type_name("SitemapReport"), x.kind, x.error, x.error_detail, x.gzipped, x.bytes_in,
           x.bytes_decoded, x.counts);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, SitemapParse& x) {
  return f(caf::meta::type_name("SitemapParse"), x.failure, x.cut_short, x.redirect_to, x.report, x.links,
           x.out_of_scope);
}

// FetchWorker -> Processor (-> a parse lane) -> HostSelector: a sitemap
// document as the worker read it while it streamed in (no body crosses:
// core/hosts/sitemap_reading.h), then, from the lane, with its page URLs
// kept to the crawl's scope (`parse.out_of_scope` counts the rest). The
// lane checks what came over the wire (an enum out of range is refused).
struct sitemap_parsed {
  CrawlJob job;
  SitemapParse parse;
  std::int64_t fetch_ms = 0;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, sitemap_parsed& x) {
  return f(caf::meta::type_name("sitemap_parsed"), x.job, x.parse, x.fetch_ms);
}

// HostSelector -> Frontier: page URLs a sitemap named, offered like links
// (traps, dedup) at depth 1, with their <lastmod>.
struct sitemap_links {
  std::string sitemap_url;
  std::vector<SitemapLink> links;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, sitemap_links& x) {
  return f(caf::meta::type_name("sitemap_links"), x.sitemap_url, x.links);
}

// HostSelector -> Frontier: how many sitemap documents have not ended yet
// (queued, fetching or being parsed). The crawl is not over while any has
// not: its URLs may still come. Sent after the sitemap_links of a
// document, whenever the number changes.
struct sitemaps_open {
  std::int64_t count = 0;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, sitemaps_open& x) {
  return f(caf::meta::type_name("sitemaps_open"), x.count);
}

// HostSelector -> Storage: sitemap outcomes (rows), and refusals of sitemap
// URLs that never became documents (named again: sitemap_seen), counted.
struct store_sitemap {
  std::vector<SitemapRow> rows;
  std::vector<SitemapOutcomeCount> refusals;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, store_sitemap& x) {
  return f(caf::meta::type_name("store_sitemap"), x.rows, x.refusals);
}

// HostSelector -> Storage (request): the sitemaps an earlier run read that
// this one does not fetch again: fetched (or redirected) ones, and with
// revisit_after only those fetched at or after `fetched_since_ms`.
struct load_sitemaps {
  std::int64_t fetched_since_ms = 0;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, load_sitemaps& x) {
  return f(caf::meta::type_name("load_sitemaps"), x.fetched_since_ms);
}

// Storage -> HostSelector: the answer to load_sitemaps.
struct sitemap_history {
  std::vector<std::string> urls;
  // Fetched by an earlier run before `fetched_since_ms` (with revisits on):
  // read again at the start of this run, for their <lastmod>s.
  std::vector<std::string> due;
  // Where earlier runs left sitemaps unread (CrawlStore::sitemaps_unfinished):
  // read at the start of this run.
  std::vector<std::string> unfinished;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, sitemap_history& x) {
  return f(caf::meta::type_name("sitemap_history"), x.urls, x.due, x.unfinished);
}

}  // namespace actorcrawl
