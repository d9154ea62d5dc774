// Where every HTTP response the crawl receives can be kept whole, beside
// what the processor chain reads of it: the `warc` processor
// (core/warc/warc_archive.h) is one. The Processor's lanes hand it each
// response before deciding anything about it, so redirect hops, redirects
// that fail and robots.txt fetches are kept too, not only pages.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace actorcrawl {

// One request and its response, as the fetch saw them.
struct HttpExchange {
  std::string target_uri;     // the URL this request asked for
  std::int64_t date_ms = 0;   // when the response arrived (Unix epoch ms)
  std::string ip_address;     // the peer's address, "" if unknown
  std::string request_head;   // the request line and header lines as sent
  std::string response_head;  // the status line and header lines as received
  std::string_view body;      // the decoded entity, as the crawler kept it
  bool truncated = false;     // the body was cut at max_body_bytes
  // A revisit of a page the crawl stored before: the 304 answered to its
  // validators (no body: the archive writes a server-not-modified revisit
  // record), and the stored body's content_digest ("sha1:" + base32, the
  // form of WARC-Payload-Digest), against which an identical payload is
  // archived as a revisit. Neither for robots.txt, hops or first fetches.
  bool not_modified = false;
  std::string previous_digest{};
};

class ResponseArchive {
 public:
  virtual ~ResponseArchive() = default;
  // Safe to call from several threads at once. Never throws: an archive
  // that cannot write says so in the log and the crawl goes on.
  virtual void archive(const HttpExchange& exchange) = 0;
};

}  // namespace actorcrawl
