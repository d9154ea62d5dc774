// One WARC/1.1 record (ISO 28500:2017) as bytes: the header fields, the
// block, the digests and the gzip member it is stored as. Records are built
// whole in memory, so the writer can append each one with a single write.
//
// The HTTP response block holds the entity as the crawler decoded it (curl
// undoes Content-Encoding and Transfer-Encoding); the header lines that
// described the bytes on the wire are kept under X-Archive-Orig- and a
// Content-Length of what is stored is added (docs/warc.md says why).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/page/response_archive.h"

namespace actorcrawl {

// "sha1:" + base32(SHA-1(bytes)): the labelled digest WARC fields carry.
std::string warc_sha1(std::string_view bytes);
// WARC-Date: UTC, millisecond precision ("2026-11-25T04:01:41.123Z"), the
// form metrics.log writes its times in (core/clock/utc_time.h).
std::string warc_date(std::int64_t epoch_ms);
// "<urn:uuid:...>" of a random (version 4) UUID.
std::string new_record_id();

// The header fields and block of one record. Content-Length is computed
// from the block when the record is serialized, never set by hand.
struct WarcRecord {
  std::vector<std::pair<std::string, std::string>> fields;  // in order
  std::string block;

  // "WARC/1.1" CRLF, the fields, Content-Length, CRLF, block, CRLF CRLF.
  std::string serialize() const;
  // The value of the first field of that name (case-sensitive), or "".
  std::string field(std::string_view name) const;
};

// The record as one gzip member (RFC 1952): members concatenate into a
// valid .warc.gz, and each can be read alone at its offset.
std::string gzip_member(std::string_view data);

// The response's header block as stored: Content-Encoding, Transfer-Encoding
// and Content-Length renamed X-Archive-Orig-*, then Content-Length of
// `body_size`, ending with the blank line.
std::string archived_response_head(std::string_view response_head, std::size_t body_size);

// Record ids and the warcinfo record a set of records belongs to.
struct RecordIds {
  std::string warcinfo_id;
  std::string request_id;
  std::string response_id;
};

// The warcinfo record that opens each file: `fields` are the
// application/warc-fields lines ("software", "format", ...).
WarcRecord warcinfo_record(const std::string& record_id, std::int64_t date_ms, const std::string& filename,
                           const std::vector<std::pair<std::string, std::string>>& fields);

WarcRecord request_record(const HttpExchange& x, const RecordIds& ids);
WarcRecord response_record(const HttpExchange& x, const RecordIds& ids);

// What a revisit points at: the first response record with this payload.
struct RevisitTarget {
  std::string record_id;
  std::string target_uri;
  std::int64_t date_ms = 0;
};

// A response whose payload repeats `original`'s: the response's header
// block only, with the identical-payload-digest profile. An original with
// no record id or date (one archived by an earlier run, whose record the
// archive does not know) leaves WARC-Refers-To and WARC-Refers-To-Date out.
WarcRecord revisit_record(const HttpExchange& x, const RecordIds& ids, const std::string& payload_digest,
                          const RevisitTarget& original);

// A 304 Not Modified to a conditional request: the response's header block,
// with the server-not-modified profile (WARC 1.1, 6.7.3) referring to the
// same target URI, whose stored copy the server said still holds.
WarcRecord not_modified_record(const HttpExchange& x, const RecordIds& ids);

}  // namespace actorcrawl
