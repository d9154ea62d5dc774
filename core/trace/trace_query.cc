#include "core/trace/trace_query.h"

#include "core/clock/utc_time.h"
#include "core/encoding/percent_encoding.h"
#include "core/web/ascii.h"
#include "core/web/json_text.h"

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <set>
#include <unordered_map>

namespace actorcrawl {

namespace {

constexpr std::size_t kMermaidPathChars = 60;

bool is_blank(std::string_view line) {
  return line.find_first_not_of(" \t\r\n") == std::string_view::npos;
}

using ascii::is_digit;

bool all_digits(std::string_view text) {
  return !text.empty() && std::all_of(text.begin(), text.end(), is_digit);
}

// Text from a trace file, made safe for one output line: control characters
// (a name may contain "\n" after decoding) become '?'.
std::string printable(std::string_view text) {
  std::string out(text);
  for (char& c : out)
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7F)
      c = '?';
  return out;
}

// Width in characters of UTF-8 text (for alignment): bytes that do not
// continue a sequence.
std::size_t display_width(std::string_view text) {
  return static_cast<std::size_t>(
    std::count_if(text.begin(), text.end(), [](char c) { return (static_cast<unsigned char>(c) & 0xC0) != 0x80; }));
}

void append_padded(std::string& out, std::string_view text, std::size_t width) {
  out += text;
  for (std::size_t w = display_width(text); w < width; ++w)
    out += ' ';
}

void append_right(std::string& out, std::string_view text, std::size_t width) {
  for (std::size_t w = display_width(text); w < width; ++w)
    out += ' ';
  out += text;
}

// Matches exactly, or as the part of a name before '/' or '@':
// "fetch_worker" matches "fetch_worker/2" and "processor@n2".
bool actor_matches(const std::string& name, const std::string& wanted) {
  if (name.size() < wanted.size() || name.compare(0, wanted.size(), wanted) != 0)
    return false;
  return name.size() == wanted.size() || name[wanted.size()] == '/' || name[wanted.size()] == '@';
}

unsigned digits_value(std::string_view text, std::size_t pos, std::size_t count) {
  unsigned value = 0;
  for (std::size_t i = pos; i < pos + count; ++i)
    value = value * 10 + static_cast<unsigned>(text[i] - '0');
  return value;
}

// Microseconds from the digits after a decimal point: the first six count.
std::int64_t fraction_us(std::string_view digits) {
  std::int64_t us = 0;
  for (std::size_t i = 0; i < 6; ++i)
    us = us * 10 + (i < digits.size() ? digits[i] - '0' : 0);
  return us;
}

[[noreturn]] void bad_time(std::string_view text, const std::string& why) {
  throw TimeBoundError("'" + printable(text) + "' is not a time (" + why +
                       "); use 2026-11-22T21:00:00Z (UTC), epoch milliseconds (13 or more digits) "
                       "or +SECONDS after the first record");
}

std::int64_t parse_iso_time(std::string_view text) {
  // YYYY-MM-DDTHH:MM:SS[.fraction]Z
  if (text.size() < 20)
    bad_time(text, "too short for an ISO time");
  for (std::size_t i : {0, 1, 2, 3, 5, 6, 8, 9, 11, 12, 14, 15, 17, 18})
    if (!is_digit(text[i]))
      bad_time(text, "a digit expected at position " + std::to_string(i + 1));
  if (text[4] != '-' || text[7] != '-' || text[10] != 'T' || text[13] != ':' || text[16] != ':')
    bad_time(text, "expected YYYY-MM-DDTHH:MM:SS");
  std::string_view rest = text.substr(19);
  std::int64_t us = 0;
  if (!rest.empty() && rest.front() == '.') {
    std::size_t n = 1;
    while (n < rest.size() && is_digit(rest[n]))
      ++n;
    if (n == 1)
      bad_time(text, "digits expected after '.'");
    us = fraction_us(rest.substr(1, n - 1));
    rest.remove_prefix(n);
  }
  if (rest != "Z")
    bad_time(text, "a UTC time must end in 'Z'");
  const std::int64_t year = digits_value(text, 0, 4);
  const unsigned month = digits_value(text, 5, 2);
  const unsigned day = digits_value(text, 8, 2);
  const unsigned hour = digits_value(text, 11, 2);
  const unsigned minute = digits_value(text, 14, 2);
  const unsigned second = digits_value(text, 17, 2);
  if (month < 1 || month > 12)
    bad_time(text, "no month " + std::to_string(month));
  if (day < 1 || day > days_in_month(year, month))
    bad_time(text, "no day " + std::to_string(day) + " in that month");
  if (hour > 23 || minute > 59 || second > 59)
    bad_time(text, "hour, minute or second out of range");
  const std::int64_t seconds = epoch_seconds_of(UtcTime{year, month, day, hour, minute, second});
  return seconds * 1'000'000 + us;
}

std::int64_t parse_relative_seconds(std::string_view text, std::int64_t first_wall_us) {
  const std::string_view number = text.substr(1);
  const std::size_t dot = number.find('.');
  const std::string_view whole = number.substr(0, dot);
  const std::string_view fraction = dot == std::string_view::npos ? std::string_view{} : number.substr(dot + 1);
  const bool digits_ok = (whole.empty() || all_digits(whole)) && (fraction.empty() || all_digits(fraction));
  if (!digits_ok || (whole.empty() && fraction.empty()))
    bad_time(text, "'+' must be followed by a number of seconds");
  if (whole.size() > 12)
    bad_time(text, "too many seconds");
  std::int64_t seconds = 0;
  for (const char c : whole)
    seconds = seconds * 10 + (c - '0');
  const std::int64_t offset = seconds * 1'000'000 + fraction_us(fraction);
  if (first_wall_us > std::numeric_limits<std::int64_t>::max() - offset)
    bad_time(text, "too far after the first record");
  return first_wall_us + offset;
}

std::int64_t parse_epoch_ms(std::string_view text) {
  std::uint64_t ms = 0;
  const auto result = std::from_chars(text.data(), text.data() + text.size(), ms);
  if (result.ec != std::errc{} || ms > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max() / 1000))
    bad_time(text, "epoch milliseconds out of range");
  return static_cast<std::int64_t>(ms) * 1000;
}

