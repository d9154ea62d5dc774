// The HTTP server under the service's API: httplib parses requests, routes
// them and renders responses, but the connections are this class's.
//
// httplib 0.11 gives each accepted connection a pool thread until it closes,
// with a read timeout per read(), not per request: fifty idle or trickling
// clients hold every thread, the sockets queued behind them grow without
// bound, and a chunked body is read whole whatever its size. Here instead
// one thread (the reception) waits on every connection at once with poll()
// until a whole request — head and body — has arrived, refusing it as soon
// as it is too large or too slow; only then does a worker thread take it,
// and run httplib's request handling on it from memory.
//
// Responses go the other way alike: the worker renders the response into
// memory and hands the bytes back to the reception, which writes them as
// the client takes them (poll for POLLOUT), within response_timeout for the
// whole response, else the connection is closed. A client that reads
// slowly or never holds no thread; it holds its one response, because the
// reception reads the next (pipelined) request of a connection only once
// the last response is written. Only streamed responses (a content
// provider: event streams, exports), which have no end to render, are
// written by their worker, each write waiting at most write_timeout; their
// routes cap how many run at once.
//
// So a connection that is slow costs a file descriptor and a buffer, never
// a thread, and the server answers while many are open; the health check
// (answer_at_reception) is answered by the reception itself, even when
// every worker is busy. Beyond max_connections a new connection gets 503 at
// once and is closed.
#pragma once

#include <httplib.h>

#include <chrono>
#include <cstddef>
#include <memory>
#include <string>

namespace actorcrawl {

struct HttpServerLimits {
  std::size_t max_connections = 256;       // open at once, waiting or being answered
  std::size_t worker_threads = 48;         // requests answered at once
  // A request must arrive whole within this of the connection being ready
  // for it (accepted, or its previous response written): an idle
  // connection is closed then, a partial request answered 408.
  std::chrono::milliseconds read_timeout{10000};
  // A rendered response must be taken whole by the client within this, or
  // the connection is closed.
  std::chrono::milliseconds response_timeout{30000};
  std::chrono::milliseconds write_timeout{10000};  // each write of a streamed response
  std::size_t max_head_bytes = 16 * 1024;  // request line and headers
  std::size_t max_body_bytes = 64 * 1024;
  std::size_t max_requests_per_connection = 100;
};

class HttpServer : public httplib::Server {
 public:
  explicit HttpServer(const HttpServerLimits& limits);
  ~HttpServer() override;
  HttpServer(const HttpServer&) = delete;
  HttpServer& operator=(const HttpServer&) = delete;

  // A GET or HEAD of `path` (no query taken into account) is answered by
  // the reception with 200 and this JSON body, before any worker or route
  // sees it: a health check that answers while every worker is busy.
  // Before serve().
  void answer_at_reception(std::string path, std::string json_body);

  // Serves the socket bound with bind_to_port() or bind_to_any_port()
  // until stop(); the reception and worker threads live only in here.
  // (The server owns httplib's post-routing handler: it tells a streamed
  // response from one to render.)
  bool serve();
  // From any thread. Open connections are closed; a request being answered
  // finishes first.
  void stop();

 private:
  // httplib's accept loop hands each new socket here (on its own thread,
  // through a task queue that runs tasks at once): it goes to the reception.
  bool process_and_close_socket(socket_t sock) override;
  // httplib's handling of one request (routing, handlers, the response) on
  // a stream: false when the connection is no good for another.
  bool answer_request(httplib::Stream& stream, bool last, bool& client_closes);

  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace actorcrawl
