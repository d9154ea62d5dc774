#include "core/crawl/page_pipeline.h"

#include <nlohmann/json.hpp>

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
                           std::string product_token)
    : chain_(std::move(chain)), links_(std::move(links)), product_token_(std::move(product_token)) {}

ProcessedPage PagePipeline::process(const CrawlJob& job, const FetchedPage& page, const FetchFacts& facts) const {
  PageAnalysis analysis = chain_->run(page);
  const RobotsDirectives robots = page_directives(analysis, facts.x_robots_tag, product_token_);
  analysis.follow_links = !robots.nofollow;

  ProcessedPage out;
  PageRow& row = out.row;
  row.url = job.url;
  row.host_key = job.host_key;
  row.depth = job.depth;
  row.status_code = page.status_code;
  row.content_type = page.content_type;
  row.bytes = static_cast<std::int64_t>(page.body.size());
  row.fetch_ms = facts.fetch_ms;
  row.fetched_at_ms = facts.fetched_at_ms;
  row.final_url = page.final_url;
  row.redirect_chain = redirect_chain_json(facts.redirect_urls, facts.redirect_statuses);
  row.truncated = page.truncated;
  row.attempts = facts.attempts;
  row.robots_directives = robots.text();
  // noindex: the page is recorded (it was fetched, its links count) but its
  // text is not kept.
  if (!robots.noindex) {
    row.title = std::move(analysis.title);
    row.description = std::move(analysis.description);
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
