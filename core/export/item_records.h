// One item of a crawl (what an extraction rule or a processor took from a
// page) as a record of the item exports: a JSON Lines line with the item
// embedded, or a CSV row with the item's top-level fields as columns.
// docs/exports.md gives both formats and the column rule.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "core/export/crawl_scan.h"

namespace actorcrawl {

// {"url":...,"kind":...,"item":{...}} and "\n". The stored item is embedded
// as the JSON it is, its keys in their order; an item that is not JSON (a
// database written by something else) or nests deeper than an export
// rebuilds is embedded as a string of its text. Valid UTF-8 whatever the
// row holds; never throws on content.
void append_jsonl_item(std::string& out, const ExportItem& item);

// The columns of one kind's CSV: `url` (the page's), then the union of the
// items' top-level keys in the order they were first seen. Filled by a
// first pass over the items (add_keys_of), then writes the header and the
// rows of a second pass; it holds the keys, never the items.
class ItemColumns {
 public:
  // Adds the keys of `item_text` not seen before. An item that is not a
  // JSON object adds none.
  void add_keys_of(std::string_view item_text);

  // The header row: `url`, then each key. A key named `url` would repeat
  // the page's column: it is headed `item.url` (`item.` put before it
  // again while the name is still taken).
  void append_header(std::string& out) const;

  // One item's row: the page's URL, then its value for each key: a string
  // as it is, a number or a boolean as its JSON text, an array or an
  // object as its compact JSON text, empty for null or a key the item
  // lacks. Text goes through append_csv_text (quoting, formula guard,
  // control characters); numbers are written unguarded, as the page CSV's.
  // Ends in CRLF.
  void append_row(std::string& out, std::string_view url, std::string_view item_text) const;

  std::size_t size() const { return keys_.size(); }

 private:
  std::vector<std::string> keys_;                       // first-seen order
  std::unordered_map<std::string, std::size_t> index_;  // key -> its place in keys_
};

}  // namespace actorcrawl
