#include "core/trace/trace_record.h"

#include <charconv>
#include <limits>

#include "core/web/json_guard.h"
#include "core/web/json_text.h"

namespace actorcrawl {

namespace {

using nlohmann::json;

constexpr int kMaxNesting = 64;

bool fields_empty(const json& fields) { return fields.is_null() || (fields.is_object() && fields.empty()); }

template <typename Int>
void append_number(std::string& out, Int value) {
  char buffer[24];
  const auto result = std::to_chars(buffer, buffer + sizeof buffer, value);
  out.append(buffer, result.ptr);
}

void append_key(std::string& out, std::string_view key, bool first = false) {
  if (!first)
    out += ',';
  out += '"';
  out += key;  // keys are fixed ASCII names: nothing to escape
  out += "\":";
}

// Refuses deep nesting before nlohmann's parser and dump (which recurse) see it.
void check_nesting(std::string_view line) {
  if (!json_nests_within(line, kMaxNesting))
    throw TraceFormatError("JSON nested deeper than " + std::to_string(kMaxNesting) + " levels");
}

// nlohmann's messages start with "[json.exception.parse_error.101] ".
std::string without_exception_tag(const char* what) {
  std::string_view text = what;
  if (!text.empty() && text.front() == '[') {
    if (const auto end = text.find("] "); end != std::string_view::npos)
      text.remove_prefix(end + 2);
  }
  return std::string(text);
}

std::string quoted(std::string_view key) { return "key \"" + std::string(key) + "\""; }

const json* find_key(const json& object, const char* key) {
  const auto it = object.find(key);
  return it == object.end() ? nullptr : &*it;
}

const json& require_key(const json& object, const char* key) {
  const json* value = find_key(object, key);
  if (!value)
    throw TraceFormatError("missing " + quoted(key));
  return *value;
}

std::string as_string(const json& value, const std::string& what) {
  if (!value.is_string())
    throw TraceFormatError(what + " must be a string, not " + value.type_name());
  return value.get<std::string>();
}

std::uint64_t as_unsigned(const json& value, const std::string& what) {
  if (value.is_number_unsigned())
    return value.get<std::uint64_t>();
  if (value.is_number_integer())
    throw TraceFormatError(what + " must not be negative");
  throw TraceFormatError(what + " must be an unsigned integer, not " +
                         (value.is_number_float() ? std::string("a fraction or a number out of range")
                                                  : std::string(value.type_name())));
}

std::int64_t as_signed(const json& value, const std::string& what) {
  if (value.is_number_unsigned()) {
    const auto v = value.get<std::uint64_t>();
    if (v > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()))
      throw TraceFormatError(what + " is out of range");
    return static_cast<std::int64_t>(v);
  }
  if (value.is_number_integer())
    return value.get<std::int64_t>();
  throw TraceFormatError(what + " must be an integer, not " +
                         (value.is_number_float() ? std::string("a fraction or a number out of range")
                                                  : std::string(value.type_name())));
}

}  // namespace

bool TraceRecord::operator==(const TraceRecord& other) const {
  const bool same_fields =
    fields_empty(fields) ? fields_empty(other.fields) : (!fields_empty(other.fields) && fields == other.fields);
  return seq == other.seq && mono_us == other.mono_us && wall_us == other.wall_us && node == other.node &&
         from == other.from && from_node == other.from_node && to == other.to && type == other.type &&
         urls == other.urls && same_fields && request_id == other.request_id && reply_to == other.reply_to &&
         mailbox_us == other.mailbox_us;
}


void append_trace_line_head(std::string& out, std::uint64_t seq, std::int64_t mono_us, std::int64_t wall_us) {
  out += '{';
  append_key(out, "seq", true);
  append_number(out, seq);
  append_key(out, "mono_us");
  append_number(out, mono_us);
  append_key(out, "wall_us");
  append_number(out, wall_us);
  out += ',';
}

