// `actorcrawl serve` against hostile clients: bytes that are not UTF-8 or
// not text, requests too large or too slow, a flood of connections, web
// pages of other sites (cross-site posts, DNS rebinding), chunked and
// compressed bodies. Each answer is checked exactly — its status and JSON
// error code — and after each the process is alive, /healthz answers and no
// job was created. Everything talks to the service on 127.0.0.1 through
// raw sockets, so the requests are byte for byte what a test wrote.
#include <catch2/catch.hpp>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <httplib.h>
#include <nlohmann/json.hpp>

#include <atomic>
#include <chrono>
#include <fstream>
#include <map>
#include <memory>
#include <regex>
#include <string>
#include <thread>
#include <vector>

#include "child_process.h"
#include "crawl_fixture.h"

using namespace actorcrawl::testing;
using nlohmann::json;
using namespace std::chrono_literals;
using namespace std::string_literals;
using Clock = std::chrono::steady_clock;

namespace {

// The service as a child process on an ephemeral loopback port.
class Service {
 public:
  Service(const ScratchDir& dir, std::vector<std::string> extra = {}, const std::string& log = "service.log") {
    std::vector<std::string> args = {"serve", "--listen", "127.0.0.1:0", "--db-dir", dir.path("service")};
    args.insert(args.end(), extra.begin(), extra.end());
    process_ = std::make_unique<ChildProcess>(ACTORCRAWL_BINARY, args, dir.path(log));
    REQUIRE(process_->wait_for_output("service listening on", 20s));
    std::smatch m;
    const auto out = process_->output();
    REQUIRE(std::regex_search(out, m, std::regex{R"(service listening on http://127\.0\.0\.1:([0-9]+))"}));
    port_ = std::stoi(m[1].str());
  }
  int port() const { return port_; }
  ChildProcess& process() { return *process_; }

 private:
  std::unique_ptr<ChildProcess> process_;
  int port_ = 0;
};

// A TCP connection to the service, closed when it goes away.
class Connection {
 public:
  // `receive_buffer`: the socket's SO_RCVBUF, set before it connects (the
  // window it offers the service), when not 0.
  explicit Connection(int port, int receive_buffer = 0) : fd_(::socket(AF_INET, SOCK_STREAM, 0)) {
    REQUIRE(fd_ >= 0);
    if (receive_buffer > 0)
      REQUIRE(::setsockopt(fd_, SOL_SOCKET, SO_RCVBUF, &receive_buffer, sizeof receive_buffer) == 0);
    sockaddr_in to{};
    to.sin_family = AF_INET;
    to.sin_port = htons(static_cast<std::uint16_t>(port));
    to.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    REQUIRE(::connect(fd_, reinterpret_cast<sockaddr*>(&to), sizeof to) == 0);
  }
  ~Connection() { ::close(fd_); }
  Connection(const Connection&) = delete;
  Connection& operator=(const Connection&) = delete;

  // Sends what it can; false once the service stopped taking bytes.
  bool send(const std::string& bytes) {
    std::size_t sent = 0;
    while (sent < bytes.size()) {
      pollfd p{fd_, POLLOUT, 0};
      if (::poll(&p, 1, 2000) <= 0)
        return false;
      const ssize_t n = ::send(fd_, bytes.data() + sent, bytes.size() - sent, MSG_NOSIGNAL);
      if (n <= 0)
        return false;
      sent += static_cast<std::size_t>(n);
    }
    return true;
  }

  // What arrives within `timeout`, until the service closes (or, with
  // `until_response`, until one whole response has arrived).
  std::string receive(std::chrono::milliseconds timeout, bool until_response = true) {
    const auto until = Clock::now() + timeout;
    while (Clock::now() < until && !(until_response && whole_response(received_))) {
      pollfd p{fd_, POLLIN, 0};
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(until - Clock::now()).count();
      if (::poll(&p, 1, static_cast<int>(std::max<long long>(left, 1))) <= 0)
        continue;
      char buf[65536];
      const ssize_t n = ::recv(fd_, buf, sizeof buf, 0);
      if (n <= 0) {
        closed_ = true;
        reset_ = n < 0;
        break;
      }
      received_.append(buf, static_cast<std::size_t>(n));
    }
    return received_;
  }
  // The service closed the connection (seen by receive()).
  bool closed() const { return closed_; }
  // It closed by a reset, not in order: what was still on its way is lost.
  bool reset() const { return reset_; }

