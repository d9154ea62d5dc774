// The links a fetched page gives the Frontier, named by their place in the
// page's row instead of spelled out a second time.
//
// A page's row (PageRow) already carries every link it has, in document
// order, and the host keys of the other hosts they lead to; the links the
// crawl follows are some of those. Sent as positions, a page's followed
// links cost a few bytes each where their URL and host key cost about 60,
// and the receiver allocates nothing for them: from a worker node that is
// most of what a page's links cost the link and the coordinator.
//
// Positions from another process are input like any other: one that names
// a link or a host the row lacks is refused (nullopt), never read.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/crawl/crawl_job.h"
#include "core/crawl/records.h"

namespace actorcrawl {

struct FollowedLink {
  // Its position in PageRow::links, or -1: `url` spells it (a domain
  // crawl's host roots, which are no link of the page).
  std::int32_t link = -1;
  // Its position in PageRow::link_host_keys, or -1: `host_key` spells it,
  // and an empty `host_key` is the page's own host (PageRow::host_key).
  std::int32_t host = -1;
  std::string url{};
  std::string host_key{};
};

inline bool operator==(const FollowedLink& a, const FollowedLink& b) {
  return a.link == b.link && a.host == b.host && a.url == b.url && a.host_key == b.host_key;
}

// `to_crawl`, the links selection chose on the page of `row` (in document
// order), said by position in `row`. Each link's strings are moved from
// `to_crawl` only when the row has no place for them. Linear in the links.
std::vector<FollowedLink> followed_by_position(const PageRow& row, std::vector<DiscoveredLink>&& to_crawl);

// What `link` names in `row`: views of its URL and host key, valid while
// `row` is; nullopt when it names a position `row` does not have.
struct FollowedTarget {
  std::string_view url;
  const std::string& host_key;
};
std::optional<FollowedTarget> followed_target(const PageRow& row, const FollowedLink& link);

}  // namespace actorcrawl
