// Each misbehaviour of the fault web happens as specified, seen through a
// plain socket (or cpp-httplib's TLS client), and each stops by itself.
#include "testweb/fault_web.h"
#include "core/web/charset.h"

#include <arpa/inet.h>
#include <iconv.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <brotli/decode.h>
#include <catch2/catch.hpp>
#include <httplib.h>
#include <zlib.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <map>
#include <optional>
#include <regex>
#include <set>
#include <string>
#include <vector>

using actorcrawl::testweb::Fault;
using actorcrawl::testweb::FaultHost;
using actorcrawl::testweb::FaultLinks;
using actorcrawl::testweb::FaultRequest;
using actorcrawl::testweb::FaultWeb;
using actorcrawl::testweb::FaultWebOptions;
using actorcrawl::testweb::kBombPrefix;
using Clock = std::chrono::steady_clock;
using namespace std::chrono_literals;

namespace {

constexpr std::uint64_t kMiB = 1ULL << 20;

long long ms_since(Clock::time_point start) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - start).count();
}

// "http://127.0.0.N:PORT/path" -> host key and target.
std::pair<std::string, std::string> split_url(const std::string& url) {
  const auto host_start = url.find("://") + 3;
  const auto path_start = url.find('/', host_start);
  return {url.substr(host_start, path_start - host_start), url.substr(path_start)};
}

// One request over a plain socket, read until the server closes, resets,
// goes quiet for too long or has sent `max_bytes`.
class RawClient {
 public:
  explicit RawClient(const std::string& host_key) {
    const auto colon = host_key.rfind(':');
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_port = htons(static_cast<std::uint16_t>(std::stoi(host_key.substr(colon + 1))));
    ::inet_pton(AF_INET, host_key.substr(0, colon).c_str(), &address.sin_addr);
    fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    REQUIRE(fd_ >= 0);
    REQUIRE(::connect(fd_, reinterpret_cast<sockaddr*>(&address), sizeof address) == 0);
  }
  ~RawClient() { close(); }
  RawClient(const RawClient&) = delete;
  RawClient& operator=(const RawClient&) = delete;

  void send_request(const std::string& target, const std::string& extra_headers = "") {
    const std::string request = "GET " + target + " HTTP/1.1\r\nHost: fault.test\r\nUser-Agent: fault-web-test\r\n" +
                                extra_headers + "\r\n";
    REQUIRE(::send(fd_, request.data(), request.size(), MSG_NOSIGNAL) == static_cast<ssize_t>(request.size()));
  }

  // Reads what arrives; returns how reading ended: "eof", "reset", "quiet"
  // (nothing for `quiet`), "deadline" or "limit".
  std::string read(std::chrono::milliseconds quiet, std::chrono::milliseconds deadline, std::uint64_t max_bytes) {
    const auto until = Clock::now() + deadline;
    std::vector<char> chunk(256 * 1024);
    while (total < max_bytes) {
      const auto left = std::chrono::ceil<std::chrono::milliseconds>(until - Clock::now()).count();
      if (left <= 0) return "deadline";
      pollfd p{fd_, POLLIN, 0};
      const int ready = ::poll(&p, 1, static_cast<int>(std::min<long long>(left, quiet.count())));
      if (ready == 0) return left <= quiet.count() ? "deadline" : "quiet";
      const auto want = static_cast<std::size_t>(std::min<std::uint64_t>(chunk.size(), max_bytes - total));
      const ssize_t n = ::recv(fd_, chunk.data(), want, 0);
      if (n == 0) return "eof";
      if (n < 0) return errno == ECONNRESET ? "reset" : "error";
      total += static_cast<std::uint64_t>(n);
      if (received.size() < keep_bytes)
        received.append(chunk.data(), std::min<std::size_t>(static_cast<std::size_t>(n), keep_bytes - received.size()));
      arrivals.push_back(Clock::now());
    }
    return "limit";
  }

  void close() {
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
  }

  std::size_t keep_bytes = static_cast<std::size_t>(-1);  // the rest is counted, not kept
  std::string received;
  std::uint64_t total = 0;
  std::vector<Clock::time_point> arrivals;  // one per read that returned bytes

 private:
  int fd_ = -1;
};

struct Head {
  std::string status_line;
  int status = 0;
  std::map<std::string, std::string> headers;  // names lowercased
  std::size_t size = 0;                         // bytes up to and including the blank line
};

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