// "fetch_worker/2", or "fetch_worker/2@n2" when it is on another node.
std::string sender_text(const TraceRecord& r) {
  std::string text = r.from.empty() ? "external" : printable(r.from);
  if (!r.from_node.empty() && r.from_node != r.node)
    text += "@" + printable(r.from_node);
  return text;
}

// How many URLs the message carried (the writer keeps at most 64 and notes
// the real count in fields.urls_total).
std::uint64_t urls_total(const TraceRecord& r) {
  if (r.fields.is_object()) {
    const auto it = r.fields.find("urls_total");
    if (it != r.fields.end() && it->is_number_unsigned())
      return std::max<std::uint64_t>(it->get<std::uint64_t>(), r.urls.size());
  }
  return r.urls.size();
}

// `wall_us - origin_us` in milliseconds with three decimals; computed
// without overflow whatever the file holds.
std::string relative_ms(std::int64_t wall_us, std::int64_t origin_us) {
  const bool negative = wall_us < origin_us;
  const std::uint64_t magnitude = negative ? static_cast<std::uint64_t>(origin_us) - static_cast<std::uint64_t>(wall_us)
                                           : static_cast<std::uint64_t>(wall_us) - static_cast<std::uint64_t>(origin_us);
  char buffer[40];
  std::snprintf(buffer, sizeof buffer, "%s%llu.%03llu", negative ? "-" : "",
                static_cast<unsigned long long>(magnitude / 1000), static_cast<unsigned long long>(magnitude % 1000));
  return buffer;
}

