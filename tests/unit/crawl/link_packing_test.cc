#include "core/crawl/link_packing.h"

#include <algorithm>
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "tests/unit/web/cpu_cost.h"

using namespace actorcrawl;

namespace {

LinkList rows_of(std::size_t n) {
  LinkList rows;
  for (std::size_t i = 0; i < n; ++i)
    rows.push_back(LinkRow{"http://h" + std::to_string(i % 50) + ".test/section/page-" + std::to_string(i) + ".html",
                           i % 7 == 0, i % 3 != 0});
  return rows;
}

// The first n links of `rows`.
LinkList first(const LinkList& rows, std::size_t n) {
  LinkList out;
  for (std::size_t i = 0; i < n; ++i)
    out.push_back(rows.row(i));
  return out;
}

}  // namespace

TEST_CASE("link packing: rows and followed links come back as they went", "[link_packing]") {
  for (std::size_t n : {0, 1, 30, 1000}) {
    const auto rows = rows_of(n);
    LinkList back{LinkRow{"left over", false, false}};
    REQUIRE(unpack_link_rows(pack_link_rows(rows), back));
    CHECK(back == rows);
    CHECK(back.rows() == rows.rows());
  }
  // A URL of any bytes and any length (a length that takes several bytes).
  const std::vector<LinkRow> odd{LinkRow{"", true, true}, LinkRow{std::string("a\0b\n\xff", 5), false, true},
                                 LinkRow{std::string(70000, 'x'), true, false}};
  LinkList back;
  REQUIRE(unpack_link_rows(pack_link_rows(LinkList{odd}), back));
  CHECK(back.rows() == odd);
  CHECK(back.url(1) == std::string_view("a\0b\n\xff", 5));

  const std::vector<FollowedLink> followed{FollowedLink{0, -1, "", ""}, FollowedLink{300, 2, "", ""},
                                           FollowedLink{-1, 0, "http://b.test/", ""},
                                           FollowedLink{-1, -1, "http://d.test/", "d.test"},
                                           FollowedLink{5, -1, "", "e.test"}};
  std::vector<FollowedLink> followed_back;
  REQUIRE(unpack_followed_links(pack_followed_links(followed), followed_back));
  CHECK(followed_back == followed);
  // A link and a host by position take a byte each: 30 links are 60 bytes
  // where their URLs and host keys were about 1,800.
  std::vector<FollowedLink> thirty;
  for (std::int32_t i = 0; i < 30; ++i)
    thirty.push_back(FollowedLink{i, i % 4, "", ""});
  CHECK(pack_followed_links(thirty).size() == 60);
}

TEST_CASE("link packing: a string that does not decode whole is refused, and nothing is read from it",
          "[link_packing]") {
  // Cut inside a row: refused. (Cut between rows it is a shorter list: the
  // message framing, not the packing, says where a message ends.)
  const auto three = rows_of(3);
  const std::string good = pack_link_rows(three);
  std::vector<std::size_t> row_ends;
  for (std::size_t i = 1; i <= three.size(); ++i)
    row_ends.push_back(pack_link_rows(first(three, i)).size());
  LinkList rows;
  for (std::size_t cut = 1; cut < good.size(); ++cut) {
    INFO("cut at " << cut);
    rows = LinkList{LinkRow{"stale", false, false}};
    const auto end = std::find(row_ends.begin(), row_ends.end(), cut);
    if (end != row_ends.end()) {
      REQUIRE(unpack_link_rows(std::string_view(good).substr(0, cut), rows));
      CHECK(rows.size() == static_cast<std::size_t>(end - row_ends.begin()) + 1);
      continue;
    }
    CHECK_FALSE(unpack_link_rows(std::string_view(good).substr(0, cut), rows));
    CHECK(rows.empty());
  }
  // A length past the end, a length of more than five bytes, one over
  // INT32_MAX, and flags with an unknown bit.
  CHECK_FALSE(unpack_link_rows(std::string("\x05" "ab\x00", 4), rows));
  CHECK_FALSE(unpack_link_rows(std::string("\xff\xff\xff\xff\xff\x01", 6), rows));
  CHECK_FALSE(unpack_link_rows(std::string("\x80\x80\x80\x80\x08", 5), rows));
  CHECK_FALSE(unpack_link_rows(std::string("\x01" "a\x04", 3), rows));
  CHECK(unpack_link_rows(std::string("\x01" "a\x03", 3), rows));

  std::vector<FollowedLink> followed;
  const std::string followed_good = pack_followed_links({FollowedLink{-1, -1, "http://x.test/", "x.test"}});
  for (std::size_t cut = 1; cut < followed_good.size(); ++cut) {
    INFO("cut at " << cut);
    CHECK_FALSE(unpack_followed_links(std::string_view(followed_good).substr(0, cut), followed));
    CHECK(followed.empty());
  }
  // Positions over INT32_MAX - 1 would wrap: refused.
  CHECK_FALSE(unpack_followed_links(std::string("\xff\xff\xff\xff\x07\x00", 6), followed));
  // A position below -1 is packed as -1 with nothing spelled out: the
  // reader then refuses that link (followed_target), not the message.
  REQUIRE(unpack_followed_links(pack_followed_links({FollowedLink{-9, -4, "", ""}}), followed));
  REQUIRE(followed.size() == 1);
  CHECK(followed[0].link == -1);
  CHECK(followed[0].url.empty());
}