std::optional<Head> parse_head(const std::string& bytes) {
  const auto end = bytes.find("\r\n\r\n");
  if (end == std::string::npos) return std::nullopt;
  Head head;
  head.size = end + 4;
  std::size_t line_start = 0;
  bool first = true;
  while (line_start < end) {
    auto line_end = bytes.find("\r\n", line_start);
    const std::string line = bytes.substr(line_start, line_end - line_start);
    line_start = line_end + 2;
    if (first) {
      head.status_line = line;
      head.status = std::stoi(line.substr(line.find(' ') + 1, 3));
      first = false;
      continue;
    }
    const auto colon = line.find(':');
    head.headers[lower(line.substr(0, colon))] = line.substr(line.find_first_not_of(' ', colon + 1));
  }
  return head;
}

// A whole response read over a fresh connection.
struct Fetched {
  Head head;
  std::string body;  // as it came over the wire (not de-chunked, not decoded)
  std::string ending;
};

Fetched fetch(const std::string& url, const std::string& extra_headers = "",
              std::uint64_t max_bytes = 64 * kMiB) {
  const auto [host, target] = split_url(url);
  RawClient client(host);
  client.send_request(target, extra_headers);
  Fetched out;
  out.ending = client.read(5s, 10s, max_bytes);
  auto head = parse_head(client.received);
  REQUIRE(head);
  out.head = *head;
  out.body = client.received.substr(head->size);
  return out;
}

std::size_t occurrences(const std::string& haystack, const std::string& needle) {
  std::size_t n = 0;
  for (auto at = haystack.find(needle); at != std::string::npos; at = haystack.find(needle, at + needle.size())) ++n;
  return n;
}

// Whether iconv converts `bytes` from `charset` to UTF-8 without an error;
// nullopt when iconv does not know the charset at all.
std::optional<bool> converts(const std::string& charset, const std::string& bytes) {
  iconv_t cd = ::iconv_open("UTF-8", charset.c_str());
  if (cd == reinterpret_cast<iconv_t>(-1)) return std::nullopt;
  std::string in = bytes;
  std::string out(in.size() * 4 + 16, '\0');
  char* in_ptr = in.data();
  char* out_ptr = out.data();
  std::size_t in_left = in.size();
  std::size_t out_left = out.size();
  const bool ok = ::iconv(cd, &in_ptr, &in_left, &out_ptr, &out_left) != static_cast<std::size_t>(-1) && in_left == 0;
  ::iconv_close(cd);
  return ok;
}

std::string title_of(const std::string& html) {
  const auto start = html.find("<title>") + 7;
  return html.substr(start, html.find("</title>") - start);
}

// The record of the one request the web saw for `path` on `host`.
FaultRequest only_request(const FaultWeb& web, FaultHost host, const std::string& path) {
  std::vector<FaultRequest> found;
  for (const auto& r : web.requests(host))
    if (r.path == path) found.push_back(r);
  REQUIRE(found.size() == 1);
  return found.front();
}

FaultWebOptions quick_options() {
  FaultWebOptions options;
  options.tls = false;  // a key and certificate per web: only where wanted
  return options;
}

}  // namespace

TEST_CASE("the index links every misbehaviour and every host", "[testweb][faultweb]") {
  FaultWeb web;
  const auto index = fetch(web.index_url());
  CHECK(index.head.status == 200);
  for (const auto& page : actorcrawl::testweb::fault_pages()) {
    INFO(page.name);
    CHECK(index.body.find("href=\"" + web.url(page.fault) + "\"") != std::string::npos);
  }
  std::set<std::string> addresses;
  for (const auto& key : web.host_keys()) {
    INFO(key);
    if (key != web.host_key(FaultHost::index))
      CHECK(index.body.find("href=\"" + (key == web.host_key(FaultHost::tls) ? "https://" : std::string{"http://"}) +
                            key + "/\"") != std::string::npos);
    addresses.insert(key.substr(0, key.rfind(':')));
    CHECK(key.rfind("127.0.0.", 0) == 0);
  }
  CHECK(addresses.size() == web.host_keys().size());
  CHECK(web.host_names().size() == web.host_keys().size());
}

