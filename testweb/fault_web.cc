#include "testweb/fault_web.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <brotli/encode.h>
#include <httplib.h>
#include <openssl/evp.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>
#include <zlib.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <cerrno>
#include <cstdio>
#include <condition_variable>
#include <functional>
#include <list>
#include <map>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string_view>
#include <thread>
#include <utility>

namespace actorcrawl::testweb {

const char* const kBombPrefix = "<!doctype html><html><head><title>Bomb</title></head><body>";

namespace {

using Clock = std::chrono::steady_clock;
using Headers = std::vector<std::pair<std::string, std::string>>;
using namespace std::chrono_literals;

constexpr std::uint64_t kMiB = 1ULL << 20;
// A client that has not sent a whole request head by then is dropped; so is
// a head larger than this.
constexpr auto kHeadTimeout = 5s;
constexpr std::size_t kMaxRequestHead = 64 * 1024;
// A client that stops reading (without closing) for this long is dropped,
// so no misbehaviour can be held open by a stalled reader.
constexpr auto kWriteStall = 10s;
// Connections served at once per host; more are closed at once. Bounds the
// threads a runaway client can make the web start.
constexpr std::size_t kMaxConnectionsPerHost = 64;
// How often an accept loop looks for finished connections to join.
constexpr int kAcceptPollMs = 200;
constexpr std::size_t kEndlessChunkBytes = 16 * 1024;

// ---------------------------------------------------------------------------
// The catalogue.

const std::vector<FaultPage> kFaultPages = {
  {Fault::slow_loris, "slow_loris", FaultHost::slow, "/slow-loris"},
  {Fault::endless_body, "endless_body", FaultHost::stream, "/endless"},
  {Fault::gzip_bomb, "gzip_bomb", FaultHost::stream, "/gzip-bomb"},
  {Fault::brotli_bomb, "brotli_bomb", FaultHost::stream, "/brotli-bomb"},
  {Fault::content_length_over, "content_length_over", FaultHost::wire, "/content-length-over"},
  {Fault::content_length_under, "content_length_under", FaultHost::wire, "/content-length-under"},
  {Fault::broken_chunked, "broken_chunked", FaultHost::wire, "/broken-chunked"},
  {Fault::reset_mid_body, "reset_mid_body", FaultHost::wire, "/reset-mid-body"},
  {Fault::http10_close_delimited, "http10_close_delimited", FaultHost::wire, "/http10"},
  {Fault::huge_headers, "huge_headers", FaultHost::wire, "/huge-headers"},
  {Fault::http09_reply, "http09_reply", FaultHost::wire, "/http09"},
  {Fault::status_000, "status_000", FaultHost::wire, "/status-000"},
  {Fault::giant_header_line, "giant_header_line", FaultHost::wire, "/giant-header-line"},
  {Fault::redirect_loop, "redirect_loop", FaultHost::redirect_a, "/loop"},
  {Fault::redirect_chain, "redirect_chain", FaultHost::redirect_a, "/chain"},
  {Fault::redirect_chain_too_long, "redirect_chain_too_long", FaultHost::redirect_a, "/long/0"},
  {Fault::redirect_to_disallowed, "redirect_to_disallowed", FaultHost::redirect_a, "/to-private"},
  {Fault::redirect_bounce, "redirect_bounce", FaultHost::redirect_a, "/bounce"},
  {Fault::too_many_requests, "too_many_requests", FaultHost::busy, "/too-many-requests"},
  {Fault::service_unavailable, "service_unavailable", FaultHost::busy, "/unavailable"},
  {Fault::flaky_robots, "flaky_robots", FaultHost::robots, "/flaky-robots"},
  {Fault::invalid_utf8, "invalid_utf8", FaultHost::index, "/invalid-utf8"},
  {Fault::invalid_shift_jis, "invalid_shift_jis", FaultHost::index, "/invalid-shift-jis"},
  {Fault::charset_mismatch, "charset_mismatch", FaultHost::index, "/charset-mismatch"},
  {Fault::unknown_charset, "unknown_charset", FaultHost::index, "/unknown-charset"},
  {Fault::many_links, "many_links", FaultHost::farm, "/links"},
  {Fault::deep_nesting, "deep_nesting", FaultHost::index, "/deep-nesting"},
  {Fault::foreign_nesting, "foreign_nesting", FaultHost::index, "/foreign-nesting"},
  {Fault::self_signed_tls, "self_signed_tls", FaultHost::tls, "/"},
};

constexpr FaultHost kAllHosts[] = {
  FaultHost::index,  FaultHost::slow, FaultHost::stream,     FaultHost::wire,       FaultHost::busy,
  FaultHost::robots, FaultHost::farm, FaultHost::redirect_a, FaultHost::redirect_b, FaultHost::redirect_c,
  FaultHost::tls,
};
constexpr std::size_t kHostCount = sizeof kAllHosts / sizeof kAllHosts[0];

// Each host on an address of its own, away from the demo web's 127.0.0.1-3.
std::string ip_of(FaultHost host) { return "127.0.0." + std::to_string(10 + static_cast<int>(host)); }

// robots.txt Disallow prefixes (for every user agent) of the hosts that have any.
std::vector<std::string> disallowed_prefixes(FaultHost host) {
  switch (host) {
    case FaultHost::robots: return {FaultLinks::robots_blocked};
    case FaultHost::farm: return {"/l/"};
    case FaultHost::redirect_b: return {"/private/"};
    default: return {};
  }
}

// ---------------------------------------------------------------------------
// Bytes of the misbehaving responses.

const char* reason_phrase(int status) {
  switch (status) {
    case 200: return "OK";
    case 301: return "Moved Permanently";
    case 302: return "Found";
    case 404: return "Not Found";
    case 429: return "Too Many Requests";
    case 503: return "Service Unavailable";
    default: return "Status";
  }
}

std::string status_line(int status, const char* version = "HTTP/1.1") {
  return std::string{version} + " " + std::to_string(status) + " " + reason_phrase(status) + "\r\n";
}

std::string header_block(const Headers& headers) {
  std::string out;
  for (const auto& [name, value] : headers) out += name + ": " + value + "\r\n";
  return out + "\r\n";
}

std::string html_page(const std::string& title, const std::string& body, const std::string& head = "") {
  return "<!doctype html><html><head><title>" + title + "</title>" + head + "</head><body>" + body +
         "</body></html>";
}

std::string link(const std::string& href, const std::string& text) {
  return "<p><a href=\"" + href + "\">" + text + "</a></p>\n";
}

std::string base36(int n) {
  static const char digits[] = "0123456789abcdefghijklmnopqrstuvwxyz";
  std::string out;
  do {
    out.insert(out.begin(), digits[n % 36]);
    n /= 36;
  } while (n > 0);
  return out;
}

// A body in which a client finds `count` distinct links, as compactly as
// HTML allows (unquoted, unclosed, relative to <base>), so that 80,000 of
// them fit under a crawler's usual 1 MiB body limit.
std::string many_links_page(int count) {
  std::string body = "<!doctype html><html><head><title>Many links</title><base href=\"/l/\"></head><body>";
  body.reserve(body.size() + static_cast<std::size_t>(count) * 13 + 32);
  for (int i = 0; i < count; ++i) body += "<a href=" + base36(i) + ">";
  return body + "</body></html>";
}

std::string repeated(std::string_view piece, int times) {
  std::string out;
  out.reserve(piece.size() * static_cast<std::size_t>(std::max(times, 0)));
  for (int i = 0; i < times; ++i) out.append(piece);
  return out;
}

std::uint64_t whole_mib(std::uint64_t bytes) { return std::max<std::uint64_t>(bytes / kMiB, 1); }

// gzip of kBombPrefix and N MiB of zeros, without compressing N MiB: one
// MiB of zeros is deflated once, ending in a full flush (byte-aligned, and
// nothing after it refers back past it), so that segment can be repeated N
// times; the final empty block and the trailer (CRC-32 combined, not
// computed over the data) close the stream.
std::string build_gzip_bomb(std::uint64_t decoded_bytes) {
  const std::uint64_t mib = whole_mib(decoded_bytes);
  const std::string zeros(kMiB, '\0');
  auto deflate_flushed = [](const std::string& input, std::string* final_block) {
    z_stream z{};
    if (deflateInit2(&z, 9, Z_DEFLATED, -15, 9, Z_DEFAULT_STRATEGY) != Z_OK)
      throw std::runtime_error("faultweb: deflateInit2 failed");
    std::string out(input.size() / 100 + 4096, '\0');
    z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(input.data()));
    z.avail_in = static_cast<uInt>(input.size());
    z.next_out = reinterpret_cast<Bytef*>(out.data());
    z.avail_out = static_cast<uInt>(out.size());
    deflate(&z, Z_FULL_FLUSH);
    out.resize(out.size() - z.avail_out);
    if (final_block != nullptr) {
      char tail[64];
      z.next_out = reinterpret_cast<Bytef*>(tail);
      z.avail_out = sizeof tail;
      deflate(&z, Z_FINISH);
      final_block->assign(tail, sizeof tail - z.avail_out);
    }
    deflateEnd(&z);
    return out;
  };
  const std::string prefix{kBombPrefix};
  std::string final_block;
  const std::string head = deflate_flushed(prefix, nullptr);
  const std::string segment = deflate_flushed(zeros, &final_block);

