// The warc processor: an exchange becomes a request and a response record,
// a repeated payload a revisit, and the digest index stays within its bound.
#include "core/warc/warc_archive.h"

#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>

#include "tests/unit/warc/warc_files.h"

namespace fs = std::filesystem;
using namespace actorcrawl;
using testing::read_warc_file;
using testing::TempDir;

namespace {

HttpExchange exchange(const std::string& url, std::string_view body, std::int64_t date_ms) {
  HttpExchange x;
  x.target_uri = url;
  x.date_ms = date_ms;
  x.ip_address = "127.0.0.1";
  x.request_head = "GET / HTTP/1.1\r\nHost: a.test\r\n\r\n";
  x.response_head = "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\n\r\n";
  x.body = body;
  return x;
}

WarcArchive::Settings settings_for(const std::string& dir) {
  WarcArchive::Settings s;
  s.files.dir = dir;
  return s;
}

}  // namespace

TEST_CASE("a repeated payload is written as a revisit of the first response", "[warc]") {
  TempDir dir{"warc_revisit"};
  WarcArchive archive{settings_for(dir.str())};
  archive.archive(exchange("http://a.test/one", "same body", 1700000000000));
  archive.archive(exchange("http://a.test/two", "same body", 1700000001000));
  archive.archive(exchange("http://a.test/three", "other body", 1700000002000));
  CHECK(archive.counts().responses == 2);
  CHECK(archive.counts().revisits == 1);
  const auto records = read_warc_file(archive.writer().current_path());
  REQUIRE(records.size() == 7);
  CHECK(records[1].field("WARC-Type") == "request");
  CHECK(records[2].field("WARC-Type") == "response");
  CHECK(records[1].field("WARC-Concurrent-To") == records[2].field("WARC-Record-ID"));
  CHECK(records[2].field("WARC-Concurrent-To") == records[1].field("WARC-Record-ID"));
  const auto& revisit = records[4];
  CHECK(revisit.field("WARC-Type") == "revisit");
  CHECK(revisit.field("WARC-Target-URI") == "http://a.test/two");
  CHECK(revisit.field("WARC-Refers-To") == records[2].field("WARC-Record-ID"));
  CHECK(revisit.field("WARC-Refers-To-Target-URI") == "http://a.test/one");
  CHECK(revisit.field("WARC-Refers-To-Date") == "2023-11-14T22:13:20.000Z");
  CHECK(revisit.field("WARC-Payload-Digest") == warc_sha1("same body"));
  CHECK(records[6].field("WARC-Type") == "response");
}

TEST_CASE("truncated and empty payloads are never revisits", "[warc]") {
  TempDir dir{"warc_nodedup"};
  WarcArchive archive{settings_for(dir.str())};
  HttpExchange cut = exchange("http://a.test/big", "cut off", 1);
  cut.truncated = true;
  archive.archive(cut);
  archive.archive(cut);
  archive.archive(exchange("http://a.test/e1", "", 1));
  archive.archive(exchange("http://a.test/e2", "", 1));
  CHECK(archive.counts().responses == 4);
  CHECK(archive.counts().revisits == 0);
  const auto records = read_warc_file(archive.writer().current_path());
  CHECK(records[2].field("WARC-Truncated") == "length");
  CHECK(records[4].field("WARC-Truncated") == "length");
  CHECK(records[6].field("WARC-Truncated").empty());
}

TEST_CASE("an exchange without captured heads is not archived", "[warc]") {
  TempDir dir{"warc_nohead"};
  WarcArchive archive{settings_for(dir.str())};
  HttpExchange x = exchange("http://a.test/", "b", 1);
  x.response_head.clear();
  archive.archive(x);
  CHECK(archive.counts().responses == 0);
  CHECK(read_warc_file(archive.writer().current_path()).size() == 1);
}

