#include "core/crawl/link_list.h"

#include <catch2/catch.hpp>
#include <string>
#include <vector>

using namespace actorcrawl;

TEST_CASE("link list: links keep their order, bytes and flags", "[link_list]") {
  LinkList links;
  CHECK(links.empty());
  links.push_back("http://a.test/", false);
  links.push_back(std::string("x\0y", 3), true, true);  // any bytes, NUL included
  links.push_back("", false, true);                    // an empty URL is a place like any
  links.push_back(LinkRow{"http://b.test/long/" + std::string(5000, 'p'), true, false});
  REQUIRE(links.size() == 4);
  CHECK(links.url(0) == "http://a.test/");
  CHECK(links.url(1) == std::string_view("x\0y", 3));
  CHECK(links.url(2).empty());
  CHECK(links.url(3).size() == 5019);
  CHECK(links.url_bytes() == 14 + 3 + 0 + 5019);
  // Room is counted against the 4 GiB a list can hold in all.
  CHECK(LinkList{}.fits(LinkList::kMaxUrlBytes));
  CHECK_FALSE(LinkList{}.fits(LinkList::kMaxUrlBytes + 1));
  CHECK(links.fits(LinkList::kMaxUrlBytes - links.url_bytes()));
  CHECK_FALSE(links.fits(LinkList::kMaxUrlBytes - links.url_bytes() + 1));
  CHECK_FALSE(links.nofollow(0));
  CHECK_FALSE(links.followed(0));
  CHECK(links.nofollow(1));
  CHECK(links.followed(1));
  CHECK_FALSE(links.nofollow(2));
  CHECK(links.followed(2));
  CHECK(links.nofollow(3));
  CHECK_FALSE(links.followed(3));

  links.set_followed(0);
  CHECK(links.followed(0));
  CHECK_FALSE(links.nofollow(0));

  std::vector<std::string> seen;
  for (const auto& link : links)
    seen.emplace_back(link.url);
  CHECK(seen == std::vector<std::string>{"http://a.test/", std::string("x\0y", 3), "", std::string{links.url(3)}});
  CHECK(links[1].nofollow);
  CHECK(links.row(3) == LinkRow{std::string{links.url(3)}, true, false});
}

TEST_CASE("link list: spelled out and back, compared, cleared", "[link_list]") {
  const std::vector<LinkRow> rows{{"http://a.test/1", false, true}, {"http://a.test/2", true, false}};
  const LinkList from_rows{rows};
  CHECK(from_rows.rows() == rows);
  const LinkList listed{LinkRow{"http://a.test/1", false, true}, LinkRow{"http://a.test/2", true, false}};
  CHECK(listed == from_rows);

  // Equal needs the same URLs, cut at the same places, with the same flags.
  CHECK(LinkList{LinkRow{"ab", false}, LinkRow{"c", false}} != LinkList{LinkRow{"a", false}, LinkRow{"bc", false}});
  CHECK(LinkList{LinkRow{"a", false}} != LinkList{LinkRow{"a", true}});
  LinkList followed_later{LinkRow{"a", false}};
  followed_later.set_followed(0);
  CHECK(followed_later == LinkList{LinkRow{"a", false, true}});

  LinkList cleared = from_rows;
  cleared.clear();
  CHECK(cleared.empty());
  CHECK(cleared.url_bytes() == 0);
  CHECK(cleared == LinkList{});
  cleared.push_back("http://c.test/", false);
  CHECK(cleared.rows() == std::vector<LinkRow>{{"http://c.test/", false, false}});
}