  std::string out("\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\x03", 10);  // gzip header, no name, Unix
  out.reserve(out.size() + head.size() + segment.size() * mib + final_block.size() + 8);
  out += head;
  for (std::uint64_t i = 0; i < mib; ++i) out += segment;
  out += final_block;
  const uLong zeros_crc = crc32(0, reinterpret_cast<const Bytef*>(zeros.data()), static_cast<uInt>(zeros.size()));
  uLong crc = crc32(0, reinterpret_cast<const Bytef*>(prefix.data()), static_cast<uInt>(prefix.size()));
  for (std::uint64_t i = 0; i < mib; ++i) crc = crc32_combine(crc, zeros_crc, static_cast<z_off_t>(kMiB));
  const std::uint64_t size = prefix.size() + mib * kMiB;
  for (int i = 0; i < 4; ++i) out.push_back(static_cast<char>((crc >> (8 * i)) & 0xff));
  for (int i = 0; i < 4; ++i) out.push_back(static_cast<char>((size >> (8 * i)) & 0xff));  // ISIZE: mod 2^32
  return out;
}

// Brotli streams cannot be spliced like deflate, but quality 1 with a 16 MiB
// window encodes a GiB of zeros in a fraction of a second to ~200 KB.
std::string build_brotli_bomb(std::uint64_t decoded_bytes) {
  const std::uint64_t mib = whole_mib(decoded_bytes);
  BrotliEncoderState* encoder = BrotliEncoderCreateInstance(nullptr, nullptr, nullptr);
  if (encoder == nullptr) throw std::runtime_error("faultweb: BrotliEncoderCreateInstance failed");
  BrotliEncoderSetParameter(encoder, BROTLI_PARAM_QUALITY, 1);
  BrotliEncoderSetParameter(encoder, BROTLI_PARAM_LGWIN, 24);
  const std::string zeros(kMiB, '\0');
  const std::string prefix{kBombPrefix};
  std::string out;
  std::uint8_t buffer[64 * 1024];
  auto feed = [&](const std::string& input, BrotliEncoderOperation op) {
    std::size_t avail_in = input.size();
    const auto* next_in = reinterpret_cast<const std::uint8_t*>(input.data());
    do {
      std::size_t avail_out = sizeof buffer;
      std::uint8_t* next_out = buffer;
      if (!BrotliEncoderCompressStream(encoder, op, &avail_in, &next_in, &avail_out, &next_out, nullptr)) {
        BrotliEncoderDestroyInstance(encoder);
        throw std::runtime_error("faultweb: brotli encoding failed");
      }
      out.append(reinterpret_cast<const char*>(buffer), sizeof buffer - avail_out);
    } while (avail_in > 0 || BrotliEncoderHasMoreOutput(encoder) ||
             (op == BROTLI_OPERATION_FINISH && !BrotliEncoderIsFinished(encoder)));
  };
  feed(prefix, BROTLI_OPERATION_PROCESS);
  for (std::uint64_t i = 0; i < mib; ++i) feed(zeros, BROTLI_OPERATION_PROCESS);
  feed(std::string{}, BROTLI_OPERATION_FINISH);
  BrotliEncoderDestroyInstance(encoder);
  return out;
}

const std::string& cached_bomb(std::map<std::uint64_t, std::string>& cache, std::uint64_t decoded_bytes,
                               std::string (*build)(std::uint64_t)) {
  static std::mutex mutex;
  std::lock_guard<std::mutex> lock(mutex);
  const std::uint64_t key = whole_mib(decoded_bytes);
  auto it = cache.find(key);
  if (it == cache.end()) it = cache.emplace(key, build(key * kMiB)).first;
  return it->second;
}

// A throwaway key and a certificate that signs itself: valid TLS that no
// client trusts. Made at start-up, so no key material is in the tree.
struct SelfSigned {
  std::unique_ptr<EVP_PKEY, decltype(&EVP_PKEY_free)> key{EVP_EC_gen("P-256"), EVP_PKEY_free};
  std::unique_ptr<X509, decltype(&X509_free)> cert{X509_new(), X509_free};

