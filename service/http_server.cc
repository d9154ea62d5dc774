#include "service/http_server.h"

#include <arpa/inet.h>
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
// Room for a response's status line and headers.
constexpr std::size_t kHeadRoom = 1024;
// A response this large owes the allocator a trim once it is written, and
// the reception trims at most this often: the threads that rendered it
// freed their copies into their own malloc arenas, which glibc hands back
// to the system only when asked (malloc_trim), so after a burst of large
// answers the process would stay at its peak. Trimming costs a walk over
// the arenas, hence the pause between two.
constexpr std::size_t kTrimAfterBytes = 256 * 1024;
constexpr auto kTrimEvery = std::chrono::milliseconds{1000};

struct Address {
  std::string ip;
  int port = 0;
};

Address address_of(const sockaddr_storage& sa) {
  char text[INET6_ADDRSTRLEN] = {};
  Address out;
  if (sa.ss_family == AF_INET) {
    const auto& v4 = reinterpret_cast<const sockaddr_in&>(sa);
    ::inet_ntop(AF_INET, &v4.sin_addr, text, sizeof text);
    out.port = ntohs(v4.sin_port);
  } else if (sa.ss_family == AF_INET6) {
    const auto& v6 = reinterpret_cast<const sockaddr_in6&>(sa);
    ::inet_ntop(AF_INET6, &v6.sin6_addr, text, sizeof text);
    out.port = ntohs(v6.sin6_port);
  }
  out.ip = text;
  return out;
}

// One client connection, owned by whichever thread handles it now: the
// reception while a request arrives, a worker while it is answered.
struct Connection {
  Connection(int socket, const HttpServerLimits& limits)
      : fd(socket), framer(limits.max_head_bytes, limits.max_body_bytes) {}

  int fd;
  Address peer, local;
  std::string received;  // bytes read and not yet handed over as a request
  RequestFramer framer;  // how far the request in `received` has come
  Clock::time_point deadline;
  std::size_t served = 0;  // requests answered on it
  bool continue_sent = false;
  bool lingering = false;  // answered with an error; closing
  std::size_t lingered = 0;
  // A rendered response the reception is writing; no request is read
  // meanwhile. `deadline` is then the response's.
  std::string outgoing;
  std::size_t outgoing_sent = 0;
  bool close_after_outgoing = false;

  bool sending() const { return outgoing_sent < outgoing.size(); }
};

const char* reason_phrase(int status) {
  switch (status) {
    case 400: return "Bad Request";
    case 408: return "Request Timeout";
    case 413: return "Payload Too Large";
    case 431: return "Request Header Fields Too Large";
    case 503: return "Service Unavailable";
    default: return "Error";
  }
}

// An error the reception answers itself, without a worker: always the
// connection's last response.
std::string error_response(const ApiError& error) {
  const std::string body = error.json();
  std::string out = "HTTP/1.1 " + std::to_string(error.status()) + " " + reason_phrase(error.status()) + "\r\n";
  out += "Content-Type: application/json\r\n";
  out += "Content-Length: " + std::to_string(body.size()) + "\r\n";
  out += "Connection: close\r\n";
  if (error.status() == 503)
    out += "Retry-After: 1\r\n";
  return out + "\r\n" + body;
}

// A short answer on a socket that has just been accepted or read: it fits
// the socket's buffer, so a send that would block is not retried.
void send_now(int fd, const std::string& bytes) {
  (void)::send(fd, bytes.data(), bytes.size(), MSG_NOSIGNAL | MSG_DONTWAIT);
}

// httplib's Stream over a request already in memory. Its response is
// rendered into memory, for the reception to write as the client takes it;
// a streamed response (write_directly(), before its head) goes to the
// socket instead, each write waiting at most the write timeout.
class ResponseStream final : public httplib::Stream {
 public:
  ResponseStream(const Connection& connection, const std::string& request, std::chrono::milliseconds write_timeout)
      : connection_(connection), request_(request), write_timeout_ms_(static_cast<int>(write_timeout.count())) {}

  bool is_readable() const override { return offset_ < request_.size(); }
  bool is_writable() const override { return !direct_ || (!failed_ && wait_writable()); }

  ssize_t read(char* ptr, size_t size) override {
    const std::size_t n = std::min(size, request_.size() - offset_);
    std::memcpy(ptr, request_.data() + offset_, n);
    offset_ += n;
    return static_cast<ssize_t>(n);
  }

  using httplib::Stream::write;
  ssize_t write(const char* ptr, size_t size) override {
    if (!direct_) {
      rendered_.append(ptr, size);
      return static_cast<ssize_t>(size);
    }
    return send_blocking(ptr, size);
  }

  // From here on, bytes go to the socket: what was rendered so far (an
  // interim "100 Continue") first.
  void write_directly() {
    if (direct_)
      return;
    direct_ = true;
    for (std::size_t sent = 0; sent < rendered_.size() && !failed_;) {
      const ssize_t n = send_blocking(rendered_.data() + sent, rendered_.size() - sent);
      if (n > 0)
        sent += static_cast<std::size_t>(n);
    }
    std::string{}.swap(rendered_);
  }
  // Room for a response of `bytes`, so rendering it does not copy it over
  // and over as the buffer grows.
  void expect(std::size_t bytes) {
    if (!direct_)
      rendered_.reserve(rendered_.size() + bytes);
  }
  bool wrote_directly() const { return direct_; }
  std::string take_rendered() { return std::move(rendered_); }

