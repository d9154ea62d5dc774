// A page's links packed into one string, the way they cross between
// processes (inside its packed row, record_packing.h; and messages/'s
// inspect function of page_outlinks; nothing else sees the packed form).
//
// Why: CAF 0.17's binary serializer spends a few hundred instructions on
// each field it reads, whatever its size. A page of 30 links as LinkRow
// and FollowedLink structs is 180 fields; a coordinator spent 15% of its
// instructions reading them (callgrind, bench/cluster.sh, docs/
// performance.md). Packed, they are two fields, read with one copy each
// and a loop over their bytes.
//
// The format: for each link row, its URL's length (LEB128), the URL, and
// one byte of flags (1 nofollow, 2 followed); for each followed link, its
// link and host positions plus one (LEB128, so that -1 is 0), then the
// URL's length and bytes when the link position is -1, and the host key's
// when the host position is -1. The bytes come from another process:
// unpacking checks every length and value against what is left, and
// refuses a string that does not decode whole (false, and the list is
// left empty). Linear in the packed bytes.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "core/crawl/followed_links.h"
#include "core/crawl/records.h"

namespace actorcrawl {

std::string pack_link_rows(const LinkList& links);
bool unpack_link_rows(std::string_view packed, LinkList& links);
// What pack_link_rows would return, appended to `out`, and its size: a
// page row's packing (record_packing.h) holds its links so.
void append_link_rows(std::string& out, const LinkList& links);
std::size_t packed_link_rows_size(const LinkList& links);

std::string pack_followed_links(const std::vector<FollowedLink>& links);
bool unpack_followed_links(std::string_view packed, std::vector<FollowedLink>& links);

}  // namespace actorcrawl