  explicit SelfSigned(const std::string& ip) {
    if (!key || !cert) throw std::runtime_error("faultweb: cannot make a TLS key");
    X509* c = cert.get();
    X509_set_version(c, 2);
    ASN1_INTEGER_set(X509_get_serialNumber(c), 1);
    X509_gmtime_adj(X509_getm_notBefore(c), -3600);
    X509_gmtime_adj(X509_getm_notAfter(c), 7 * 24 * 3600);
    X509_set_pubkey(c, key.get());
    X509_NAME* name = X509_get_subject_name(c);
    X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC,
                               reinterpret_cast<const unsigned char*>("actorcrawl fault web"), -1, -1, 0);
    X509_set_issuer_name(c, name);
    // The name matches the address, so only the missing trust fails a check.
    X509V3_CTX ctx;
    X509V3_set_ctx_nodb(&ctx);
    X509V3_set_ctx(&ctx, c, c, nullptr, nullptr, 0);
    const std::string san = "IP:" + ip;
    if (X509_EXTENSION* ext = X509V3_EXT_conf_nid(nullptr, &ctx, NID_subject_alt_name, san.c_str())) {
      X509_add_ext(c, ext, -1);
      X509_EXTENSION_free(ext);
    }
    if (X509_sign(c, key.get(), EVP_sha256()) == 0) throw std::runtime_error("faultweb: cannot sign a certificate");
  }
};

// ---------------------------------------------------------------------------
// The raw side: one request per connection, answered by writing bytes.

struct RawRequest {
  std::string method;
  std::string target;
  std::string path;
  Headers headers;

  std::string header(std::string_view name) const {
    for (const auto& [n, v] : headers) {
      if (n.size() == name.size() &&
          std::equal(n.begin(), n.end(), name.begin(), [](char a, char b) {
            return std::tolower(static_cast<unsigned char>(a)) == std::tolower(static_cast<unsigned char>(b));
          }))
        return v;
    }
    return {};
  }
};

int ms_until(Clock::time_point deadline) {
  const auto left = std::chrono::ceil<std::chrono::milliseconds>(deadline - Clock::now()).count();
  return static_cast<int>(std::clamp<long long>(left, 0, 60 * 60 * 1000));
}

// One exchange's socket, as the handler writing the response sees it.
// Every wait also watches the web's stop pipe, so shutting the web down
// ends every exchange at once; and every wait is bounded.
class Exchange {
 public:
  Exchange(int fd, int stop_fd) : fd_(fd), stop_fd_(stop_fd) {}
  ~Exchange() { close_socket(); }
  Exchange(const Exchange&) = delete;
  Exchange& operator=(const Exchange&) = delete;

  // Sends all of `bytes`; false (with the ending set) once the client has
  // gone, the web is stopping, or the client stopped reading.
  bool send(std::string_view bytes) {
    while (!bytes.empty()) {
      if (fd_ < 0) return false;
      pollfd fds[2] = {{fd_, POLLOUT, 0}, {stop_fd_, POLLIN, 0}};
      const int ready = ::poll(fds, 2, static_cast<int>(std::chrono::milliseconds{kWriteStall}.count()));
      if (ready < 0 && errno == EINTR) continue;
      if (fds[1].revents != 0) return end("stopped");
      if (ready == 0) return end("stalled");
      if (ready < 0 || (fds[0].revents & (POLLERR | POLLHUP | POLLNVAL)) != 0) return end("client_gone");
      const ssize_t n = ::send(fd_, bytes.data(), bytes.size(), MSG_NOSIGNAL | MSG_DONTWAIT);
      if (n < 0) {
        if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR) continue;
        return end("client_gone");
      }
      sent_ += static_cast<std::uint64_t>(n);
      bytes.remove_prefix(static_cast<std::size_t>(n));
    }
    return true;
  }

  bool send_head(int status, const Headers& headers, const char* version = "HTTP/1.1") {
    status_ = status;
    return send(status_line(status, version) + header_block(headers));
  }

  // An ordinary response: Content-Length, one request per connection.
  void answer(int status, const std::string& content_type, const std::string& body, Headers extra = {}) {
    Headers headers = {{"Content-Type", content_type},
                       {"Content-Length", std::to_string(body.size())},
                       {"Connection", "close"}};
    headers.insert(headers.end(), extra.begin(), extra.end());
    if (send_head(status, headers)) send(body);
  }

  // Waits for `duration`; false (with the ending set) when the client goes
  // away or the web stops meanwhile. Whatever the client sends is dropped.
  bool pause(std::chrono::milliseconds duration) {
    const auto deadline = Clock::now() + duration;
    while (fd_ >= 0) {
      const int wait_ms = ms_until(deadline);
      if (wait_ms == 0) return true;
      pollfd fds[2] = {{fd_, POLLIN | POLLRDHUP, 0}, {stop_fd_, POLLIN, 0}};
      const int ready = ::poll(fds, 2, wait_ms);
      if (ready < 0 && errno == EINTR) continue;
      if (fds[1].revents != 0) return end("stopped");
      if (ready == 0) continue;
      if (ready < 0 || (fds[0].revents & (POLLRDHUP | POLLHUP | POLLERR | POLLNVAL)) != 0) return end("client_gone");
      char sink[4096];
      const ssize_t n = ::recv(fd_, sink, sizeof sink, MSG_DONTWAIT);
      if (n == 0 || (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)) return end("client_gone");
    }
    return false;
  }

  // Closes with an RST instead of a FIN: what a crashing server or a
  // middlebox does.
  void reset() {
    if (fd_ < 0) return;
    linger abort_on_close{1, 0};
    ::setsockopt(fd_, SOL_SOCKET, SO_LINGER, &abort_on_close, sizeof abort_on_close);
    close_socket();
    end("reset");
  }

  // Records why the server's side ended (the first reason wins); returns
  // false so a handler can `return end(...)` from a failed step.
  bool end(const char* why) {
    if (ending_.empty()) ending_ = why;
    return false;
  }

  void close_socket() {
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
  }

  void set_status(int status) { status_ = status; }
  int status() const { return status_; }
  std::uint64_t sent() const { return sent_; }
  const std::string& ending() const { return ending_; }

 private:
  int fd_;
  int stop_fd_;
  int status_ = 0;
  std::uint64_t sent_ = 0;
  std::string ending_;
};

