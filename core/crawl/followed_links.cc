#include "core/crawl/followed_links.h"

#include <string_view>
#include <unordered_map>

namespace actorcrawl {

namespace {

// Where a host key sits in the row's link_host_keys. A page names a few
// other hosts, where a scan is cheapest; past that, a map keeps a page of
// many hosts linear.
class HostPositions {
 public:
  explicit HostPositions(const std::vector<std::string>& hosts) : hosts_(hosts) {
    if (hosts.size() <= kScanUpTo)
      return;
    map_.reserve(hosts.size());
    for (std::size_t i = 0; i < hosts.size(); ++i)
      map_.emplace(hosts[i], static_cast<std::int32_t>(i));
  }

  std::int32_t find(std::string_view host) const {
    if (hosts_.size() <= kScanUpTo) {
      for (std::size_t i = 0; i < hosts_.size(); ++i)
        if (hosts_[i] == host)
          return static_cast<std::int32_t>(i);
      return -1;
    }
    const auto it = map_.find(host);
    return it == map_.end() ? -1 : it->second;
  }

 private:
  static constexpr std::size_t kScanUpTo = 16;
  const std::vector<std::string>& hosts_;
  std::unordered_map<std::string_view, std::int32_t> map_;
};

}  // namespace

std::vector<FollowedLink> followed_by_position(const PageRow& row, std::vector<DiscoveredLink>&& to_crawl) {
  std::vector<FollowedLink> out;
  out.reserve(to_crawl.size());
  const HostPositions hosts(row.link_host_keys);
  // Selection marks what it follows in the row, in the same order: the next
  // followed link of the row is the one to match, so the walk is one pass.
  std::size_t next = 0;
  for (auto& link : to_crawl) {
    FollowedLink f;
    while (next < row.links.size() && !row.links.followed(next))
      ++next;
    if (next < row.links.size() && row.links.url(next) == link.url) {
      f.link = static_cast<std::int32_t>(next++);
    } else {
      f.url = std::move(link.url);
    }
    if (link.host_key != row.host_key) {
      f.host = hosts.find(link.host_key);
      if (f.host < 0)
        f.host_key = std::move(link.host_key);
    }
    out.push_back(std::move(f));
  }
  return out;
}

std::optional<FollowedTarget> followed_target(const PageRow& row, const FollowedLink& link) {
  std::string_view url = link.url;
  if (link.link >= 0) {
    if (static_cast<std::size_t>(link.link) >= row.links.size())
      return std::nullopt;
    url = row.links.url(static_cast<std::size_t>(link.link));
  } else if (link.link != -1) {
    return std::nullopt;
  }
  const std::string* host = link.host_key.empty() ? &row.host_key : &link.host_key;
  if (link.host >= 0) {
    if (static_cast<std::size_t>(link.host) >= row.link_host_keys.size())
      return std::nullopt;
    host = &row.link_host_keys[static_cast<std::size_t>(link.host)];
  } else if (link.host != -1) {
    return std::nullopt;
  }
  if (url.empty() || host->empty())
    return std::nullopt;
  return FollowedTarget{url, *host};
}

}  // namespace actorcrawl
