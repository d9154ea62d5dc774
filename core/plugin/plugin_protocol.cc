#include "core/plugin/plugin_protocol.h"

#include <nlohmann/json.hpp>

#include "core/web/ascii.h"
#include "core/web/charset.h"
#include "core/web/json_guard.h"
#include "core/web/json_spans.h"
#include "core/web/json_text.h"

namespace actorcrawl {

namespace {

// Ordered, so a line reads in the documented order (id first: a plugin's
// too-long answer is attributed by its leading id, and people read these).
using OrderedJson = nlohmann::ordered_json;

// Text the crawler did not make (header values, a plugin's words) may hold
// invalid UTF-8, which JSON cannot carry: replaced, never thrown.
std::string dump_line(const OrderedJson& value) {
  std::string line = json_text(value);
  line += '\n';
  return line;
}

OrderedJson headers_object(std::string_view head) {
  OrderedJson fields = OrderedJson::object();
  std::string* last_value = nullptr;  // the field an obsolete folded line continues
  bool status_line = true;
  while (!head.empty()) {
    const std::size_t end = head.find('\n');
    std::string_view line = head.substr(0, end);
    head = end == std::string_view::npos ? std::string_view{} : head.substr(end + 1);
    if (!line.empty() && line.back() == '\r')
      line.remove_suffix(1);
    if (status_line) {  // "HTTP/1.1 200 OK"
      status_line = false;
      continue;
    }
    if (line.empty())
      break;  // the end of the head
    if (line.front() == ' ' || line.front() == '\t') {
      if (last_value != nullptr) {
        *last_value += ' ';
        *last_value += ascii::trim(line);
      }
      continue;
    }
    const std::size_t colon = line.find(':');
    if (colon == std::string_view::npos || colon == 0)
      continue;
    const std::string name = ascii::lowercase(ascii::trim(line.substr(0, colon)));
    const std::string_view value = ascii::trim(line.substr(colon + 1));
    auto found = fields.find(name);
    if (found == fields.end()) {
      fields[name] = std::string{value};
    } else {
      auto& joined = found->get_ref<std::string&>();
      joined += ", ";
      joined += value;
    }
    last_value = &fields[name].get_ref<std::string&>();
  }
  return fields;
}

}  // namespace

std::string plugin_hello_line(const std::string& plugin_name) {
  OrderedJson hello = {{"hello", {{"protocol", kPluginProtocolVersion}, {"plugin", plugin_name}}}};
  return dump_line(hello);
}

std::string plugin_headers_json(std::string_view response_head) {
  return json_text(headers_object(response_head));
}

std::string plugin_page_line(std::uint64_t id, const FetchedPage& page) {
  // The same decoding html_links applies, so a plugin reads the text the
  // crawler's own parsers read.
  const std::string charset = sniff_charset(page.body, page.charset);
  std::string body;
  if (charset == "utf-8" && is_valid_utf8(page.body))
    body.assign(page.body);
  else
    body = to_utf8(page.body, charset);
  OrderedJson line = OrderedJson::object();
  line["id"] = id;
  line["url"] = page.url;
  line["final_url"] = page.final_url;
  line["status"] = page.status_code;
  line["depth"] = page.depth;
  line["content_type"] = page.content_type;
  line["truncated"] = page.truncated;
  line["headers"] = headers_object(page.response_head);
  line["body"] = std::move(body);
  return dump_line(line);
}

PluginAnswer read_plugin_answer(std::string_view line, std::size_t max_items, std::size_t max_links) {
  PluginAnswer answer;
  // What cannot be read whole is still attributable by its leading id.
  const auto unreadable = [&answer, line](std::string problem) {
    answer.id = leading_answer_id(line);
    answer.problem = std::move(problem);
    return answer;
  };
  if (const std::string shape = json_shape_problem(line); !shape.empty())
    return unreadable("a JSON line " + shape);
  if (!nlohmann::json::accept(line))
    return unreadable("not a JSON line");
  std::string_view id_text, error_text, items_text, links_text;
  // A key of the protocol given twice makes the answer ambiguous (JSON
  // parsers disagree on which one counts): it is refused, naming the key.
  std::string twice;
  const auto take = [&twice](std::string_view& slot, const std::string& key, std::string_view value) {
    if (!slot.empty() && twice.empty())
      twice = key;
    slot = value;
  };
  const bool object = for_each_json_member(line, [&](const std::string& key, std::string_view value) {
    if (key == "id")
      take(id_text, key, value);
    else if (key == "error")
      take(error_text, key, value);
    else if (key == "items")
      take(items_text, key, value);
    else if (key == "links")
      take(links_text, key, value);
  });
  if (!object) {
    answer.problem = "not a JSON object";
    return answer;
  }
  if (!twice.empty())
    return unreadable("\"" + twice + "\" given twice");
  const auto id = nlohmann::json::parse(id_text, nullptr, false);
  if (id_text.empty() || id.is_discarded() || !id.is_number_integer() || id.get<std::int64_t>() < 0) {
    answer.problem = "no \"id\" that is a non-negative integer";
    return answer;
  }
  answer.id = id.get<std::uint64_t>();
  if (!error_text.empty()) {
    const auto error = nlohmann::json::parse(error_text, nullptr, false);
    if (!error.is_string()) {
      answer.problem = "\"error\" is not a string";
      return answer;
    }
    answer.error = error.get<std::string>();
    return answer;
  }
  const auto fail = [&answer](const char* problem) {
    answer.problem = problem;
    answer.items.clear();
    answer.links.clear();
    return answer;
  };
  if (!items_text.empty()) {
    bool all_objects = true;
    const bool array = for_each_json_element(items_text, [&](std::string_view item) {
      all_objects = all_objects && !item.empty() && item.front() == '{';
      if (all_objects && answer.items_total++ < max_items)
        answer.items.emplace_back(item);
    });
    if (!array)
      return fail("\"items\" is not an array");
    if (!all_objects)
      return fail("an item is not a JSON object");
  }
  if (!links_text.empty()) {
    bool all_strings = true;
    const bool array = for_each_json_element(links_text, [&](std::string_view link) {
      all_strings = all_strings && !link.empty() && link.front() == '"';
      if (all_strings && answer.links_total++ < max_links) {
        // Decoded only while kept: past the cap a link is counted, not read.
        const auto text = nlohmann::json::parse(link, nullptr, false);
        answer.links.push_back(text.is_string() ? text.get<std::string>() : std::string{});
      }
    });
    if (!array)
      return fail("\"links\" is not an array");
    if (!all_strings)
      return fail("a link is not a string");
  }
  return answer;
}

std::optional<std::uint64_t> leading_answer_id(std::string_view s) {
  auto skip_space = [&s] {
    while (!s.empty() && ascii::is_space(s.front()))
      s.remove_prefix(1);
  };
  auto take = [&s, &skip_space](std::string_view token) {
    skip_space();
    if (s.substr(0, token.size()) != token)
      return false;
    s.remove_prefix(token.size());
    return true;
  };
  if (!take("{") || !take("\"id\"") || !take(":"))
    return std::nullopt;
  skip_space();
  std::uint64_t id = 0;
  std::size_t digits = 0;
  while (digits < s.size() && ascii::is_digit(s[digits])) {
    if (digits == 19)  // past any id the crawler hands out
      return std::nullopt;
    id = id * 10 + static_cast<std::uint64_t>(s[digits] - '0');
    ++digits;
  }
  // The number must end inside what is kept: "17" cut from "175" is not 17.
  if (digits == 0 || digits == s.size())
    return std::nullopt;
  const char after = s[digits];
  if (after != ',' && after != '}' && !ascii::is_space(after))
    return std::nullopt;
  return id;
}

std::string bounded_plugin_text(std::string_view raw, std::size_t max_bytes) {
  const bool cut = raw.size() > max_bytes;
  std::string text = to_utf8(cut ? raw.substr(0, max_bytes) : raw, "utf-8");
  if (text.size() > max_bytes || cut) {
    // U+FFFD replacements may have made it longer; cut at a character start.
    std::size_t end = std::min(text.size(), max_bytes);
    while (end > 0 && end < text.size() && (static_cast<unsigned char>(text[end]) & 0xC0) == 0x80)
      --end;
    text.resize(end);
    text += "...";
  }
  return text;
}

}  // namespace actorcrawl
