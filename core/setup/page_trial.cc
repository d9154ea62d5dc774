#include "core/setup/page_trial.h"

#include <chrono>
#include <nlohmann/json.hpp>
#include <thread>

#include "core/clock/clock.h"
#include "core/page/page_pipeline.h"
#include "core/extract/extraction_rules.h"
#include "core/fetch/fetch_engine.h"
#include "core/fetch/request_rules.h"
#include "core/setup/crawl_setup.h"
#include "core/setup/reextraction.h"
#include "core/crawl/kept_body.h"
#include "core/store/kept_pages.h"
#include "core/web/charset.h"
#include "core/web/robots_txt.h"
#include "core/web/url.h"
#include "core/web/json_text.h"

namespace actorcrawl {

namespace {

using json = nlohmann::ordered_json;

// The selectors as one rule of fields named by their selector text.
std::shared_ptr<const ExtractionRules> selector_rules(const std::vector<TrialSelector>& selectors) {
  if (selectors.empty())
    return nullptr;
  json fields = json::object();
  for (const auto& [kind, text] : selectors)
    fields[kind + " " + text] = json{{kind, text}, {"all", true}};
  try {
    return ExtractionRules::compile(json::array({json{{"name", "selected"}, {"fields", fields}}}).dump());
  } catch (const ExtractionRuleError& e) {
    throw ConfigError(e.what());
  }
}

// Waits for `outcome` of the one transfer under way.
FetchOutcome fetch_one(FetchEngine& engine, FetchRequest request) {
  engine.start(std::move(request));
  for (;;)
    for (auto& outcome : engine.perform(std::chrono::milliseconds{100}))
      return std::move(outcome);
}

// What `actorcrawl parse` prints: the page as the pipeline processed it.
std::string trial_json(const char* source, const Url& url, const FetchedPage& page, const FetchFacts& facts,
                       const PagePipeline& pipeline, json redirects, const ExtractionRules* selected_rules,
                       std::int64_t max_body_bytes) {
  CrawlJob job;
  job.url = url.str();
  job.host_key = url.host_key();
  const ProcessedPage processed = pipeline.process(job, page, facts);
  const PageRow& row = processed.row;

  json out = json::object();
  out["source"] = source;
  out["url"] = page.url;
  out["final_url"] = page.final_url;
  out["status"] = page.status_code;
  out["content_type"] = page.content_type;
  out["title"] = row.title;
  out["description"] = row.description;
  out["redirects"] = std::move(redirects);
  json links = json::array();
  for (const auto& link : row.links)
    links.push_back(json{{"url", std::string{link.url}}, {"nofollow", link.nofollow}, {"followed", link.followed}});
  out["links"] = links;
  json items = json::array();
  for (const auto& item : row.items)
    items.push_back(json{{"kind", item.kind}, {"item", json::parse(item.json, nullptr, false)}});
  out["items"] = items;
  json failures = json::array();
  for (const auto& failure : row.processor_failures)
    failures.push_back(json{{"processor", failure.processor}, {"reason", failure.reason}, {"detail", failure.detail}});
  out["processor_failures"] = failures;
  if (selected_rules != nullptr) {
    // Decoded as the extract processor decodes a page.
    const std::string text = to_utf8(page.body, sniff_charset(page.body, page.charset));
    const auto found = selected_rules->extract(page.final_url, page.final_url, text);
    out["selected"] = found.empty() ? json::object() : json::parse(found.front().json, nullptr, false);
  }
  if (page.truncated)
    out["truncated_at_bytes"] = max_body_bytes;
  return json_text(out, 2);
}

// The pipeline a trial runs: the crawl's, its scope that of `url` as a
// seed.
std::shared_ptr<const PagePipeline> trial_pipeline(CrawlConfig& config, const std::string& url_text, std::optional<Url>& url) {
  UrlError why = UrlError::none;
  url = Url::parse(url_text, &why);
  if (!url)
    throw ConfigError("'" + url_text + "' is not a crawlable URL (" + to_string(why) + ")");
  config.seeds = {url->str()};
  return page_pipeline(config, check_crawl(config));
}

}  // namespace

PageTrialResult try_page(const CrawlConfig& given, const std::string& url_text,
                         const std::vector<TrialSelector>& selectors) {
  CrawlConfig config = given;
  std::optional<Url> url;
  const auto pipeline = trial_pipeline(config, url_text, url);
  const auto selected_rules = selector_rules(selectors);
  std::string error;
  const auto rules = RequestRules::make(config.request_headers, config.auth, &error);
  if (!rules)
    throw ConfigError(error);

  FetchEngine engine;
  engine.set_resolve(config.resolve);
  engine.set_proxy(config.proxy, config.proxy_from_environment);
  const auto request_for = [&](const std::string& target, std::int64_t max_body_bytes) {
    FetchRequest r;
    r.url = target;
    r.user_agent = config.user_agent;
    r.timeout_ms = config.request_timeout_ms;
    r.max_body_bytes = max_body_bytes;
    r.max_redirects = static_cast<std::int32_t>(config.max_redirects);
    if (const auto parsed = Url::parse(target))
      rules->apply(*parsed, r);
    return r;
  };

  PageTrialResult result;
  const std::string product_token = product_token_of(config.user_agent);
  if (config.respect_robots_txt) {
    // RFC 9309: the host's robots.txt, its redirects followed, decides.
    const std::string robots_url = url->scheme() + "://" + url->host_key() + "/robots.txt";
    const FetchOutcome robots = fetch_one(engine, request_for(robots_url, 512 * 1024));
    const RobotsRules robots_rules = RobotsRules::from_response(
      robots.error == FetchError::none ? robots.status_code : 0, robots.body, product_token);
    const std::string target = url->path() + (url->has_query() ? "?" + url->query() : std::string{});
    if (!robots_rules.allowed(target)) {
      result.error = "robots.txt of " + url->host_key() + " disallows " + target + " for " + product_token +
                     (robots.error == FetchError::none && robots.status_code < 500 ? std::string{}
                                                                                  : " (it could not be read)") +
                     "; respect_robots_txt: false tries it anyway";
      return result;
    }
    // The crawl's pause between two requests to one host.
    std::this_thread::sleep_for(std::chrono::milliseconds{
      std::min(robots_rules.crawl_delay_ms().value_or(config.politeness_delay_ms), config.max_politeness_delay_ms)});
  }

  FetchRequest page_request = request_for(url->str(), config.max_body_bytes);
  page_request.capture_http = pipeline->reads_response_heads();
  const FetchOutcome outcome = fetch_one(engine, page_request);
  if (outcome.error != FetchError::none) {
    result.error = std::string{"fetching "} + url->str() + " failed: " + to_string(outcome.error) + " (" +
                   outcome.error_detail + ")";
    return result;
  }
  FetchedPage page;
  page.url = url->str();
  page.final_url = outcome.final_url;
  page.status_code = outcome.status_code;
  page.content_type = outcome.content_type;
  page.charset = outcome.charset;
  page.body = outcome.body;
  page.truncated = outcome.truncated;
  page.response_head = outcome.response_head;
  FetchFacts facts;
  facts.fetch_ms = outcome.elapsed_ms;
  facts.fetched_at_ms = epoch_ms();
  for (const auto& hop : outcome.redirects) {
    facts.redirect_urls.push_back(hop.url);
    facts.redirect_statuses.push_back(hop.status);
  }
  facts.x_robots_tag = outcome.x_robots_tag;
  facts.location = outcome.location;
  facts.etag = outcome.etag;
  facts.last_modified = outcome.last_modified;
  json redirects = json::array();
  for (const auto& hop : outcome.redirects)
    redirects.push_back(json{{"url", hop.url}, {"status", hop.status}});
  result.json = trial_json("web", *url, page, facts, *pipeline, std::move(redirects), selected_rules.get(),
                           config.max_body_bytes);
  return result;
}

PageTrialResult try_stored_page(const CrawlConfig& given, const std::string& db_path, const std::string& url_text,
                                const std::vector<TrialSelector>& selectors) {
  CrawlConfig config = given;
  std::optional<Url> url;
  const auto pipeline = trial_pipeline(config, url_text, url);
  const auto selected_rules = selector_rules(selectors);
  KeptPages store(db_path, KeptPages::Access::read, config.bodies_dir);
  PageTrialResult result;
  auto kept = store.find(url->str());
  if (!kept) {
    result.error = "no page " + url->str() + " in " + db_path;
    return result;
  }
  if (kept->body.encoding.empty()) {
    result.error = "the body of " + url->str() + " was not kept in " + db_path +
                   (config.bodies_dir.empty() ? std::string{} : " nor in bodies_dir '" + config.bodies_dir + "'") +
                   " (crawled without keep_bodies, a redirect, an error or a noindex page, or kept by a worker node "
                   "whose bodies file lies elsewhere); "
                   "actorcrawl parse " + url->str() + " fetches it";
    return result;
  }
  KeptBodyError why = KeptBodyError::none;
  const auto body = open_kept_body(kept->body, std::int64_t{1} << 30, &why);
  if (!body) {
    result.error = std::string{"the kept body of "} + url->str() + " cannot be read: " + to_string(why);
    return result;
  }
  FetchFacts facts;
  json redirects = json::parse(kept->redirect_chain.empty() ? "[]" : kept->redirect_chain, nullptr, false);
  if (!redirects.is_array())
    redirects = json::array();
  for (const auto& hop : redirects)
    if (hop.is_object() && hop.contains("url") && hop["url"].is_string()) {
      facts.redirect_urls.push_back(hop["url"].get<std::string>());
      facts.redirect_statuses.push_back(hop.value("status", 0));
    }
  if (kept->robots_directives.find("noindex") != std::string::npos)
    facts.x_robots_tag = "noindex";
  const Url page_url = Url::parse(kept->url).value_or(*url);
  result.json = trial_json("store", page_url, page_of(*kept, *body), facts, *pipeline, std::move(redirects),
                           selected_rules.get(), config.max_body_bytes);
  return result;
}

}  // namespace actorcrawl
