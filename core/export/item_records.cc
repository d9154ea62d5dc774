#include "core/export/item_records.h"

#include <nlohmann/json.hpp>

#include <set>

#include "core/export/export_text.h"
#include "core/web/json_guard.h"
#include "core/web/json_text.h"

namespace actorcrawl {

namespace {

using ordered_json = nlohmann::ordered_json;

// Deeper than this, an item is not rebuilt (json_guard.h says why).
// Nothing a page gives an extraction rule comes near it.
constexpr int kMaxNesting = 512;

// The stored item as JSON, keys in their stored order; discarded when it
// is not JSON (or nests too deep to rebuild).
ordered_json parsed(std::string_view text) {
  if (!json_nests_within(text, kMaxNesting))
    return ordered_json(ordered_json::value_t::discarded);
  return ordered_json::parse(text.begin(), text.end(), nullptr, false);
}

std::string compact(const ordered_json& value) {
  return json_text(value);
}

// One CSV cell for a top-level value (docs/exports.md, items-csv).
void append_cell(std::string& out, const ordered_json& value) {
  switch (value.type()) {
    case ordered_json::value_t::null:
    case ordered_json::value_t::discarded:
      break;
    case ordered_json::value_t::string:
      append_csv_text(out, value.get_ref<const std::string&>());
      break;
    case ordered_json::value_t::boolean:
      out += value.get<bool>() ? "true" : "false";
      break;
    case ordered_json::value_t::number_integer:
    case ordered_json::value_t::number_unsigned:
    case ordered_json::value_t::number_float:
      // Digits, a sign, a point, an exponent: nothing to quote, and a
      // spreadsheet reads it as the number it is (as the page CSV's
      // numeric columns).
      out += compact(value);
      break;
    default:  // array, object (binary: never from a parse)
      append_csv_text(out, compact(value));
      break;
  }
}

}  // namespace

void append_jsonl_item(std::string& out, const ExportItem& item) {
  ordered_json value = parsed(item.item);
  if (value.is_discarded())
    value = item.item;  // as text; dump() replaces what is not UTF-8
  ordered_json record = ordered_json::object();
  record["url"] = item.url;
  record["kind"] = item.kind;
  record["item"] = std::move(value);
  out += compact(record);
  out += '\n';
}

void ItemColumns::add_keys_of(std::string_view item_text) {
  const ordered_json item = parsed(item_text);
  if (!item.is_object())
    return;
  for (auto it = item.begin(); it != item.end(); ++it)
    if (index_.emplace(it.key(), keys_.size()).second)
      keys_.push_back(it.key());
}

void ItemColumns::append_header(std::string& out) const {
  out += "url";
  // Every key keeps its own name but `url`, renamed to a name no key has.
  std::set<std::string_view> taken(keys_.begin(), keys_.end());
  taken.insert("url");
  std::string renamed;
  for (const auto& key : keys_) {
    out += ',';
    if (key != "url") {
      append_csv_text(out, key);
      continue;
    }
    renamed = "item.url";
    while (taken.count(renamed))
      renamed.insert(0, "item.");
    append_csv_text(out, renamed);
  }
  out += "\r\n";
}

void ItemColumns::append_row(std::string& out, std::string_view url, std::string_view item_text) const {
  append_csv_text(out, url);
  const ordered_json item = parsed(item_text);
  // The item's values in column order: its keys come in its own order.
  std::vector<const ordered_json*> cells(keys_.size(), nullptr);
  if (item.is_object())
    for (auto it = item.begin(); it != item.end(); ++it)
      if (const auto column = index_.find(it.key()); column != index_.end())
        cells[column->second] = &it.value();
  for (const ordered_json* cell : cells) {
    out += ',';
    if (cell)
      append_cell(out, *cell);
  }
  out += "\r\n";
}

}  // namespace actorcrawl