TEST_CASE("every request is recorded: method, host, path, time, client address, ending", "[testweb][faultweb]") {
  FaultWeb web(quick_options());
  const auto before = Clock::now();
  fetch(web.url(FaultHost::wire, "/nowhere?x=1"));
  fetch(web.url(Fault::content_length_under));
  REQUIRE(web.wait_until_idle(2s));
  const auto all = web.requests();
  REQUIRE(all.size() == 2);
  const FaultRequest& missing = all[0];
  CHECK(missing.method == "GET");
  CHECK(missing.host_key == web.host_key(FaultHost::wire));
  CHECK(missing.target == "/nowhere?x=1");
  CHECK(missing.path == "/nowhere");
  CHECK(missing.status == 404);
  CHECK(missing.user_agent == "fault-web-test");
  CHECK(missing.client_address.rfind("127.", 0) == 0);
  CHECK(missing.client_address.find(':') != std::string::npos);
  CHECK(missing.at >= before);
  CHECK(missing.finished);
  CHECK(missing.finished_at >= missing.at);
  CHECK(missing.ending == "complete");
  CHECK(all[1].at >= all[0].at);
  CHECK(web.count(FaultHost::wire, actorcrawl::testweb::fault_page(Fault::content_length_under).path) == 1);
}

TEST_CASE("slow-loris sends a byte a second and stops when its client leaves", "[testweb][faultweb][slow]") {
  FaultWeb web(quick_options());
  const auto [host, target] = split_url(web.url(Fault::slow_loris));
  RawClient client(host);
  client.send_request(target);
  CHECK(client.read(1500ms, 3500ms, 1000) == "deadline");
  // A byte at once, then one a second: four by 3.5 s.
  CHECK(client.received.size() >= 3);
  CHECK(client.received.size() <= 5);
  CHECK(std::string{"HTTP/1.1"}.compare(0, client.received.size(), client.received) == 0);
  for (std::size_t i = 1; i < client.arrivals.size(); ++i)
    CHECK(std::chrono::duration_cast<std::chrono::milliseconds>(client.arrivals[i] - client.arrivals[i - 1]).count() >=
          800);
  const auto left = Clock::now();
  client.close();
  REQUIRE(web.wait_until_idle(2s));
  const auto record = only_request(web, FaultHost::slow, target);
  CHECK(record.ending == "client_gone");
  CHECK(std::chrono::duration_cast<std::chrono::milliseconds>(record.finished_at - left).count() < 500);
}

TEST_CASE("slow-loris gives a patient client the whole page, and gives up at its limit", "[testweb][faultweb][slow]") {
  SECTION("fast enough to finish") {
    FaultWebOptions options = quick_options();
    options.slow_loris_interval = 2ms;
    FaultWeb web(options);
    const auto response = fetch(web.url(Fault::slow_loris));
    CHECK(response.ending == "eof");
    CHECK(response.head.status == 200);
    CHECK(response.head.headers.at("content-length") == "120");
    CHECK(response.body.size() == 120);
    REQUIRE(web.wait_until_idle(2s));
    CHECK(only_request(web, FaultHost::slow, "/slow-loris").ending == "complete");
  }
  SECTION("the time limit") {
    FaultWebOptions options = quick_options();
    options.slow_loris_interval = 20ms;
    options.slow_loris_limit = 300ms;
    FaultWeb web(options);
    const auto [host, target] = split_url(web.url(Fault::slow_loris));
    RawClient client(host);
    const auto start = Clock::now();
    client.send_request(target);
    CHECK(client.read(2s, 5s, 1000) == "eof");
    CHECK(ms_since(start) >= 250);
    CHECK(ms_since(start) < 1500);
    CHECK(client.received.size() < 100);  // of ~190
    REQUIRE(web.wait_until_idle(2s));
    CHECK(only_request(web, FaultHost::slow, target).ending == "time_limit");
  }
}