  // A final response (1xx interim responses skipped) whose body is all here.
  static bool whole_response(const std::string& bytes) {
    std::size_t start = 0;
    for (;;) {
      const auto head_end = bytes.find("\r\n\r\n", start);
      if (head_end == std::string::npos)
        return false;
      if (bytes.compare(start, 10, "HTTP/1.1 1") == 0) {
        start = head_end + 4;
        continue;
      }
      std::smatch m;
      const std::string head = bytes.substr(start, head_end - start);
      if (!std::regex_search(head, m, std::regex{"Content-Length: ([0-9]+)", std::regex::icase}))
        return false;
      return bytes.size() >= head_end + 4 + std::stoul(m[1].str());
    }
  }

 private:
  int fd_;
  std::string received_;
  bool closed_ = false;
  bool reset_ = false;
};

struct Answer {
  int status = 0;
  std::map<std::string, std::string> headers;  // names lowercased
  std::string body;

  std::string header(const std::string& lowercase_name) const {
    const auto it = headers.find(lowercase_name);
    return it == headers.end() ? std::string{} : it->second;
  }
};

// The final response in `bytes`; status 0 when there is none.
Answer parse_answer(const std::string& bytes) {
  Answer a;
  std::size_t start = 0;
  for (;;) {
    const auto head_end = bytes.find("\r\n\r\n", start);
    if (head_end == std::string::npos || bytes.compare(start, 9, "HTTP/1.1 ") != 0)
      return a;
    a.status = std::stoi(bytes.substr(start + 9, 3));
    if (a.status >= 200) {
      std::size_t at = bytes.find("\r\n", start) + 2;
      while (at < head_end) {
        const auto eol = bytes.find("\r\n", at);
        const auto line = bytes.substr(at, eol - at);
        const auto colon = line.find(':');
        std::string name = line.substr(0, colon);
        for (auto& c : name)
          c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
        a.headers[name] = line.substr(line.find_first_not_of(' ', colon + 1));
        at = eol + 2;
      }
      a.body = bytes.substr(head_end + 4);
      return a;
    }
    start = head_end + 4;
  }
}

// One request on a new connection; the answer within `timeout`.
Answer ask(int port, const std::string& request, std::chrono::milliseconds timeout = 5000ms) {
  Connection c(port);
  c.send(request);
  return parse_answer(c.receive(timeout));
}

// A request with the usual head: `method target`, Host, the extra header
// lines, and the body with its Content-Length when there is one.
std::string request(const std::string& method, const std::string& target, int port, const std::string& headers = "",
                    const std::optional<std::string>& body = std::nullopt) {
  std::string out = method + " " + target + " HTTP/1.1\r\nHost: 127.0.0.1:" + std::to_string(port) + "\r\n" + headers;
  if (body)
    out += "Content-Length: " + std::to_string(body->size()) + "\r\n";
  return out + "\r\n" + body.value_or("");
}

std::string json_post(int port, const std::string& body, const std::string& headers = "") {
  return request("POST", "/crawl", port, "Content-Type: application/json\r\n" + headers, body);
}

// An error answer: the status, a JSON body {"error": {"code", "message"}}
// with this code, and the JSON media type.
void check_error(const Answer& a, int status, const std::string& code) {
  INFO("status " << a.status << ", body: " << a.body);
  REQUIRE(a.status == status);
  const auto j = json::parse(a.body);  // throws, failing the test, if it is not JSON
  REQUIRE(j.is_object());
  CHECK(j.size() == 1);
  CHECK(j.at("error").size() == 2);
  CHECK(j.at("error").at("code") == code);
  CHECK(!j.at("error").at("message").get<std::string>().empty());
  CHECK(a.header("content-type") == "application/json");
}

// The service is alive, answers /healthz and has no job.
void check_unharmed(Service& service) {
  REQUIRE(service.process().running());
  httplib::Client c("127.0.0.1", service.port());
  c.set_read_timeout(5, 0);
  auto health = c.Get("/healthz");
  REQUIRE(health);
  CHECK(health->status == 200);
  auto jobs = c.Get("/crawl");
  REQUIRE(jobs);
  CHECK(json::parse(jobs->body).at("jobs") == json::array());
}

std::size_t count_of(const std::string& text, const std::string& piece) {
  std::size_t n = 0;
  for (auto at = text.find(piece); at != std::string::npos; at = text.find(piece, at + piece.size()))
    ++n;
  return n;
}

// What `c` has received once `done` holds for it, once the service closed
// it, or after `timeout`.
template <typename Done>
std::string receive_until(Connection& c, Done done, std::chrono::milliseconds timeout = 5000ms) {
  std::string got = c.receive(0ms, false);
  const auto until = Clock::now() + timeout;
  while (Clock::now() < until && !done(got) && !c.closed())
    got = c.receive(200ms, false);
  return got;
}

// A `done` for receive_until: `piece` is there `times` times.
auto seen(const std::string& piece, std::size_t times) {
  return [piece, times](const std::string& got) { return count_of(got, piece) >= times; };
}

// A `done` for receive_until that waits for the close.
bool never(const std::string&) { return false; }

std::string repeat(const std::string& piece, int times) {
  std::string out;
  for (int i = 0; i < times; ++i)
    out += piece;
  return out;
}

// gzip by httplib's own compressor (the one its clients use).
std::string gzip(const std::string& data) {
  httplib::detail::gzip_compressor compressor;
  std::string out;
  REQUIRE(compressor.compress(data.data(), data.size(), true, [&](const char* bytes, std::size_t n) {
    out.append(bytes, n);
    return true;
  }));
  return out;
}

// A job the service would refuse to crawl anyway (a private address), so
// a request that wrongly got through fetches nothing.
const std::string kJob = R"({"url": "http://127.0.0.1:9/", "max_pages": 1})";

}  // namespace

