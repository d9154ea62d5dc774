// Appends the message trace of one process to a JSON Lines file. Called once
// per delivered message from several actor threads when tracing is on, so
// the line is built outside the lock and written through a buffer.
#pragma once

#include <cstdint>
#include <cstdio>
#include <mutex>
#include <stdexcept>
#include <string>

#include "core/trace/trace_record.h"

namespace actorcrawl {

// A trace file that cannot be opened, written or read; names the path.
class TraceFileError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class TraceWriter {
 public:
  // The writer caps a record's URLs at this many (the line stays small even
  // for a page with thousands of links); fields["urls_total"] keeps the count.
  static constexpr std::size_t kMaxUrls = 64;

  // Opens `path`, truncating it. `node` is this process's node id, written
  // into every line. Throws TraceFileError.
  TraceWriter(const std::string& path, std::string node);
  ~TraceWriter();  // flushes; errors are lost here, call flush() to see them
  TraceWriter(const TraceWriter&) = delete;
  TraceWriter& operator=(const TraceWriter&) = delete;

  // Assigns seq (always), mono_us and wall_us (when 0) and node, then
  // appends the line. Thread-safe; lines never interleave, and seq order is
  // the order of the lines and of the clocks taken here. Never throws on a
  // failed write (it runs inside message handlers): the first error is kept
  // for flush().
  void record(TraceRecord record);

  // Writes the buffer and flushes the file. Throws TraceFileError if this
  // or any earlier write failed.
  void flush();

  const std::string& path() const { return path_; }
  const std::string& node() const { return node_; }

 private:
  // Caller holds mutex_.
  void write_buffer();

  std::string path_;
  std::string node_;
  std::mutex mutex_;
  std::FILE* file_ = nullptr;
  std::string buffer_;
  std::uint64_t last_seq_ = 0;
  std::string error_;  // the first write error, if any
};

}  // namespace actorcrawl