TEST_CASE("the endless body streams while its client reads and stops when it leaves", "[testweb][faultweb][stream]") {
  SECTION("the client leaves") {
    FaultWeb web(quick_options());
    const auto [host, target] = split_url(web.url(Fault::endless_body));
    RawClient client(host);
    client.keep_bytes = 64 * 1024;
    client.send_request(target);
    CHECK(client.read(2s, 10s, 8 * kMiB) == "limit");
    auto head = parse_head(client.received);
    REQUIRE(head);
    CHECK(head->status == 200);
    CHECK(head->headers.at("transfer-encoding") == "chunked");
    CHECK(client.received.find("<title>Endless</title>") != std::string::npos);
    const auto left = Clock::now();
    client.close();
    REQUIRE(web.wait_until_idle(2s));
    const auto record = only_request(web, FaultHost::stream, target);
    CHECK(record.ending == "client_gone");
    CHECK(std::chrono::duration_cast<std::chrono::milliseconds>(record.finished_at - left).count() < 1000);
    // What the client read plus what socket buffers held, no more.
    CHECK(record.bytes_sent < 8 * kMiB + 32 * kMiB);
  }
  SECTION("the byte limit, without the last chunk") {
    FaultWebOptions options = quick_options();
    options.endless_max_bytes = kMiB;
    FaultWeb web(options);
    const auto [host, target] = split_url(web.url(Fault::endless_body));
    RawClient client(host);
    client.send_request(target);
    CHECK(client.read(2s, 10s, 64 * kMiB) == "eof");
    CHECK(client.total >= kMiB);
    CHECK(client.total < kMiB + 64 * 1024);
    CHECK(client.received.find("\r\n0\r\n\r\n") == std::string::npos);
    REQUIRE(web.wait_until_idle(2s));
    CHECK(only_request(web, FaultHost::stream, target).ending == "byte_limit");
  }
  SECTION("the time limit") {
    FaultWebOptions options = quick_options();
    options.endless_limit = 200ms;
    FaultWeb web(options);
    const auto [host, target] = split_url(web.url(Fault::endless_body));
    RawClient client(host);
    client.keep_bytes = 64 * 1024;
    const auto start = Clock::now();
    client.send_request(target);
    CHECK(client.read(2s, 20s, 1ULL << 32) == "eof");
    CHECK(ms_since(start) >= 200);
    REQUIRE(web.wait_until_idle(2s));
    CHECK(only_request(web, FaultHost::stream, target).ending == "time_limit");
  }
}

TEST_CASE("the gzip bomb is small on the wire and a gigabyte decoded", "[testweb][faultweb][bomb]") {
  FaultWeb web(quick_options());
  const auto response = fetch(web.url(Fault::gzip_bomb), "Accept-Encoding: gzip\r\n");
  CHECK(response.head.status == 200);
  CHECK(response.head.headers.at("content-encoding") == "gzip");
  REQUIRE(response.head.headers.at("content-length") == std::to_string(response.body.size()));
  CHECK(response.body.size() < 1100 * 1024);

  // The first 64 MiB decoded cost a few dozen KB of the wire bytes.
  z_stream z{};
  REQUIRE(inflateInit2(&z, 16 + 15) == Z_OK);
  std::string out(kMiB, '\0');
  std::string first;
  std::uint64_t decoded = 0;
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(response.body.data()));
  z.avail_in = static_cast<uInt>(response.body.size());
  while (decoded < 64 * kMiB) {
    z.next_out = reinterpret_cast<Bytef*>(out.data());
    z.avail_out = static_cast<uInt>(out.size());
    REQUIRE(inflate(&z, Z_NO_FLUSH) == Z_OK);
    const auto produced = out.size() - z.avail_out;
    if (first.empty()) first = out.substr(0, produced);
    decoded += produced;
  }
  const auto consumed = response.body.size() - z.avail_in;
  inflateEnd(&z);
  CHECK(first.rfind(kBombPrefix, 0) == 0);
  CHECK(consumed < 70 * 1024);
  // The trailer's ISIZE: the whole decoded size, modulo 2^32.
  const auto* tail = reinterpret_cast<const unsigned char*>(response.body.data() + response.body.size() - 4);
  const std::uint32_t isize = tail[0] | (tail[1] << 8) | (tail[2] << 16) | (static_cast<std::uint32_t>(tail[3]) << 24);
  CHECK(isize == static_cast<std::uint32_t>(std::string{kBombPrefix}.size() + (1ULL << 30)));
}

TEST_CASE("a small gzip bomb decodes whole, its CRC and length right", "[testweb][faultweb][bomb]") {
  const std::string& bomb = actorcrawl::testweb::gzip_bomb(8 * kMiB);
  z_stream z{};
  REQUIRE(inflateInit2(&z, 16 + 15) == Z_OK);
  std::string out(kMiB, '\0');
  std::uint64_t decoded = 0;
  std::uint64_t zeros = 0;
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(bomb.data()));
  z.avail_in = static_cast<uInt>(bomb.size());
  int result = Z_OK;
  while (result == Z_OK) {
    z.next_out = reinterpret_cast<Bytef*>(out.data());
    z.avail_out = static_cast<uInt>(out.size());
    result = inflate(&z, Z_NO_FLUSH);
    const auto produced = out.size() - z.avail_out;
    zeros += static_cast<std::uint64_t>(std::count(out.begin(), out.begin() + static_cast<std::ptrdiff_t>(produced), '\0'));
    decoded += produced;
  }
  inflateEnd(&z);
  CHECK(result == Z_STREAM_END);  // zlib checked the CRC-32 and ISIZE
  CHECK(z.avail_in == 0);
  CHECK(decoded == std::string{kBombPrefix}.size() + 8 * kMiB);
  CHECK(zeros == 8 * kMiB);
}