std::set<std::string> nodes_of(const std::vector<TraceRecord>& records) {
  std::set<std::string> nodes;
  for (const auto& r : records) {
    nodes.insert(r.node);
    if (!r.from_node.empty())
      nodes.insert(r.from_node);
  }
  return nodes;
}

// Mermaid gives ';' '#' ':' and line breaks a meaning of their own.
std::string mermaid_label(std::string_view text) {
  std::string out;
  for (const char c : text) {
    const auto u = static_cast<unsigned char>(c);
    out += (c == ';' || c == '#' || c == ':' || u < 0x20 || u == 0x7F) ? '_' : c;
  }
  const auto first = out.find_first_not_of(' ');
  if (first == std::string::npos)
    return "unknown";
  out.erase(0, first);
  out.erase(out.find_last_not_of(' ') + 1);
  return out;
}

// The part of a URL worth showing on an arrow: its path and query, cut short;
// ';' and '#' percent-encoded, as they would be in a URL anyway.
std::string mermaid_path(std::string_view url) {
  if (const auto scheme = url.find("://"); scheme != std::string_view::npos) {
    const auto slash = url.find('/', scheme + 3);
    url = slash == std::string_view::npos ? std::string_view("/") : url.substr(slash);
  }
  std::string out;
  std::size_t chars = 0;
  for (std::size_t i = 0; i < url.size(); ++i) {
    const char c = url[i];
    const auto u = static_cast<unsigned char>(c);
    if ((u & 0xC0) != 0x80 && ++chars > kMermaidPathChars) {
      out += "...";
      break;
    }
    if (c == ';')
      out += "%3B";
    else if (c == '#')
      out += "%23";
    else if (u < 0x20 || u == 0x7F)
      append_percent_encoded(out, u);
    else
      out += c;
  }
  return out;
}

struct MailboxStats {
  std::int64_t messages = 0;
  std::int64_t with_data = 0;
  double total_us = 0;  // a double: a sum of whatever a file holds cannot overflow
  std::int64_t max_us = 0;

  void add(const TraceRecord& r) {
    ++messages;
    if (!r.mailbox_us)
      return;
    ++with_data;
    total_us += static_cast<double>(*r.mailbox_us);
    max_us = with_data == 1 ? *r.mailbox_us : std::max(max_us, *r.mailbox_us);
  }
};

}  // namespace

std::vector<TraceRecord> read_trace_files(const std::vector<std::string>& paths) {
  return read_trace_files(paths, TraceFilter{});
}

std::vector<TraceRecord> read_trace_files(const std::vector<std::string>& paths, const TraceFilter& filter,
                                          std::int64_t* first_wall_us) {
  std::vector<TraceRecord> records;
  std::optional<std::int64_t> first;
  for (const auto& path : paths) {
    std::error_code ec;
    if (std::filesystem::is_directory(path, ec))
      throw TraceFileError("cannot read trace file '" + path + "': it is a directory");
    std::ifstream in(path, std::ios::binary);
    if (!in)
      throw TraceFileError("cannot read trace file '" + path + "': " + std::strerror(errno));
    std::string line;
    std::size_t number = 0;
    while (std::getline(in, line)) {
      ++number;
      if (is_blank(line))
        continue;
      TraceRecord record;
      try {
        record = parse_trace_line(line);
      } catch (const TraceFormatError& e) {
        throw TraceFormatError(path + ":" + std::to_string(number) + ": " + e.what());
      }
      if (!first || record.wall_us < *first)
        first = record.wall_us;
      if (filter.matches(record))
        records.push_back(std::move(record));
    }
    if (in.bad())
      throw TraceFileError("cannot read trace file '" + path + "': read error after line " + std::to_string(number));
  }
  if (first_wall_us)
    *first_wall_us = first.value_or(0);
  std::stable_sort(records.begin(), records.end(), [](const TraceRecord& a, const TraceRecord& b) {
    if (a.wall_us != b.wall_us)
      return a.wall_us < b.wall_us;
    if (a.node != b.node)
      return a.node < b.node;
    return a.seq < b.seq;
  });
  return records;
}

