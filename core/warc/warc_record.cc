#include "core/warc/warc_record.h"

#include <openssl/rand.h>
#include <libdeflate.h>

#include <array>
#include <cstdio>
#include <stdexcept>

#include "core/clock/utc_time.h"
#include "core/crawl/content_digest.h"
#include "core/web/ascii.h"

namespace actorcrawl {

// The page digest the crawl stores is this one (content_digest): a page's
// digest and its WARC-Payload-Digest are one value.
std::string warc_sha1(std::string_view bytes) { return content_digest(bytes); }

std::string warc_date(std::int64_t epoch_ms) { return iso8601_utc_ms(epoch_ms); }

std::string new_record_id() {
  std::array<unsigned char, 16> b{};
  if (RAND_bytes(b.data(), static_cast<int>(b.size())) != 1)
    throw std::runtime_error("no random bytes for a WARC record id (OpenSSL RAND_bytes failed)");
  b[6] = static_cast<unsigned char>((b[6] & 0x0f) | 0x40);  // version 4
  b[8] = static_cast<unsigned char>((b[8] & 0x3f) | 0x80);  // RFC 4122 variant
  char text[64];
  std::snprintf(text, sizeof text,
                "<urn:uuid:%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x>", b[0], b[1], b[2],
                b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15]);
  return text;
}

std::string WarcRecord::serialize() const {
  std::string out = "WARC/1.1\r\n";
  std::size_t size = block.size() + 64;
  for (const auto& [name, value] : fields)
    size += name.size() + value.size() + 4;
  out.reserve(size);
  for (const auto& [name, value] : fields)
    out.append(name).append(": ").append(value).append("\r\n");
  out.append("Content-Length: ").append(std::to_string(block.size())).append("\r\n\r\n");
  out.append(block);
  out.append("\r\n\r\n");
  return out;
}

std::string WarcRecord::field(std::string_view name) const {
  for (const auto& [n, v] : fields)
    if (n == name)
      return v;
  return {};
}

std::string gzip_member(std::string_view data) {
  // libdeflate at level 1: a whole buffer is what a record is, and on
  // crawled HTML it compresses about 3x faster than zlib's fastest level
  // and 5x faster than zlib's default, with output as small as zlib's
  // default within 2% (bench/micro/warc_bench.cc, docs/performance.md).
  // CPU per page is what a crawler runs out of first.
  struct Compressor {
    libdeflate_compressor* c = libdeflate_alloc_compressor(1);
    ~Compressor() { libdeflate_free_compressor(c); }
  };
  thread_local Compressor compressor;
  if (compressor.c == nullptr)
    throw std::runtime_error("libdeflate: cannot allocate a compressor");
  std::string out(libdeflate_gzip_compress_bound(compressor.c, data.size()), '\0');
  const std::size_t n = libdeflate_gzip_compress(compressor.c, data.data(), data.size(), out.data(), out.size());
  if (n == 0)
    throw std::runtime_error("libdeflate: the gzip member did not fit its bound");
  out.resize(n);
  return out;
}

namespace {

// The three header fields that describe the bytes on the wire rather than
// the entity stored.
bool describes_wire_bytes(std::string_view line) {
  return ascii::starts_with_nocase(line, "content-encoding:") || ascii::starts_with_nocase(line, "transfer-encoding:") ||
         ascii::starts_with_nocase(line, "content-length:");
}

// The fields every record of an exchange starts with: its type and id, the
// exchange's date, URI and address, its file's warcinfo, its partner.
WarcRecord exchange_record(const char* type, const std::string& id, const HttpExchange& x,
                           const std::string& warcinfo_id, const std::string& concurrent_to) {
  WarcRecord r;
  r.fields.emplace_back("WARC-Type", type);
  r.fields.emplace_back("WARC-Record-ID", id);
  r.fields.emplace_back("WARC-Date", warc_date(x.date_ms));
  r.fields.emplace_back("WARC-Target-URI", x.target_uri);
  if (!x.ip_address.empty())
    r.fields.emplace_back("WARC-IP-Address", x.ip_address);
  if (!warcinfo_id.empty())
    r.fields.emplace_back("WARC-Warcinfo-ID", warcinfo_id);
  r.fields.emplace_back("WARC-Concurrent-To", concurrent_to);
  return r;
}

}  // namespace

