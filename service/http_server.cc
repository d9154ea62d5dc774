#include "service/http_server.h"

#include <arpa/inet.h>
#include <netdb.h>
#include <malloc.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <mutex>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "service/api_error.h"
#include "service/http_response.h"
#include "service/request_policy.h"

namespace actorcrawl {

namespace {

using Clock = std::chrono::steady_clock;

// After an error answer the reception keeps reading the connection, and
// drops what arrives, this long (or until the client closes, or this much
// arrived) before closing it: closing with unread bytes resets the
// connection, and the client could lose the answer before reading it.
constexpr auto kLinger = std::chrono::milliseconds{2000};
constexpr std::size_t kMaxLingerBytes = 8u << 20;
// What one readiness of a socket reads at most: a slow client and a fast
// one get turns alike.
constexpr std::size_t kReadChunk = 16 * 1024;
// A response this large owes the allocator a trim once it is written, and
// the reception trims at most this often: the threads that rendered it
// freed their copies into their own malloc arenas, which glibc hands back
// to the system only when asked (malloc_trim), so after a burst of large
// answers the process would stay at its peak. Trimming costs a walk over
// the arenas, hence the pause between two.
constexpr std::size_t kTrimAfterBytes = 256 * 1024;
constexpr auto kTrimEvery = std::chrono::milliseconds{1000};

// One client connection, owned by whichever thread handles it now: the
// reception while a request arrives, a worker while it is answered.
struct Connection {
  Connection(int socket, const HttpServerLimits& limits)
      : fd(socket), framer(limits.max_head_bytes, limits.max_body_bytes) {}

  int fd;
  std::string received;  // bytes read and not yet handed over as a request
  RequestFramer framer;  // how far the request in `received` has come
  Clock::time_point deadline;
  std::size_t served = 0;  // requests answered on it
  bool continue_sent = false;
  bool lingering = false;  // its last response sent: reading and dropping until it closes
  std::size_t lingered = 0;
  // A rendered response the reception is writing; no request is read
  // meanwhile. `deadline` is then the response's.
  std::string outgoing;
  std::size_t outgoing_sent = 0;
  bool close_after_outgoing = false;

  bool sending() const { return outgoing_sent < outgoing.size(); }
};

// An error the reception answers itself, without a worker: always the
// connection's last response.
std::string error_response(const ApiError& error) {
  HttpResponse response;
  response.status = error.status();
  if (error.status() == 503)
    response.set_header("Retry-After", "1");
  response.set_content(error.json(), "application/json");
  return render_head(response, "Connection: close\r\n") + response.body;
}

// A short answer on a socket that has just been accepted or read: it fits
// the socket's buffer, so a send that would block is not retried.
void send_now(int fd, const std::string& bytes) {
  (void)::send(fd, bytes.data(), bytes.size(), MSG_NOSIGNAL | MSG_DONTWAIT);
}

// Bytes a worker writes to its connection's socket itself (a streamed
// response), each write waiting at most the write timeout for the client
// to take them, and none once the server stops.
class SocketWriter {
 public:
  SocketWriter(int fd, std::chrono::milliseconds write_timeout, const std::atomic<bool>& stopping)
      : fd_(fd), write_timeout_ms_(static_cast<int>(write_timeout.count())), stopping_(stopping) {}

  bool send_all(std::string_view bytes) {
    while (!bytes.empty() && !failed_) {
      if (stopping_.load()) {
        failed_ = true;
        break;
      }
      const ssize_t n = ::send(fd_, bytes.data(), bytes.size(), MSG_NOSIGNAL | MSG_DONTWAIT);
      if (n > 0) {
        bytes.remove_prefix(static_cast<std::size_t>(n));
        continue;
      }
      if (n < 0 && errno == EINTR)
        continue;
      if (n == 0 || (errno != EAGAIN && errno != EWOULDBLOCK) || !wait_writable())
        failed_ = true;
    }
    return !failed_;
  }
  bool failed() const { return failed_; }

