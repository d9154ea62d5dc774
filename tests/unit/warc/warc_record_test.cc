// WARC/1.1 records byte for byte: digests, dates, ids, the HTTP
// blocks as stored and the gzip member each record becomes.
#include "core/warc/warc_record.h"

#include <catch2/catch.hpp>

#include <regex>
#include <set>

#include "tests/unit/warc/warc_files.h"

using namespace actorcrawl;

namespace {

HttpExchange exchange(std::string_view body) {
  HttpExchange x;
  x.target_uri = "http://a.test/page";
  x.date_ms = 1700000000123;
  x.ip_address = "127.0.0.1";
  x.request_head = "GET /page HTTP/1.1\r\nHost: a.test\r\nUser-Agent: ua/1\r\nAccept: */*\r\n\r\n";
  x.response_head =
    "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Encoding: gzip\r\nContent-Length: 31\r\n\r\n";
  x.body = body;
  return x;
}

const RecordIds kIds{"<urn:uuid:00000000-0000-4000-8000-000000000000>",
                     "<urn:uuid:11111111-1111-4111-8111-111111111111>",
                     "<urn:uuid:22222222-2222-4222-8222-222222222222>"};

}  // namespace

TEST_CASE("a WARC digest is sha1: and the base32 of the SHA-1", "[warc]") {
  CHECK(warc_sha1("") == "sha1:3I42H3S6NNFQ2MSVX7XZKYAYSCX5QBYJ");
  CHECK(warc_sha1("abc") == "sha1:VGMT4NSHA2AWVOR6EVYXQUGCNSONBWE5");
}

TEST_CASE("WARC-Date is UTC with milliseconds", "[warc]") {
  CHECK(warc_date(1700000000123) == "2023-11-14T22:13:20.123Z");
  CHECK(warc_date(0) == "1970-01-01T00:00:00.000Z");
}

TEST_CASE("record ids are random version 4 UUID URNs", "[warc]") {
  const std::regex form{"<urn:uuid:[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}>"};
  std::set<std::string> seen;
  for (int i = 0; i < 100; ++i) {
    const std::string id = new_record_id();
    CHECK(std::regex_match(id, form));
    seen.insert(id);
  }
  CHECK(seen.size() == 100);
}

TEST_CASE("the stored response head renames what described the wire bytes", "[warc]") {
  CHECK(archived_response_head("HTTP/1.1 200 OK\r\nContent-Type: text/html\r\ncontent-encoding: br\r\n"
                               "Transfer-Encoding: chunked\r\nContent-Length: 9\r\nX-Other: 1\r\n\r\n",
                               1234) ==
        "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nX-Archive-Orig-content-encoding: br\r\n"
        "X-Archive-Orig-Transfer-Encoding: chunked\r\nX-Archive-Orig-Content-Length: 9\r\nX-Other: 1\r\n"
        "Content-Length: 1234\r\n\r\n");
  // Bare LF line ends (a sloppy server) come out as CRLF.
  CHECK(archived_response_head("HTTP/1.0 404 Not Found\nServer: x\n\n", 0) ==
        "HTTP/1.0 404 Not Found\r\nServer: x\r\nContent-Length: 0\r\n\r\n");
}

TEST_CASE("a response record, byte for byte", "[warc]") {
  const std::string body = "<html><title>t</title></html>";
  const std::string head =
    "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nX-Archive-Orig-Content-Encoding: gzip\r\n"
    "X-Archive-Orig-Content-Length: 31\r\nContent-Length: 29\r\n\r\n";
  const WarcRecord r = response_record(exchange(body), kIds);
  const std::string expected =
    "WARC/1.1\r\n"
    "WARC-Type: response\r\n"
    "WARC-Record-ID: <urn:uuid:22222222-2222-4222-8222-222222222222>\r\n"
    "WARC-Date: 2023-11-14T22:13:20.123Z\r\n"
    "WARC-Target-URI: http://a.test/page\r\n"
    "WARC-IP-Address: 127.0.0.1\r\n"
    "WARC-Warcinfo-ID: <urn:uuid:00000000-0000-4000-8000-000000000000>\r\n"
    "WARC-Concurrent-To: <urn:uuid:11111111-1111-4111-8111-111111111111>\r\n"
    "Content-Type: application/http;msgtype=response\r\n"
    "WARC-Block-Digest: " + warc_sha1(head + body) + "\r\n"
    "WARC-Payload-Digest: " + warc_sha1(body) + "\r\n"
    "Content-Length: " + std::to_string(head.size() + body.size()) + "\r\n"
    "\r\n" + head + body + "\r\n\r\n";
  CHECK(r.serialize() == expected);
}