bool TraceFilter::matches(const TraceRecord& r) const {
  if (url && std::find(r.urls.begin(), r.urls.end(), *url) == r.urls.end())
    return false;
  if (actor && !actor_matches(r.from, *actor) && !actor_matches(r.to, *actor))
    return false;
  if (type && r.type != *type)
    return false;
  if (since_wall_us && r.wall_us < *since_wall_us)
    return false;
  if (until_wall_us && r.wall_us > *until_wall_us)
    return false;
  return true;
}

std::int64_t parse_time_bound(std::string_view text, std::int64_t first_wall_us) {
  if (text.empty())
    bad_time(text, "empty");
  if (text.front() == '+')
    return parse_relative_seconds(text, first_wall_us);
  if (all_digits(text)) {
    if (text.size() < 13)
      bad_time(text, "too few digits for epoch milliseconds");
    return parse_epoch_ms(text);
  }
  if (text.size() > 10 && text[10] == 'T')
    return parse_iso_time(text);
  bad_time(text, "unrecognized form");
}

std::string render_lines(const std::vector<TraceRecord>& records, std::optional<std::int64_t> origin_wall_us) {
  if (records.empty())
    return {};
  const std::int64_t origin = origin_wall_us.value_or(records.front().wall_us);
  struct Row {
    std::string time, node, route, type, rest;
  };
  std::vector<Row> rows;
  rows.reserve(records.size());
  std::size_t time_w = 0, node_w = 0, route_w = 0, type_w = 0;
  for (const auto& r : records) {
    Row row;
    row.time = relative_ms(r.wall_us, origin);
    row.node = printable(r.node);
    row.route = sender_text(r) + " -> " + printable(r.to);
    row.type = printable(r.type);
    if (!r.urls.empty()) {
      row.rest += printable(r.urls.front());
      if (const auto total = urls_total(r); total > 1)
        row.rest += " (+" + std::to_string(total - 1) + " more)";
    }
    auto add = [&row](const std::string& part) {
      if (!row.rest.empty())
        row.rest += "  ";
      row.rest += part;
    };
    if (!r.fields.is_null() && !(r.fields.is_object() && r.fields.empty()))
      add(json_text(r.fields));
    if (r.request_id)
      add("request=" + std::to_string(*r.request_id));
    if (r.reply_to)
      add("reply_to=" + std::to_string(*r.reply_to));
    if (r.mailbox_us)
      add("mailbox=" + std::to_string(*r.mailbox_us) + "us");
    time_w = std::max(time_w, display_width(row.time));
    node_w = std::max(node_w, display_width(row.node));
    route_w = std::max(route_w, std::min<std::size_t>(display_width(row.route), 48));
    type_w = std::max(type_w, std::min<std::size_t>(display_width(row.type), 20));
    rows.push_back(std::move(row));
  }
  std::string out;
  for (const auto& row : rows) {
    std::string line;
    append_right(line, row.time, time_w);
    line += "  ";
    append_padded(line, row.node, node_w);
    line += "  ";
    append_padded(line, row.route, route_w);
    line += "  ";
    append_padded(line, row.type, type_w);
    if (!row.rest.empty()) {
      line += "  ";
      line += row.rest;
    }
    line.erase(line.find_last_not_of(' ') + 1);
    out += line;
    out += '\n';
  }
  return out;
}

