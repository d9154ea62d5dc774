// The lines an external processor (a plugin process) and the crawler
// exchange, protocol 1 (docs/plugins.md): JSON Lines, one object a
// line, UTF-8. The crawler writes a hello, then one line per page; the
// plugin answers each page by its id, in any order. Pure functions: the
// process, the pipes and the matching of answers live in external_processor.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/page/page_processor.h"

namespace actorcrawl {

inline constexpr int kPluginProtocolVersion = 1;

// {"hello": {"protocol": 1, "plugin": "<name>"}} and its newline.
std::string plugin_hello_line(const std::string& plugin_name);

// The page as the plugin reads it, with its newline: id, url, final_url,
// status, depth, content_type, truncated, headers (from response_head) and
// the body decoded to UTF-8 as html_links decodes it (sniff_charset, then
// to_utf8; invalid sequences become U+FFFD).
std::string plugin_page_line(std::uint64_t id, const FetchedPage& page);

// A response head's header fields as one JSON object text: names
// lowercased (HTTP names are case-insensitive, so a plugin looks up one
// spelling), a repeated name's values joined with ", " (RFC 9110 section
// 5.3), obsolete folded lines joined to the field before them, the status
// line and anything that is not a field skipped. Invalid UTF-8 in a value
// is replaced. "{}" for an empty head.
std::string plugin_headers_json(std::string_view response_head);

// One answer line, read. A line that names an id is attributable to that
// page even when the rest is wrong (`problem` then says what), so only
// that page fails; a line with no readable id is no answer (the plugin's
// own output). Read in time and memory linear in the line, whatever it
// holds: checked by json_guard.h, then by nlohmann::json::accept (no
// document built), its items and links then found as spans of the text,
// and only the first `max_items` and `max_links` kept; every item is kept
// exactly as the plugin wrote it (its keys in their order, its numbers as
// written).
struct PluginAnswer {
  std::optional<std::uint64_t> id;   // absent: not JSON, not an object, or no integer id
  std::vector<std::string> items;    // each a JSON object, as written
  std::vector<std::string> links;    // as the plugin wrote them (decoded strings)
  std::size_t items_total = 0;       // in the answer: more than items.size() when cut
  std::size_t links_total = 0;
  std::optional<std::string> error;  // {"id", "error": "..."}
  std::string problem;               // why the line is not a valid answer; "" when it is
};
PluginAnswer read_plugin_answer(std::string_view line, std::size_t max_items = static_cast<std::size_t>(-1),
                                std::size_t max_links = static_cast<std::size_t>(-1));

// The id an answer line names in its first bytes, when it starts as the
// helper writes it: {"id": 17, ... (whitespace allowed). For a line too long
// to keep, whose beginning is all that is left of it.
std::optional<std::uint64_t> leading_answer_id(std::string_view line_start);

// `raw` as valid UTF-8 of at most `max_bytes` bytes (not splitting a
// character), "..." appended when it was cut: text from a plugin made fit
// for a log line or a failure's detail.
std::string bounded_plugin_text(std::string_view raw, std::size_t max_bytes);

}  // namespace actorcrawl