TEST_CASE("a request record carries the head as sent and points at its response", "[warc]") {
  const HttpExchange x = exchange("x");
  const WarcRecord r = request_record(x, kIds);
  CHECK(r.field("WARC-Type") == "request");
  CHECK(r.field("WARC-Record-ID") == kIds.request_id);
  CHECK(r.field("WARC-Concurrent-To") == kIds.response_id);
  CHECK(r.field("Content-Type") == "application/http;msgtype=request");
  CHECK(r.block == x.request_head);
  CHECK(r.field("WARC-Block-Digest") == warc_sha1(x.request_head));
  CHECK(r.field("WARC-Payload-Digest") == "sha1:3I42H3S6NNFQ2MSVX7XZKYAYSCX5QBYJ");
}

TEST_CASE("a truncated response says WARC-Truncated: length", "[warc]") {
  HttpExchange x = exchange("cut here");
  CHECK(response_record(x, kIds).field("WARC-Truncated").empty());
  x.truncated = true;
  CHECK(response_record(x, kIds).field("WARC-Truncated") == "length");
}

TEST_CASE("a revisit record has the head only and refers to the original", "[warc]") {
  const std::string body = "same body";
  const HttpExchange x = exchange(body);
  const RevisitTarget original{"<urn:uuid:33333333-3333-4333-8333-333333333333>", "http://a.test/first", 1600000000000};
  const WarcRecord r = revisit_record(x, kIds, warc_sha1(body), original);
  CHECK(r.field("WARC-Type") == "revisit");
  CHECK(r.field("WARC-Profile") == "http://netpreserve.org/warc/1.1/revisit/identical-payload-digest");
  CHECK(r.field("WARC-Refers-To") == original.record_id);
  CHECK(r.field("WARC-Refers-To-Target-URI") == "http://a.test/first");
  CHECK(r.field("WARC-Refers-To-Date") == "2020-09-13T12:26:40.000Z");
  CHECK(r.field("WARC-Payload-Digest") == warc_sha1(body));
  CHECK(r.block == archived_response_head(x.response_head, body.size()));
  CHECK(r.field("WARC-Block-Digest") == warc_sha1(r.block));
}

TEST_CASE("a warcinfo record holds warc-fields", "[warc]") {
  const WarcRecord r = warcinfo_record(kIds.warcinfo_id, 1700000000123, "x.warc.gz",
                                       {{"software", "actorcrawl/1"}, {"robots", "classic"}});
  CHECK(r.serialize() ==
        "WARC/1.1\r\nWARC-Type: warcinfo\r\nWARC-Record-ID: <urn:uuid:00000000-0000-4000-8000-000000000000>\r\n"
        "WARC-Date: 2023-11-14T22:13:20.123Z\r\nWARC-Filename: x.warc.gz\r\nContent-Type: application/warc-fields\r\n"
        "WARC-Block-Digest: " + warc_sha1("software: actorcrawl/1\r\nrobots: classic\r\n") +
        "\r\nContent-Length: 41\r\n\r\nsoftware: actorcrawl/1\r\nrobots: classic\r\n\r\n\r\n");
}

TEST_CASE("a record's gzip member inflates back to it", "[warc]") {
  const std::string text = response_record(exchange("body"), kIds).serialize();
  const auto members = testing::gzip_members(gzip_member(text) + gzip_member(text));
  REQUIRE(members.size() == 2);
  CHECK(members[0] == text);
  CHECK(testing::parse_record(members[1]).field("WARC-Type") == "response");
}