TEST_CASE("serve abuse: bytes that are not UTF-8 or not text get a JSON error, never a crash",
          "[integration][service][abuse]") {
  ScratchDir dir;
  Service service(dir, {"--max-request-bytes", "1024"});
  const int port = service.port();
  const std::string e_acute = "\xC3\xA9";  // two bytes: a cut at an odd length splits it

  // Paths: percent-encoded and raw bytes, NUL, a cut inside a character.
  check_error(ask(port, request("GET", "/%ff", port)), 404, "not_found");
  check_error(ask(port, request("GET", "/%C3", port)), 404, "not_found");
  check_error(ask(port, request("GET", "/crawl/%ff%fe", port)), 404, "job_not_found");
  check_error(ask(port, request("GET", "/crawl/\xff\xfe/graph", port)), 404, "job_not_found");
  check_error(ask(port, request("DELETE", "/crawl/%00", port)), 404, "job_not_found");
  check_error(ask(port, request("GET", "/" + repeat(e_acute, 150), port)), 404, "not_found");
  check_error(ask(port, request("PUT", "/crawl%ff", port, "", "{}")), 404, "not_found");
  check_error(ask(port, request("PATCH", "/crawl/%ff", port, "", "{}")), 405, "method_not_allowed");
  // Query strings.
  check_error(ask(port, request("GET", "/crawl/crawl_1?limit=%ff%00", port)), 404, "job_not_found");
  CHECK(ask(port, request("GET", "/crawl?x=%ff&%00=%fe", port)).status == 200);
  // Headers: not UTF-8, NUL, and the method itself.
  check_error(ask(port, request("GET", "/crawl", port, "Origin: http://\xff\xfe.example\r\n")), 403,
              "origin_not_allowed");
  check_error(ask(port, "GET /crawl HTTP/1.1\r\nHost: \xff" + repeat(e_acute, 80) + "\r\n\r\n"), 421,
              "host_not_allowed");
  check_error(ask(port, request("GET", "/crawl", port, "X-Note: a\0b\r\n"s)), 400, "bad_request");
  check_error(ask(port, "\xff\xfe / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"), 400, "bad_request");
  check_error(ask(port, "GET /crawl HTTP/1.1\nHost: 127.0.0.1\n\n\r\n\r\n"), 400, "bad_request");
  // Bodies: not UTF-8, not text, quoted back cut inside a character.
  check_error(ask(port, json_post(port, "{\"url\": \"\xff\xfe\"}")), 400, "malformed_json");
  check_error(ask(port, json_post(port, "\x00\x01\x02\xff"s)), 400, "malformed_json");
  check_error(ask(port, json_post(port, R"({"url": "ftp:///)" + repeat(e_acute, 150) + "\"}")), 400,
              "invalid_url");
  check_error(ask(port, json_post(port, "{\"a" + repeat(e_acute, 60) + "\": 1, \"url\": \"http://a.test/\"}")),
              400, "unknown_field");
  check_error(ask(port, json_post(port, R"({"url": "http://a.test/", "profile": "x)" + repeat(e_acute, 40) + "\"}")),
              400, "out_of_range");
  // Huge: a target, a head, a body.
  check_error(ask(port, request("GET", "/" + std::string(9000, 'a'), port)), 414, "uri_too_long");
  check_error(ask(port, request("GET", "/crawl", port, "X-Big: " + std::string(20000, 'b') + "\r\n")), 431,
              "headers_too_large");
  check_error(ask(port, json_post(port, std::string(5000, '{'))), 413, "body_too_large");

  check_unharmed(service);
}

TEST_CASE("serve abuse: pages of other sites can neither post jobs nor read through a rebound name",
          "[integration][service][abuse]") {
  ScratchDir dir;
  Service service(dir);
  const int port = service.port();
  const std::string here = "127.0.0.1:" + std::to_string(port);

  // DNS rebinding: evil.example now resolves here, and the page's requests
  // carry its own name.
  check_error(ask(port, "POST /crawl HTTP/1.1\r\nHost: evil.example:" + std::to_string(port) +
                               "\r\nContent-Type: application/json\r\nContent-Length: " +
                               std::to_string(kJob.size()) + "\r\n\r\n" + kJob),
              421, "host_not_allowed");
  check_error(ask(port, "GET /crawl HTTP/1.1\r\nHost: evil.example\r\n\r\n"), 421, "host_not_allowed");
  check_error(ask(port, "GET /crawl HTTP/1.1\r\nHost: 127.0.0.1\r\nHost: evil.example\r\n\r\n"), 421,
              "host_not_allowed");
  // A cross-site post: a form or fetch() with a simple content type, no
  // preflight, from another origin, another port of this machine, or none
  // ("null": a sandboxed frame or a file).
  check_error(ask(port, request("POST", "/crawl", port,
                                     "Origin: http://evil.example\r\nContent-Type: text/plain\r\n", kJob)),
              403, "origin_not_allowed");
  check_error(ask(port, json_post(port, kJob, "Origin: http://evil.example\r\n")), 403, "origin_not_allowed");
  check_error(ask(port, json_post(port, kJob, "Origin: http://127.0.0.1:1\r\n")), 403, "origin_not_allowed");
  check_error(ask(port, json_post(port, kJob, "Origin: null\r\n")), 403, "origin_not_allowed");
  check_error(ask(port, request("DELETE", "/crawl/crawl_1", port, "Origin: http://evil.example\r\n")), 403,
              "origin_not_allowed");
  // Without an Origin (curl, a script) the type still has to be JSON.
  check_error(ask(port, request("POST", "/crawl", port, "Content-Type: text/plain\r\n", kJob)), 415,
              "unsupported_media_type");
  check_error(ask(port, request("POST", "/crawl", port,
                                     "Content-Type: application/x-www-form-urlencoded\r\n", "url=x")),
              415, "unsupported_media_type");
  check_error(ask(port, request("POST", "/crawl", port, "", kJob)), 415, "unsupported_media_type");
  check_unharmed(service);

  // What stays allowed: loopback names with and without the port, the
  // service's own origin (the dashboard), /healthz whatever the Host.
  for (const std::string& host : std::vector<std::string>{here, "localhost:" + std::to_string(port), "LOCALHOST",
                                                          "[::1]:" + std::to_string(port), "127.0.0.1"})
    CHECK(ask(port, "GET /crawl HTTP/1.1\r\nHost: " + host + "\r\n\r\n").status == 200);
  CHECK(ask(port, request("GET", "/crawl", port, "Origin: http://" + here + "\r\n")).status == 200);
  check_error(ask(port, json_post(port, "{}", "Origin: http://" + here + "\r\n")), 400, "missing_field");
  check_error(ask(port, json_post(port, "{}", "Content-Type: application/json; charset=utf-8\r\n")), 400,
              "missing_field");
  CHECK(ask(port, "GET /healthz HTTP/1.1\r\nHost: evil.example\r\n\r\n").status == 200);
  // A target in absolute form (RFC 9112 3.2.2) is answered as its path, and
  // its authority is checked in the Host field's place, whatever that says.
  CHECK(ask(port, "GET http://" + here + "/crawl HTTP/1.1\r\nHost: " + here + "\r\n\r\n").status == 200);
  CHECK(ask(port, "GET http://" + here + "/crawl HTTP/1.1\r\nHost: evil.example\r\n\r\n").status == 200);
  CHECK(ask(port, "GET HTTP://localhost:" + std::to_string(port) + "/healthz HTTP/1.1\r\n\r\n").status == 200);
  check_error(ask(port, "GET http://evil.example/crawl HTTP/1.1\r\nHost: " + here + "\r\n\r\n"), 421,
              "host_not_allowed");
  check_error(ask(port, "GET http://user@" + here + "/crawl HTTP/1.1\r\nHost: " + here + "\r\n\r\n"), 400,
              "bad_request");
  check_unharmed(service);

  // Names and origins the operator adds.
  ScratchDir other_dir;
  Service configured(other_dir, {"--service-allowed-hosts", "crawler.example,ui.example:8443",
                                 "--service-allowed-origins", "https://ui.example:8443"});
  const int p2 = configured.port();
  CHECK(ask(p2, "GET /crawl HTTP/1.1\r\nHost: crawler.example:1234\r\n\r\n").status == 200);
  CHECK(ask(p2, "GET /crawl HTTP/1.1\r\nHost: ui.example:8443\r\n\r\n").status == 200);
  check_error(ask(p2, "GET /crawl HTTP/1.1\r\nHost: ui.example:8444\r\n\r\n"), 421, "host_not_allowed");
  check_error(ask(p2, json_post(p2, "{}", "Origin: https://ui.example:8443\r\n")), 400, "missing_field");
  check_error(ask(p2, json_post(p2, "{}", "Origin: https://ui.example\r\n")), 403, "origin_not_allowed");
  check_unharmed(configured);
}

TEST_CASE("serve abuse: beyond loopback without a token the service does not start",
          "[integration][service][abuse]") {
  ScratchDir dir;
  {
    ChildProcess serve(ACTORCRAWL_BINARY, {"serve", "--listen", "0.0.0.0:0", "--db-dir", dir.path("service")},
                       dir.path("open.log"));
    const auto code = serve.wait(10s);
    REQUIRE(code.has_value());
    CHECK(*code == 2);
    CHECK(serve.output().find("refusing to serve on 0.0.0.0:0 without a token") != std::string::npos);
    CHECK(serve.output().find("--allow-remote-without-token") != std::string::npos);
  }
  {
    // The flag lifts the refusal, loudly. (The service directory is under a
    // file, so the start ends at the database, before anything listens.)
    std::ofstream{dir.path("file")} << "not a directory";
    ChildProcess serve(ACTORCRAWL_BINARY,
                       {"serve", "--listen", "0.0.0.0:0", "--allow-remote-without-token", "--db-dir",
                        dir.path("file") + "/service"},
                       dir.path("allowed.log"));
    const auto code = serve.wait(10s);
    REQUIRE(code.has_value());
    CHECK(*code == 1);
    CHECK(serve.output().find("WITHOUT A TOKEN") != std::string::npos);
    CHECK(serve.output().find("database error") != std::string::npos);
  }
  for (const auto& [flag, value] : {std::pair{"--service-allowed-hosts", "bad host"},
                                    std::pair{"--service-allowed-origins", "ftp://files.example"}}) {
    ChildProcess serve(ACTORCRAWL_BINARY,
                       {"serve", "--listen", "127.0.0.1:0", "--db-dir", dir.path("service"), flag, value},
                       dir.path("typo.log"));
    const auto code = serve.wait(10s);
    REQUIRE(code.has_value());
    CHECK(*code == 2);
    CHECK(serve.output().find("configuration error") != std::string::npos);
  }
}

TEST_CASE("serve abuse: idle and trickling connections hold no thread, /healthz answers through a flood",
          "[integration][service][abuse]") {
  ScratchDir dir;
  Service service(dir, {"--service-read-timeout", "2s"});
  const int port = service.port();

  // 50 connections that send nothing and 50 that send a head a byte at a
  // time: more than the server's threads.
  std::vector<std::unique_ptr<Connection>> idle, trickling;
  for (int i = 0; i < 50; ++i) {
    idle.push_back(std::make_unique<Connection>(port));
    trickling.push_back(std::make_unique<Connection>(port));
    trickling.back()->send("GET /crawl HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ");
  }
  const auto opened = Clock::now();
  // A byte every 100 ms on each, until stopped (or the test fails).
  struct Trickler {
    std::atomic<bool> running{true};
    std::thread thread;
    void stop() {
      running = false;
      if (thread.joinable())
        thread.join();
    }
    ~Trickler() { stop(); }
  } trickler;
  trickler.thread = std::thread([&] {
    while (trickler.running.load()) {
      for (auto& c : trickling)
        c->send("a");
      std::this_thread::sleep_for(100ms);
    }
  });

  // While they are open, the service answers at once, again and again.
  httplib::Client client("127.0.0.1", port);
  client.set_connection_timeout(2, 0);
  client.set_read_timeout(2, 0);
  for (int i = 0; i < 5; ++i) {
    const auto asked = Clock::now();
    auto health = client.Get("/healthz");
    REQUIRE(health);
    CHECK(health->status == 200);
    CHECK(Clock::now() - asked < 1s);
    auto jobs = client.Get("/crawl");
    REQUIRE(jobs);
    CHECK(jobs->status == 200);
  }
  CHECK(Clock::now() - opened < 1500ms);  // all of it while the flood was open

  // Past the read timeout: a trickled request is answered 408, an idle
  // connection closed without a word.
  std::this_thread::sleep_for(1500ms);
  trickler.stop();
  int timed_out = 0, closed_silently = 0;
  for (auto& c : trickling) {
    const auto a = parse_answer(c->receive(3s));
    if (a.status == 408 && json::parse(a.body).at("error").at("code") == "request_timeout")
      ++timed_out;
  }
  for (auto& c : idle)
    if (c->receive(3s, false).empty() && c->closed())
      ++closed_silently;
  CHECK(timed_out == 50);
  CHECK(closed_silently == 50);
  check_unharmed(service);
}

TEST_CASE("serve abuse: clients that pipeline requests and never read hold no thread, and /healthz answers",
          "[integration][service][abuse]") {
  ScratchDir dir;
  Service service(dir);
  const int port = service.port();

  // 64 clients (more than the server's 48 threads), each with a small
  // window, asking for the dashboard (~66 KB) 100 times in one go and never
  // reading an answer.
  const std::string asks = repeat(request("GET", "/", port), 100);
  std::vector<std::unique_ptr<Connection>> greedy;
  for (int i = 0; i < 64; ++i) {
    greedy.push_back(std::make_unique<Connection>(port, 4096));
    REQUIRE(greedy.back()->send(asks));
  }

  // Throughout their life the service answers, and at once: probes a few
  // hundred ms apart over several seconds, each on a new connection. The
  // bound is the one a starved service misses by seconds (each of its
  // threads waited 10 s on a write); the reception answers a probe itself.
  for (int probe = 0; probe < 12; ++probe) {
    const auto asked = Clock::now();
    const auto health = ask(port, request("GET", "/healthz", port), 5000ms);
    const auto took = Clock::now() - asked;
    INFO("probe " << probe << " took " << std::chrono::duration_cast<std::chrono::milliseconds>(took).count()
                  << " ms");
    CHECK(health.status == 200);
    CHECK(json::parse(health.body) == json{{"status", "ok"}});
    CHECK(took < 1s);
    std::this_thread::sleep_for(400ms);
  }
  // Routes a worker answers get through too (bounded only by the wait
  // that tells a hang).
  check_unharmed(service);
  // A keep-alive connection gets its probes answered one after another.
  Connection kept(port);
  REQUIRE(kept.send(repeat(request("GET", "/healthz", port), 3)));
  const std::string got = receive_until(kept, seen("HTTP/1.1 200 OK", 3));
  CHECK(count_of(got, "HTTP/1.1 200 OK") == 3);
  CHECK(count_of(got, "Keep-Alive: timeout=") == 3);
}

TEST_CASE("serve abuse: requests pipelined past a connection's last get every answer it owes, then a clean close",
          "[integration][service][abuse]") {
  ScratchDir dir;
  Service service(dir);
  const int port = service.port();
  // A connection serves 100 requests. 1000 sent in one go leave most unread
  // when the 100th answer goes out; closing over them would reset the
  // connection and lose the answers still on their way to a client that
  // reads slowly (its small window keeps them in the service's buffer).
  for (const std::string path : {"/healthz", "/crawl"}) {  // the reception's own answer, then a worker's
    INFO(path);
    Connection client(port, 4096);
    REQUIRE(client.send(repeat(request("GET", path, port), 1000)));
    const std::string got = receive_until(client, never, 10s);
    CHECK(client.closed());
    CHECK_FALSE(client.reset());
    CHECK(count_of(got, "HTTP/1.1 200 OK") == 100);
    CHECK(count_of(got, "Connection: close") == 1);
  }
  check_unharmed(service);
}

TEST_CASE("serve: an HTTP/1.0 client that asks to keep its connection is told so and answered again on it",
          "[integration][service]") {
  ScratchDir dir;
  Service service(dir);
  const int port = service.port();
  for (const std::string path : {"/healthz", "/crawl"}) {  // the reception's own answer, then a worker's
    INFO(path);
    Connection client(port);
    const std::string ask = "GET " + path + " HTTP/1.0\r\nHost: 127.0.0.1:" + std::to_string(port) +
                            "\r\nConnection: keep-alive\r\n\r\n";
    REQUIRE(client.send(ask));
    CHECK(count_of(receive_until(client, seen("HTTP/1.1 200 OK", 1)), "Connection: keep-alive") == 1);
    CHECK_FALSE(client.closed());
    REQUIRE(client.send(ask));
    CHECK(count_of(receive_until(client, seen("HTTP/1.1 200 OK", 2)), "HTTP/1.1 200 OK") == 2);
    // Without the ask, HTTP/1.0 closes after one answer.
    Connection once(port);
    REQUIRE(once.send("GET " + path + " HTTP/1.0\r\n\r\n"));
    const std::string answer = receive_until(once, never);
    CHECK(once.closed());
    CHECK(count_of(answer, "Connection: close") == 1);
  }
  check_unharmed(service);
}

TEST_CASE("serve: empty lines before a request are skipped, as after a POST body that ends in an extra CRLF",
          "[integration][service]") {
  ScratchDir dir;
  Service service(dir);
  const int port = service.port();
  Connection client(port);
  const std::string health = request("GET", "/healthz", port);
  REQUIRE(client.send("\r\n" + health + "\r\n\r\n" + health));
  const std::string got = receive_until(client, seen("HTTP/1.1 ", 2));
  CHECK(count_of(got, "HTTP/1.1 200 OK") == 2);
  CHECK(count_of(got, "HTTP/1.1 400") == 0);
  check_unharmed(service);
}

TEST_CASE("serve abuse: a head whose lines end in a bare LF is answered 400 at once",
          "[integration][service][abuse]") {
  ScratchDir dir;
  // A read timeout far beyond the wait below: a 408 cannot stand in for the
  // answer.
  Service service(dir, {"--service-read-timeout", "120s"});
  const int port = service.port();
  for (const std::string& head : {"GET /crawl HTTP/1.1\nHost: 127.0.0.1\n\n"s, "GET /healthz HTTP/1.1\n\n"s,
                                  "GET /crawl HTTP/1.1\r\nHost: 127.0.0.1\n\n"s}) {
    INFO(head);
    check_error(ask(port, head, 30000ms), 400, "bad_request");
  }
  check_unharmed(service);
}

TEST_CASE("serve abuse: beyond service_max_connections a connection gets 503 at once",
          "[integration][service][abuse]") {
  ScratchDir dir;
  Service service(dir, {"--service-max-connections", "20", "--service-read-timeout", "1500ms"});
  const int port = service.port();
  std::vector<std::unique_ptr<Connection>> held;
  for (int i = 0; i < 20; ++i)
    held.push_back(std::make_unique<Connection>(port));
  std::this_thread::sleep_for(200ms);  // all accepted

  // The next one is answered without being asked, and closed.
  Connection extra(port);
  const auto answer = parse_answer(extra.receive(1s, false));
  check_error(answer, 503, "too_many_connections");
  CHECK(answer.header("retry-after") == "1");
  CHECK(extra.closed());

  // When the held ones time out, their places are free again.
  for (auto& c : held)
    c->receive(3s, false);
  check_unharmed(service);
}

TEST_CASE("serve abuse: large chunked and compressed bodies are refused before they are read whole",
          "[integration][service][abuse]") {
  ScratchDir dir;
  Service service(dir, {"--max-request-bytes", "1024"});
  const int port = service.port();
  const std::string chunk = "1000\r\n" + std::string(4096, 'x') + "\r\n";  // 4 KiB a chunk

  // A chunked body over the limit: answered 413 while the client is still
  // sending (it never finishes here).
  {
    Connection c(port);
    c.send("POST /crawl HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
           "Transfer-Encoding: chunked\r\n\r\n" + chunk + chunk);
    const auto a = parse_answer(c.receive(2s));
    check_error(a, 413, "body_too_large");
    CHECK(a.header("connection") == "close");
  }
  // The same, sent whole (1 MiB): the answer arrives all the same.
  check_error(ask(port, "POST /crawl HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                             "Transfer-Encoding: chunked\r\n\r\n" + repeat(chunk, 256) + "0\r\n\r\n"),
              413, "body_too_large");
  // On a route that takes no body, too.
  check_error(ask(port, "DELETE /crawl/crawl_1 HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                             "Transfer-Encoding: chunked\r\n\r\n" + repeat(chunk, 4)),
              413, "body_too_large");
  // A declared length over the limit: answered before a byte of the body.
  {
    Connection c(port);
    c.send("POST /crawl HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
           "Content-Length: 1000000000\r\n\r\n");
    check_error(parse_answer(c.receive(2s)), 413, "body_too_large");
  }
  // Framing two parsers could read two ways.
  check_error(ask(port, "POST /crawl HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                             "Content-Length: 4\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n"),
              400, "bad_request");
  check_error(ask(port, "POST /crawl HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                             "Transfer-Encoding: chunked\r\n\r\n-5\r\nhello\r\n0\r\n\r\n"),
              400, "bad_request");
  // Compressed: 10 MB of JSON in a gzip body of a few KiB is refused, not
  // inflated; so is any other coding.
  const std::string bomb =
    gzip("{\"url\": \"http://127.0.0.1:9/\", \"pad\": \"" + std::string(10'000'000, 'a') + "\"}");
  REQUIRE(bomb.size() < 1024 * 16);
  ScratchDir roomy_dir;
  Service roomy(roomy_dir);  // max_request_bytes at its default, 64 KiB
  for (const char* coding : {"gzip", "deflate", "br", "x-unknown"})
    check_error(ask(roomy.port(), json_post(roomy.port(), bomb, std::string{"Content-Encoding: "} + coding + "\r\n")),
                415, "unsupported_encoding");
  // A small chunked body is read as any other.
  check_error(ask(port, "POST /crawl HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                             "Transfer-Encoding: chunked\r\n\r\n2\r\n{}\r\n0\r\n\r\n"),
              400, "missing_field");
  check_unharmed(service);
  check_unharmed(roomy);
}