  void get_remote_ip_and_port(std::string& ip, int& port) const override {
    ip = connection_.peer.ip;
    port = connection_.peer.port;
  }
  void get_local_ip_and_port(std::string& ip, int& port) const override {
    ip = connection_.local.ip;
    port = connection_.local.port;
  }
  socket_t socket() const override { return connection_.fd; }

  bool failed() const { return failed_; }

 private:
  ssize_t send_blocking(const char* ptr, size_t size) {
    while (!failed_) {
      const ssize_t n = ::send(connection_.fd, ptr, size, MSG_NOSIGNAL);
      if (n >= 0)
        return n;
      if (errno == EINTR)
        continue;
      if ((errno != EAGAIN && errno != EWOULDBLOCK) || !wait_writable())
        failed_ = true;
    }
    return -1;
  }

  bool wait_writable() const {
    pollfd p{connection_.fd, POLLOUT, 0};
    int r;
    do
      r = ::poll(&p, 1, write_timeout_ms_);
    while (r < 0 && errno == EINTR);
    return r > 0 && (p.revents & POLLOUT) != 0 && (p.revents & (POLLERR | POLLHUP)) == 0;
  }

  const Connection& connection_;
  const std::string& request_;
  std::size_t offset_ = 0;
  int write_timeout_ms_;
  bool direct_ = false;
  bool failed_ = false;
  std::string rendered_;
};

// The response a worker's thread is rendering now: httplib's post-routing
// handler, which sees the response but not the stream, switches it to
// direct writing when the response is streamed.
thread_local ResponseStream* rendering = nullptr;

// httplib's accept loop enqueues each accepted socket; this runs the task
// at once, on that thread, and the task only hands the socket on.
class RunAtOnce final : public httplib::TaskQueue {
 public:
  void enqueue(std::function<void()> task) override { task(); }
  void shutdown() override {}
};

}  // namespace

struct HttpServer::Impl {
  using ConnectionPtr = std::unique_ptr<Connection>;