using Handler = std::function<void(const RawRequest&, Exchange&)>;

// Reads one request head; nullopt if the client sends none in time, too
// much, or something that is not HTTP.
std::optional<RawRequest> read_head(int fd, int stop_fd) {
  std::string buffer;
  const auto deadline = Clock::now() + kHeadTimeout;
  std::size_t end = std::string::npos;
  while ((end = buffer.find("\r\n\r\n")) == std::string::npos) {
    if (buffer.size() > kMaxRequestHead) return std::nullopt;
    const int wait_ms = ms_until(deadline);
    if (wait_ms == 0) return std::nullopt;
    pollfd fds[2] = {{fd, POLLIN, 0}, {stop_fd, POLLIN, 0}};
    const int ready = ::poll(fds, 2, wait_ms);
    if (ready < 0 && errno == EINTR) continue;
    if (ready <= 0 || fds[1].revents != 0) return std::nullopt;
    char chunk[4096];
    const ssize_t n = ::recv(fd, chunk, sizeof chunk, MSG_DONTWAIT);
    if (n == 0) return std::nullopt;
    if (n < 0) {
      if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR) continue;
      return std::nullopt;
    }
    buffer.append(chunk, static_cast<std::size_t>(n));
  }
  RawRequest request;
  std::string_view head{buffer.data(), end};
  auto line_end = head.find("\r\n");
  std::string_view request_line = head.substr(0, line_end);
  const auto sp1 = request_line.find(' ');
  const auto sp2 = request_line.rfind(' ');
  if (sp1 == std::string_view::npos || sp2 == sp1) return std::nullopt;
  request.method = std::string{request_line.substr(0, sp1)};
  request.target = std::string{request_line.substr(sp1 + 1, sp2 - sp1 - 1)};
  request.path = request.target.substr(0, request.target.find('?'));
  while (line_end != std::string_view::npos) {
    head.remove_prefix(line_end + 2);
    line_end = head.find("\r\n");
    std::string_view line = head.substr(0, line_end);
    const auto colon = line.find(':');
    if (colon == std::string_view::npos) continue;
    std::string_view value = line.substr(colon + 1);
    while (!value.empty() && (value.front() == ' ' || value.front() == '\t')) value.remove_prefix(1);
    request.headers.emplace_back(std::string{line.substr(0, colon)}, std::string{value});
  }
  return request;
}

std::string peer_text(const sockaddr_in& peer) {
  char text[INET_ADDRSTRLEN] = "";
  ::inet_ntop(AF_INET, &peer.sin_addr, text, sizeof text);
  return std::string{text} + ":" + std::to_string(ntohs(peer.sin_port));
}

// Binds `ip` on an ephemeral port; returns the listening socket and the port.
std::pair<int, int> listen_on(const std::string& ip) {
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) throw std::runtime_error("faultweb: socket() failed");
  const int one = 1;
  ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = 0;
  if (::inet_pton(AF_INET, ip.c_str(), &address.sin_addr) != 1 ||
      ::bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0 || ::listen(fd, 128) != 0) {
    ::close(fd);
    throw std::runtime_error("faultweb: cannot listen on " + ip);
  }
  socklen_t length = sizeof address;
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length);
  return {fd, ntohs(address.sin_port)};
}

}  // namespace

// ---------------------------------------------------------------------------

const std::vector<FaultPage>& fault_pages() { return kFaultPages; }

const FaultPage& fault_page(Fault fault) {
  for (const auto& page : kFaultPages)
    if (page.fault == fault) return page;
  throw std::invalid_argument("faultweb: unknown fault");
}

const std::string& gzip_bomb(std::uint64_t decoded_bytes) {
  static std::map<std::uint64_t, std::string> cache;
  return cached_bomb(cache, decoded_bytes, build_gzip_bomb);
}

const std::string& brotli_bomb(std::uint64_t decoded_bytes) {
  static std::map<std::uint64_t, std::string> cache;
  return cached_bomb(cache, decoded_bytes, build_brotli_bomb);
}

struct FaultWeb::Impl {
  struct Connection {
    std::thread thread;
    std::atomic<bool> done{false};
  };

  struct RawHost {
    FaultHost role;
    std::string key;
    int listen_fd = -1;
    std::map<std::string, Handler> routes;  // by path; fixed before the host starts
    std::thread acceptor;
    std::list<Connection> connections;  // touched by the acceptor thread only
  };

  FaultWebOptions options;
  int stop_pipe[2] = {-1, -1};  // readable once the web stops: every wait watches it
  std::vector<std::unique_ptr<RawHost>> raw_hosts;
  std::map<FaultHost, std::string> keys;

  std::unique_ptr<httplib::SSLServer> tls_server;
  std::thread tls_thread;

  mutable std::mutex mutex;
  mutable std::condition_variable idle;
  std::vector<FaultRequest> records;
  int active = 0;

  explicit Impl(FaultWebOptions o) : options(std::move(o)) {}

  std::string url(FaultHost host, const std::string& path) const {
    return std::string{host == FaultHost::tls ? "https://" : "http://"} + keys.at(host) + path;
  }

  std::size_t record_start(const std::string& host_key, const std::string& method, const std::string& target,
                           const std::string& path, const std::string& client, const std::string& user_agent,
                           const std::string& accept_encoding) {
    std::lock_guard<std::mutex> lock(mutex);
    FaultRequest r;
    r.host_key = host_key;
    r.method = method;
    r.target = target;
    r.path = path;
    r.client_address = client;
    r.user_agent = user_agent;
    r.accept_encoding = accept_encoding;
    r.at = Clock::now();
    records.push_back(std::move(r));
    ++active;
    return records.size() - 1;
  }

  void record_end(std::size_t id, int status, std::uint64_t sent, std::string ending) {
    {
      std::lock_guard<std::mutex> lock(mutex);
      FaultRequest& r = records[id];
      r.finished = true;
      r.finished_at = Clock::now();
      r.status = status;
      r.bytes_sent = sent;
      r.ending = ending.empty() ? "complete" : std::move(ending);
      --active;
    }
    idle.notify_all();
  }