std::string render_mermaid(const std::vector<TraceRecord>& records) {
  const bool several_nodes = nodes_of(records).size() > 1;
  // A participant is an actor on a node; "external" is any unknown sender.
  std::unordered_map<std::string, std::string> ids;  // key -> P<n>
  std::string declarations;
  auto participant = [&](const std::string& name, const std::string& node, bool external) -> const std::string& {
    const std::string key = external ? std::string("\x01") : name + '\x00' + (several_nodes ? node : std::string());
    const auto it = ids.find(key);
    if (it != ids.end())
      return it->second;
    const std::string id = "P" + std::to_string(ids.size() + 1);
    std::string label = external ? std::string("external") : mermaid_label(name);
    if (several_nodes && !external)
      label += " @ " + mermaid_label(node);
    declarations += "    participant " + id + " as " + label + "\n";
    return ids.emplace(key, id).first->second;
  };
  std::string messages;
  for (const auto& r : records) {
    const std::string& from = participant(r.from, r.from_node.empty() ? r.node : r.from_node, r.from.empty());
    const std::string& to = participant(r.to, r.node, false);
    std::string text = r.type.empty() ? std::string("message") : mermaid_label(r.type);
    if (!r.urls.empty()) {
      text += " " + mermaid_path(r.urls.front());
      if (const auto total = urls_total(r); total > 1)
        text += " (+" + std::to_string(total - 1) + ")";
    }
    messages += "    " + from + (r.reply_to ? "-->>" : "->>") + to + ": " + text + "\n";
  }
  return "sequenceDiagram\n" + declarations + messages;
}

std::string render_summary(const std::vector<TraceRecord>& records) {
  std::string out;
  if (records.empty())
    return "records  0\n";
  const auto nodes = nodes_of(records);
  std::int64_t first = records.front().wall_us, last = first;
  for (const auto& r : records) {
    first = std::min(first, r.wall_us);
    last = std::max(last, r.wall_us);
  }
  std::string node_list;
  for (const auto& n : nodes)
    node_list += (node_list.empty() ? "" : ", ") + printable(n);
  out += "records  " + std::to_string(records.size()) + "\n";
  out += "nodes    " + std::to_string(nodes.size()) + " (" + node_list + ")\n";
  char span[64];
  std::snprintf(span, sizeof span, "%.3f s", (static_cast<double>(last) - static_cast<double>(first)) / 1e6);
  out += "span     " + std::string(span) + " (" + iso8601_utc_us(first) + " to " + iso8601_utc_us(last) + ")\n\n";

  struct ActorStats {
    MailboxStats total;
    std::map<std::string, MailboxStats> by_type;
  };
  std::map<std::string, ActorStats> actors;
  const bool several_nodes = nodes.size() > 1;
  for (const auto& r : records) {
    auto& actor = actors[(r.to.empty() ? std::string("unknown") : printable(r.to)) + (several_nodes ? " @ " + printable(r.node) : std::string())];
    actor.total.add(r);
    actor.by_type[printable(r.type)].add(r);
  }

  std::size_t name_w = std::string_view("actor / type").size();
  for (const auto& [name, stats] : actors) {
    name_w = std::max(name_w, display_width(name));
    for (const auto& [type, _] : stats.by_type)
      name_w = std::max(name_w, 2 + display_width(type));
  }
  auto row = [&](const std::string& name, const MailboxStats& s) {
    std::string line;
    append_padded(line, name, name_w);
    char numbers[160];
    if (s.with_data > 0)
      std::snprintf(numbers, sizeof numbers, "  %9lld  %12lld  %12.3f  %10.1f  %10lld", static_cast<long long>(s.messages),
                    static_cast<long long>(s.with_data), s.total_us / 1000.0,
                    s.total_us / static_cast<double>(s.with_data), static_cast<long long>(s.max_us));
    else
      std::snprintf(numbers, sizeof numbers, "  %9lld  %12lld  %12s  %10s  %10s", static_cast<long long>(s.messages),
                    0LL, "-", "-", "-");
    line += numbers;
    out += line + "\n";
  };
  std::string header;
  append_padded(header, "actor / type", name_w);
  char titles[160];
  std::snprintf(titles, sizeof titles, "  %9s  %12s  %12s  %10s  %10s", "messages", "with mailbox", "mailbox ms",
                "mean us", "max us");
  out += header + titles + "\n";
  for (const auto& [name, stats] : actors) {
    row(name, stats.total);
    for (const auto& [type, s] : stats.by_type)
      row("  " + type, s);
  }
  return out;
}

}  // namespace actorcrawl
