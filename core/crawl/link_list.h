// A page's outgoing links as its row keeps them: in document order, each a
// resolved and normalized URL with two flags, all the URLs in one buffer.
//
// Why one buffer: a page has dozens of links, and a string each was an
// allocation each wherever a row was built (link selection), read from
// another process (a worker node's rows, on the coordinator) and freed
// again once stored. Here a page's links cost two allocations, however
// many there are, and what reads them (the store's JSON, the Frontier's
// followed links by position) reads views.
#pragma once

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <string>
#include <string_view>
#include <vector>

namespace actorcrawl {

// One link, spelled out: what a LinkList holds a place for, and what
// tests and logs compare.
struct LinkRow {
  std::string url;  // resolved and normalized
  bool nofollow = false;
  bool followed = false;  // offered to the Frontier (in scope, followed)
};

inline bool operator==(const LinkRow& a, const LinkRow& b) {
  return a.url == b.url && a.nofollow == b.nofollow && a.followed == b.followed;
}

// One link of a LinkList, read in place: valid until the list next changes.
struct LinkView {
  std::string_view url;
  bool nofollow = false;
  bool followed = false;
};

class LinkList {
 public:
  LinkList() = default;
  LinkList(std::initializer_list<LinkRow> rows);
  explicit LinkList(const std::vector<LinkRow>& rows);

  // Room for `links` links of `url_bytes` bytes in all.
  void reserve(std::size_t links, std::size_t url_bytes);
  void push_back(std::string_view url, bool nofollow, bool followed = false);
  void push_back(const LinkRow& row) { push_back(row.url, row.nofollow, row.followed); }
  void set_followed(std::size_t i) { entries_[i].flags |= kFollowed; }
  void clear();
  void shrink_to_fit() {
    urls_.shrink_to_fit();
    entries_.shrink_to_fit();
  }

  std::size_t size() const { return entries_.size(); }
  bool empty() const { return entries_.empty(); }
  // A view of link i's URL, valid until the list next changes.
  std::string_view url(std::size_t i) const {
    const std::uint32_t begin = i == 0 ? 0 : entries_[i - 1].end;
    return std::string_view{urls_}.substr(begin, entries_[i].end - begin);
  }
  bool nofollow(std::size_t i) const { return (entries_[i].flags & kNofollow) != 0; }
  bool followed(std::size_t i) const { return (entries_[i].flags & kFollowed) != 0; }
  // The bytes of all the URLs together.
  std::size_t url_bytes() const { return urls_.size(); }
  // Whether `bytes` more of URLs fit (kMaxUrlBytes in all).
  bool fits(std::size_t bytes) const { return bytes <= kMaxUrlBytes - urls_.size(); }

  LinkView operator[](std::size_t i) const { return LinkView{url(i), nofollow(i), followed(i)}; }

  // The links in order, as views: `for (const auto& link : list)`.
  class const_iterator {
   public:
    const_iterator(const LinkList& list, std::size_t i) : list_(&list), i_(i) {}
    LinkView operator*() const { return (*list_)[i_]; }
    const_iterator& operator++() {
      ++i_;
      return *this;
    }
    bool operator!=(const const_iterator& other) const { return i_ != other.i_; }
    bool operator==(const const_iterator& other) const { return i_ == other.i_; }

   private:
    const LinkList* list_;
    std::size_t i_;
  };
  const_iterator begin() const { return const_iterator{*this, 0}; }
  const_iterator end() const { return const_iterator{*this, size()}; }

  // Link i, or all of them, spelled out (copies: for tests and logs).
  LinkRow row(std::size_t i) const { return LinkRow{std::string{url(i)}, nofollow(i), followed(i)}; }
  std::vector<LinkRow> rows() const;

  friend bool operator==(const LinkList& a, const LinkList& b);
  friend bool operator!=(const LinkList& a, const LinkList& b) { return !(a == b); }

  // What no list holds: a page's URLs past 4 GiB in all (push_back throws
  // std::length_error where fits() says no; a packed list that claims them
  // is refused).
  static constexpr std::size_t kMaxUrlBytes = UINT32_MAX;

 private:
  static constexpr std::uint8_t kNofollow = 1;
  static constexpr std::uint8_t kFollowed = 2;
  struct Entry {
    std::uint32_t end = 0;  // where its URL ends in urls_
    std::uint8_t flags = 0;
  };
  std::string urls_;  // every URL, back to back
  std::vector<Entry> entries_;
};

}  // namespace actorcrawl