  void serve(RawHost& host, int fd, const std::string& client) {
    auto request = read_head(fd, stop_pipe[0]);
    if (!request) {
      ::close(fd);
      return;
    }
    const std::size_t id = record_start(host.key, request->method, request->target, request->path, client,
                                        request->header("User-Agent"), request->header("Accept-Encoding"));
    Exchange exchange(fd, stop_pipe[0]);
    auto route = host.routes.find(request->path);
    if (route != host.routes.end()) {
      route->second(*request, exchange);
    } else {
      exchange.answer(404, "text/html; charset=utf-8", html_page("Not found", "<p>not found</p>"));
    }
    exchange.close_socket();
    record_end(id, exchange.status(), exchange.sent(), exchange.ending());
  }

  static void reap(RawHost& host) {
    for (auto it = host.connections.begin(); it != host.connections.end();) {
      if (it->done) {
        it->thread.join();
        it = host.connections.erase(it);
      } else {
        ++it;
      }
    }
  }

  void accept_loop(RawHost& host) {
    while (true) {
      pollfd fds[2] = {{host.listen_fd, POLLIN, 0}, {stop_pipe[0], POLLIN, 0}};
      const int ready = ::poll(fds, 2, kAcceptPollMs);
      reap(host);
      if (fds[1].revents != 0) break;
      if (ready <= 0 || (fds[0].revents & POLLIN) == 0) continue;
      sockaddr_in peer{};
      socklen_t length = sizeof peer;
      const int fd = ::accept4(host.listen_fd, reinterpret_cast<sockaddr*>(&peer), &length, SOCK_CLOEXEC);
      if (fd < 0) continue;
      if (host.connections.size() >= kMaxConnectionsPerHost) {
        ::close(fd);
        continue;
      }
      const int one = 1;
      ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
      Connection& connection = host.connections.emplace_back();
      const std::string client = peer_text(peer);
      connection.thread = std::thread([this, &host, &connection, fd, client] {
        serve(host, fd, client);
        connection.done = true;
      });
    }
    for (auto& connection : host.connections) connection.thread.join();
    host.connections.clear();
  }

  RawHost& add_raw_host(FaultHost role) {
    auto host = std::make_unique<RawHost>();
    host->role = role;
    auto [fd, port] = listen_on(ip_of(role));
    host->listen_fd = fd;
    host->key = ip_of(role) + ":" + std::to_string(port);
    keys[role] = host->key;
    raw_hosts.push_back(std::move(host));
    return *raw_hosts.back();
  }

  RawHost& raw(FaultHost role) {
    for (auto& host : raw_hosts)
      if (host->role == role) return *host;
    throw std::logic_error("faultweb: no raw host");
  }

  void start_tls_host() {
    const std::string ip = ip_of(FaultHost::tls);
    SelfSigned identity(ip);
    // SSLServer takes its own references to the key and the certificate.
    tls_server = std::make_unique<httplib::SSLServer>(identity.cert.get(), identity.key.get());
    if (!tls_server->is_valid()) throw std::runtime_error("faultweb: the TLS host cannot start");
    tls_server->set_keep_alive_timeout(1);
    tls_server->set_read_timeout(1, 0);
    const int port = tls_server->bind_to_any_port(ip);
    if (port <= 0) throw std::runtime_error("faultweb: cannot bind " + ip);
    const std::string key = ip + ":" + std::to_string(port);
    keys[FaultHost::tls] = key;
    tls_server->set_pre_routing_handler([this, key](const httplib::Request& req, httplib::Response& res) {
      const std::string path = req.target.substr(0, req.target.find('?'));
      const std::size_t id = record_start(key, req.method, req.target, path,
                                          req.remote_addr + ":" + std::to_string(req.remote_port),
                                          req.get_header_value("User-Agent"), req.get_header_value("Accept-Encoding"));
      res.status = 200;
      if (path == "/robots.txt") {
        res.set_content("User-agent: *\nDisallow:\n", "text/plain");
      } else if (path == "/") {
        res.set_content(html_page("Self-signed", "<p>Only a client that trusts anyone reads this.</p>"),
                        "text/html; charset=utf-8");
      } else {
        res.status = 404;
        res.set_content(html_page("Not found", "<p>not found</p>"), "text/html; charset=utf-8");
      }
      record_end(id, res.status, res.body.size(), "complete");
      return httplib::Server::HandlerResponse::Handled;
    });
    tls_thread = std::thread([this] { tls_server->listen_after_bind(); });
    // listen_after_bind marks the server running first thing; bounded wait.
    for (int i = 0; i < 2000 && !tls_server->is_running(); ++i) std::this_thread::sleep_for(1ms);
  }

  void stop() {
    if (stop_pipe[1] >= 0) {
      const char byte = 'x';
      [[maybe_unused]] const ssize_t n = ::write(stop_pipe[1], &byte, 1);
    }
    if (tls_server) tls_server->stop();
    if (tls_thread.joinable()) tls_thread.join();
    for (auto& host : raw_hosts) {
      if (host->acceptor.joinable()) host->acceptor.join();
      if (host->listen_fd >= 0) ::close(host->listen_fd);
      host->listen_fd = -1;
    }
    for (int& fd : stop_pipe) {
      if (fd >= 0) ::close(fd);
      fd = -1;
    }
  }

  void build_routes();
  void route_index();
  void route_slow();
  void route_stream();
  void route_wire();
  void route_busy();
  void route_robots();
  void route_farm();
  void route_redirects();
};

// --- each host's pages -----------------------------------------------------

namespace {

Handler page(std::string title, std::string body, std::string content_type = "text/html; charset=utf-8") {
  const std::string html = html_page(title, body);
  return [html, content_type](const RawRequest&, Exchange& ex) { ex.answer(200, content_type, html); };
}

Handler bytes(int status, std::string content_type, std::string body, Headers extra = {}) {
  return [=](const RawRequest&, Exchange& ex) { ex.answer(status, content_type, body, extra); };
}

Handler redirect_to(std::string location) {
  return [location](const RawRequest&, Exchange& ex) {
    ex.answer(302, "text/html; charset=utf-8", html_page("Moved", "<p>moved</p>"), {{"Location", location}});
  };
}

Handler robots_txt(const std::vector<std::string>& disallowed) {
  std::string text = "User-agent: *\n";
  if (disallowed.empty()) text += "Disallow:\n";
  for (const auto& prefix : disallowed) text += "Disallow: " + prefix + "\n";
  return bytes(200, "text/plain", text);
}

}  // namespace