TEST_CASE("the digest index forgets the least recently seen digest past its bound", "[warc]") {
  // Find the cost of one entry, then bound the index at three of them.
  WarcDigestIndex probe{1 << 20};
  probe.remember("sha1:AAAA", RevisitTarget{"<urn:uuid:x>", "http://a.test/0", 1});
  const std::size_t one = probe.bytes();
  WarcDigestIndex index{3 * one};
  for (int i = 0; i < 3; ++i)
    index.remember("sha1:AAA" + std::to_string(i), RevisitTarget{"<urn:uuid:x>", "http://a.test/" + std::to_string(i), 1});
  CHECK(index.size() == 3);
  REQUIRE(index.find("sha1:AAA0"));  // seen again: now the most recent
  index.remember("sha1:AAA3", RevisitTarget{"<urn:uuid:x>", "http://a.test/3", 1});
  CHECK(index.size() == 3);
  CHECK(index.evicted() == 1);
  CHECK(index.bytes() <= 3 * one);
  CHECK(index.find("sha1:AAA0"));
  CHECK_FALSE(index.find("sha1:AAA1"));
  CHECK(index.find("sha1:AAA3")->target_uri == "http://a.test/3");
  // The first response with a digest stays the one revisits point at.
  index.remember("sha1:AAA3", RevisitTarget{"<urn:uuid:y>", "http://a.test/other", 2});
  CHECK(index.find("sha1:AAA3")->record_id == "<urn:uuid:x>");
}

TEST_CASE("the configuration opens an archive only with warc in processors", "[warc][config]") {
  TempDir dir{"warc_config"};
  CrawlConfig c;
  c.warc_dir = dir.str() + "/archive";
  CHECK(open_warc_archive(c) == nullptr);
  CHECK_FALSE(fs::exists(c.warc_dir));
  c.processors = {"html_links", "warc"};
  c.respect_robots_txt = false;
  c.user_agent = "ua/2";
  const auto archive = open_warc_archive(c);
  REQUIRE(archive != nullptr);
  const auto records = read_warc_file(archive->writer().current_path());
  REQUIRE(records.size() == 1);
  CHECK(records[0].block.find("robots: ignore\r\n") != std::string::npos);
  CHECK(records[0].block.find("http-header-user-agent: ua/2\r\n") != std::string::npos);
  CHECK(records[0].block.find("format: WARC File Format 1.1\r\n") != std::string::npos);

  std::ofstream(dir.str() + "/file") << "x";
  c.warc_dir = dir.str() + "/file";
  CHECK_THROWS_AS(open_warc_archive(c), ConfigError);
}

