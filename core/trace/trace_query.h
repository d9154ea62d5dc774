// Reading message traces back: merge the files of several nodes, filter by
// URL, actor, type or time, and render them as text lines, a Mermaid
// sequence diagram (one URL's journey through the actors) or a summary per
// actor. What `actorcrawl trace` prints.
#pragma once

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "core/trace/trace_record.h"
#include "core/trace/trace_writer.h"

namespace actorcrawl {

struct TraceFilter {
  std::optional<std::string> url;    // one of the record's URLs, exactly
  std::optional<std::string> actor;  // sender or receiver: "fetch_worker" also matches "fetch_worker/2"
  std::optional<std::string> type;   // exactly
  std::optional<std::int64_t> since_wall_us;  // inclusive
  std::optional<std::int64_t> until_wall_us;  // inclusive

  bool matches(const TraceRecord& record) const;
};

// Reads every file (TraceFileError if one cannot be read), skips blank lines,
// and merges all records by (wall_us, node, seq): files of several nodes
// interleave by time, and one file keeps its order. A bad line throws
// TraceFormatError naming "file:line: ".
std::vector<TraceRecord> read_trace_files(const std::vector<std::string>& paths);

// The same, keeping only what `filter` matches, so memory follows what is
// kept rather than the size of the files. `first_wall_us`, if given, gets
// the earliest wall time of all records read, kept or not (0 if none): the
// origin of "+SECONDS".
std::vector<TraceRecord> read_trace_files(const std::vector<std::string>& paths, const TraceFilter& filter,
                                          std::int64_t* first_wall_us = nullptr);

// A --since/--until value that is none of the accepted forms.
class TimeBoundError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// A time bound in wall microseconds from "2026-11-22T21:00:00Z" (UTC,
// optional fraction), epoch milliseconds (13 or more digits, as the crawl's
// database stores times) or "+SECONDS" (decimal) after `first_wall_us`, the
// first record of the trace. Throws TimeBoundError.
std::int64_t parse_time_bound(std::string_view text, std::int64_t first_wall_us);

// One line per record: milliseconds since `origin_wall_us` (default: the
// first record given), node, "from -> to", type, URL, fields, and request,
// reply and mailbox time when known. Columns are aligned.
std::string render_lines(const std::vector<TraceRecord>& records,
                         std::optional<std::int64_t> origin_wall_us = std::nullopt);

// A Mermaid sequence diagram: participants P1, P2, ... in order of first
// appearance (labelled "actor @ node" when the records span several nodes;
// an unknown sender is "external"), one arrow per record ("-->>" for a
// response), the text being the type and the URL's path.
std::string render_mermaid(const std::vector<TraceRecord>& records);

// Per receiving actor: messages by type and mailbox times; the total number
// of records, the nodes and the time span. Aligned plain text.
std::string render_summary(const std::vector<TraceRecord>& records);

}  // namespace actorcrawl
