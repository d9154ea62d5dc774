// The rules for what a page's elements give the crawler, shared by both
// HTML parsers (html_document.h): a parser finds the elements, in document
// order, and hands each one's attributes here; what counts (the first
// <title>, the first <base href>, links a crawler can fetch, robots tokens
// adding up) is decided once, so the two parsers cannot drift apart on it.
#pragma once

#include <string>
#include <string_view>

#include "core/web/html_document.h"

namespace actorcrawl {

class HtmlFieldCollector {
 public:
  static constexpr std::size_t kMaxTitleBytes = 1000;
  static constexpr std::size_t kMaxDescriptionBytes = 4000;

  explicit HtmlFieldCollector(HtmlDocument& doc) : doc_(doc) {}

  // Each takes attribute values as the parser decoded them (character
  // references resolved); null for an attribute the element lacks.
  void anchor(const char* href, const char* rel);      // <a>, <area>
  void meta(const char* name, const char* content);    // <meta> (HTML)
  void base(const char* href);                          // <base> (HTML)
  void link(const char* rel, const char* href);         // <link> (HTML)
  // The first <title> (HTML namespace) is the document's, as in browsers,
  // even when it is empty or stray in the body.
  bool wants_title() const { return !title_seen_; }
  void title(std::string_view text);

 private:
  HtmlDocument& doc_;
  bool title_seen_ = false;
  bool description_seen_ = false;
  bool base_seen_ = false;
};

}  // namespace actorcrawl
