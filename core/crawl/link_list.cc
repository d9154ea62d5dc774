#include "core/crawl/link_list.h"

#include <stdexcept>

namespace actorcrawl {

LinkList::LinkList(std::initializer_list<LinkRow> rows) {
  for (const auto& r : rows)
    push_back(r);
}

LinkList::LinkList(const std::vector<LinkRow>& rows) {
  for (const auto& r : rows)
    push_back(r);
}

void LinkList::reserve(std::size_t links, std::size_t url_bytes) {
  entries_.reserve(links);
  urls_.reserve(url_bytes);
}

void LinkList::push_back(std::string_view url, bool nofollow, bool followed) {
  if (!fits(url.size()))
    throw std::length_error("a page's links past 4 GiB of URLs");
  urls_.append(url);
  entries_.push_back(Entry{static_cast<std::uint32_t>(urls_.size()),
                           static_cast<std::uint8_t>((nofollow ? kNofollow : 0) | (followed ? kFollowed : 0))});
}

void LinkList::clear() {
  urls_.clear();
  entries_.clear();
}

std::vector<LinkRow> LinkList::rows() const {
  std::vector<LinkRow> out;
  out.reserve(size());
  for (std::size_t i = 0; i < size(); ++i)
    out.push_back(row(i));
  return out;
}

bool operator==(const LinkList& a, const LinkList& b) {
  if (a.urls_ != b.urls_ || a.entries_.size() != b.entries_.size())
    return false;
  for (std::size_t i = 0; i < a.entries_.size(); ++i)
    if (a.entries_[i].end != b.entries_[i].end || a.entries_[i].flags != b.entries_[i].flags)
      return false;
  return true;
}

}  // namespace actorcrawl
