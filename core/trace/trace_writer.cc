#include "core/trace/trace_writer.h"

#include <cerrno>
#include <cstring>
#include <utility>

#include "core/clock/clock.h"

namespace actorcrawl {

namespace {

constexpr std::size_t kFlushBytes = 64 * 1024;

}  // namespace

TraceWriter::TraceWriter(const std::string& path, std::string node) : path_(path), node_(std::move(node)) {
  file_ = std::fopen(path.c_str(), "wb");
  if (!file_)
    throw TraceFileError("cannot open trace file '" + path + "': " + std::strerror(errno));
  // The writer buffers whole lines itself; a second buffer in stdio would
  // only copy them again.
  std::setvbuf(file_, nullptr, _IONBF, 0);
  buffer_.reserve(kFlushBytes + 4096);
}

TraceWriter::~TraceWriter() {
  std::lock_guard<std::mutex> lock(mutex_);
  write_buffer();
  std::fclose(file_);
}

void TraceWriter::record(TraceRecord r) {
  r.node = node_;
  if (r.from_node == node_)
    r.from_node.clear();  // empty means "same node": shorter lines
  if (r.urls.size() > kMaxUrls) {
    if (!r.fields.is_object())
      r.fields = r.fields.is_null() ? nlohmann::json::object() : nlohmann::json{{"value", std::move(r.fields)}};
    r.fields["urls_total"] = r.urls.size();
    r.urls.resize(kMaxUrls);
  }
  // Everything after the clocks is built without the lock, in a buffer each
  // thread keeps, so the lock covers a counter, two clock reads and a copy.
  thread_local std::string rest;
  rest.clear();
  append_trace_line_rest(rest, r);

  std::lock_guard<std::mutex> lock(mutex_);
  const std::int64_t mono = r.mono_us != 0 ? r.mono_us : monotonic_us();
  const std::int64_t wall = r.wall_us != 0 ? r.wall_us : epoch_us();
  append_trace_line_head(buffer_, ++last_seq_, mono, wall);
  buffer_ += rest;
  if (buffer_.size() >= kFlushBytes)
    write_buffer();
}

void TraceWriter::flush() {
  std::lock_guard<std::mutex> lock(mutex_);
  write_buffer();
  if (error_.empty() && std::fflush(file_) != 0)
    error_ = "cannot write trace file '" + path_ + "': " + std::strerror(errno);
  if (!error_.empty())
    throw TraceFileError(error_);
}

void TraceWriter::write_buffer() {
  if (buffer_.empty())
    return;
  if (error_.empty() && std::fwrite(buffer_.data(), 1, buffer_.size(), file_) != buffer_.size())
    error_ = "cannot write trace file '" + path_ + "': " + std::strerror(errno);
  buffer_.clear();
}

}  // namespace actorcrawl
