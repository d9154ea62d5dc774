#include "core/crawl/record_packing.h"

#include <catch2/catch.hpp>
#include <cstdint>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "core/crawl/link_packing.h"
#include "core/crawl/packed_bytes.h"
#include "tests/unit/web/cpu_cost.h"

using namespace actorcrawl;

namespace {

// Every field away from its default, strings with bytes of every kind.
PageRow full_row() {
  PageRow row;
  row.url = "http://a.test/page?q=1";
  row.host_key = "a.test";
  row.depth = 7;
  row.status_code = 206;
  row.content_type = "text/html; charset=windows-1252";
  row.title = std::string("T\0itle\xff", 7);
  row.description = "a description";
  row.bytes = std::numeric_limits<std::int64_t>::max();
  row.fetch_ms = -1;
  row.fetched_at_ms = 1'795'000'000'000;
  row.error = "timeout";
  row.final_url = "http://a.test/final";
  row.redirect_chain = R"([{"url":"http://a.test/page?q=1","status":301}])";
  row.truncated = true;
  row.canonical_url = "http://a.test/canonical";
  row.attempts = std::numeric_limits<std::int32_t>::min();
  row.robots_directives = "noindex nofollow";
  row.links = LinkList{LinkRow{"http://b.test/", true, false}, LinkRow{"http://a.test/x", false, true},
                       LinkRow{std::string(300, 'l'), true, true}};
  row.link_host_keys = {"b.test", "", "c.test:8080"};
  row.links_dropped = 12;
  row.items = {ExtractedItem{"page", R"({"title":"T"})"}, ExtractedItem{"", ""}};
  row.processor_failures = {ProcessorFailure{"wordcount", "crashed", "exit 1"}};
  row.processors_took = std::numeric_limits<std::uint64_t>::max();
  row.processors_failed = 5;
  row.etag = "\"e1\"";
  row.last_modified = "Sat, 28 Nov 2026 10:00:00 GMT";
  row.content_digest = "sha1:ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";
  row.charset = "windows-1252";
  row.body = KeptBody{"deflate", 70000, std::string(70000, '\0')};
  row.not_modified = true;
  return row;
}

void check_same(const PageRow& a, const PageRow& b) {
  CHECK(a.url == b.url);
  CHECK(a.host_key == b.host_key);
  CHECK(a.depth == b.depth);
  CHECK(a.status_code == b.status_code);
  CHECK(a.content_type == b.content_type);
  CHECK(a.title == b.title);
  CHECK(a.description == b.description);
  CHECK(a.bytes == b.bytes);
  CHECK(a.fetch_ms == b.fetch_ms);
  CHECK(a.fetched_at_ms == b.fetched_at_ms);
  CHECK(a.error == b.error);
  CHECK(a.final_url == b.final_url);
  CHECK(a.redirect_chain == b.redirect_chain);
  CHECK(a.truncated == b.truncated);
  CHECK(a.canonical_url == b.canonical_url);
  CHECK(a.attempts == b.attempts);
  CHECK(a.robots_directives == b.robots_directives);
  CHECK(a.links == b.links);
  CHECK(a.link_host_keys == b.link_host_keys);
  CHECK(a.links_dropped == b.links_dropped);
  REQUIRE(a.items.size() == b.items.size());
  for (std::size_t i = 0; i < a.items.size(); ++i) {
    CHECK(a.items[i].kind == b.items[i].kind);
    CHECK(a.items[i].json == b.items[i].json);
  }
  REQUIRE(a.processor_failures.size() == b.processor_failures.size());
  for (std::size_t i = 0; i < a.processor_failures.size(); ++i) {
    CHECK(a.processor_failures[i].processor == b.processor_failures[i].processor);
    CHECK(a.processor_failures[i].reason == b.processor_failures[i].reason);
    CHECK(a.processor_failures[i].detail == b.processor_failures[i].detail);
  }
  CHECK(a.processors_took == b.processors_took);
  CHECK(a.processors_failed == b.processors_failed);
  CHECK(a.etag == b.etag);
  CHECK(a.last_modified == b.last_modified);
  CHECK(a.content_digest == b.content_digest);
  CHECK(a.charset == b.charset);
  CHECK(a.body.encoding == b.body.encoding);
  CHECK(a.body.size == b.body.size);
  CHECK(a.body.data == b.body.data);
  CHECK(a.not_modified == b.not_modified);
}

void check_same(const CrawlJob& a, const CrawlJob& b) {
  CHECK(a.seq == b.seq);
  CHECK(a.url == b.url);
  CHECK(a.host_key == b.host_key);
  CHECK(a.depth == b.depth);
  CHECK(a.attempt == b.attempt);
  CHECK(a.fetch_url == b.fetch_url);
  CHECK(a.fetch_host_key == b.fetch_host_key);
  CHECK(a.hop_urls == b.hop_urls);
  CHECK(a.hop_statuses == b.hop_statuses);
  CHECK(a.etag == b.etag);
  CHECK(a.last_modified == b.last_modified);
  CHECK(a.stored_digest == b.stored_digest);
}

CrawlJob full_job() {
  CrawlJob job;
  job.seq = std::numeric_limits<std::uint64_t>::max();
  job.url = "http://a.test/old";
  job.host_key = "a.test";
  job.depth = -3;
  job.attempt = std::numeric_limits<std::uint32_t>::max();
  job.fetch_url = "http://b.test/new";
  job.fetch_host_key = "b.test:8080";
  job.hop_urls = {"http://a.test/old", std::string("\0", 1)};
  job.hop_statuses = {301, std::numeric_limits<std::int32_t>::min()};
  job.etag = "\"e\"";
  job.last_modified = "Sat, 28 Nov 2026 10:00:00 GMT";
  job.stored_digest = "sha1:ABC";
  return job;
}

// An empty row, as a refused unpacking leaves it.
void check_empty(const PageRow& row) {
  check_same(row, PageRow{});
}

// A row of `link_count` ordinary links and as many items: what a lane sends.
PageRow ordinary_row(std::size_t link_count) {
  PageRow row;
  row.url = "http://h1.test/section/page-1.html";
  row.host_key = "h1.test";
  row.title = "An ordinary page";
  row.status_code = 200;
  for (std::size_t i = 0; i < link_count; ++i) {
    row.links.push_back(
      LinkRow{"http://h" + std::to_string(i % 50) + ".test/section/page-" + std::to_string(i) + ".html", false, true});
    row.items.push_back(ExtractedItem{"page", R"({"n":)" + std::to_string(i) + "}"});
    if (i < 50)
      row.link_host_keys.push_back("h" + std::to_string(i) + ".test");
  }
  return row;
}

}  // namespace