TEST_CASE("a torn tail is cut back to the last whole request and response pair", "[warc]") {
  TempDir dir{"warc_pairs"};
  std::string path;
  {
    WarcArchive archive{settings_for(dir.str())};
    archive.archive(exchange("http://a.test/one", "first body", 1700000000000));
    archive.archive(exchange("http://a.test/two", "first body", 1700000001000));  // a revisit
    archive.archive(exchange("http://a.test/three", std::string(5000, 't'), 1700000002000));
    path = archive.writer().current_path();
  }
  const std::string whole = testing::read_bytes(path);
  std::vector<std::size_t> ends;
  const auto members = testing::gzip_members(whole, &ends);
  REQUIRE(members.size() == 7);  // warcinfo, then request and response (or revisit) three times
  REQUIRE(testing::parse_record(members[4]).field("WARC-Type") == "revisit");
  REQUIRE(testing::parse_record(members[5]).field("WARC-Type") == "request");

  // Cut at `size` (what a torn write leaves), then repaired searching the
  // tail (the default) and reading the whole file: both keep `kept` bytes,
  // and every request kept has its partner after it.
  int copies = 0;
  const auto repaired = [&](std::size_t size, std::size_t kept) {
    for (const std::size_t window : {kRepairWindowBytes, std::size_t{16}}) {
      INFO("cut at " << size << ", window " << window);
      const std::string copy = dir.str() + "/copy-" + std::to_string(copies++) + ".warc.gz";
      std::ofstream(copy, std::ios::binary) << whole.substr(0, size);
      const TailRepair r = repair_warc_tail(copy, window);
      CHECK(r.kept_bytes == static_cast<std::int64_t>(kept));
      CHECK(r.cut_bytes == static_cast<std::int64_t>(size - kept));
      CHECK(fs::file_size(copy) == kept);
      const auto records = read_warc_file(copy);
      for (std::size_t i = 1; i < records.size(); i += 2) {
        REQUIRE(i + 1 < records.size());
        CHECK(records[i].field("WARC-Type") == "request");
        CHECK(records[i].field("WARC-Concurrent-To") == records[i + 1].field("WARC-Record-ID"));
      }
    }
  };
  // Torn inside the last response, after its whole request: the request goes too.
  repaired(ends[5] + (ends[6] - ends[5]) / 2, ends[4]);
  // Torn inside the last request.
  repaired(ends[4] + (ends[5] - ends[4]) / 2, ends[4]);
  // Torn inside a revisit: its request goes with it.
  repaired(ends[3] + (ends[4] - ends[3]) / 2, ends[2]);
  // Torn just after a whole request, before its response began.
  repaired(ends[5] + 1, ends[4]);
  repaired(ends[5], ends[4]);
  // Whole pairs, then bytes that are not gzip: only those are cut.
  repaired(ends[6], ends[6]);
  {
    const std::string copy = dir.str() + "/garbage.warc.gz";
    std::ofstream(copy, std::ios::binary) << whole << "not gzip";
    CHECK(repair_warc_tail(copy).kept_bytes == static_cast<std::int64_t>(ends[6]));
  }
}

TEST_CASE("a recrawl's 304 is a server-not-modified revisit, an unchanged payload an identical-payload one",
          "[warc][freshness]") {
  TempDir dir{"warc_recrawl"};
  WarcArchive archive{settings_for(dir.str())};
  HttpExchange not_modified = exchange("http://a.test/same", "", 1700000000000);
  not_modified.response_head = "HTTP/1.1 304 Not Modified\r\nETag: \"abc\"\r\n\r\n";
  not_modified.not_modified = true;
  archive.archive(not_modified);
  HttpExchange unchanged = exchange("http://a.test/unchanged", "stored body", 1700000001000);
  unchanged.previous_digest = warc_sha1("stored body");
  archive.archive(unchanged);
  HttpExchange changed = exchange("http://a.test/changed", "new body", 1700000002000);
  changed.previous_digest = warc_sha1("old body");
  archive.archive(changed);
  CHECK(archive.counts().revisits == 2);
  CHECK(archive.counts().responses == 1);
  const auto records = read_warc_file(archive.writer().current_path());
  REQUIRE(records.size() == 7);
  const auto& by_server = records[2];
  CHECK(by_server.field("WARC-Type") == "revisit");
  CHECK(by_server.field("WARC-Profile") == "http://netpreserve.org/warc/1.1/revisit/server-not-modified");
  CHECK(by_server.field("WARC-Refers-To-Target-URI") == "http://a.test/same");
  CHECK(by_server.field("WARC-Payload-Digest").empty());
  const auto& by_digest = records[4];
  CHECK(by_digest.field("WARC-Type") == "revisit");
  CHECK(by_digest.field("WARC-Profile") == "http://netpreserve.org/warc/1.1/revisit/identical-payload-digest");
  CHECK(by_digest.field("WARC-Refers-To-Target-URI") == "http://a.test/unchanged");
  CHECK(by_digest.field("WARC-Refers-To").empty());  // an earlier run's record
  CHECK(by_digest.field("WARC-Payload-Digest") == warc_sha1("stored body"));
  CHECK(records[6].field("WARC-Type") == "response");
}