std::string archived_response_head(std::string_view head, std::size_t body_size) {
  std::string out;
  out.reserve(head.size() + 64);
  std::size_t pos = 0;
  bool first = true;
  while (pos < head.size()) {
    std::size_t end = head.find('\n', pos);
    if (end == std::string_view::npos)
      end = head.size();
    std::string_view line = head.substr(pos, end - pos);
    pos = end + 1;
    if (!line.empty() && line.back() == '\r')
      line.remove_suffix(1);
    if (line.empty())
      continue;  // the blank line that ended the head; added back below
    if (!first && describes_wire_bytes(line))
      out.append("X-Archive-Orig-");
    out.append(line).append("\r\n");
    first = false;
  }
  out.append("Content-Length: ").append(std::to_string(body_size)).append("\r\n\r\n");
  return out;
}

WarcRecord warcinfo_record(const std::string& record_id, std::int64_t date_ms, const std::string& filename,
                           const std::vector<std::pair<std::string, std::string>>& fields) {
  WarcRecord r;
  r.fields.emplace_back("WARC-Type", "warcinfo");
  r.fields.emplace_back("WARC-Record-ID", record_id);
  r.fields.emplace_back("WARC-Date", warc_date(date_ms));
  r.fields.emplace_back("WARC-Filename", filename);
  r.fields.emplace_back("Content-Type", "application/warc-fields");
  for (const auto& [name, value] : fields)
    r.block.append(name).append(": ").append(value).append("\r\n");
  r.fields.emplace_back("WARC-Block-Digest", warc_sha1(r.block));
  return r;
}

WarcRecord request_record(const HttpExchange& x, const RecordIds& ids) {
  WarcRecord r = exchange_record("request", ids.request_id, x, ids.warcinfo_id, ids.response_id);
  r.fields.emplace_back("Content-Type", "application/http;msgtype=request");
  r.block = x.request_head;
  r.fields.emplace_back("WARC-Block-Digest", warc_sha1(r.block));
  // A GET carries no body: the payload is empty, and its digest says so.
  r.fields.emplace_back("WARC-Payload-Digest", warc_sha1(""));
  return r;
}

WarcRecord response_record(const HttpExchange& x, const RecordIds& ids) {
  WarcRecord r = exchange_record("response", ids.response_id, x, ids.warcinfo_id, ids.request_id);
  r.fields.emplace_back("Content-Type", "application/http;msgtype=response");
  r.block = archived_response_head(x.response_head, x.body.size());
  r.block.append(x.body);
  r.fields.emplace_back("WARC-Block-Digest", warc_sha1(r.block));
  r.fields.emplace_back("WARC-Payload-Digest", warc_sha1(x.body));
  if (x.truncated)
    r.fields.emplace_back("WARC-Truncated", "length");
  return r;
}

WarcRecord revisit_record(const HttpExchange& x, const RecordIds& ids, const std::string& payload_digest,
                          const RevisitTarget& original) {
  WarcRecord r = exchange_record("revisit", ids.response_id, x, ids.warcinfo_id, ids.request_id);
  r.fields.emplace_back("WARC-Profile", "http://netpreserve.org/warc/1.1/revisit/identical-payload-digest");
  r.fields.emplace_back("WARC-Refers-To-Target-URI", original.target_uri);
  if (original.date_ms > 0)
    r.fields.emplace_back("WARC-Refers-To-Date", warc_date(original.date_ms));
  if (!original.record_id.empty())
    r.fields.emplace_back("WARC-Refers-To", original.record_id);
  r.fields.emplace_back("Content-Type", "application/http;msgtype=response");
  r.block = archived_response_head(x.response_head, x.body.size());
  r.fields.emplace_back("WARC-Block-Digest", warc_sha1(r.block));
  r.fields.emplace_back("WARC-Payload-Digest", payload_digest);
  return r;
}

WarcRecord not_modified_record(const HttpExchange& x, const RecordIds& ids) {
  WarcRecord r = exchange_record("revisit", ids.response_id, x, ids.warcinfo_id, ids.request_id);
  r.fields.emplace_back("WARC-Profile", "http://netpreserve.org/warc/1.1/revisit/server-not-modified");
  r.fields.emplace_back("WARC-Refers-To-Target-URI", x.target_uri);
  r.fields.emplace_back("Content-Type", "application/http;msgtype=response");
  r.block = archived_response_head(x.response_head, 0);
  r.fields.emplace_back("WARC-Block-Digest", warc_sha1(r.block));
  return r;
}

}  // namespace actorcrawl
