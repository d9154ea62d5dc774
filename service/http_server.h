// The HTTP server under the service's API: its connections, the one
// parser that reads their requests (RequestFramer, service/request_policy.h)
// and the writing of responses; what a request is answered with is the
// API's (service/http_api.h), handed in as one function.
//
// One thread (the reception) waits on the listening socket and on every
// connection at once with poll(), and reads each request as its bytes
// arrive, until it is whole — head and body — refusing it as soon as it is
// too large, too slow or framed ambiguously; only then does a worker
// thread take it, the request already read. Fifty idle or trickling
// clients hold no thread, and the sockets behind them are taken at once.
//
// Responses go the other way alike: the worker renders the response into
// memory and hands the bytes back to the reception, which writes them as
// the client takes them (poll for POLLOUT), within response_timeout for the
// whole response, else the connection is closed. A client that reads
// slowly or never holds no thread; it holds its one response, because the
// reception reads the next (pipelined) request of a connection only once
// the last response is written. Only streamed responses (event streams,
// exports), which have no end to render, are written by their worker, each
// write waiting at most write_timeout; their routes cap how many run at
// once.
//
// So a connection that is slow costs a file descriptor and a buffer, never
// a thread, and the server answers while many are open; the health check
// (answer_at_reception) is answered by the reception itself, even when
// every worker is busy. Beyond max_connections a new connection gets 503 at
// once and is closed.
#pragma once

#include <chrono>
#include <cstddef>
#include <functional>
#include <memory>
#include <string>

#include "service/http_request.h"
#include "service/http_response.h"

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

// What a request is answered with: fills the response, never throws (what
// it throws anyway is answered 500).
using RequestHandler = std::function<void(const HttpRequest&, HttpResponse&)>;

class HttpServer {
 public:
  HttpServer(const HttpServerLimits& limits, RequestHandler handler);
  ~HttpServer();
  HttpServer(const HttpServer&) = delete;
  HttpServer& operator=(const HttpServer&) = delete;

  // A GET or HEAD of `path` (no query taken into account) is answered by
  // the reception with 200 and this JSON body, before any worker or the
  // handler sees it: a health check that answers while every worker is
  // busy. Before serve().
  void answer_at_reception(std::string path, std::string json_body);

  // Binds to host:port (port 0: a free one) and listens. Returns the port,
  // or -1 with the reason in `why_not`.
  int bind(const std::string& host, int port, std::string* why_not = nullptr);
  // Serves the bound socket until stop(); the reception and worker threads
  // live only in here (the reception on the calling thread).
  void serve();
  // From any thread. Open connections are closed; a request being answered
  // finishes first, a streamed response at its next write.
  void stop();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace actorcrawl