namespace {

// Decodes brotli until `stop_after` bytes came out (or the stream ends);
// returns the bytes decoded and the input used.
struct BrotliRun {
  std::uint64_t decoded = 0;
  std::size_t consumed = 0;
  bool finished = false;
  std::string first;
};

BrotliRun decode_brotli(const std::string& input, std::uint64_t stop_after) {
  BrotliRun run;
  BrotliDecoderState* decoder = BrotliDecoderCreateInstance(nullptr, nullptr, nullptr);
  std::size_t avail_in = input.size();
  const auto* next_in = reinterpret_cast<const std::uint8_t*>(input.data());
  std::vector<std::uint8_t> out(kMiB);
  BrotliDecoderResult result = BROTLI_DECODER_RESULT_NEEDS_MORE_OUTPUT;
  while (result == BROTLI_DECODER_RESULT_NEEDS_MORE_OUTPUT && run.decoded < stop_after) {
    std::size_t avail_out = out.size();
    std::uint8_t* next_out = out.data();
    result = BrotliDecoderDecompressStream(decoder, &avail_in, &next_in, &avail_out, &next_out, nullptr);
    const auto produced = out.size() - avail_out;
    if (run.first.empty()) run.first.assign(reinterpret_cast<const char*>(out.data()), produced);
    run.decoded += produced;
  }
  run.finished = result == BROTLI_DECODER_RESULT_SUCCESS;
  run.consumed = input.size() - avail_in;
  BrotliDecoderDestroyInstance(decoder);
  return run;
}

}  // namespace

TEST_CASE("the brotli bomb is small on the wire and a gigabyte decoded", "[testweb][faultweb][bomb]") {
  FaultWeb web(quick_options());
  const auto response = fetch(web.url(Fault::brotli_bomb), "Accept-Encoding: br\r\n");
  CHECK(response.head.status == 200);
  CHECK(response.head.headers.at("content-encoding") == "br");
  REQUIRE(response.head.headers.at("content-length") == std::to_string(response.body.size()));
  CHECK(response.body.size() < 256 * 1024);
  const auto run = decode_brotli(response.body, 64 * kMiB);
  CHECK(run.first.rfind(kBombPrefix, 0) == 0);
  CHECK(run.decoded >= 64 * kMiB);
  CHECK(run.consumed < 32 * 1024);

  const auto small = decode_brotli(actorcrawl::testweb::brotli_bomb(8 * kMiB), 1ULL << 40);
  CHECK(small.finished);
  CHECK(small.decoded == std::string{kBombPrefix}.size() + 8 * kMiB);
}

TEST_CASE("Content-Length that lies, either way", "[testweb][faultweb][wire]") {
  FaultWeb web(quick_options());
  SECTION("more than is sent, then close") {
    const auto response = fetch(web.url(Fault::content_length_over));
    CHECK(response.ending == "eof");
    CHECK(std::stoull(response.head.headers.at("content-length")) == response.body.size() + 10000);
  }
  SECTION("less than is sent: a link inside it and one past it") {
    const auto response = fetch(web.url(Fault::content_length_under));
    CHECK(response.ending == "eof");
    const auto length = std::stoull(response.head.headers.at("content-length"));
    CHECK(length < response.body.size());
    CHECK(response.body.substr(0, length).find(FaultLinks::within_content_length) != std::string::npos);
    CHECK(response.body.substr(0, length).find(FaultLinks::beyond_content_length) == std::string::npos);
    CHECK(response.body.substr(length).find(FaultLinks::beyond_content_length) != std::string::npos);
  }
}

TEST_CASE("broken chunked encoding: a good chunk, then a size that is not hex", "[testweb][faultweb][wire]") {
  FaultWeb web(quick_options());
  const auto response = fetch(web.url(Fault::broken_chunked));
  CHECK(response.ending == "eof");
  CHECK(response.head.headers.at("transfer-encoding") == "chunked");
  CHECK(response.head.headers.count("content-length") == 0);
  const auto line_end = response.body.find("\r\n");
  const auto first_size = std::stoul(response.body.substr(0, line_end), nullptr, 16);
  const auto after_first = line_end + 2 + first_size;
  REQUIRE(response.body.compare(after_first, 2, "\r\n") == 0);
  const std::string second_size = response.body.substr(after_first + 2, response.body.find("\r\n", after_first + 2) -
                                                                            after_first - 2);
  CHECK(second_size == "zz-not-hex");
}