void FaultWeb::Impl::build_routes() {
  for (auto& host : raw_hosts) host->routes["/robots.txt"] = robots_txt(disallowed_prefixes(host->role));
  route_index();
  route_slow();
  route_stream();
  route_wire();
  route_busy();
  route_robots();
  route_farm();
  route_redirects();
  // Every host's root lists its own pages (the index host's root is the
  // index), so each host is also reached by an ordinary request.
  for (auto& host : raw_hosts) {
    if (host->role == FaultHost::index) continue;
    std::string body;
    for (const auto& fault : kFaultPages)
      if (fault.host == host->role) body += link(url(fault.host, fault.path), fault.name);
    host->routes["/"] = page("Host " + host->key, body.empty() ? "<p>nothing here</p>" : body);
  }
}

void FaultWeb::Impl::route_index() {
  RawHost& host = raw(FaultHost::index);
  std::string body = "<h1>Misbehaviours</h1>\n";
  for (const auto& fault : kFaultPages)
    if (keys.count(fault.host) != 0) body += link(url(fault.host, fault.path), fault.name);
  body += "<h2>Hosts</h2>\n";
  for (FaultHost role : kAllHosts)
    if (role != FaultHost::index && keys.count(role) != 0) body += link(url(role, "/"), keys.at(role));
  host.routes["/"] = page("Fault web", body);

  // Charsets. Each title mixes good text with bytes the declared charset
  // does not allow, so a crawler that stores titles must repair them.
  host.routes[fault_page(Fault::invalid_utf8).path] =
    bytes(200, "text/html; charset=utf-8",
          "<!doctype html><html><head><title>Caf\xc3\xa9 \xff\xfe overlong \xc0\xaf surrogate \xed\xa0\x80 "
          "cut \xe2\x82</title></head><body><p>bad bytes \xf8\x88\x80\x80\x80</p></body></html>");
  host.routes[fault_page(Fault::invalid_shift_jis).path] =
    bytes(200, "text/html; charset=Shift_JIS",
          // "日本" then a lead byte with a space as its trail, an undefined
          // single byte, and a lead byte cut off by the end of the title.
          "<!doctype html><html><head><title>\x93\xfa\x96\x7b \x81\x20 \xa0 \xfd end \x82</title></head>"
          "<body><p>\x83\x65\x83\x58\x83\x67</p></body></html>");
  host.routes[fault_page(Fault::charset_mismatch).path] =
    bytes(200, "text/html; charset=utf-8",
          // "Привет" in windows-1251, which the header calls UTF-8.
          "<!doctype html><html><head><meta charset=\"windows-1251\"><title>\xcf\xf0\xe8\xe2\xe5\xf2</title>"
          "</head><body><p>\xcc\xe8\xf0</p></body></html>");
  host.routes[fault_page(Fault::unknown_charset).path] =
    bytes(200, "text/html; charset=x-no-such-charset-1999",
          "<!doctype html><html><head><title>Unknown \xe9\xe8 charset</title></head><body></body></html>");

  // Nesting: what makes a literal HTML5 tree builder quadratic.
  host.routes[fault_page(Fault::deep_nesting).path] =
    bytes(200, "text/html; charset=utf-8",
          "<!doctype html><html><head><title>Deep nesting</title></head><body>" +
            repeated("<div>", options.nesting_depth) + "<a href=\"" + FaultLinks::after_deep_nesting +
            "\">after</a></body></html>");
  // Inside <foreignObject> content is HTML again and "/>" closes nothing:
  // each <section/> opens an element. <section> is one of the HTML tags
  // that do not break out of foreign content, so a scanner that believes
  // "/>" inside <svg> still closes elements never counts them.
  host.routes[fault_page(Fault::foreign_nesting).path] =
    bytes(200, "text/html; charset=utf-8",
          "<!doctype html><html><head><title>Foreign nesting</title></head><body><svg><foreignObject>" +
            repeated("<section/>", options.nesting_depth) + "<a href=\"" + FaultLinks::after_foreign_nesting +
            "\">after</a></body></html>");
  host.routes[FaultLinks::after_deep_nesting] = page("After deep nesting", "<p>found</p>");
  host.routes[FaultLinks::after_foreign_nesting] = page("After foreign nesting", "<p>found</p>");
}

void FaultWeb::Impl::route_slow() {
  RawHost& host = raw(FaultHost::slow);
  const std::string response =
    status_line(200) +
    header_block({{"Content-Type", "text/html; charset=utf-8"}, {"Connection", "close"},
                  {"Content-Length", "120"}}) +
    html_page("Slow loris", std::string(120 - html_page("Slow loris", "").size(), '.'));
  const auto interval = options.slow_loris_interval;
  const auto limit = options.slow_loris_limit;
  host.routes[fault_page(Fault::slow_loris).path] = [=](const RawRequest&, Exchange& ex) {
    // The whole response, status line included, a byte at a time: a client
    // whose timeout restarts with each byte never finishes.
    const auto deadline = Clock::now() + limit;
    ex.set_status(200);
    for (std::size_t i = 0; i < response.size(); ++i) {
      if (i > 0 && !ex.pause(interval)) return;
      if (Clock::now() >= deadline) {
        ex.end("time_limit");
        return;
      }
      if (!ex.send(std::string_view{response}.substr(i, 1))) return;
    }
  };
}

