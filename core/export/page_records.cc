#include "core/export/page_records.h"

#include <nlohmann/json.hpp>

#include "core/export/export_text.h"
#include "core/web/json_text.h"

namespace actorcrawl {

namespace {

using ordered_json = nlohmann::ordered_json;

ordered_json or_null(const OptionalText& t) { return t ? ordered_json(*t) : ordered_json(nullptr); }
ordered_json or_null(const OptionalInt& i) { return i ? ordered_json(*i) : ordered_json(nullptr); }

// The stored redirect chain is the crawler's JSON array of {"url","status"}
// hops; read back as such when it is one, else kept as the text it is (a
// database from elsewhere may hold anything there).
ordered_json redirect_chain_of(const OptionalText& text) {
  if (!text)
    return nullptr;
  ordered_json chain = ordered_json::parse(*text, nullptr, false);
  if (chain.is_discarded() || !chain.is_array())
    return *text;
  for (const auto& hop : chain) {
    if (!hop.is_object())
      return *text;
    for (const auto& [key, value] : hop.items())
      if (value.is_structured())
        return *text;
  }
  return chain;
}

// The CSV's columns, in order.
constexpr const char* kCsvHeader =
  "url,final_url,status_code,content_type,title,description,depth,fetched_at,fetch_ms,bytes,truncated,attempts,"
  "error,canonical_url,robots_directives,redirect_chain,links,links_dropped\r\n";

void csv_text(std::string& out, const OptionalText& t) {
  if (t)
    append_csv_text(out, *t);
  out += ',';
}

void csv_int(std::string& out, const OptionalInt& i) {
  if (i)
    out += std::to_string(*i);
  out += ',';
}

}  // namespace

void append_jsonl_page(std::string& out, const ExportPage& page) {
  ordered_json links = ordered_json::array();
  for (const auto& link : page.links)
    links.push_back(ordered_json{{"url", link.url}, {"nofollow", link.nofollow}});
  const ordered_json record{
    {"url", page.url},
    {"final_url", or_null(page.final_url)},
    {"status_code", or_null(page.status_code)},
    {"content_type", or_null(page.content_type)},
    {"title", or_null(page.title)},
    {"description", or_null(page.description)},
    {"depth", or_null(page.depth)},
    {"fetched_at", or_null(page.fetched_at)},
    {"fetch_ms", or_null(page.fetch_ms)},
    {"bytes", or_null(page.bytes)},
    {"truncated", page.truncated ? ordered_json(*page.truncated != 0) : ordered_json(nullptr)},
    {"attempts", or_null(page.attempts)},
    {"error", or_null(page.error)},
    {"redirect_chain", redirect_chain_of(page.redirect_chain)},
    {"canonical_url", or_null(page.canonical_url)},
    {"robots_directives", or_null(page.robots_directives)},
    {"links", std::move(links)},
    {"links_dropped", page.links_dropped.value_or(0)},
  };
  out += json_text(record);
  out += '\n';
}

void append_csv_header(std::string& out) { out += kCsvHeader; }

void append_csv_page(std::string& out, const ExportPage& page) {
  append_csv_text(out, page.url);
  out += ',';
  csv_text(out, page.final_url);
  csv_int(out, page.status_code);
  csv_text(out, page.content_type);
  csv_text(out, page.title);
  csv_text(out, page.description);
  csv_int(out, page.depth);
  csv_int(out, page.fetched_at);
  csv_int(out, page.fetch_ms);
  csv_int(out, page.bytes);
  csv_int(out, page.truncated);
  csv_int(out, page.attempts);
  csv_text(out, page.error);
  csv_text(out, page.canonical_url);
  csv_text(out, page.robots_directives);
  csv_text(out, page.redirect_chain);
  csv_int(out, static_cast<std::int64_t>(page.links.size()));
  out += std::to_string(page.links_dropped.value_or(0));
  out += "\r\n";
}

void append_jsonl_change(std::string& out, const ExportChange& change) {
  ordered_json record = ordered_json::object();
  record["url"] = change.url;
  record["run"] = change.run;
  record["change"] = change.change;
  out += json_text(record);
  out += '\n';
}

}  // namespace actorcrawl