TEST_CASE("a reset mid-body: part of the body, then RST", "[testweb][faultweb][wire]") {
  FaultWeb web(quick_options());
  const auto [host, target] = split_url(web.url(Fault::reset_mid_body));
  RawClient client(host);
  client.send_request(target);
  CHECK(client.read(2s, 5s, kMiB) == "reset");
  auto head = parse_head(client.received);
  REQUIRE(head);
  CHECK(head->headers.at("content-length") == "100000");
  CHECK(client.received.size() - head->size < 100000);
  REQUIRE(web.wait_until_idle(2s));
  CHECK(only_request(web, FaultHost::wire, target).ending == "reset");
}

TEST_CASE("HTTP/1.0 without Content-Length: the close ends the body", "[testweb][faultweb][wire]") {
  FaultWeb web(quick_options());
  const auto response = fetch(web.url(Fault::http10_close_delimited));
  CHECK(response.ending == "eof");
  CHECK(response.head.status_line == "HTTP/1.0 200 OK");
  CHECK(response.head.headers.count("content-length") == 0);
  CHECK(response.head.headers.count("transfer-encoding") == 0);
  CHECK(response.body.find(FaultLinks::after_http10) != std::string::npos);
  CHECK(response.body.size() >= 7);
  CHECK(response.body.compare(response.body.size() - 7, 7, "</html>") == 0);
}

TEST_CASE("huge response headers: a megabyte before the body", "[testweb][faultweb][wire]") {
  FaultWeb web(quick_options());
  const auto response = fetch(web.url(Fault::huge_headers));
  CHECK(response.ending == "eof");
  CHECK(response.head.status == 200);
  CHECK(response.head.size >= web.options().huge_headers_bytes);
  CHECK(response.body.size() == std::stoull(response.head.headers.at("content-length")));
}

namespace {

struct Hop {
  std::string url;
  int status;
};

// Follows Location by hand (absolute, or a path on the same host) up to
// `max_hops` redirects; stops early at a URL already visited.
std::vector<Hop> follow(std::string url, int max_hops) {
  std::vector<Hop> hops;
  std::set<std::string> visited;
  for (int i = 0; i <= max_hops && visited.insert(url).second; ++i) {
    const auto response = fetch(url);
    hops.push_back({url, response.head.status});
    if (response.head.status / 100 != 3) break;
    const std::string location = response.head.headers.at("location");
    url = location.rfind("http", 0) == 0 ? location : "http://" + split_url(url).first + location;
  }
  if (!hops.empty() && visited.size() == hops.size() && hops.back().status / 100 == 3)
    hops.push_back({url, 0});  // where the last redirect pointed
  return hops;
}

std::vector<std::string> hosts_of(const std::vector<Hop>& hops) {
  std::vector<std::string> out;
  for (const auto& hop : hops) out.push_back(split_url(hop.url).first);
  return out;
}

}  // namespace

TEST_CASE("redirect loops and chains run across hosts", "[testweb][faultweb][redirect]") {
  FaultWeb web(quick_options());
  const auto a = web.host_key(FaultHost::redirect_a);
  const auto b = web.host_key(FaultHost::redirect_b);
  const auto c = web.host_key(FaultHost::redirect_c);

  SECTION("a loop: a -> b -> a") {
    const auto hops = follow(web.url(Fault::redirect_loop), 10);
    REQUIRE(hops.size() == 3);
    CHECK(hosts_of(hops) == std::vector<std::string>{a, b, a});
    CHECK(hops[2].url == hops[0].url);
  }
  SECTION("a chain: three hops over three hosts to a page") {
    const auto hops = follow(web.url(Fault::redirect_chain), 10);
    REQUIRE(hops.size() == 4);
    CHECK(hosts_of(hops) == std::vector<std::string>{a, b, c, c});
    CHECK(hops[3].url == web.url(FaultHost::redirect_c, FaultLinks::chain_end));
    CHECK(hops[3].status == 200);
  }
  SECTION("a chain longer than any crawler follows") {
    const auto hops = follow(web.url(Fault::redirect_chain_too_long), 20);
    REQUIRE(hops.size() == 13);
    for (std::size_t i = 0; i < 12; ++i) CHECK(hops[i].status == 302);
    CHECK(hops[12].status == 200);
    CHECK(hosts_of(hops)[1] == b);
    CHECK(hosts_of(hops)[2] == a);
  }
  SECTION("a redirect into a path the target host's robots.txt disallows") {
    const auto hops = follow(web.url(Fault::redirect_to_disallowed), 10);
    REQUIRE(hops.size() == 2);
    const auto [target_host, target_path] = split_url(hops[1].url);
    CHECK(target_host == b);
    CHECK(hops[1].status == 200);
    CHECK(web.disallowed(b, target_path));
    const auto robots = fetch(web.url(FaultHost::redirect_b, "/robots.txt"));
    CHECK(robots.head.status == 200);
    CHECK(robots.body.find("Disallow: /private/\n") != std::string::npos);
  }
  SECTION("a bounce: host b twice within a moment") {
    const auto hops = follow(web.url(Fault::redirect_bounce), 10);
    CHECK(hosts_of(hops) == std::vector<std::string>{a, b, c, b, c});
    CHECK(hops.back().url == web.url(FaultHost::redirect_c, FaultLinks::bounce_end));
    CHECK(hops.back().status == 200);
  }
}