void FaultWeb::Impl::route_stream() {
  RawHost& host = raw(FaultHost::stream);
  const auto limit = options.endless_limit;
  const auto max_bytes = options.endless_max_bytes;
  host.routes[fault_page(Fault::endless_body).path] = [=](const RawRequest&, Exchange& ex) {
    if (!ex.send_head(200, {{"Content-Type", "text/html; charset=utf-8"},
                            {"Transfer-Encoding", "chunked"},
                            {"Connection", "close"}}))
      return;
    std::string filler = "<!doctype html><html><head><title>Endless</title></head><body>";
    while (filler.size() < kEndlessChunkBytes) filler += "<p>and on and on and on and on</p>\n";
    filler.resize(kEndlessChunkBytes);
    char size_line[32];
    std::snprintf(size_line, sizeof size_line, "%zx\r\n", filler.size());
    const std::string chunk = size_line + filler + "\r\n";
    // Never the terminating chunk: it ends only when the client goes, or
    // at the limits (then with a close a client must see as truncation).
    const auto deadline = Clock::now() + limit;
    while (true) {
      if (Clock::now() >= deadline) {
        ex.end("time_limit");
        return;
      }
      if (ex.sent() >= max_bytes) {
        ex.end("byte_limit");
        return;
      }
      if (!ex.send(chunk)) return;
    }
  };
  const std::string& gzip = gzip_bomb(options.bomb_decoded_bytes);
  const std::string& brotli = brotli_bomb(options.bomb_decoded_bytes);
  // The bombs go out whatever the client said it accepts, as real ones do.
  host.routes[fault_page(Fault::gzip_bomb).path] = [&gzip](const RawRequest&, Exchange& ex) {
    ex.answer(200, "text/html", gzip, {{"Content-Encoding", "gzip"}});
  };
  host.routes[fault_page(Fault::brotli_bomb).path] = [&brotli](const RawRequest&, Exchange& ex) {
    ex.answer(200, "text/html", brotli, {{"Content-Encoding", "br"}});
  };
}

void FaultWeb::Impl::route_wire() {
  RawHost& host = raw(FaultHost::wire);
  const Headers html_type = {{"Content-Type", "text/html; charset=utf-8"}, {"Connection", "close"}};
  auto with = [](Headers headers, const std::string& name, const std::string& value) {
    headers.emplace_back(name, value);
    return headers;
  };

  const std::string short_body = html_page("Promised more", "<p>the rest never comes</p>");
  host.routes[fault_page(Fault::content_length_over).path] = [=](const RawRequest&, Exchange& ex) {
    if (ex.send_head(200, with(html_type, "Content-Length", std::to_string(short_body.size() + 10000))))
      ex.send(short_body);
  };

  const std::string counted = std::string{"<!doctype html><html><head><title>Counted</title></head><body>"} +
                              "<a href=\"" + FaultLinks::within_content_length + "\">within</a>";
  const std::string uncounted = std::string{"<a href=\""} + FaultLinks::beyond_content_length +
                                "\">beyond</a>" + std::string(400, ' ') + "</body></html>";
  host.routes[fault_page(Fault::content_length_under).path] = [=](const RawRequest&, Exchange& ex) {
    if (ex.send_head(200, with(html_type, "Content-Length", std::to_string(counted.size()))))
      ex.send(counted + uncounted);
  };
  host.routes[FaultLinks::within_content_length] = page("Within Content-Length", "<p>read</p>");
  host.routes[FaultLinks::beyond_content_length] = page("Beyond Content-Length", "<p>should not be read</p>");

  host.routes[fault_page(Fault::broken_chunked).path] = [=](const RawRequest&, Exchange& ex) {
    const std::string good = "<!doctype html><html><head><title>Chunked</title></head><body>";
    char size_line[32];
    std::snprintf(size_line, sizeof size_line, "%zx\r\n", good.size());
    if (ex.send_head(200, with(html_type, "Transfer-Encoding", "chunked")))
      ex.send(size_line + good + "\r\n" + "zz-not-hex\r\n<p>after a broken size</p>\r\n");
  };

  host.routes[fault_page(Fault::reset_mid_body).path] = [=](const RawRequest&, Exchange& ex) {
    const std::string part = "<!doctype html><html><head><title>Reset</title></head><body>" +
                             std::string(2000, 'r');
    if (!ex.send_head(200, with(html_type, "Content-Length", "100000")) || !ex.send(part)) return;
    // Let the bytes leave before the RST, so the client sees a body cut
    // short rather than a refused request.
    if (!ex.pause(50ms)) return;
    ex.reset();
  };

  const std::string http10_body = html_page(
    "HTTP/1.0", std::string{"<p>no length: the close ends me</p><a href=\""} + FaultLinks::after_http10 + "\">after</a>");
  host.routes[fault_page(Fault::http10_close_delimited).path] = [=](const RawRequest&, Exchange& ex) {
    if (ex.send_head(200, {{"Content-Type", "text/html; charset=utf-8"}}, "HTTP/1.0")) ex.send(http10_body);
  };
  host.routes[FaultLinks::after_http10] = page("After HTTP/1.0", "<p>found</p>");

  const std::size_t header_bytes = options.huge_headers_bytes;
  host.routes[fault_page(Fault::huge_headers).path] = [=](const RawRequest&, Exchange& ex) {
    const std::string body = html_page("Huge headers", "<p>after a megabyte of headers</p>");
    Headers headers = with(html_type, "Content-Length", std::to_string(body.size()));
    const std::string value(8 * 1024, 'h');
    for (std::size_t i = 0, total = 0; total < header_bytes; ++i) {
      headers.emplace_back("X-Filler-" + std::to_string(i), value);
      total += headers.back().first.size() + 2 + value.size() + 2;  // "name: value\r\n"
    }
    if (ex.send_head(200, headers)) ex.send(body);
  };

  // Replies no HTTP/1.x client can read as such; each has a link, which a
  // crawler must not take.
  host.routes[fault_page(Fault::http09_reply).path] = [=](const RawRequest&, Exchange& ex) {
    ex.send(html_page("HTTP/0.9", "<a href=\"/never-from-http09\">no status line</a>"));
  };
  host.routes[fault_page(Fault::status_000).path] = [=](const RawRequest&, Exchange& ex) {
    const std::string body = html_page("Status 000", "<a href=\"/never-from-status-000\">no status</a>");
    ex.send("HTTP/1.1 000 Nothing\r\nContent-Type: text/html\r\nContent-Length: " + std::to_string(body.size()) +
            "\r\nConnection: close\r\n\r\n" + body);
  };
  host.routes[fault_page(Fault::giant_header_line).path] = [=](const RawRequest&, Exchange& ex) {
    const std::string body = html_page("Giant header", "<a href=\"/never-from-giant-header\">after 300 KB</a>");
    if (ex.send_head(200, with(html_type, "X-Giant", std::string(300 * 1024, 'g'))))
      ex.send(body);
  };
}

void FaultWeb::Impl::route_busy() {
  RawHost& host = raw(FaultHost::busy);
  const std::string retry_after = std::to_string(options.retry_after_seconds);
  auto hits = std::make_shared<std::atomic<int>>(0);
  host.routes[fault_page(Fault::too_many_requests).path] = [=](const RawRequest&, Exchange& ex) {
    if (++*hits == 1) {
      ex.answer(429, "text/plain", "slow down", {{"Retry-After", retry_after}});
    } else {
      ex.answer(200, "text/html; charset=utf-8", html_page("Rate limited, then served", "<p>thanks</p>"));
    }
  };
  host.routes[fault_page(Fault::service_unavailable).path] =
    bytes(503, "text/plain", "down for maintenance", {{"Retry-After", retry_after}});
}