TEST_CASE("record packing: a row comes back as it went, every field", "[record_packing]") {
  const PageRow row = full_row();
  PageRow back = ordinary_row(3);  // what the row held before is replaced
  REQUIRE(unpack_page_row(pack_page_row(row), back));
  check_same(back, row);

  PageRow empty_back = full_row();
  REQUIRE(unpack_page_row(pack_page_row(PageRow{}), empty_back));
  check_empty(empty_back);

  // Appended, as a message packs one row after another.
  std::string two = "prefix";
  pack_page_row(row, two);
  CHECK(two.substr(6) == pack_page_row(row));
}

TEST_CASE("record packing: a lease comes back as it went, every field, and a cut one is refused",
          "[record_packing]") {
  const CrawlJob job = full_job();
  CrawlJob back;
  back.hop_urls = {"left over"};
  REQUIRE(unpack_crawl_job(pack_crawl_job(job), back));
  check_same(back, job);
  REQUIRE(unpack_crawl_job(pack_crawl_job(CrawlJob{}), back));
  check_same(back, CrawlJob{});

  const std::string good = pack_crawl_job(job);
  for (std::size_t cut = 0; cut < good.size(); ++cut) {
    INFO("cut at " << cut);
    back = job;
    CHECK_FALSE(unpack_crawl_job(std::string_view(good).substr(0, cut), back));
    check_same(back, CrawlJob{});
  }
  CHECK_FALSE(unpack_crawl_job(good + '\0', back));
  // An attempt past a uint32 (after the seq and two empty strings and a depth of 0).
  std::string wide("\0\0\0\0", 4);
  put_number(wide, std::uint64_t{1} << 32);
  CHECK_FALSE(unpack_crawl_job(wide + pack_crawl_job(CrawlJob{}).substr(5), back));
  std::string fits("\0\0\0\0", 4);
  put_number(fits, std::uint64_t{7});
  REQUIRE(unpack_crawl_job(fits + pack_crawl_job(CrawlJob{}).substr(5), back));
  CHECK(back.attempt == 7);
}

