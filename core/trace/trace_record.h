// One line of the message trace: a message delivered to a topology actor,
// as JSON Lines. A line is written by the receiver's process, so files from
// several nodes can be merged by wall time and read with `actorcrawl trace`.
// Plain C++ (no CAF): the actors' hook fills a TraceRecord; the writer and
// the reader live in trace_writer.h and trace_query.h.
#pragma once

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace actorcrawl {

// A trace line that cannot be decoded. The message says which key is missing
// or has the wrong type (the reader adds file:line).
class TraceFormatError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct TraceRecord {
  std::uint64_t seq = 0;      // per process, from 1 (assigned by TraceWriter)
  std::int64_t mono_us = 0;   // steady clock of the writing process
  std::int64_t wall_us = 0;   // system clock, Unix epoch: files of several nodes merge by it
  std::string node;           // the writing process = the receiver's node
  std::string from;           // sender actor ("fetch_worker/2"); empty if unknown
  std::string from_node;      // sender's node; empty means the same as `node`
  std::string to;             // receiver actor
  std::string type;           // message type ("fetch_jobs", "page_links", ...)
  std::vector<std::string> urls;  // URLs the message carries, possibly none
  nlohmann::json fields;      // an object of key fields; null or {} when none
  std::optional<std::uint64_t> request_id;  // a request that expects a response
  std::optional<std::uint64_t> reply_to;    // a response: the request it answers
  std::optional<std::int64_t> mailbox_us;   // time waited in the receiver's mailbox

  // Field by field; null and {} fields are equal (both mean "none", and a
  // line with no fields reads back as null).
  bool operator==(const TraceRecord& other) const;
  bool operator!=(const TraceRecord& other) const { return !(*this == other); }
};

// Appends the record as one compact JSON object and a '\n'. Keys in this
// order: seq, mono_us, wall_us, node, from, from_node (if not empty), to,
// type, url (the first URL, if any), urls (all, if more than one), fields
// (if not empty), request_id, reply_to, mailbox_us (each if set). Strings are
// escaped; invalid UTF-8 bytes become U+FFFD, so every line is valid JSON.
// `fields` that is not an object is written as {"value": fields}.
void append_trace_line(std::string& out, const TraceRecord& record);

// The same line, without the '\n'.
std::string to_trace_line(const TraceRecord& record);

// append_trace_line in two parts, so TraceWriter can build the rest outside
// its lock and take seq and the clocks inside it: the head is
// `{"seq":N,"mono_us":N,"wall_us":N,`, the rest starts at "node".
void append_trace_line_head(std::string& out, std::uint64_t seq, std::int64_t mono_us, std::int64_t wall_us);
void append_trace_line_rest(std::string& out, const TraceRecord& record);

// Decodes one line (a trailing "\r\n" or "\n" is allowed). Unknown keys are
// ignored; a missing required key, a wrong type, a value out of range or
// text that is not one JSON object throws TraceFormatError. Never crashes:
// nesting deeper than 64 levels is refused before the JSON parser sees it.
TraceRecord parse_trace_line(std::string_view line);

}  // namespace actorcrawl
