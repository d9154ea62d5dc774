// The records that cross between processes on every page, each packed into
// one string: a page's row on its way from the node that processed it to
// the coordinator that stores it, and a lease (CrawlJob) each way between
// them (messages/'s inspect functions of PageRow and CrawlJob use these;
// nothing else sees the packed form).
//
// Why: CAF 0.17's binary deserializer spends a few hundred instructions on
// each field it reads, whatever its size; a row has some forty, a lease
// twelve, and a page crosses as a row and two leases. Read field by field
// they cost a coordinator 16,000 instructions a page (callgrind,
// bench/cluster.sh, docs/performance.md); packed, each is one field, read
// with one copy and a loop over its bytes.
//
// The format: a record's fields in their declared order, each string as
// its length and bytes, each number as LEB128 (signed ones zigzagged),
// each bool as a byte 0 or 1, each list as its count and its entries, a
// row's links as their packed bytes (link_packing.h) behind their length
// (packed_bytes.h has the codec). The bytes come from another process:
// unpacking checks every length, count and value against what is left and
// refuses a string that does not decode whole (false, and the record is
// left empty). Linear in the packed bytes.
#pragma once

#include <string>
#include <string_view>

#include "core/crawl/crawl_job.h"
#include "core/crawl/records.h"

namespace actorcrawl {

// The version of the packed formats, these and link_packing.h's. The
// catalogue's digest (messages/catalogue.cc), which a node must match to
// join, holds it: CAF's printed layout of a record, from which the rest of
// the digest is made, does not show how the record is packed. Raise it with
// any change to a packing.
inline constexpr int kPackingFormat = 2;

void pack_page_row(const PageRow& row, std::string& out);  // appends
std::string pack_page_row(const PageRow& row);
bool unpack_page_row(std::string_view packed, PageRow& row);

std::string pack_crawl_job(const CrawlJob& job);
bool unpack_crawl_job(std::string_view packed, CrawlJob& job);

}  // namespace actorcrawl
