#include "core/page/page_pipeline.h"

#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include "core/page/domain_link_filter.h"

namespace actorcrawl {
namespace {

std::shared_ptr<const PagePipeline> site_pipeline() {
  std::string error;
  auto chain = ProcessorChain::make({"html_links"}, ProcessorChain::Options{}, &error);
  REQUIRE(error.empty());
  auto scope = LinkScope::make({}, {}, {*Url::parse("http://a.test/")}, &error);
  REQUIRE(scope);
  return std::make_shared<const PagePipeline>(std::make_shared<const ProcessorChain>(std::move(chain)),
                                              std::make_shared<const SiteLinkSelector>(std::move(scope),
                                                                                      std::vector<std::string>{}),
                                              "actorcrawl");
}

FetchedPage html_page(const std::string& url, std::string_view body) {
  FetchedPage p;
  p.url = url;
  p.final_url = url;
  p.status_code = 200;
  p.content_type = "text/html";
  p.body = body;
  return p;
}

const CrawlJob kJob{7, "http://a.test/", "a.test", 2};

}  // namespace

TEST_CASE("a page becomes its row and the links to crawl", "[page_pipeline]") {
  const std::string body =
    "<title>Home</title><meta name=description content=Desc>"
    "<a href=/x>x</a><a href=http://b.test/>b</a><a href=/y rel=nofollow>y</a>";
  FetchFacts facts;
  facts.fetch_ms = 12;
  facts.fetched_at_ms = 1000;
  facts.attempts = 2;
  const auto out = site_pipeline()->process(kJob, html_page(kJob.url, body), facts);
  CHECK(out.row.url == "http://a.test/");
  CHECK(out.row.host_key == "a.test");
  CHECK(out.row.depth == 2);
  CHECK(out.row.status_code == 200);
  CHECK(out.row.title == "Home");
  CHECK(out.row.description == "Desc");
  CHECK(out.row.bytes == static_cast<std::int64_t>(body.size()));
  CHECK(out.row.fetch_ms == 12);
  CHECK(out.row.fetched_at_ms == 1000);
  CHECK(out.row.attempts == 2);
  CHECK(out.row.redirect_chain.empty());
  CHECK(out.row.robots_directives.empty());
  REQUIRE(out.row.links.size() == 3);
  CHECK(out.row.links.nofollow(2));
  CHECK(out.row.link_host_keys == std::vector<std::string>{"b.test"});
  REQUIRE(out.to_crawl.size() == 1);
  CHECK(out.to_crawl[0].url == "http://a.test/x");
}

TEST_CASE("X-Robots-Tag adds to meta robots, noindex drops the text, nofollow the links", "[page_pipeline]") {
  const std::string body = "<title>T</title><meta name=robots content=noindex><a href=/x>x</a>";
  SECTION("meta noindex alone keeps the links") {
    const auto out = site_pipeline()->process(kJob, html_page(kJob.url, body), FetchFacts{});
    CHECK(out.row.title.empty());
    CHECK(out.row.robots_directives == "noindex");
    CHECK(out.to_crawl.size() == 1);
    CHECK(out.row.links.size() == 1);
  }
  SECTION("a header for this crawler adds nofollow") {
    FetchFacts facts;
    facts.x_robots_tag = "otherbot: noarchive, actorcrawl: nofollow";
    const auto out = site_pipeline()->process(kJob, html_page(kJob.url, body), facts);
    CHECK(out.row.robots_directives == "noindex,nofollow");
    CHECK(out.to_crawl.empty());
    CHECK(out.row.links.size() == 1);  // recorded, not followed
  }
  SECTION("a header for another crawler is ignored") {
    FetchFacts facts;
    facts.x_robots_tag = "otherbot: nofollow";
    CHECK(site_pipeline()->process(kJob, html_page(kJob.url, body), facts).to_crawl.size() == 1);
  }
}

TEST_CASE("links resolve against the final URL after redirects, and the hops are recorded", "[page_pipeline]") {
  FetchedPage page = html_page(kJob.url, "<a href=next>n</a>");
  page.final_url = "http://a.test/dir/page";
  FetchFacts facts;
  facts.redirect_urls = {"http://a.test/", "http://a.test/dir/page"};
  facts.redirect_statuses = {301, 302};
  const auto out = site_pipeline()->process(kJob, page, facts);
  CHECK(out.row.final_url == "http://a.test/dir/page");
  REQUIRE(out.to_crawl.size() == 1);
  CHECK(out.to_crawl[0].url == "http://a.test/dir/next");
  const auto hops = nlohmann::json::parse(out.row.redirect_chain);
  REQUIRE(hops.size() == 2);
  CHECK(hops[0]["url"] == "http://a.test/");
  CHECK(hops[0]["status"] == 301);
  CHECK(hops[1]["status"] == 302);
}

TEST_CASE("redirect_chain_json: a missing status reads 0", "[page_pipeline]") {
  CHECK(redirect_chain_json({}, {}).empty());
  CHECK(redirect_chain_json({"http://a/"}, {}) == R"([{"status":0,"url":"http://a/"}])");
}

TEST_CASE("the domains profile selects through its link filter", "[page_pipeline]") {
  std::string error;
  auto chain = ProcessorChain::make({"html_links"}, ProcessorChain::Options{}, &error);
  std::shared_ptr<const LinkSelector> filter = DomainLinkFilter::make({"^ads\\."}, 10, &error);
  REQUIRE(filter);
  PagePipeline pipeline(std::make_shared<const ProcessorChain>(std::move(chain)), filter, "actorcrawl");
  const auto out = pipeline.process(
    kJob, html_page(kJob.url, "<a href=/in>i</a><a href=https://b.test/p>b</a><a href=http://ads.c.test/>c</a>"),
    FetchFacts{});
  REQUIRE(out.to_crawl.size() == 1);
  CHECK(out.to_crawl[0].url == "https://b.test/");
  CHECK(out.row.links.size() == 3);
}

TEST_CASE("a redirect in scope is followed as the job's next hop", "[page_pipeline][redirect]") {
  const auto pipeline = site_pipeline();
  const auto step = pipeline->redirect_step(kJob, 301, "http://a.test/moved");
  REQUIRE(step.kind == RedirectStep::Kind::follow);
  CHECK(step.next.seq == kJob.seq);
  CHECK(step.next.url == kJob.url);            // the lease is still the original URL's
  CHECK(step.next.host_key == kJob.host_key);
  CHECK(step.next.target_url() == "http://a.test/moved");
  CHECK(step.next.target_host() == "a.test");
  CHECK(step.next.hop_urls == std::vector<std::string>{"http://a.test/"});
  CHECK(step.next.hop_statuses == std::vector<std::int32_t>{301});
  // The next hop's own redirect adds to the chain.
  const auto again = pipeline->redirect_step(step.next, 302, "http://www.a.test/final");
  REQUIRE(again.kind == RedirectStep::Kind::follow);
  CHECK(again.next.hop_urls == std::vector<std::string>{"http://a.test/", "http://a.test/moved"});
  CHECK(again.next.target_host() == "www.a.test");
}

TEST_CASE("redirect loops, long chains, other schemes and other sites", "[page_pipeline][redirect]") {
  const auto pipeline = site_pipeline();
  CHECK(pipeline->redirect_step(kJob, 200, "http://a.test/x").kind == RedirectStep::Kind::not_redirect);
  CHECK(pipeline->redirect_step(kJob, 304, "http://a.test/x").kind == RedirectStep::Kind::not_redirect);
  CHECK(pipeline->redirect_step(kJob, 301, "").kind == RedirectStep::Kind::not_redirect);
  CHECK(pipeline->redirect_step(kJob, 301, "mailto:x@a.test").kind == RedirectStep::Kind::not_redirect);
  // Back to itself, or to any hop before.
  auto loop = pipeline->redirect_step(kJob, 302, "http://a.test/");
  CHECK(loop.kind == RedirectStep::Kind::failed);
  CHECK(loop.reason == "redirect_loop");
  auto hop = pipeline->redirect_step(kJob, 301, "http://a.test/b").next;
  CHECK(pipeline->redirect_step(hop, 302, "http://a.test/").reason == "redirect_loop");
  // The fifth hop is the last one followed (max_redirects 5).
  CrawlJob far = kJob;
  for (int i = 0; i < 5; ++i) {
    auto step = pipeline->redirect_step(far, 302, "http://a.test/h" + std::to_string(i));
    REQUIRE(step.kind == RedirectStep::Kind::follow);
    far = step.next;
  }
  const auto too_many = pipeline->redirect_step(far, 302, "http://a.test/h9");
  CHECK(too_many.kind == RedirectStep::Kind::failed);
  CHECK(too_many.reason == "too_many_redirects");
  // Out of the crawl's scope: recorded, not followed.
  CHECK(pipeline->redirect_step(kJob, 302, "http://elsewhere.test/").kind == RedirectStep::Kind::stop);
}

TEST_CASE("a redirect not followed is recorded with its target as link and final URL", "[page_pipeline][redirect]") {
  FetchedPage page = html_page(kJob.url, "");
  page.status_code = 302;
  FetchFacts facts;
  facts.location = "http://elsewhere.test/x";
  const auto out = site_pipeline()->process(kJob, page, facts);
  CHECK(out.row.status_code == 302);
  CHECK(out.row.final_url == "http://elsewhere.test/x");
  REQUIRE(out.row.links.size() == 1);
  CHECK(out.row.links.url(0) == "http://elsewhere.test/x");
  CHECK(out.row.link_host_keys == std::vector<std::string>{"elsewhere.test"});
  CHECK(out.to_crawl.empty());
  CHECK(out.row.redirect_chain == R"([{"status":302,"url":"http://a.test/"}])");
}

}  // namespace actorcrawl