TEST_CASE("429 and 503 come with Retry-After", "[testweb][faultweb][busy]") {
  FaultWeb web(quick_options());
  const auto first = fetch(web.url(Fault::too_many_requests));
  CHECK(first.head.status == 429);
  CHECK(first.head.headers.at("retry-after") == "1");
  CHECK(fetch(web.url(Fault::too_many_requests)).head.status == 200);
  for (int i = 0; i < 2; ++i) {
    const auto busy = fetch(web.url(Fault::service_unavailable));
    CHECK(busy.head.status == 503);
    CHECK(busy.head.headers.at("retry-after") == "1");
  }
}

TEST_CASE("robots.txt answers 503 for its first N requests, then its rules", "[testweb][faultweb][robots]") {
  FaultWebOptions options = quick_options();
  options.robots_failures = 2;
  FaultWeb web(options);
  const auto robots = web.url(FaultHost::robots, "/robots.txt");
  CHECK(fetch(robots).head.status == 503);
  CHECK(fetch(robots).head.status == 503);
  const auto recovered = fetch(robots);
  CHECK(recovered.head.status == 200);
  CHECK(recovered.body.find(std::string{"Disallow: "} + FaultLinks::robots_blocked) != std::string::npos);
  CHECK(web.disallowed(web.host_key(FaultHost::robots), FaultLinks::robots_blocked));
  CHECK_FALSE(web.disallowed(web.host_key(FaultHost::robots), "/flaky-robots"));
  CHECK(fetch(web.url(Fault::flaky_robots)).body.find(FaultLinks::robots_blocked) != std::string::npos);
  // Other hosts allow everything.
  CHECK(fetch(web.url(FaultHost::wire, "/robots.txt")).body == "User-agent: *\nDisallow:\n");
}

TEST_CASE("charsets: bytes invalid in the declared charset, and a meta that disagrees", "[testweb][faultweb][charset]") {
  FaultWeb web(quick_options());
  SECTION("declared UTF-8, not UTF-8") {
    const auto r = fetch(web.url(Fault::invalid_utf8));
    CHECK(r.head.headers.at("content-type") == "text/html; charset=utf-8");
    CHECK_FALSE(actorcrawl::is_valid_utf8(title_of(r.body)));
    CHECK(converts("UTF-8", title_of(r.body)) == std::optional<bool>{false});
  }
  SECTION("declared Shift_JIS, not Shift_JIS") {
    const auto r = fetch(web.url(Fault::invalid_shift_jis));
    CHECK(r.head.headers.at("content-type") == "text/html; charset=Shift_JIS");
    CHECK(converts("SHIFT_JIS", title_of(r.body)) == std::optional<bool>{false});
    CHECK(converts("SHIFT_JIS", "\x93\xfa\x96\x7b") == std::optional<bool>{true});  // the good part is good
  }
  SECTION("the header says UTF-8, <meta charset> says windows-1251, and the bytes agree with the meta") {
    const auto r = fetch(web.url(Fault::charset_mismatch));
    CHECK(r.head.headers.at("content-type") == "text/html; charset=utf-8");
    CHECK(r.body.find("<meta charset=\"windows-1251\">") != std::string::npos);
    CHECK_FALSE(actorcrawl::is_valid_utf8(title_of(r.body)));
    CHECK(converts("WINDOWS-1251", title_of(r.body)) == std::optional<bool>{true});
  }
  SECTION("a label nobody knows") {
    const auto r = fetch(web.url(Fault::unknown_charset));
    const auto type = r.head.headers.at("content-type");
    const auto label = type.substr(type.find("charset=") + 8);
    CHECK(converts(label, "x") == std::nullopt);
    CHECK_FALSE(actorcrawl::is_valid_utf8(title_of(r.body)));
  }
}

