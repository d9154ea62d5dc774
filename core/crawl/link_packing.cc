#include "core/crawl/link_packing.h"

#include <cstdint>

#include "core/crawl/packed_bytes.h"

namespace actorcrawl {

namespace {

constexpr unsigned char kNofollow = 1;
constexpr unsigned char kFollowed = 2;

template <class List>
bool refuse(List& links) {
  links.clear();
  return false;
}

// How many entries `packed` holds, read by `skip_one` (false: malformed),
// so that the vector is sized once: no more than the input holds, since
// every entry takes two bytes at least.
template <class SkipOne>
bool count_entries(std::string_view packed, std::size_t& count, SkipOne&& skip_one) {
  PackedReader in(packed);
  count = 0;
  while (!in.done()) {
    if (!skip_one(in))
      return false;
    ++count;
  }
  return true;
}

}  // namespace

std::size_t packed_link_rows_size(const LinkList& links) {
  std::size_t size = 0;
  for (std::size_t i = 0; i < links.size(); ++i)
    size += packed_bytes_size(links.url(i)) + 1;
  return size;
}

void append_link_rows(std::string& out, const LinkList& links) {
  for (std::size_t i = 0; i < links.size(); ++i) {
    put_bytes(out, links.url(i));
    out.push_back(static_cast<char>((links.nofollow(i) ? kNofollow : 0) | (links.followed(i) ? kFollowed : 0)));
  }
}

std::string pack_link_rows(const LinkList& links) {
  std::string out;
  out.reserve(packed_link_rows_size(links));
  append_link_rows(out, links);
  return out;
}

// The URLs are copied into the list's one buffer, sized by the packed
// bytes (which hold them all and more): no allocation a link.
bool unpack_link_rows(std::string_view packed, LinkList& links) {
  links.clear();
  std::size_t count = 0;
  if (!count_entries(packed, count, [](PackedReader& in) {
        std::string_view url;
        unsigned char flags = 0;
        return in.bytes(url) && in.byte(flags);
      }))
    return false;
  if (!links.fits(packed.size()))  // the URLs are fewer bytes than the packing
    return false;
  links.reserve(count, packed.size());
  PackedReader in(packed);
  while (!in.done()) {
    std::string_view url;
    unsigned char flags = 0;
    if (!in.bytes(url) || !in.byte(flags) || (flags & ~(kNofollow | kFollowed)) != 0)
      return refuse(links);
    links.push_back(url, (flags & kNofollow) != 0, (flags & kFollowed) != 0);
  }
  return true;
}

std::string pack_followed_links(const std::vector<FollowedLink>& links) {
  std::string out;
  out.reserve(links.size() * 2);
  for (const auto& link : links) {
    // Positions below -1 are none a row has: packed as -1 with what they
    // name spelled out (empty, so the reader refuses the link, not the
    // message).
    const std::int32_t at = link.link < 0 ? -1 : link.link;
    const std::int32_t host = link.host < 0 ? -1 : link.host;
    put_number(out, static_cast<std::uint64_t>(at) + 1);
    put_number(out, static_cast<std::uint64_t>(host) + 1);
    if (at == -1)
      put_bytes(out, link.url);
    if (host == -1)
      put_bytes(out, link.host_key);
  }
  return out;
}

bool unpack_followed_links(std::string_view packed, std::vector<FollowedLink>& links) {
  links.clear();
  std::size_t count = 0;
  if (!count_entries(packed, count, [](PackedReader& in) {
        std::uint32_t at = 0;
        std::uint32_t host = 0;
        std::string_view spelled;
        return in.length(at) && in.length(host) && (at != 0 || in.bytes(spelled)) && (host != 0 || in.bytes(spelled));
      }))
    return false;
  links.reserve(count);
  PackedReader in(packed);
  while (!in.done()) {
    FollowedLink& link = links.emplace_back();
    std::uint32_t at = 0;
    std::uint32_t host = 0;
    if (!in.length(at) || !in.length(host))
      return refuse(links);
    link.link = static_cast<std::int32_t>(at) - 1;
    link.host = static_cast<std::int32_t>(host) - 1;
    if (link.link == -1 && !in.bytes(link.url))
      return refuse(links);
    if (link.host == -1 && !in.bytes(link.host_key))
      return refuse(links);
  }
  return true;
}

}  // namespace actorcrawl