  HttpServer& server;
  const HttpServerLimits limits;
  std::atomic<bool> stopping{false};
  std::atomic<bool> stop_requested{false};
  std::atomic<std::size_t> open{0};
  int wake_fd = ::eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);

  // Connections for the reception: accepted, or back from a worker.
  std::mutex arrivals_mutex;
  std::vector<ConnectionPtr> arrivals;

  // Whole requests waiting for a worker, with their connections.
  struct ReadyRequest {
    ConnectionPtr connection;
    std::string request;
  };
  std::mutex ready_mutex;
  std::condition_variable ready_changed;
  std::deque<ReadyRequest> ready;

  std::thread reception;
  std::vector<std::thread> workers;
  // The reception's: a large response was written since the last trim.
  bool trim_owed = false;
  Clock::time_point last_trim;

  // answer_at_reception(): the path, and the whole response but its
  // connection header.
  std::string reception_path;
  std::string reception_answer_head, reception_answer_body;

  Impl(HttpServer& s, const HttpServerLimits& l) : server(s), limits(l) {}
  ~Impl() {
    if (wake_fd >= 0)
      ::close(wake_fd);
  }

  void wake() const {
    const std::uint64_t one = 1;
    (void)::write(wake_fd, &one, sizeof one);
  }

  void close_connection(ConnectionPtr connection) {
    ::close(connection->fd);
    open.fetch_sub(1);
  }

  // -- accepting (httplib's accept thread) ------------------------------------

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
    sockaddr_storage sa{};
    socklen_t len = sizeof sa;
    if (::getpeername(fd, reinterpret_cast<sockaddr*>(&sa), &len) == 0)
      connection->peer = address_of(sa);
    len = sizeof sa;
    if (::getsockname(fd, reinterpret_cast<sockaddr*>(&sa), &len) == 0)
      connection->local = address_of(sa);
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
      polled.assign(1, pollfd{wake_fd, POLLIN, 0});
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
      const auto now = Clock::now();
      std::vector<ConnectionPtr> still_waiting;
      still_waiting.reserve(waiting.size());
      for (std::size_t i = 0; i < waiting.size(); ++i)
        if (attend(waiting[i], polled[i + 1].revents, now))
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
    if (c->close_after_outgoing || stopping.load()) {
      close_connection(std::move(c));
      return false;
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
    if (reception_path.empty())
      return false;
    const std::size_t length = c.framer.request_length();
    const auto head = read_request_head(std::string_view{c.received}.substr(0, length));
    if (!head || head->path != reception_path || (head->method != "GET" && head->method != "HEAD"))
      return false;
    const bool last = ++c.served >= limits.max_requests_per_connection || stopping.load() || head->closes;
    std::string response = reception_answer_head;
    response += last ? "Connection: close\r\n" : keep_alive_header();
    response += "\r\n";
    if (head->method == "GET")
      response += reception_answer_body;
    c.received.erase(0, length);
    send_response_to(c, std::move(response), last);
    return true;
  }

  // What httplib's responses say of a connection kept open.
  std::string keep_alive_header() const {
    return "Keep-Alive: timeout=" +
           std::to_string(std::max<std::int64_t>(1, limits.read_timeout.count() / 1000)) +
           ", max=" + std::to_string(limits.max_requests_per_connection) + "\r\n";
  }

  static void send_response_to(Connection& c, std::string response, bool close_after) {
    c.outgoing = std::move(response);
    c.outgoing_sent = 0;
    c.close_after_outgoing = close_after;
  }

  void dispatch(ConnectionPtr c) {
    const std::size_t length = c->framer.request_length();
    std::string request = c->received.substr(0, length);
    c->received.erase(0, length);
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

  void answer(ConnectionPtr c, const std::string& request) {
    ResponseStream stream(*c, request, limits.write_timeout);
    const bool last = ++c->served >= limits.max_requests_per_connection || stopping.load();
    bool client_closes = false;
    bool answered = false;
    rendering = &stream;
    try {
      answered = server.answer_request(stream, last, client_closes);
    } catch (...) {
      // The handlers catch what they throw; whatever still gets here ends
      // the connection, never the process.
      answered = false;
    }
    rendering = nullptr;
    const bool closing = !answered || last || client_closes || stopping.load();
    if (stream.wrote_directly()) {
      if (closing || stream.failed())
        close_connection(std::move(c));
      else
        hand_to_reception(std::move(c));
      return;
    }
    std::string response = stream.take_rendered();
    if (response.empty()) {
      close_connection(std::move(c));
      return;
    }
    send_response_to(*c, std::move(response), closing);
    hand_to_reception(std::move(c));
  }

  // httplib's post-routing handler: a response with a content provider is
  // streamed (it may never end), so its worker writes it.
  static void before_response_head(const httplib::Response& res) {
    if (!rendering)
      return;
    if (res.content_provider_)
      rendering->write_directly();
    else
      rendering->expect(res.body.size() + kHeadRoom);
  }

  // -- start and finish ----------------------------------------------------------

  void start() {
    reception = std::thread([this] { reception_loop(); });
    for (std::size_t i = 0; i < std::max<std::size_t>(1, limits.worker_threads); ++i)
      workers.emplace_back([this] { worker_loop(); });
  }

  void finish() {
    stopping = true;
    wake();
    ready_changed.notify_all();
    if (reception.joinable())
      reception.join();
    for (auto& w : workers)
      w.join();
    workers.clear();
    for (auto& r : ready)
      close_connection(std::move(r.connection));
    ready.clear();
    for (auto& c : arrivals)
      close_connection(std::move(c));
    arrivals.clear();
  }
};

HttpServer::HttpServer(const HttpServerLimits& limits) : impl_(std::make_unique<Impl>(*this, limits)) {
  new_task_queue = [] { return new RunAtOnce; };
  // httplib's default sets SO_REUSEPORT, with which a second process binds
  // the same port and the kernel splits the connections between the two.
  // SO_REUSEADDR alone lets a restart bind while the last run's connections
  // linger in TIME_WAIT, and on Linux still refuses a port another socket
  // listens on: one process per port.
  set_socket_options([](socket_t sock) {
    const int yes = 1;
    ::setsockopt(sock, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof yes);
  });
  // Not httplib's connection handling any more, but what its responses
  // announce (Keep-Alive: timeout=..., max=...) and its own body check.
  set_keep_alive_max_count(limits.max_requests_per_connection);
  set_keep_alive_timeout(std::max<time_t>(1, static_cast<time_t>(limits.read_timeout.count() / 1000)));
  set_payload_max_length(limits.max_body_bytes);
  set_post_routing_handler(
    [](const httplib::Request&, httplib::Response& res) { Impl::before_response_head(res); });
}

void HttpServer::answer_at_reception(std::string path, std::string json_body) {
  impl_->reception_path = std::move(path);
  impl_->reception_answer_body = std::move(json_body);
  impl_->reception_answer_head = "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: " +
                                 std::to_string(impl_->reception_answer_body.size()) + "\r\n";
}

HttpServer::~HttpServer() = default;

bool HttpServer::serve() {
  if (impl_->stop_requested.load())
    return true;
  // httplib listens with a backlog of 5: a burst of connections would see
  // their handshakes dropped and retried a second later, before the accept
  // loop (which takes and answers each at once) ever saw them.
  ::listen(svr_sock_, SOMAXCONN);
  impl_->start();
  const bool ok = listen_after_bind();
  impl_->finish();
  return ok;
}

void HttpServer::stop() {
  impl_->stop_requested = true;
  httplib::Server::stop();
}

bool HttpServer::process_and_close_socket(socket_t sock) {
  impl_->welcome(sock);
  return true;
}

bool HttpServer::answer_request(httplib::Stream& stream, bool last, bool& client_closes) {
  return process_request(stream, last, client_closes, nullptr);
}

}  // namespace actorcrawl
