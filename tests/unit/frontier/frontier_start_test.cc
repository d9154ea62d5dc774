#include "core/frontier/frontier_start.h"

#include <catch2/catch.hpp>

namespace actorcrawl {
namespace {

FrontierSettings settings_for(CrawlProfile profile) {
  FrontierSettings s;
  s.profile = profile;
  s.site.max_pages = 10;
  s.domain.max_crawls_per_node = 4;
  return s;
}

}  // namespace

TEST_CASE("crawl profiles read and print by name", "[frontier_start]") {
  CHECK(parse_crawl_profile("site") == CrawlProfile::site);
  CHECK(parse_crawl_profile("domains") == CrawlProfile::domains);
  CHECK_FALSE(parse_crawl_profile("Domains"));
  CHECK_FALSE(parse_crawl_profile(""));
  CHECK(std::string{to_string(CrawlProfile::domains)} == "domains");
}

TEST_CASE("site seeds are offered as normalized URLs", "[frontier_start]") {
  const auto t = seed_targets(CrawlProfile::site, {"HTTP://Example.COM:80/a/../b#top", "not a url", "https://x.test/"});
  REQUIRE(t.size() == 2);
  CHECK(t[0].url == "http://example.com/b");
  CHECK(t[0].host_key == "example.com");
  CHECK(t[1].url == "https://x.test/");
}

TEST_CASE("domains seeds become their hosts' root pages, once per host", "[frontier_start]") {
  const auto t =
    seed_targets(CrawlProfile::domains, {"https://blog.example.com/post/1?x=2", "http://blog.example.com/other",
                                         "http://other.test:8080/deep/page"});
  REQUIRE(t.size() == 2);
  CHECK(t[0].url == "https://blog.example.com/");
  CHECK(t[0].host_key == "blog.example.com");
  CHECK(t[1].url == "http://other.test:8080/");
  CHECK(t[1].host_key == "other.test:8080");
}

TEST_CASE("the resume query names the profile and, for domains, the seed host", "[frontier_start]") {
  const auto seeds = seed_targets(CrawlProfile::domains, {"http://a.test/", "http://b.test/"});
  const auto d = resume_query(settings_for(CrawlProfile::domains), seeds);
  CHECK(d.profile == CrawlProfile::domains);
  CHECK(d.seed_host_key == "a.test");
  CHECK(d.max_crawls_per_node == 4);
  const auto s = resume_query(settings_for(CrawlProfile::site), seeds);
  CHECK(s.profile == CrawlProfile::site);
  CHECK(s.seed_host_key.empty());
}

TEST_CASE("start_frontier builds the profile's frontier from its resume", "[frontier_start]") {
  SECTION("site: a fresh crawl has no note and offers seeds") {
    auto started = start_frontier(settings_for(CrawlProfile::site), FrontierResume{});
    REQUIRE(started.frontier);
    CHECK(started.note.empty());
    CHECK(started.frontier->offer("http://a.test/", "a.test", 0, ""));
    CHECK(started.frontier->queued() == 1);
  }
  SECTION("site: a resumed crawl knows what it saw") {
    FrontierResume resume;
    resume.site.seen = {SeenUrl{1, 0}, SeenUrl{2, 1}, SeenUrl{3, 1}};
    resume.site.next_seq = 4;
    resume.site.queued = 1;
    resume.site.settled = 2;
    auto started = start_frontier(settings_for(CrawlProfile::site), resume);
    CHECK(started.note == "resuming: 1 URLs queued, 2 already crawled");
    CHECK(started.frontier->seen() == 3);
    CHECK(started.frontier->settled() == 2);
  }
  SECTION("domains: a known seed host continues the graph") {
    FrontierResume resume;
    resume.domains.seed_known = true;
    resume.domains.nodes = {DomainNode{"a.test", "http://a.test/", 1}, DomainNode{"b.test", "https://b.test/", 2}};
    resume.domains.next_seq = 10;
    auto started = start_frontier(settings_for(CrawlProfile::domains), resume);
    CHECK(started.note == "resuming: 2 nodes below max_crawls_per_node queued again at depth 0");
    CHECK(started.frontier->queued() == 2);
  }
}

}  // namespace actorcrawl
