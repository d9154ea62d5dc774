// What a route answers, and how it goes on the wire. A response is either
// rendered (status, fields, a body in memory: written by the server's
// reception as the client takes it) or streamed (a ResponseStreamer called
// over and over, writing chunks as it goes, for answers with no end known
// in advance: event streams, exports).
#pragma once

#include <cstddef>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace actorcrawl {

// Where a streamed response's bytes go, as chunks of its chunked body.
class ChunkSink {
 public:
  virtual ~ChunkSink() = default;
  // False once the client is gone or stopped taking bytes in time: the
  // streamer should stop.
  virtual bool write(const char* data, std::size_t size) = 0;
  // The body is whole: the last chunk goes out. A streamer that stops
  // without calling this leaves the body cut, which the client can tell.
  virtual void done() = 0;
};

// Called while it returns true; the stream ends when it returns false.
using ResponseStreamer = std::function<bool(ChunkSink&)>;

struct HttpResponse {
  int status = 200;
  // Fields besides Content-Type, Content-Length or Transfer-Encoding and
  // Connection, which the server writes itself.
  std::vector<std::pair<std::string, std::string>> headers;
  std::string content_type;
  std::string body;
  // Set: the response is streamed and `body` is not used. Whatever the
  // streamer holds (a slot among capped streams) is released when the
  // response, and with it the streamer, goes.
  ResponseStreamer streamer;

  void set_header(std::string name, std::string value);
  void set_content(std::string content, std::string type) {
    body = std::move(content);
    content_type = std::move(type);
  }
  void set_stream(std::string type, ResponseStreamer stream) {
    content_type = std::move(type);
    streamer = std::move(stream);
  }
};

// "OK", "Not Found", ...: the reason phrase of the statuses the service
// answers with; "Unknown" for any other.
const char* reason_phrase(int status);

// The response's status line and fields up to and including the blank line:
// Content-Length (rendered) or Transfer-Encoding: chunked (streamed), and
// `connection`, the Connection or Keep-Alive line(s) ending in CRLF.
std::string render_head(const HttpResponse& response, std::string_view connection);

// One chunk of a chunked body: its size in hex, the data, CRLF.
void append_chunk(std::string& out, std::string_view data);
// The zero-sized chunk that ends a chunked body (no trailer fields).
inline constexpr std::string_view kLastChunk = "0\r\n\r\n";

}  // namespace actorcrawl