TEST_CASE("link packing: unpacking costs linear in the packed bytes, whatever they hold",
          "[link_packing][linear]") {
  using namespace actorcrawl::testing;
  // Into one vector a size, as a deserializer reading message after message
  // would: a fresh vector of a hundred megabytes is fresh pages from the
  // kernel at every call, and one of a few megabytes is not (malloc keeps
  // it), which would make the large input's cost the kernel's.
  const auto rows_cost = [](const std::string& packed) {
    LinkList rows;
    return least_cpu_cost([&] { (void)unpack_link_rows(packed, rows); }, 3);
  };
  const auto followed_cost = [](const std::string& packed) {
    std::vector<FollowedLink> links;
    return least_cpu_cost([&] { (void)unpack_followed_links(packed, links); }, 3);
  };
  // Ordinary: rows of real-looking URLs. Hostile: the smallest entries
  // there are (the most entries a byte), one URL as long as the input, and
  // a long run of continuation bytes before a cut.
  const auto ordinary = [](std::size_t bytes) {
    std::string packed;
    for (std::size_t i = 0; packed.size() < bytes; i += 64)
      packed += pack_link_rows(rows_of(64));
    return packed;
  };
  const auto tiny_rows = [](std::size_t bytes) {
    std::string packed;
    while (packed.size() < bytes)
      packed += std::string("\x00\x02", 2);
    return packed;
  };
  const auto one_long_url = [](std::size_t bytes) { return pack_link_rows({LinkRow{std::string(bytes, 'u'), false, true}}); };
  // A page's followed links as a lane packs them: positions in its row.
  // Each becomes a 72-byte FollowedLink, so they are the baseline for the
  // hostile followed links, which take as much memory a byte (rows grow
  // less: measured against the rows, the followed links' growth is the
  // caches', not their own).
  const auto ordinary_followed = [](std::size_t bytes) {
    std::vector<FollowedLink> page;
    for (std::int32_t i = 0; i < 30; ++i)
      page.push_back(FollowedLink{i, i % 7, {}, {}});
    const std::string one = pack_followed_links(page);
    std::string packed;
    while (packed.size() < bytes)
      packed += one;
    return packed;
  };
  const auto tiny_followed = [](std::size_t bytes) {
    std::string packed;
    while (packed.size() < bytes)
      packed += std::string("\x01\x00\x00", 3);  // link 0, host spelled out as ""
    return packed;
  };
  const std::size_t small = kLinearityBytes;
  const std::size_t large = kLinearityBytes * kLinearityFactor;
  const auto plain = cost_growth(rows_cost, ordinary(small), ordinary(large));
  WorstGrowth worst;
  const auto rows = cost_growth(rows_cost, tiny_rows(small), tiny_rows(large), plain.ratio);
  worst.take(rows.ratio, plain.ratio, "two-byte rows");
  const auto url = cost_growth(rows_cost, one_long_url(small), one_long_url(large), plain.ratio);
  worst.take(url.ratio, plain.ratio, "one URL the size of the input");
  const auto plain_followed = cost_growth(followed_cost, ordinary_followed(small), ordinary_followed(large));
  const auto followed =
    cost_growth(followed_cost, tiny_followed(small), tiny_followed(large), plain_followed.ratio);
  worst.take(followed.ratio, plain_followed.ratio, "three-byte followed links");
  INFO("ordinary growth: rows " << plain.ratio << ", followed links " << plain_followed.ratio
                                << "; costliest: " << worst.name << " at " << worst.relative << "x of its own");
  CHECK(worst.relative <= kMaxRelativeGrowth);
}