void append_trace_line_rest(std::string& out, const TraceRecord& r) {
  append_key(out, "node", true);
  append_json_string(out, r.node);
  append_key(out, "from");
  append_json_string(out, r.from);
  if (!r.from_node.empty()) {
    append_key(out, "from_node");
    append_json_string(out, r.from_node);
  }
  append_key(out, "to");
  append_json_string(out, r.to);
  append_key(out, "type");
  append_json_string(out, r.type);
  if (!r.urls.empty()) {
    append_key(out, "url");
    append_json_string(out, r.urls.front());
  }
  if (r.urls.size() > 1) {
    append_key(out, "urls");
    out += '[';
    for (std::size_t i = 0; i < r.urls.size(); ++i) {
      if (i)
        out += ',';
      append_json_string(out, r.urls[i]);
    }
    out += ']';
  }
  if (!fields_empty(r.fields)) {
    append_key(out, "fields");
    const std::string dumped = json_text(r.fields);
    if (r.fields.is_object()) {
      out += dumped;
    } else {
      out += "{\"value\":";
      out += dumped;
      out += '}';
    }
  }
  if (r.request_id) {
    append_key(out, "request_id");
    append_number(out, *r.request_id);
  }
  if (r.reply_to) {
    append_key(out, "reply_to");
    append_number(out, *r.reply_to);
  }
  if (r.mailbox_us) {
    append_key(out, "mailbox_us");
    append_number(out, *r.mailbox_us);
  }
  out += "}\n";
}

void append_trace_line(std::string& out, const TraceRecord& r) {
  append_trace_line_head(out, r.seq, r.mono_us, r.wall_us);
  append_trace_line_rest(out, r);
}

std::string to_trace_line(const TraceRecord& record) {
  std::string line;
  line.reserve(256);
  append_trace_line(line, record);
  line.pop_back();
  return line;
}

TraceRecord parse_trace_line(std::string_view line) {
  if (!line.empty() && line.back() == '\n')
    line.remove_suffix(1);
  if (!line.empty() && line.back() == '\r')
    line.remove_suffix(1);
  check_nesting(line);
  json j;
  try {
    j = json::parse(line.begin(), line.end());
  } catch (const json::exception& e) {
    throw TraceFormatError("not valid JSON: " + without_exception_tag(e.what()));
  }
  if (!j.is_object())
    throw TraceFormatError(std::string("a trace line must be a JSON object, not ") + j.type_name());

  TraceRecord r;
  r.seq = as_unsigned(require_key(j, "seq"), quoted("seq"));
  r.mono_us = as_signed(require_key(j, "mono_us"), quoted("mono_us"));
  r.wall_us = as_signed(require_key(j, "wall_us"), quoted("wall_us"));
  r.node = as_string(require_key(j, "node"), quoted("node"));
  r.from = as_string(require_key(j, "from"), quoted("from"));
  if (const json* v = find_key(j, "from_node"))
    r.from_node = as_string(*v, quoted("from_node"));
  r.to = as_string(require_key(j, "to"), quoted("to"));
  r.type = as_string(require_key(j, "type"), quoted("type"));

  std::optional<std::string> url;
  if (const json* v = find_key(j, "url"))
    url = as_string(*v, quoted("url"));
  if (const json* v = find_key(j, "urls")) {
    if (!v->is_array())
      throw TraceFormatError(quoted("urls") + " must be an array, not " + v->type_name());
    r.urls.reserve(v->size());
    for (std::size_t i = 0; i < v->size(); ++i)
      r.urls.push_back(as_string((*v)[i], quoted("urls") + " item " + std::to_string(i)));
  }
  if (r.urls.empty() && url)
    r.urls.push_back(std::move(*url));

  if (const json* v = find_key(j, "fields")) {
    if (!v->is_object())
      throw TraceFormatError(quoted("fields") + " must be an object, not " + v->type_name());
    r.fields = *v;
  }
  if (const json* v = find_key(j, "request_id"))
    r.request_id = as_unsigned(*v, quoted("request_id"));
  if (const json* v = find_key(j, "reply_to"))
    r.reply_to = as_unsigned(*v, quoted("reply_to"));
  if (const json* v = find_key(j, "mailbox_us"))
    r.mailbox_us = as_signed(*v, quoted("mailbox_us"));
  return r;
}

}  // namespace actorcrawl
