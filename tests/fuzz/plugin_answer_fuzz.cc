// libFuzzer target for what the crawler reads of a plugin's stdout
// (core/plugin/plugin_protocol): any bytes as one answer line. The
// properties:
//
// - nothing crashes or throws, and the cost stays linear (the JSON guard
//   runs before anything that recurses: a deep line is a problem, not a
//   stack overflow);
// - at most max_items items and max_links links are kept, and items_total
//   counts at least what was kept;
// - every kept item is a JSON object, kept as the plugin wrote it (it
//   parses, and it is a slice of the line);
// - a line read as a valid answer names its id, and leading_answer_id
//   (what the crawler reads of a line too long to keep) never disagrees
//   with it;
// - bounded_plugin_text stays within its bound and is valid UTF-8.

#include <nlohmann/json.hpp>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "core/plugin/plugin_protocol.h"
#include "core/web/charset.h"

namespace {

using namespace actorcrawl;

[[noreturn]] void fail(const char* what, std::string_view detail) {
  std::fprintf(stderr, "plugin_answer_fuzz: %s\n  %.*s\n", what, static_cast<int>(std::min<std::size_t>(detail.size(), 400)),
               detail.data());
  std::abort();
}

constexpr std::size_t kMaxItems = 4;
constexpr std::size_t kMaxLinks = 4;


}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view line{reinterpret_cast<const char*>(data), size};
  const PluginAnswer answer = read_plugin_answer(line, kMaxItems, kMaxLinks);
  if (answer.items.size() > kMaxItems)
    fail("more items kept than max_items", line);
  if (answer.links.size() > kMaxLinks)
    fail("more links kept than max_links", line);
  if (answer.items_total < answer.items.size())
    fail("items_total below the items kept", line);
  for (const auto& item : answer.items) {
    if (line.find(item) == std::string_view::npos)
      fail("an item is not the plugin's own text", item);
    const auto parsed = nlohmann::json::parse(item, nullptr, false);
    if (parsed.is_discarded() || !parsed.is_object())
      fail("a kept item is not a JSON object", item);
  }
  if (answer.problem.empty() && !answer.id)
    fail("a valid answer without an id", line);
  if (answer.id && answer.problem.empty())
    if (const auto leading = leading_answer_id(line); leading && *leading != *answer.id)
      fail("leading_answer_id disagrees with the answer's id", line);
  const std::string shown = bounded_plugin_text(line, 64);
  if (shown.size() > 64 + 3)
    fail("bounded_plugin_text past its bound", shown);
  if (!is_valid_utf8(shown))
    fail("bounded_plugin_text is not UTF-8", shown);
  return 0;
}
