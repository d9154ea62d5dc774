#include "core/crawl/followed_links.h"

#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "tests/unit/web/cpu_cost.h"

using namespace actorcrawl;

namespace {

// A row as link selection leaves it: every link in document order, the
// followed ones marked, the other hosts' keys once each; and to_crawl,
// the followed links with their host keys.
struct Selected {
  PageRow row;
  std::vector<DiscoveredLink> to_crawl;
};

Selected page_on(const std::string& host, const std::vector<std::pair<std::string, bool>>& links) {
  Selected s;
  s.row.url = "http://" + host + "/";
  s.row.host_key = host;
  for (const auto& [url, followed] : links) {
    s.row.links.push_back(LinkRow{url, false, followed});
    const std::string link_host = url.substr(7, url.find('/', 7) - 7);
    if (link_host != host && std::find(s.row.link_host_keys.begin(), s.row.link_host_keys.end(), link_host) ==
                               s.row.link_host_keys.end())
      s.row.link_host_keys.push_back(link_host);
    if (followed)
      s.to_crawl.push_back(DiscoveredLink{url, link_host});
  }
  return s;
}

// What the receiver reads back: each followed link's URL and host key.
std::vector<DiscoveredLink> read_back(const PageRow& row, const std::vector<FollowedLink>& links) {
  std::vector<DiscoveredLink> out;
  for (const auto& link : links) {
    auto target = followed_target(row, link);
    REQUIRE(target);
    out.push_back(DiscoveredLink{std::string{target->url}, target->host_key});
  }
  return out;
}

}  // namespace

TEST_CASE("followed links: a site crawl's links are named by position, no string crosses again",
          "[followed_links]") {
  Selected s = page_on("a.test", {{"http://a.test/1", true},
                                  {"http://b.test/2", false},  // out of scope
                                  {"http://b.test/3", true},
                                  {"http://a.test/4", true},
                                  {"http://c.test/5", true}});
  const auto expected = s.to_crawl;
  const auto links = followed_by_position(s.row, std::move(s.to_crawl));
  REQUIRE(links.size() == 4);
  CHECK(links[0].link == 0);
  CHECK(links[0].host == -1);
  CHECK(links[1].link == 2);
  CHECK(links[1].host == 0);  // b.test, the row's first other host
  CHECK(links[2].link == 3);
  CHECK(links[3].link == 4);
  CHECK(links[3].host == 1);
  for (const auto& link : links) {
    CHECK(link.url.empty());
    CHECK(link.host_key.empty());
  }
  CHECK(read_back(s.row, links) == expected);
}

TEST_CASE("followed links: what the row has no place for is spelled out", "[followed_links]") {
  // A domain crawl follows each other host's root, which is no link of the
  // page; its host is one of the row's.
  Selected s = page_on("a.test", {{"http://b.test/deep/page", false}, {"http://c.test/x", false}});
  s.to_crawl = {DiscoveredLink{"http://b.test/", "b.test"}, DiscoveredLink{"http://c.test/", "c.test"}};
  // And a host the row does not list (a page reached by a redirect to
  // another host resolves its own links against that one).
  s.to_crawl.push_back(DiscoveredLink{"http://d.test/", "d.test"});
  const auto expected = s.to_crawl;
  const auto links = followed_by_position(s.row, std::move(s.to_crawl));
  REQUIRE(links.size() == 3);
  CHECK(links[0].link == -1);
  CHECK(links[0].url == "http://b.test/");
  CHECK(links[0].host == 0);
  CHECK(links[1].host == 1);
  CHECK(links[2].host == -1);
  CHECK(links[2].host_key == "d.test");
  CHECK(read_back(s.row, links) == expected);
}

TEST_CASE("followed links: a position the row lacks is refused, never read", "[followed_links]") {
  Selected s = page_on("a.test", {{"http://a.test/1", true}, {"http://b.test/2", true}});
  CHECK(followed_target(s.row, FollowedLink{1, 0, "", ""}));
  CHECK_FALSE(followed_target(s.row, FollowedLink{2, -1, "", ""}));
  CHECK_FALSE(followed_target(s.row, FollowedLink{1, 1, "", ""}));
  CHECK_FALSE(followed_target(s.row, FollowedLink{-2, -1, "http://a.test/x", ""}));
  CHECK_FALSE(followed_target(s.row, FollowedLink{0, -5, "", ""}));
  CHECK_FALSE(followed_target(s.row, FollowedLink{-1, -1, "", ""}));  // no URL at all
  PageRow hostless = s.row;
  hostless.host_key.clear();
  CHECK_FALSE(followed_target(hostless, FollowedLink{0, -1, "", ""}));
}

TEST_CASE("followed links: naming costs linear in the links, however many hosts they reach",
          "[followed_links][linear]") {
  using namespace actorcrawl::testing;
  // Links each to a host of its own are the worst case for finding a
  // host's position; links on the page's own host the ordinary one.
  const auto page = [](std::size_t n, bool each_its_own_host) {
    std::vector<std::pair<std::string, bool>> links;
    for (std::size_t i = 0; i < n; ++i)
      links.emplace_back(each_its_own_host ? "http://h" + std::to_string(i) + ".test/p"
                                           : "http://a.test/p" + std::to_string(i),
                         true);
    return page_on("a.test", links);
  };
  const auto cost = [](const Selected& s) {
    return least_cpu_cost([&] {
      auto to_crawl = s.to_crawl;
      (void)followed_by_position(s.row, std::move(to_crawl));
    }, 3);
  };
  const std::size_t small = 4096;
  const std::size_t large = small * kLinearityFactor;
  const auto ordinary = cost_growth(cost, page(small, false), page(large, false));
  const auto hosts = cost_growth(cost, page(small, true), page(large, true), ordinary.ratio);
  INFO("ordinary growth " << ordinary.ratio << ", a host a link " << hosts.ratio);
  CHECK(hosts.ratio <= kMaxRelativeGrowth * ordinary.ratio);
}
