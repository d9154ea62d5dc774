#include "core/page/page_pipeline.h"

#include <nlohmann/json.hpp>

#include "core/crawl/content_digest.h"
#include "core/crawl/kept_body.h"

#include <algorithm>
#include <utility>

namespace actorcrawl {

RobotsDirectives page_directives(const PageAnalysis& analysis, const std::string& x_robots_tag,
                                 const std::string& product_token) {
  RobotsDirectives robots;
  robots.nofollow = !analysis.follow_links;
  robots.noindex = analysis.noindex;
  if (!x_robots_tag.empty())
    read_x_robots_tag(x_robots_tag, product_token, robots);
  return robots;
}

std::string redirect_chain_json(const std::vector<std::string>& urls, const std::vector<std::int32_t>& statuses) {
  if (urls.empty())
    return {};
  nlohmann::json hops = nlohmann::json::array();
  for (std::size_t i = 0; i < urls.size(); ++i)
    hops.push_back({{"url", urls[i]}, {"status", i < statuses.size() ? statuses[i] : 0}});
  return hops.dump();
}

PagePipeline::PagePipeline(std::shared_ptr<const ProcessorChain> chain, std::shared_ptr<const LinkSelector> links,
                           std::string product_token, std::size_t max_redirects, std::int64_t max_body_bytes,
                           bool keep_bodies)
    : chain_(std::move(chain)),
      links_(std::move(links)),
      product_token_(std::move(product_token)),
      max_redirects_(max_redirects),
      max_body_bytes_(max_body_bytes),
      keep_bodies_(keep_bodies),
      truncated_hosts_(std::make_shared<OncePerHost>()) {}

void PagePipeline::archive(const HttpExchange& exchange) const {
  if (ResponseArchive* archive = chain_->archive())
    archive->archive(exchange);
}

RedirectStep PagePipeline::redirect_step(const CrawlJob& job, std::int32_t status, const std::string& location) const {
  RedirectStep step;
  if (!is_redirect_status(status) || location.empty())
    return step;
  auto target = Url::parse(location);
  if (!target)
    return step;  // nothing to follow: recorded as the redirect it is
  const std::string& here = job.target_url();
  const bool seen = target->str() == job.url || target->str() == here ||
                    std::find(job.hop_urls.begin(), job.hop_urls.end(), target->str()) != job.hop_urls.end();
  if (seen) {
    step.kind = RedirectStep::Kind::failed;
    step.reason = "redirect_loop";
    step.detail = "redirect loop back to " + target->str();
    return step;
  }
  if (job.hop_urls.size() + 1 > max_redirects_) {
    step.kind = RedirectStep::Kind::failed;
    step.reason = "too_many_redirects";
    step.detail = "more than " + std::to_string(max_redirects_) + " redirects";
    return step;
  }
  if (!links_->follows_redirect_to(*target)) {
    step.kind = RedirectStep::Kind::stop;
    return step;
  }
  step.kind = RedirectStep::Kind::follow;
  step.next = job;
  step.next.hop_urls.push_back(here);
  step.next.hop_statuses.push_back(status);
  step.next.fetch_url = target->str();
  step.next.fetch_host_key = target->host_key();
  return step;
}

namespace {

// What every fetch's row says, whatever its answer: where, when, how.
PageRow fetch_row(const CrawlJob& job, const FetchedPage& page, const FetchFacts& facts) {
  PageRow row;
  row.url = job.url;
  row.host_key = job.host_key;
  row.depth = job.depth;
  row.status_code = page.status_code;
  row.fetch_ms = facts.fetch_ms;
  row.fetched_at_ms = facts.fetched_at_ms;
  row.final_url = page.final_url;
  row.attempts = facts.attempts;
  row.etag = facts.etag;
  row.last_modified = facts.last_modified;
  return row;
}

}  // namespace

ProcessedPage PagePipeline::process(const CrawlJob& job, const FetchedPage& page, const FetchFacts& facts) const {
  if (facts.not_modified) {
    // A 304: nothing to parse, the stored page stands (CrawlStore keeps it).
    ProcessedPage out;
    out.row = fetch_row(job, page, facts);
    out.row.not_modified = true;
    return out;
  }
  PageAnalysis analysis = chain_->run(page);
  const RobotsDirectives robots = page_directives(analysis, facts.x_robots_tag, product_token_);
  analysis.follow_links = !robots.nofollow;

  ProcessedPage out;
  out.row = fetch_row(job, page, facts);
  PageRow& row = out.row;
  row.content_type = page.content_type;
  row.bytes = static_cast<std::int64_t>(page.body.size());
  row.redirect_chain = redirect_chain_json(facts.redirect_urls, facts.redirect_statuses);
  row.truncated = page.truncated;
  if (page.truncated && truncated_hosts_->first(job.host_key))
    out.truncation_note =
      "pages of " + job.host_key + " are cut at max_body_bytes (" +
      (max_body_bytes_ > 0 ? std::to_string(max_body_bytes_) + " bytes" : std::string{"its limit"}) + "), " +
      page.final_url + " first: what comes after the cut (links, text) is not read; raise max_body_bytes (e.g. "
      "--max-body-bytes 8MiB) to read such pages whole. Told once per host; pages.truncated marks each";
  row.robots_directives = robots.text();
  row.content_digest = content_digest(page.body);
  row.charset = page.charset;
  // noindex: the page is recorded (it was fetched, its links count) but its
  // text is not kept.
  // Items are the page's text too.
  if (!robots.noindex) {
    row.title = std::move(analysis.title);
    row.description = std::move(analysis.description);
    row.items = std::move(analysis.items);
  }
  row.processor_failures = std::move(analysis.processor_failures);
  row.processors_took = analysis.processors_took;
  row.processors_failed = analysis.processors_failed;
  // A redirect's body is no page of its own, and a noindex page's text is
  // not kept; any other is kept whole, so a processor run again from the
  // store sees what this run saw.
  const bool redirect = is_redirect_status(page.status_code) && !facts.location.empty();
  if (keep_bodies_ && !redirect && !robots.noindex && !page.body.empty())
    row.body = keep_body(page.body);
  if (redirect) {
    // A redirect recorded, not followed: its target is its link.
    std::vector<std::string> urls = facts.redirect_urls;
    std::vector<std::int32_t> statuses = facts.redirect_statuses;
    urls.push_back(page.final_url);
    statuses.push_back(page.status_code);
    row.redirect_chain = redirect_chain_json(urls, statuses);
    row.final_url = facts.location;
    row.links = LinkList{LinkRow{facts.location, false}};
    if (auto target = Url::parse(facts.location); target && target->host_key() != job.host_key)
      row.link_host_keys = {target->host_key()};
    return out;
  }
  // Links resolve against where the body came from: after a redirect, that
  // is the final URL, not the one that was asked for.
  if (auto base = Url::parse(page.final_url)) {
    SelectedLinks links = links_->select(*base, analysis);
    row.links = std::move(links.all);
    row.link_host_keys = std::move(links.other_hosts);
    row.links_dropped = static_cast<std::int64_t>(links.links_dropped);
    row.canonical_url = std::move(links.canonical);
    out.to_crawl = std::move(links.to_crawl);
  }
  return out;
}

}  // namespace actorcrawl