TEST_CASE("a page of 80,000 distinct links under 1 MiB, all into a disallowed path", "[testweb][faultweb][links]") {
  FaultWeb web(quick_options());
  const auto r = fetch(web.url(Fault::many_links), "", 4 * kMiB);
  CHECK(r.head.status == 200);
  CHECK(r.body.size() < kMiB);
  CHECK(r.body.find("<base href=\"/l/\">") != std::string::npos);
  std::set<std::string> hrefs;
  const std::regex anchor("<a href=([0-9a-z]+)>");
  for (auto it = std::sregex_iterator(r.body.begin(), r.body.end(), anchor); it != std::sregex_iterator(); ++it)
    hrefs.insert((*it)[1].str());
  CHECK(hrefs.size() == 80000);
  CHECK(web.disallowed(web.host_key(FaultHost::farm), "/l/" + *hrefs.begin()));
  CHECK_FALSE(web.disallowed(web.host_key(FaultHost::farm), "/links"));
}

TEST_CASE("deep and foreign-content nesting, each with a link after it", "[testweb][faultweb][nesting]") {
  FaultWeb web(quick_options());
  SECTION("100,000 unclosed <div>s") {
    const auto r = fetch(web.url(Fault::deep_nesting), "", 4 * kMiB);
    CHECK(occurrences(r.body, "<div>") == 100000);
    CHECK(occurrences(r.body, "</div>") == 0);
    CHECK(r.body.find(FaultLinks::after_deep_nesting) > r.body.rfind("<div>"));
    CHECK(fetch(web.url(FaultHost::index, FaultLinks::after_deep_nesting)).head.status == 200);
  }
  SECTION("<svg><foreignObject>, then 100,000 self-closing <section/>s") {
    const auto r = fetch(web.url(Fault::foreign_nesting), "", 4 * kMiB);
    CHECK(r.body.find("<svg><foreignObject>") != std::string::npos);
    CHECK(occurrences(r.body, "<section/>") == 100000);
    CHECK(r.body.find(FaultLinks::after_foreign_nesting) > r.body.rfind("<section/>"));
    CHECK(fetch(web.url(FaultHost::index, FaultLinks::after_foreign_nesting)).head.status == 200);
  }
}

TEST_CASE("the TLS host serves a certificate no client trusts", "[testweb][faultweb][tls]") {
  FaultWeb web;
  const auto key = web.host_key(FaultHost::tls);
  const auto colon = key.rfind(':');
  httplib::SSLClient trusting(key.substr(0, colon), std::stoi(key.substr(colon + 1)));
  trusting.enable_server_certificate_verification(false);
  trusting.set_connection_timeout(2s);
  trusting.set_read_timeout(2s);
  auto page = trusting.Get("/");
  REQUIRE(page);
  CHECK(page->status == 200);
  CHECK(title_of(page->body) == "Self-signed");
  CHECK(web.url(Fault::self_signed_tls).rfind("https://", 0) == 0);

  httplib::SSLClient careful(key.substr(0, colon), std::stoi(key.substr(colon + 1)));
  careful.enable_server_certificate_verification(true);
  careful.set_connection_timeout(2s);
  careful.set_read_timeout(2s);
  auto refused = careful.Get("/");
  CHECK_FALSE(refused);
  CHECK(refused.error() == httplib::Error::SSLServerVerification);

  REQUIRE(web.wait_until_idle(2s));
  const auto seen = web.requests(FaultHost::tls);
  REQUIRE(seen.size() == 1);  // the handshake that failed asked for nothing
  CHECK(seen[0].path == "/");
  CHECK(seen[0].status == 200);
}

TEST_CASE("the web shuts down at once with misbehaviours in full flow", "[testweb][faultweb][shutdown]") {
  std::optional<FaultWeb> web(std::in_place);
  const auto [slow_host, slow_target] = split_url(web->url(Fault::slow_loris));
  const auto [stream_host, endless_target] = split_url(web->url(Fault::endless_body));
  RawClient slow(slow_host);
  slow.send_request(slow_target);
  RawClient endless(stream_host);  // never reads: the server blocks on a full socket
  endless.send_request(endless_target);
  RawClient silent(web->host_key(FaultHost::wire));  // never sends a request
  CHECK(slow.read(2s, 1200ms, 1000) == "deadline");
  const auto start = Clock::now();
  web.reset();
  CHECK(ms_since(start) < 1000);
  CHECK(slow.read(2s, 2s, 1000) == "eof");
  CHECK(silent.read(2s, 2s, 1000) == "eof");
}