void FaultWeb::Impl::route_robots() {
  RawHost& host = raw(FaultHost::robots);
  const int failures = options.robots_failures;
  auto hits = std::make_shared<std::atomic<int>>(0);
  const Handler rules = robots_txt(disallowed_prefixes(FaultHost::robots));
  host.routes["/robots.txt"] = [=](const RawRequest& request, Exchange& ex) {
    if (++*hits <= failures) {
      ex.answer(503, "text/plain", "robots.txt is not ready");
    } else {
      rules(request, ex);
    }
  };
  host.routes[fault_page(Fault::flaky_robots).path] =
    page("Behind a flaky robots.txt", link(FaultLinks::robots_blocked, "blocked"));
  host.routes[FaultLinks::robots_blocked] = page("Blocked", "<p>robots.txt disallows this page</p>");
}

void FaultWeb::Impl::route_farm() {
  RawHost& host = raw(FaultHost::farm);
  host.routes[fault_page(Fault::many_links).path] =
    bytes(200, "text/html; charset=utf-8", many_links_page(options.many_links));
}

void FaultWeb::Impl::route_redirects() {
  RawHost& a = raw(FaultHost::redirect_a);
  RawHost& b = raw(FaultHost::redirect_b);
  RawHost& c = raw(FaultHost::redirect_c);
  const std::string a_url = "http://" + a.key;
  const std::string b_url = "http://" + b.key;
  const std::string c_url = "http://" + c.key;

  a.routes["/loop"] = redirect_to(b_url + "/loop");
  b.routes["/loop"] = redirect_to(a_url + "/loop");

  a.routes["/chain"] = redirect_to(b_url + "/chain");
  b.routes["/chain"] = redirect_to(c_url + "/chain");
  c.routes["/chain"] = redirect_to(FaultLinks::chain_end);  // relative: resolved against c
  c.routes[FaultLinks::chain_end] = page("Chain end", "<p>three hops away</p>");

  constexpr int kLongChainHops = 12;
  for (int i = 0; i <= kLongChainHops; ++i) {
    RawHost& here = i % 2 == 0 ? a : b;
    const std::string& next = i % 2 == 0 ? b_url : a_url;
    const std::string path = "/long/" + std::to_string(i);
    here.routes[path] = i < kLongChainHops ? redirect_to(next + "/long/" + std::to_string(i + 1))
                                           : page("End of a long chain", "<p>twelve hops away</p>");
  }

  a.routes["/to-private"] = redirect_to(b_url + "/private/secret");
  b.routes["/private/secret"] = page("Secret", "<p>robots.txt disallows this page</p>");

  a.routes["/bounce"] = redirect_to(b_url + "/bounce-1");
  b.routes["/bounce-1"] = redirect_to(c_url + "/bounce-2");
  c.routes["/bounce-2"] = redirect_to(b_url + "/bounce-3");
  b.routes["/bounce-3"] = redirect_to(c_url + FaultLinks::bounce_end);
  c.routes[FaultLinks::bounce_end] = page("Bounce end", "<p>host b was asked twice on the way</p>");
}

// ---------------------------------------------------------------------------

FaultWeb::FaultWeb(FaultWebOptions options) : impl_(std::make_unique<Impl>(std::move(options))) {
  if (::pipe2(impl_->stop_pipe, O_CLOEXEC | O_NONBLOCK) != 0) throw std::runtime_error("faultweb: pipe2 failed");
  try {
    for (FaultHost role : kAllHosts)
      if (role != FaultHost::tls) impl_->add_raw_host(role);
    if (impl_->options.tls) impl_->start_tls_host();
    impl_->build_routes();
    for (auto& host : impl_->raw_hosts) {
      Impl::RawHost& started = *host;
      host->acceptor = std::thread([this, &started] { impl_->accept_loop(started); });
    }
  } catch (...) {
    impl_->stop();
    throw;
  }
}

FaultWeb::~FaultWeb() { impl_->stop(); }

const FaultWebOptions& FaultWeb::options() const { return impl_->options; }

std::string FaultWeb::index_url() const { return impl_->url(FaultHost::index, "/"); }

std::string FaultWeb::url(Fault fault) const {
  const FaultPage& page = fault_page(fault);
  return impl_->url(page.host, page.path);
}

std::string FaultWeb::url(FaultHost host, const std::string& path) const { return impl_->url(host, path); }

std::string FaultWeb::host_key(FaultHost host) const { return impl_->keys.at(host); }

std::vector<std::string> FaultWeb::host_keys() const {
  std::vector<std::string> out;
  for (FaultHost role : kAllHosts)
    if (impl_->keys.count(role) != 0) out.push_back(impl_->keys.at(role));
  return out;
}

std::vector<std::string> FaultWeb::host_names() const {
  std::vector<std::string> out;
  for (const auto& key : host_keys()) out.push_back(key.substr(0, key.rfind(':')));
  return out;
}

bool FaultWeb::disallowed(const std::string& host_key, const std::string& path) const {
  for (const auto& [role, key] : impl_->keys) {
    if (key != host_key) continue;
    for (const auto& prefix : disallowed_prefixes(role))
      if (path.compare(0, prefix.size(), prefix) == 0) return true;
  }
  return false;
}

std::vector<FaultRequest> FaultWeb::requests() const {
  std::lock_guard<std::mutex> lock(impl_->mutex);
  return impl_->records;
}

std::vector<FaultRequest> FaultWeb::requests(FaultHost host) const {
  const std::string key = host_key(host);
  std::vector<FaultRequest> out;
  std::lock_guard<std::mutex> lock(impl_->mutex);
  for (const auto& r : impl_->records)
    if (r.host_key == key) out.push_back(r);
  return out;
}

int FaultWeb::count(FaultHost host, const std::string& path) const {
  int n = 0;
  for (const auto& r : requests(host)) n += r.path == path;
  return n;
}

bool FaultWeb::wait_until_idle(std::chrono::milliseconds timeout) const {
  std::unique_lock<std::mutex> lock(impl_->mutex);
  return impl_->idle.wait_for(lock, timeout, [this] { return impl_->active == 0; });
}

}  // namespace actorcrawl::testweb
