// The rules for what a page's elements give the crawler, shared by both
// HTML parsers (html_document.h): a parser finds the elements, in document
// order, and hands each one's attributes here; what counts (the first
// <title>, the first <base href>, links a crawler can fetch, robots tokens
// adding up) is decided once, so the two parsers cannot drift apart on it.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "core/web/html_document.h"

namespace actorcrawl {

class HtmlFieldCollector {
 public:
  static constexpr std::size_t kMaxTitleBytes = 1000;
  static constexpr std::size_t kMaxDescriptionBytes = 4000;

  explicit HtmlFieldCollector(HtmlDocument& doc) : doc_(doc) {}

  // Where the next element goes in the tree, for a parser that reads tokens
  // in page order (the fast parser; gumbo's tree is walked in tree order and
  // never sets it). "First" means first in tree order, as in a browser: the
  // tree builder moves an element met in a table's structure before that
  // table ("foster parenting"), so it comes before everything the table
  // holds, and a first title, description, base or canonical taken inside
  // that table gives way to it.
  //
  // Tables are numbered 1, 2, ... as they open. `bound`: the element is
  // inside every table still open whose number is below it (one past the
  // last table opened, or the number of the table it is moved out of).
  // `fostered_out_of`: that table's number, or 0.
  struct TreePlace {
    std::uint64_t bound = 1;
    std::uint64_t fostered_out_of = 0;
  };
  void place(TreePlace where) { place_ = where; }

  // Each takes attribute values as the parser decoded them (character
  // references resolved); null for an attribute the element lacks.
  void anchor(const char* href, const char* rel);      // <a>, <area>
  void meta(const char* name, const char* content);    // <meta> (HTML)
  void base(const char* href);                          // <base> (HTML)
  void link(const char* rel, const char* href);         // <link> (HTML)
  // The first <title> (HTML namespace) is the document's, as in browsers,
  // even when it is empty or stray in the body.
  bool wants_title() const { return !title_seen_ || displaces(title_bound_); }
  void title(std::string_view text);

 private:
  // Whether the element at place_ comes before, in the tree, one taken at
  // `taken_bound`: moved out of a table that was open around that one.
  bool displaces(std::uint64_t taken_bound) const {
    return place_.fostered_out_of != 0 && place_.fostered_out_of < taken_bound;
  }
  // Whether the element at place_ is the one a first-wins field takes; if
  // so, the field's place becomes place_.
  bool takes(bool& seen, std::uint64_t& taken_bound);

  HtmlDocument& doc_;
  TreePlace place_;
  bool title_seen_ = false;
  bool description_seen_ = false;
  bool base_seen_ = false;
  bool canonical_seen_ = false;
  std::uint64_t title_bound_ = 0, description_bound_ = 0, base_bound_ = 0, canonical_bound_ = 0;
};

}  // namespace actorcrawl