TEST_CASE("record packing: a string that does not decode whole is refused, and the row left empty",
          "[record_packing]") {
  PageRow small = full_row();
  small.body = KeptBody{"identity", 3, "abc"};
  small.links = LinkList{LinkRow{"http://b.test/", true, false}};
  const std::string good = pack_page_row(small);
  PageRow row;
  // Every field is there in every row: no shorter string is a row.
  for (std::size_t cut = 0; cut < good.size(); ++cut) {
    INFO("cut at " << cut);
    row = full_row();
    CHECK_FALSE(unpack_page_row(std::string_view(good).substr(0, cut), row));
    check_empty(row);
  }
  // Anything after the row.
  CHECK_FALSE(unpack_page_row(good + '\0', row));
  check_empty(row);

  // A bool that is not 0 or 1 (not_modified, the last byte).
  std::string bad_flag = good;
  bad_flag.back() = '\2';
  CHECK_FALSE(unpack_page_row(bad_flag, row));

  // The row's links with flags of unknown bits: the row is refused.
  std::string bad_links = good;
  const std::string links = pack_link_rows(small.links);
  const auto at = bad_links.find(links);
  REQUIRE(at != std::string::npos);
  bad_links[at + links.size() - 1] = '\x7f';
  CHECK_FALSE(unpack_page_row(bad_links, row));
  check_empty(row);

  // A depth past an int32 (the third field, after two empty strings).
  std::string wide = std::string("\0\0", 2);
  put_signed(wide, std::int64_t{1} << 40);
  CHECK_FALSE(unpack_page_row(wide + good.substr(3), row));

  // A count of link hosts larger than the bytes left could hold: refused
  // before anything is allocated for it.
  const std::string empty_packed = pack_page_row(PageRow{});
  // Where the count sits: the first byte where an empty row's packing and
  // that of a row with one (empty) link host differ.
  PageRow one_host;
  one_host.link_host_keys = {""};
  const std::string with_one = pack_page_row(one_host);
  std::size_t count_at = 0;
  while (count_at < empty_packed.size() && empty_packed[count_at] == with_one[count_at])
    ++count_at;
  REQUIRE(count_at < empty_packed.size());
  std::string many = empty_packed.substr(0, count_at);
  put_number(many, std::uint64_t{2'000'000'000});
  many += empty_packed.substr(count_at + 1);
  CHECK_FALSE(unpack_page_row(many, row));
  check_empty(row);
}

TEST_CASE("record packing: unpacking costs linear in the packed bytes, whatever they hold",
          "[record_packing][linear]") {
  using namespace actorcrawl::testing;
  // Into one row a size, as a deserializer reading message after message
  // would (see link_packing_test.cc).
  const auto cost = [](const std::string& packed) {
    PageRow row;
    return least_cpu_cost([&] { (void)unpack_page_row(packed, row); }, 3);
  };
  const auto links_for = [](std::size_t bytes) { return bytes / 60 + 1; };  // a link and its item: ~60 bytes
  const auto ordinary = [&](std::size_t bytes) { return pack_page_row(ordinary_row(links_for(bytes))); };
  // Hostile: the most list entries a byte there are (an empty host key is
  // one byte, an empty item two, an empty failure three), one title as long
  // as the input, and the most links a byte.
  const auto empty_hosts = [](std::size_t bytes) {
    PageRow row;
    row.link_host_keys.assign(bytes, "");
    return pack_page_row(row);
  };
  const auto empty_items = [](std::size_t bytes) {
    PageRow row;
    row.items.assign(bytes / 2, ExtractedItem{});
    return pack_page_row(row);
  };
  const auto empty_failures = [](std::size_t bytes) {
    PageRow row;
    row.processor_failures.assign(bytes / 3, ProcessorFailure{});
    return pack_page_row(row);
  };
  const auto long_title = [](std::size_t bytes) {
    PageRow row;
    row.title.assign(bytes, 't');
    return pack_page_row(row);
  };
  const auto tiny_links = [](std::size_t bytes) {
    PageRow row;
    for (std::size_t i = 0; i < bytes / 2; ++i)
      row.links.push_back(std::string_view(), false, true);
    return pack_page_row(row);
  };
  const std::size_t small = kLinearityBytes;
  const std::size_t large = kLinearityBytes * kLinearityFactor;
  const auto plain = cost_growth(cost, ordinary(small), ordinary(large));
  WorstGrowth worst;
  for (const auto& [name, make] : std::vector<std::pair<const char*, std::string (*)(std::size_t)>>{
         {"empty link hosts", +empty_hosts},
         {"empty items", +empty_items},
         {"empty failures", +empty_failures},
         {"one title the size of the input", +long_title},
         {"empty links", +tiny_links}}) {
    const auto growth = cost_growth(cost, make(small), make(large), plain.ratio);
    worst.take(growth.ratio, plain.ratio, name);
  }
  // A lease: a chain of ordinary hops against the most hops a byte.
  const auto job_cost = [](const std::string& packed) {
    CrawlJob job;
    return least_cpu_cost([&] { (void)unpack_crawl_job(packed, job); }, 3);
  };
  const auto ordinary_hops = [](std::size_t bytes) {
    CrawlJob job;
    for (std::size_t i = 0; i < bytes / 40 + 1; ++i) {
      job.hop_urls.push_back("http://h.test/section/redirect-" + std::to_string(i));
      job.hop_statuses.push_back(301);
    }
    return pack_crawl_job(job);
  };
  const auto empty_hops = [](std::size_t bytes) {
    CrawlJob job;
    job.hop_urls.assign(bytes / 2, "");
    job.hop_statuses.assign(bytes / 2, 0);
    return pack_crawl_job(job);
  };
  const auto plain_job = cost_growth(job_cost, ordinary_hops(small), ordinary_hops(large));
  const auto hops = cost_growth(job_cost, empty_hops(small), empty_hops(large), plain_job.ratio);
  worst.take(hops.ratio, plain_job.ratio, "a lease of empty hops");
  INFO("ordinary growth: rows " << plain.ratio << ", leases " << plain_job.ratio << "; costliest: " << worst.name
                                << " at " << worst.relative << "x of its own");
  CHECK(worst.relative <= kMaxRelativeGrowth);
}