 private:
  bool wait_writable() const {
    pollfd p{fd_, POLLOUT, 0};
    int r;
    do
      r = ::poll(&p, 1, write_timeout_ms_);
    while (r < 0 && errno == EINTR);
    return r > 0 && (p.revents & POLLOUT) != 0 && (p.revents & (POLLERR | POLLHUP)) == 0;
  }

  int fd_;
  int write_timeout_ms_;
  const std::atomic<bool>& stopping_;
  bool failed_ = false;
};

// A streamed response's body as chunks on the socket.
class SocketChunkSink final : public ChunkSink {
 public:
  explicit SocketChunkSink(SocketWriter& writer) : writer_(writer) {}

  bool write(const char* data, std::size_t size) override {
    if (done_ || writer_.failed())
      return false;
    chunk_.clear();
    append_chunk(chunk_, std::string_view{data, size});
    return writer_.send_all(chunk_);
  }
  void done() override {
    if (!done_ && !writer_.failed())
      done_ = writer_.send_all(kLastChunk);
  }
  // The body went out whole, its last chunk included.
  bool whole() const { return done_; }
  bool over() const { return done_ || writer_.failed(); }

 private:
  SocketWriter& writer_;
  std::string chunk_;
  bool done_ = false;
};

}  // namespace

struct HttpServer::Impl {
  using ConnectionPtr = std::unique_ptr<Connection>;

  const HttpServerLimits limits;
  const RequestHandler handler;
  int listen_fd = -1;
  std::atomic<bool> stopping{false};
  std::atomic<std::size_t> open{0};
  int wake_fd = ::eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);

  // Connections for the reception: accepted, or back from a worker.
  std::mutex arrivals_mutex;
  std::vector<ConnectionPtr> arrivals;

  // Whole requests waiting for a worker, with their connections.
  struct ReadyRequest {
    ConnectionPtr connection;
    HttpRequest request;
  };
  std::mutex ready_mutex;
  std::condition_variable ready_changed;
  std::deque<ReadyRequest> ready;

  std::vector<std::thread> workers;
  // The reception's: a large response was written since the last trim.
  bool trim_owed = false;
  Clock::time_point last_trim;

  // answer_at_reception(): the path, and its answer (rendered with the
  // connection fields of each request).
  std::string reception_path;
  HttpResponse reception_answer;

  Impl(const HttpServerLimits& l, RequestHandler h) : limits(l), handler(std::move(h)) {}
  ~Impl() {
    if (wake_fd >= 0)
      ::close(wake_fd);
    if (listen_fd >= 0)
      ::close(listen_fd);
  }

  void wake() const {
    const std::uint64_t one = 1;
    (void)::write(wake_fd, &one, sizeof one);
  }

  void close_connection(ConnectionPtr connection) {
    ::close(connection->fd);
    open.fetch_sub(1);
  }

  // -- accepting (the reception, when the listening socket is ready) ------------

  // Takes every connection waiting: the listening socket does not block.
  void accept_all() {
    for (;;) {
      const int fd = ::accept4(listen_fd, nullptr, nullptr, SOCK_CLOEXEC);
      if (fd >= 0) {
        welcome(fd);
        continue;
      }
      if (errno == EINTR || errno == ECONNABORTED)
        continue;
      return;  // EAGAIN: none left; EMFILE and the like: the next turn tries again
    }
  }

