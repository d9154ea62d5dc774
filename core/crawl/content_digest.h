// A stable digest of a response body, for telling a page that changed
// between two fetches from one that did not.
#pragma once

#include <string>
#include <string_view>

namespace actorcrawl {

// "sha1:" + the RFC 4648 base32 of the body's SHA-1: the labelled form WARC
// gives its payload digests (core/warc/warc_record.h's warc_sha1), so a
// page's digest and its WARC-Payload-Digest are one value, computed once.
// The body is the one FetchOutcome::body holds and the Processor parses:
// transfer- and content-decoded (gzip or not, the same page digests the
// same), in the page's own charset, cut at max_body_bytes. SHA-1 is enough
// here: a server that wants a page to look unchanged can answer 304 anyway.
std::string content_digest(std::string_view body);

}  // namespace actorcrawl