  void welcome(int fd) {
    if (stopping.load()) {
      ::close(fd);
      return;
    }
    if (open.fetch_add(1) >= limits.max_connections) {
      open.fetch_sub(1);
      refuse_busy(fd);
      return;
    }
    auto connection = std::make_unique<Connection>(fd, limits);
    // Responses go out as a head and a body: without this the body would
    // wait for the client's delayed ACK of the head.
    const int on = 1;
    ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &on, sizeof on);
    hand_to_reception(std::move(connection));
  }

  // Past max_connections: 503 at once, without a thread or a wait.
  void refuse_busy(int fd) {
    char scratch[4096];
    for (int i = 0; i < 16 && ::recv(fd, scratch, sizeof scratch, MSG_DONTWAIT) > 0; ++i) {
    }
    send_now(fd, error_response(ApiError(503, "too_many_connections",
                                         std::to_string(limits.max_connections) +
                                           " connections are open; try again shortly")));
    ::shutdown(fd, SHUT_WR);
    ::close(fd);
  }

  void hand_to_reception(ConnectionPtr connection) {
    {
      std::lock_guard lock{arrivals_mutex};
      arrivals.push_back(std::move(connection));
    }
    wake();
  }

  // -- the reception (one thread) ------------------------------------------------

  // Ready for a request: a new framer and the whole read timeout.
  void await_request(Connection& c, Clock::time_point now) {
    c.framer = RequestFramer(limits.max_head_bytes, limits.max_body_bytes);
    c.continue_sent = false;
    c.deadline = now + limits.read_timeout;
  }

  void reception_loop() {
    std::vector<ConnectionPtr> waiting;
    std::vector<pollfd> polled;
    while (!stopping.load()) {
      take_arrivals(waiting);
      polled.assign({pollfd{wake_fd, POLLIN, 0}, pollfd{listen_fd, POLLIN, 0}});
      auto next = Clock::now() + std::chrono::seconds{1};
      for (const auto& c : waiting) {
        polled.push_back(pollfd{c->fd, static_cast<short>(c->sending() ? POLLOUT : POLLIN), 0});
        next = std::min(next, c->deadline);
      }
      const auto wait = std::chrono::ceil<std::chrono::milliseconds>(next - Clock::now()).count();
      ::poll(polled.data(), polled.size(), static_cast<int>(std::clamp<std::int64_t>(wait, 0, 1000)));
      if (polled[0].revents != 0) {
        std::uint64_t count;
        (void)::read(wake_fd, &count, sizeof count);
      }
      if (polled[1].revents != 0)
        accept_all();
      const auto now = Clock::now();
      std::vector<ConnectionPtr> still_waiting;
      still_waiting.reserve(waiting.size());
      for (std::size_t i = 0; i < waiting.size(); ++i)
        if (attend(waiting[i], polled[i + 2].revents, now))
          still_waiting.push_back(std::move(waiting[i]));
      waiting.swap(still_waiting);
      if (trim_owed && now - last_trim >= kTrimEvery) {
        trim_owed = false;
        last_trim = now;
#ifdef __GLIBC__
        ::malloc_trim(0);
#endif
      }
    }
    for (auto& c : waiting)
      close_connection(std::move(c));
  }

  void take_arrivals(std::vector<ConnectionPtr>& waiting) {
    std::vector<ConnectionPtr> taken;
    {
      std::lock_guard lock{arrivals_mutex};
      taken.swap(arrivals);
    }
    const auto now = Clock::now();
    for (auto& c : taken) {
      if (c->sending()) {
        // Back from a worker with its response: most fit the socket's
        // buffer at once.
        c->deadline = now + limits.response_timeout;
        if (write_outgoing(c, now))
          waiting.push_back(std::move(c));
        continue;
      }
      if (c->close_after_outgoing) {
        linger(*c, now);  // a stream was its last response
        waiting.push_back(std::move(c));
        continue;
      }
      if (ready_for_next_request(c, now))
        waiting.push_back(std::move(c));
    }
  }

  // Its last response written (or none yet): the connection waits for its
  // next request, which may be here already (pipelined). False when it
  // left the reception.
  bool ready_for_next_request(ConnectionPtr& c, Clock::time_point now) {
    await_request(*c, now);
    return c->received.empty() || frame(c, now);
  }

  // Writes what the socket takes of the response. False when the
  // connection left the reception (closed, or its next request dispatched).
  bool write_outgoing(ConnectionPtr& c, Clock::time_point now) {
    while (c->sending()) {
      const ssize_t n = ::send(c->fd, c->outgoing.data() + c->outgoing_sent, c->outgoing.size() - c->outgoing_sent,
                               MSG_NOSIGNAL | MSG_DONTWAIT);
      if (n > 0) {
        c->outgoing_sent += static_cast<std::size_t>(n);
        continue;
      }
      if (n < 0 && errno == EINTR)
        continue;
      if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
        return true;  // the client has not taken the last bytes yet
      close_connection(std::move(c));  // the client left
      return false;
    }
    if (c->outgoing.size() >= kTrimAfterBytes)
      trim_owed = true;
    std::string{}.swap(c->outgoing);  // the memory goes now, not with the connection
    c->outgoing_sent = 0;
    if (stopping.load()) {
      close_connection(std::move(c));
      return false;
    }
    if (c->close_after_outgoing) {
      linger(*c, now);
      return true;
    }
    return ready_for_next_request(c, now);
  }

  // A connection's turn. False when it has left the reception: handed to a
  // worker or closed.
  bool attend(ConnectionPtr& c, short revents, Clock::time_point now) {
    if (c->sending()) {
      if (revents != 0 && !write_outgoing(c, now))
        return false;
      if (c->sending() && now >= c->deadline) {
        close_connection(std::move(c));  // the client did not take the response in time
        return false;
      }
      return true;
    }
    if (revents != 0) {
      const bool kept = c->lingering ? drop_input(c) : receive(c) && frame(c, now);
      if (!kept)
        return false;
    }
    if (now < c->deadline)
      return true;
    if (c->lingering || !c->framer.started()) {
      close_connection(std::move(c));  // idle, or done lingering
      return false;
    }
    answer_and_close(*c, ApiError(408, "request_timeout",
                                  "the request did not arrive whole within " +
                                    std::to_string(limits.read_timeout.count()) + " ms"),
                     now);
    return true;
  }

  // Reads what is there. False when the connection closed.
  bool receive(ConnectionPtr& c) {
    const std::size_t had = c->received.size();
    c->received.resize(had + kReadChunk);
    const ssize_t n = ::recv(c->fd, c->received.data() + had, kReadChunk, MSG_DONTWAIT);
    c->received.resize(had + static_cast<std::size_t>(std::max<ssize_t>(n, 0)));
    if (n > 0 || (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)))
      return true;
    close_connection(std::move(c));  // the client left, mid-request or not
    return false;
  }

  // Moves the request on. False when it went to a worker.
  bool frame(ConnectionPtr& c, Clock::time_point now) {
    switch (c->framer.advance(c->received)) {
      case RequestFramer::Progress::complete:
        if (answers_itself(*c)) {
          c->deadline = now + limits.response_timeout;
          return write_outgoing(c, now);
        }
        dispatch(std::move(c));
        return false;
      case RequestFramer::Progress::refused:
        answer_and_close(*c, *c->framer.refusal(), now);
        return true;
      case RequestFramer::Progress::incomplete:
        if (c->framer.awaits_continue() && !c->continue_sent) {
          send_now(c->fd, "HTTP/1.1 100 Continue\r\n\r\n");
          c->continue_sent = true;
        }
        return true;
    }
    return true;
  }

  void answer_and_close(Connection& c, const ApiError& error, Clock::time_point now) {
    send_now(c.fd, error_response(error));
    linger(c, now);
  }

  // The connection's last response is out; it closes once the client has
  // it. Closing a socket with bytes still unread (a request pipelined past
  // the last one answered) resets the connection, and a reset can destroy
  // responses the client has not read yet. So only the sending side is shut
  // now, and what still arrives is read and dropped until the client closes
  // or kLinger passes.
  void linger(Connection& c, Clock::time_point now) {
    ::shutdown(c.fd, SHUT_WR);
    c.lingering = true;
    c.deadline = now + kLinger;
    std::string{}.swap(c.received);
  }

  // Lingering: reads and forgets. False when the connection closed.
  bool drop_input(ConnectionPtr& c) {
    char scratch[kReadChunk];
    const ssize_t n = ::recv(c->fd, scratch, sizeof scratch, MSG_DONTWAIT);
    if (n > 0)
      c->lingered += static_cast<std::size_t>(n);
    const bool again = n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR);
    if ((n > 0 || again) && c->lingered <= kMaxLingerBytes)
      return true;
    close_connection(std::move(c));
    return false;
  }

  // A GET or HEAD of the path answer_at_reception() named: its answer is
  // made ready here, without a worker. False for any other request.
  bool answers_itself(Connection& c) {
    const HttpRequest& request = c.framer.request();
    if (reception_path.empty() || request.path != reception_path ||
        (request.method != "GET" && request.method != "HEAD"))
      return false;
    const bool last = ++c.served >= limits.max_requests_per_connection || stopping.load() || request.closes();
    std::string response = render_head(reception_answer, connection_fields(last, request));
    if (request.method == "GET")
      response += reception_answer.body;
    c.received.erase(0, c.framer.request_length());
    send_response_to(c, std::move(response), last);
    return true;
  }

  // What a response says of its connection: closed after it, or kept open
  // for so long and so many requests more. An HTTP/1.0 client keeps a
  // connection only when told so (RFC 9112 C.2.2): it asked with
  // `Connection: keep-alive` (else the connection closes), and hears it back.
  std::string connection_fields(bool closes, const HttpRequest& request) const {
    if (closes)
      return "Connection: close\r\n";
    std::string fields = request.version == "HTTP/1.0" ? "Connection: keep-alive\r\n" : "";
    fields += "Keep-Alive: timeout=" + std::to_string(std::max<std::int64_t>(1, limits.read_timeout.count() / 1000)) +
              ", max=" + std::to_string(limits.max_requests_per_connection) + "\r\n";
    return fields;
  }

  static void send_response_to(Connection& c, std::string response, bool close_after) {
    c.outgoing = std::move(response);
    c.outgoing_sent = 0;
    c.close_after_outgoing = close_after;
  }

  void dispatch(ConnectionPtr c) {
    HttpRequest request = c->framer.take_request();
    c->received.erase(0, c->framer.request_length());
    {
      std::lock_guard lock{ready_mutex};
      ready.push_back(ReadyRequest{std::move(c), std::move(request)});
    }
    ready_changed.notify_one();
  }

  // -- the workers ---------------------------------------------------------------

  void worker_loop() {
    for (;;) {
      ReadyRequest next;
      {
        std::unique_lock lock{ready_mutex};
        ready_changed.wait(lock, [&] { return stopping.load() || !ready.empty(); });
        if (stopping.load())
          return;
        next = std::move(ready.front());
        ready.pop_front();
      }
      answer(std::move(next.connection), next.request);
    }
  }

  void answer(ConnectionPtr c, const HttpRequest& request) {
    const bool last = ++c->served >= limits.max_requests_per_connection || stopping.load() || request.closes();
    HttpResponse response;
    try {
      handler(request, response);
    } catch (...) {
      // The handler catches what it throws; whatever still gets here is
      // answered, never the end of the process.
      response = HttpResponse{};
      const ApiError error(500, "internal_error", "the request could not be answered");
      response.status = error.status();
      response.set_content(error.json(), "application/json");
    }
    const bool head_only = request.method == "HEAD";
    std::string head = render_head(response, connection_fields(last, request));
    if (response.streamer && !head_only) {
      // No end to render: written here, as it comes.
      SocketWriter writer(c->fd, limits.write_timeout, stopping);
      SocketChunkSink sink(writer);
      if (writer.send_all(head))
        while (!sink.over() && response.streamer(sink)) {
        }
      response = HttpResponse{};  // what the stream held goes now, not with the connection
      if (!sink.whole()) {
        close_connection(std::move(c));  // cut short: the client cannot tell where it ended anyway
        return;
      }
      c->close_after_outgoing = last;
      hand_to_reception(std::move(c));
      return;
    }
    if (!head_only) {
      head.reserve(head.size() + response.body.size());
      head += response.body;
    }
    response = HttpResponse{};
    send_response_to(*c, std::move(head), last);
    hand_to_reception(std::move(c));
  }

  // -- listening, start and finish -------------------------------------------------

  int bind(const std::string& host, int port, std::string* why_not) {
    addrinfo hints{};
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV;
    addrinfo* found = nullptr;
    const std::string service = std::to_string(port);
    if (const int error = ::getaddrinfo(host.empty() ? nullptr : host.c_str(), service.c_str(), &hints, &found);
        error != 0) {
      if (why_not)
        *why_not = ::gai_strerror(error);
      return -1;
    }
    int last_error = 0;
    for (const addrinfo* a = found; a && listen_fd < 0; a = a->ai_next) {
      const int fd = ::socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC | SOCK_NONBLOCK, a->ai_protocol);
      if (fd < 0) {
        last_error = errno;
        continue;
      }
      // SO_REUSEADDR lets a restart bind while the last run's connections
      // linger in TIME_WAIT, and on Linux still refuses a port another
      // socket listens on: one process per port. (Not SO_REUSEPORT, with
      // which a second process would bind it and take half the connections.)
      const int yes = 1;
      ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof yes);
      // A burst of connections waits in the backlog, not in retried
      // handshakes: the reception takes each at once.
      if (::bind(fd, a->ai_addr, a->ai_addrlen) == 0 && ::listen(fd, SOMAXCONN) == 0) {
        listen_fd = fd;
        break;
      }
      last_error = errno;
      ::close(fd);
    }
    ::freeaddrinfo(found);
    if (listen_fd < 0) {
      if (why_not)
        *why_not = last_error == 0 ? "the address cannot be bound" : std::strerror(last_error);
      return -1;
    }
    sockaddr_storage bound{};
    socklen_t length = sizeof bound;
    ::getsockname(listen_fd, reinterpret_cast<sockaddr*>(&bound), &length);
    if (bound.ss_family == AF_INET6)
      return ntohs(reinterpret_cast<const sockaddr_in6&>(bound).sin6_port);
    return ntohs(reinterpret_cast<const sockaddr_in&>(bound).sin_port);
  }

  void serve() {
    if (stopping.load() || listen_fd < 0)
      return;
    for (std::size_t i = 0; i < std::max<std::size_t>(1, limits.worker_threads); ++i)
      workers.emplace_back([this] { worker_loop(); });
    reception_loop();
    finish();
  }

  void stop() {
    stopping = true;
    wake();
    ready_changed.notify_all();
  }

  void finish() {
    stop();
    for (auto& w : workers)
      w.join();
    workers.clear();
    for (auto& r : ready)
      close_connection(std::move(r.connection));
    ready.clear();
    for (auto& c : arrivals)
      close_connection(std::move(c));
    arrivals.clear();
    ::close(listen_fd);
    listen_fd = -1;
  }
};

HttpServer::HttpServer(const HttpServerLimits& limits, RequestHandler handler)
    : impl_(std::make_unique<Impl>(limits, std::move(handler))) {}

HttpServer::~HttpServer() = default;

void HttpServer::answer_at_reception(std::string path, std::string json_body) {
  impl_->reception_path = std::move(path);
  impl_->reception_answer.set_content(std::move(json_body), "application/json");
}

int HttpServer::bind(const std::string& host, int port, std::string* why_not) {
  return impl_->bind(host, port, why_not);
}

void HttpServer::serve() { impl_->serve(); }

void HttpServer::stop() { impl_->stop(); }

}  // namespace actorcrawl
