#include "core/fetch/fetch_engine.h"

#include <arpa/inet.h>
#include <curl/curl.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <mutex>
#include <queue>
#include <unordered_set>

#include "core/clock/clock.h"
#include "core/fetch/cookie_jar.h"
#include "core/fetch/header_field.h"
#include "core/fetch/http_date.h"
#include "core/fetch/net_guard.h"
#include "core/web/ascii.h"
#include "core/web/http_status.h"
#include "core/web/url.h"

namespace actorcrawl {

const char* to_string(FetchError e) {
  switch (e) {
    case FetchError::none: return "none";
    case FetchError::dns_failure: return "dns_failure";
    case FetchError::connect_failed: return "connect_failed";
    case FetchError::timeout: return "timeout";
    case FetchError::connection_reset: return "connection_reset";
    case FetchError::tls_error: return "tls_error";
    case FetchError::too_many_redirects: return "too_many_redirects";
    case FetchError::redirect_loop: return "redirect_loop";
    case FetchError::bad_redirect: return "bad_redirect";
    case FetchError::bad_encoding: return "bad_encoding";
    case FetchError::protocol_error: return "protocol_error";
    case FetchError::transfer_failed: return "transfer_failed";
    case FetchError::private_address: return "private_address";
    case FetchError::bad_url: return "bad_url";
  }
  return "transfer_failed";
}

namespace {

void global_init_once() {
  static std::once_flag once;
  std::call_once(once, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
}

// Retry-After is either delta-seconds or an HTTP-date (RFC 9110 10.2.3).
std::int64_t parse_retry_after(const std::string& value) {
  if (value.empty())
    return -1;
  if (std::all_of(value.begin(), value.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)); })) {
    if (value.size() > 9)
      return 1000LL * 999999999;
    return std::stoll(value) * 1000;
  }
  // The same three date forms the validators are read in (http_date.h).
  const std::int64_t when_ms = parse_http_date(value);
  if (when_ms < 0)
    return -1;
  return std::max<std::int64_t>(when_ms - epoch_ms(), 0);
}

FetchError classify(CURLcode code) {
  switch (code) {
    case CURLE_OK: return FetchError::none;
    case CURLE_COULDNT_RESOLVE_HOST: return FetchError::dns_failure;
    case CURLE_COULDNT_CONNECT: return FetchError::connect_failed;
    case CURLE_OPERATION_TIMEDOUT: return FetchError::timeout;
    case CURLE_RECV_ERROR:
    case CURLE_SEND_ERROR:
    case CURLE_GOT_NOTHING:
    case CURLE_PARTIAL_FILE: return FetchError::connection_reset;
    case CURLE_SSL_CONNECT_ERROR:
    case CURLE_PEER_FAILED_VERIFICATION:
    case CURLE_SSL_CERTPROBLEM:
    case CURLE_SSL_CIPHER:
    case CURLE_SSL_CACERT_BADFILE: return FetchError::tls_error;
    case CURLE_TOO_MANY_REDIRECTS: return FetchError::too_many_redirects;
    case CURLE_BAD_CONTENT_ENCODING: return FetchError::bad_encoding;
    case CURLE_WEIRD_SERVER_REPLY:
    case CURLE_HTTP2:
    case CURLE_HTTP2_STREAM:
    case CURLE_UNSUPPORTED_PROTOCOL: return FetchError::protocol_error;
    default: return FetchError::transfer_failed;
  }
}

}  // namespace

namespace {

// One transfer's state, owned by the engine while curl works on it. Its
// address is curl's CURLOPT_PRIVATE and the callbacks' user pointer.
struct Transfer {
  FetchRequest request;
  CURL* easy = nullptr;
  FetchOutcome outcome;
  FetchEngine::Clock::time_point started;
  // Redirect tracking: the URL of the response whose headers are arriving.
  std::string current_url;
  int current_status = 0;
  std::string current_location;
  std::unordered_set<std::string> visited;
  bool loop_detected = false;
  std::string retry_after;
  std::string x_robots_tag;
  // The validators of the response whose headers are arriving; the first of
  // each kind counts (`*_seen`), one too long is dropped.
  std::string etag;
  std::string last_modified;
  bool etag_seen = false;
  bool last_modified_seen = false;
  // The request's If-None-Match / If-Modified-Since lines (curl does not
  // copy the list); null when the request carries no validator. Sent with
  // the first request only: `follow_first_hop` says the engine, not curl,
  // takes that request's redirect, and the hop goes without them.
  curl_slist* validator_headers = nullptr;
  bool follow_first_hop = false;
  bool bad_first_hop = false;  // that redirect's Location is no http(s) URL
  // The request carries its own headers or credentials (FetchRequest::
  // headers, ...): sent to `origin` only, every hop taken by the engine.
  bool manual_hops = false;
  std::string origin;  // "scheme://host_key" of request.url, with manual_hops
  // The validators and the request's own headers together, when it has
  // any and is sent to its origin (curl does not copy the list).
  curl_slist* header_lines = nullptr;
  ~Transfer() {
    curl_slist_free_all(validator_headers);
    curl_slist_free_all(header_lines);
  }
  // block_private_addresses: the address last refused while connecting for
  // the current hop; cleared once the hop has a connection it may use.
  std::string refused_address;
  // The engine's set_private_hosts_allowed() as the transfer started.
  std::shared_ptr<const std::unordered_set<std::string>> private_hosts_allowed;
  // curl's own words for a failure, more precise than its error code.
  char error_text[CURL_ERROR_SIZE] = "";
  // capture_http: the heads of the request being sent and the response
  // arriving; a new hop (or a 1xx before the final response) starts them over.
  std::string request_head;
  std::string response_head;
  std::size_t sunk_bytes = 0;  // body bytes handed to request.body_sink
  // A Content-Encoding the request did not ask for and the engine will not
  // decode (br, zstd: their windows are the server's to choose).
  std::string refused_encoding;
};

// A validator header's value: the first one of a response is kept (a second
// ETag makes the response ambiguous, and the first is as good a guess as
// any), one too long to send back is dropped.
void keep_validator(std::string_view raw, std::string& into, bool& seen) {
  if (seen)
    return;
  seen = true;
  const std::string_view value = ascii::trim(raw);
  if (value.size() <= kMaxValidatorBytes)
    into.assign(value);
}

// A validator may go into a request header only as a field value: no CR,
// LF, NUL or other control character (which would end the line or be
// refused), not empty, not over the bound.
bool sendable_validator(std::string_view value) {
  return !value.empty() && value.size() <= kMaxValidatorBytes && is_field_value(value);
}

// The If-None-Match and If-Modified-Since lines of a request; null when it
// carries no validator that can be sent.
curl_slist* validator_headers(const FetchRequest& r) {
  curl_slist* list = nullptr;
  if (sendable_validator(r.if_none_match))
    list = curl_slist_append(list, ("If-None-Match: " + r.if_none_match).c_str());
  const std::string date = format_http_date(r.if_modified_since_ms);
  if (!date.empty())
    list = curl_slist_append(list, ("If-Modified-Since: " + date).c_str());
  return list;
}

// "scheme://host_key" of `url`: where a request's own headers and
// credentials may go. "" for a URL that does not parse (nothing goes).
std::string origin_of(const std::string& url) {
  const auto parsed = Url::parse(url);
  return parsed ? parsed->scheme() + "://" + parsed->host_key() : std::string{};
}

bool is_malformed_http(const std::string& curl_text) {
  for (const char* sign : {"chunk", "header", "Header", "Chunk"})
    if (curl_text.find(sign) != std::string::npos)
      return true;
  return false;
}

std::size_t on_body(char* data, std::size_t size, std::size_t n, void* user) {
  auto* t = static_cast<Transfer*>(user);
  const std::size_t bytes = size * n;
  auto& body = t->outcome.body;
  const auto limit = static_cast<std::size_t>(std::max<std::int64_t>(t->request.max_body_bytes, 0));
  if (t->request.body_sink) {
    // Streamed to the reader; only the count is kept. Stopping (the reader
    // had enough, or the limit) ends the transfer as a complete answer.
    const std::size_t room = t->sunk_bytes < limit ? limit - t->sunk_bytes : 0;
    const std::size_t take = std::min(bytes, room);
    t->sunk_bytes += take;
    const bool more = t->request.body_sink(t->current_status, std::string_view(data, take));
    if (!more || take < bytes) {
      t->outcome.truncated = true;
      return 0;
    }
    return bytes;
  }
  if (body.empty()) {
    // Room for the whole body at its first bytes, when the response says
    // how long it is: appending chunk by chunk would allocate and copy it
    // again at each doubling. Content-Length counts encoded bytes, so a
    // compressed body may still grow past it.
    curl_off_t announced = -1;
    curl_easy_getinfo(t->easy, CURLINFO_CONTENT_LENGTH_DOWNLOAD_T, &announced);
    if (announced > 0)
      body.reserve(std::min(static_cast<std::size_t>(announced), limit));
  }
  if (body.size() + bytes > limit) {
    // Cut while streaming: keep what fits, then make curl stop reading.
    body.append(data, limit - body.size());
    t->outcome.truncated = true;
    return 0;
  }
  body.append(data, bytes);
  return bytes;
}

// Called once per header line of every response in a redirect chain, which
// is how each hop is recorded while curl follows Location itself.
std::size_t on_header(char* data, std::size_t size, std::size_t n, void* user) {
  auto* t = static_cast<Transfer*>(user);
  const std::size_t bytes = size * n;
  std::string_view line{data, bytes};
  if (t->request.capture_http) {
    if (line.substr(0, 5) == "HTTP/")
      t->response_head.clear();
    t->response_head.append(line);
  }
  if (line.substr(0, 5) == "HTTP/") {
    auto sp = line.find(' ');
    t->current_status = sp == std::string_view::npos ? 0 : std::atoi(std::string{line.substr(sp + 1, 3)}.c_str());
    t->current_location.clear();
    t->retry_after.clear();
    t->x_robots_tag.clear();
    t->etag.clear();
    t->last_modified.clear();
    t->etag_seen = false;
    t->last_modified_seen = false;
    return bytes;
  }
  if (ascii::starts_with_nocase(line, "location:")) {
    t->current_location = std::string{ascii::trim(line.substr(9))};
    return bytes;
  }
  if (ascii::starts_with_nocase(line, "content-encoding:")) {
    // curl would decode br and zstd unasked; their decoders hold a window
    // of up to 16 and 128 MiB a transfer, of the server's choosing. Only
    // what Accept-Encoding offered is read.
    std::string_view codings = line.substr(17);
    while (!codings.empty()) {
      const std::size_t comma = codings.find(',');
      const std::string coding = ascii::lowercase(ascii::trim(codings.substr(0, comma)));
      if (coding == "br" || coding == "zstd") {
        t->refused_encoding = coding;
        return 0;  // aborts the transfer
      }
      codings = comma == std::string_view::npos ? std::string_view{} : codings.substr(comma + 1);
    }
    return bytes;
  }
  if (ascii::starts_with_nocase(line, "x-robots-tag:")) {
    // Several headers may carry directives; keep them all.
    std::string value{ascii::trim(line.substr(13))};
    t->x_robots_tag += (t->x_robots_tag.empty() ? "" : ", ") + value;
    return bytes;
  }
  if (ascii::starts_with_nocase(line, "etag:")) {
    keep_validator(line.substr(5), t->etag, t->etag_seen);
    return bytes;
  }
  if (ascii::starts_with_nocase(line, "last-modified:")) {
    keep_validator(line.substr(14), t->last_modified, t->last_modified_seen);
    return bytes;
  }
  if (ascii::starts_with_nocase(line, "retry-after:")) {
    t->retry_after = std::string{ascii::trim(line.substr(12))};
    return bytes;
  }
  if (ascii::trim(line).empty()) {  // end of one response's headers
    const int status = t->current_status;
    const bool redirect = is_redirect_status(status) && !t->current_location.empty();
    if (redirect && static_cast<std::int32_t>(t->outcome.redirects.size()) < t->request.max_redirects) {
      t->outcome.redirects.push_back(RedirectHop{t->current_url, status});
      auto base = Url::parse(t->current_url);
      auto next = base ? base->resolve(t->current_location) : std::nullopt;
      if (next) {
        if (!t->visited.insert(next->str()).second) {
          t->loop_detected = true;
          return 0;  // aborts the transfer
        }
        t->current_url = next->str();
      }
    }
  }
  return bytes;
}

// CURLOPT_DEBUGFUNCTION for capture_http: curl shows the request head it
// sends as CURLINFO_HEADER_OUT, once per request, whole.
// The request head as it will be kept (for the WARC archive): the values
// of the credentials, the cookies and the request's own extra headers read
// "[redacted]", so no secret of the configuration or the session is
// written out.
std::string kept_request_head(std::string_view head, const FetchRequest& request) {
  std::vector<std::string> secret_names = {"authorization", "proxy-authorization", "cookie"};
  for (const std::string& line : request.headers)
    secret_names.push_back(ascii::lowercase(line.substr(0, line.find(':'))));
  std::string kept;
  kept.reserve(head.size());
  while (!head.empty()) {
    const auto end = head.find('\n');
    const std::string_view line = head.substr(0, end == std::string_view::npos ? head.size() : end + 1);
    head.remove_prefix(line.size());
    const auto colon = line.find(':');
    const bool secret = colon != std::string_view::npos &&
                        std::find(secret_names.begin(), secret_names.end(),
                                  ascii::lowercase(std::string{line.substr(0, colon)})) != secret_names.end();
    if (secret)
      kept.append(line.substr(0, colon)).append(": [redacted]\r\n");
    else
      kept.append(line);
  }
  return kept;
}

int on_debug(CURL* /*easy*/, curl_infotype type, char* data, std::size_t size, void* user) {
  if (type == CURLINFO_HEADER_OUT) {
    auto* t = static_cast<Transfer*>(user);
    t->request_head = kept_request_head(std::string_view(data, size), t->request);
  }
  return 0;
}

// The peer address curl is about to connect to, as numeric text; empty when
// it is not IPv4 or IPv6.
std::string address_text(const curl_sockaddr* address) {
  char text[INET6_ADDRSTRLEN] = "";
  // `addr` is declared a plain sockaddr but curl stores the whole address
  // there (addrlen bytes), so copy out as much as the family needs.
  const auto* raw = reinterpret_cast<const unsigned char*>(&address->addr);
  if (address->family == AF_INET && address->addrlen >= sizeof(sockaddr_in)) {
    sockaddr_in in{};
    std::memcpy(&in, raw, sizeof in);
    if (::inet_ntop(AF_INET, &in.sin_addr, text, sizeof text) == nullptr)
      return {};
  } else if (address->family == AF_INET6 && address->addrlen >= sizeof(sockaddr_in6)) {
    sockaddr_in6 in6{};
    std::memcpy(&in6, raw, sizeof in6);
    if (::inet_ntop(AF_INET6, &in6.sin6_addr, text, sizeof text) == nullptr)
      return {};
  }
  return text;
}

// Whether the hop under way is to a host the user named, which may be on a
// private address. current_url is that hop's URL: on_header moves it on
// before curl connects for the next hop.
bool private_host_allowed(const Transfer& t) {
  if (t.private_hosts_allowed == nullptr || t.private_hosts_allowed->empty())
    return false;
  const auto url = Url::parse(t.current_url);
  return url && t.private_hosts_allowed->count(url->host()) != 0;
}

// CURLOPT_OPENSOCKETFUNCTION for block_private_addresses: curl calls it with
// each resolved (or CURLOPT_RESOLVE'd) address instead of socket(2), for the
// first request and every redirect hop, before connecting. Refusing makes
// curl try the host's next address, or fail with CURLE_COULDNT_CONNECT.
curl_socket_t open_public_socket(void* user, curlsocktype purpose, curl_sockaddr* address) {
  auto* t = static_cast<Transfer*>(user);
  const std::string ip = address_text(address);
  if (purpose != CURLSOCKTYPE_IPCXN || (is_private_address(ip) && !private_host_allowed(*t))) {
    t->refused_address = ip.empty() ? "(not an IP address)" : ip;
    return CURL_SOCKET_BAD;
  }
  const int fd = ::socket(address->family, address->socktype, address->protocol);
  return fd < 0 ? CURL_SOCKET_BAD : fd;
}

// CURLOPT_PREREQFUNCTION for block_private_addresses: runs once a hop has
// its connection and before the request is sent. The socket callback has
// vetted every connection a blocked transfer opened itself; this catches a
// connection reused from the engine's cache that an unblocked transfer
// opened to a private address.
int check_connected_peer(void* user, char* primary_ip, char* /*local_ip*/, int /*primary_port*/,
                         int /*local_port*/) {
  auto* t = static_cast<Transfer*>(user);
  const std::string_view ip = primary_ip != nullptr ? primary_ip : "";
  if (is_private_address(ip) && !private_host_allowed(*t)) {
    t->refused_address = ip.empty() ? "(unknown peer)" : std::string{ip};
    return CURL_PREREQFUNC_ABORT;
  }
  // An address refused earlier in this hop did not stop it: another of the
  // host's addresses was public.
  t->refused_address.clear();
  return CURL_PREREQFUNC_OK;
}

void parse_content_type(const char* raw, FetchOutcome& out) {
  if (raw == nullptr)
    return;
  std::string value = ascii::lowercase(raw);
  auto semi = value.find(';');
  out.content_type = std::string{ascii::trim(std::string_view{value}.substr(0, semi))};
  if (semi == std::string::npos)
    return;
  auto cs = value.find("charset=", semi);
  if (cs == std::string::npos)
    return;
  std::string charset{ascii::trim(std::string_view{value}.substr(cs + 8))};
  charset = charset.substr(0, charset.find(';'));
  charset.erase(std::remove(charset.begin(), charset.end(), '"'), charset.end());
  out.charset = std::string{ascii::trim(charset)};
}

}  // namespace

struct FetchEngine::Impl {
  struct Pending {
    Clock::time_point at;
    std::uint64_t order;
    FetchRequest request;
    bool operator>(const Pending& other) const {
      return at != other.at ? at > other.at : order > other.order;
    }
  };

  CURLM* multi = nullptr;
  std::vector<CURL*> idle_handles;  // reused: keeps per-handle buffers warm
  std::unordered_set<Transfer*> live;
  std::vector<Transfer*> resumed;  // hops taken by take_first_hop, added after collect's loop
  std::size_t running = 0;
  std::priority_queue<Pending, std::vector<Pending>, std::greater<>> pending;
  std::uint64_t order = 0;

  std::string no_proxy;
  FetchEngine::ProxyMode proxy_mode = FetchEngine::ProxyMode::direct;
  std::string proxy_url;
  curl_slist* resolve = nullptr;
  std::vector<curl_slist*> retired_resolve;  // replaced lists started transfers may still use
  std::shared_ptr<const std::unordered_set<std::string>> private_hosts_allowed;
  std::shared_ptr<const CookieJar> cookies;

  Impl() {
    global_init_once();
    no_proxy = "localhost,127.0.0.0/8,::1";
    for (const char* var : {"no_proxy", "NO_PROXY"})
      if (const char* v = std::getenv(var); v != nullptr && *v != '\0')
        no_proxy += std::string{","} + v;
    multi = curl_multi_init();
    // One connection per host is all a polite crawler uses (more only with
    // set_max_host_connections); a larger total cache keeps connections to
    // many hosts alive between their requests.
    curl_multi_setopt(multi, CURLMOPT_MAX_HOST_CONNECTIONS, 1L);
    curl_multi_setopt(multi, CURLMOPT_MAXCONNECTS, 256L);
  }

  ~Impl() {
    for (Transfer* t : live) {
      curl_multi_remove_handle(multi, t->easy);
      curl_easy_cleanup(t->easy);
      delete t;
    }
    for (CURL* h : idle_handles)
      curl_easy_cleanup(h);
    curl_multi_cleanup(multi);
    curl_slist_free_all(resolve);
    for (curl_slist* list : retired_resolve)
      curl_slist_free_all(list);
  }

  CURL* acquire_handle() {
    if (idle_handles.empty())
      return curl_easy_init();
    CURL* h = idle_handles.back();
    idle_handles.pop_back();
    curl_easy_reset(h);
    return h;
  }

  void launch(FetchRequest request) {
    auto* t = new Transfer;
    t->request = std::move(request);
    t->outcome.token = t->request.token;
    t->current_url = t->request.url;
    t->visited.insert(t->request.url);
    t->private_hosts_allowed = private_hosts_allowed;
    t->started = Clock::now();
    t->validator_headers = validator_headers(t->request);
    t->manual_hops = !t->request.headers.empty() || !t->request.basic_auth.empty() || !t->request.bearer_token.empty();
    if (t->manual_hops)
      t->origin = origin_of(t->request.url);
    t->follow_first_hop = (t->validator_headers != nullptr || t->manual_hops) && t->request.max_redirects > 0;
    t->easy = acquire_handle();
    // Curl follows redirects itself, up to max_redirects, unless the first
    // request is conditional: then the engine takes its hop (take_first_hop).
    configure(t, t->request.url, !t->follow_first_hop && t->request.max_redirects > 0, t->request.max_redirects);
    curl_multi_add_handle(multi, t->easy);
    live.insert(t);
    ++running;
  }

  // Sets up `t`'s handle to ask for `url`; the validators go along while
  // the transfer still holds them (its first request).
  void configure(Transfer* t, const std::string& url, bool follow, long max_redirects) {
    CURL* h = t->easy;
    curl_easy_setopt(h, CURLOPT_URL, url.c_str());
    curl_easy_setopt(h, CURLOPT_PRIVATE, t);
    curl_easy_setopt(h, CURLOPT_ERRORBUFFER, t->error_text);
    curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, on_body);
    curl_easy_setopt(h, CURLOPT_WRITEDATA, t);
    curl_easy_setopt(h, CURLOPT_HEADERFUNCTION, on_header);
    curl_easy_setopt(h, CURLOPT_HEADERDATA, t);
    curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(h, CURLOPT_TIMEOUT_MS, static_cast<long>(t->request.timeout_ms));
    curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT_MS, static_cast<long>(std::min<std::int64_t>(t->request.timeout_ms, 10000)));
    curl_easy_setopt(h, CURLOPT_FOLLOWLOCATION, follow ? 1L : 0L);
    curl_easy_setopt(h, CURLOPT_MAXREDIRS, max_redirects);
    curl_easy_setopt(h, CURLOPT_PROTOCOLS_STR, "http,https");
    curl_easy_setopt(h, CURLOPT_REDIR_PROTOCOLS_STR, "http,https");
    // Every encoding this libcurl decodes (gzip, deflate, br, zstd); the body
    // limit applies to decoded bytes, which is what defeats gzip bombs.
    // gzip and deflate only: their decoder needs a 32 KB window whatever
    // the server does. Brotli's and zstd's decoders take the window the
    // server chooses (a brotli response of a page held a 4 MiB ring buffer;
    // up to 16 MiB for brotli, 128 MiB for zstd), per transfer: a crawler
    // running dozens of transfers at once would let servers decide its
    // memory. Every server that compresses speaks gzip.
    curl_easy_setopt(h, CURLOPT_ACCEPT_ENCODING, "gzip, deflate");
    curl_easy_setopt(h, CURLOPT_USERAGENT, t->request.user_agent.c_str());
    switch (proxy_mode) {
      case FetchEngine::ProxyMode::direct:
        curl_easy_setopt(h, CURLOPT_PROXY, "");
        break;
      case FetchEngine::ProxyMode::environment:
        // Proxies from the environment are honoured, but never for loopback.
        curl_easy_setopt(h, CURLOPT_NOPROXY, no_proxy.c_str());
        break;
      case FetchEngine::ProxyMode::url:
        curl_easy_setopt(h, CURLOPT_PROXY, proxy_url.c_str());
        curl_easy_setopt(h, CURLOPT_NOPROXY, "");
        break;
    }
    if (resolve != nullptr)
      curl_easy_setopt(h, CURLOPT_RESOLVE, resolve);
    if (cookies) {
      // The jar is curl's cookie engine on the share handle; an empty
      // file name turns the engine on for this handle, reading nothing.
      curl_easy_setopt(h, CURLOPT_SHARE, static_cast<CURLSH*>(cookies->share_handle()));
      curl_easy_setopt(h, CURLOPT_COOKIEFILE, "");
    }
    if (t->request.capture_http) {
      // The debug function is only called in verbose mode; it replaces
      // curl's own printing, so nothing reaches stderr.
      curl_easy_setopt(h, CURLOPT_DEBUGFUNCTION, on_debug);
      curl_easy_setopt(h, CURLOPT_DEBUGDATA, t);
      curl_easy_setopt(h, CURLOPT_VERBOSE, 1L);
    }
    // A configured proxy (set_proxy) is trusted: the crawler connects to it
    // alone, and it reaches the sites.
    if (t->request.block_private_addresses && proxy_mode != FetchEngine::ProxyMode::url) {
      curl_easy_setopt(h, CURLOPT_OPENSOCKETFUNCTION, open_public_socket);
      curl_easy_setopt(h, CURLOPT_OPENSOCKETDATA, t);
      curl_easy_setopt(h, CURLOPT_PREREQFUNCTION, check_connected_peer);
      curl_easy_setopt(h, CURLOPT_PREREQDATA, t);
      // No proxy, not even one from the environment: the proxy would make
      // the connection to the private address on our behalf, unchecked.
      curl_easy_setopt(h, CURLOPT_PROXY, "");
    }
    // The validators (first request only), and the request's own headers
    // and credentials where `url` is the origin they were chosen for.
    // A request without headers of its own sends the validators' list as
    // it is; one with them, a list of both.
    const bool own_origin = t->manual_hops && !t->origin.empty() && origin_of(url) == t->origin;
    curl_slist_free_all(t->header_lines);
    t->header_lines = nullptr;
    curl_slist* lines = t->validator_headers;
    if (own_origin) {
      if (!t->request.headers.empty()) {
        for (const curl_slist* line = t->validator_headers; line != nullptr; line = line->next)
          t->header_lines = curl_slist_append(t->header_lines, line->data);
        for (const std::string& line : t->request.headers)
          if (is_header_line(line))
            t->header_lines = curl_slist_append(t->header_lines, line.c_str());
        lines = t->header_lines;
      }
      if (!t->request.bearer_token.empty()) {
        curl_easy_setopt(h, CURLOPT_HTTPAUTH, CURLAUTH_BEARER);
        curl_easy_setopt(h, CURLOPT_XOAUTH2_BEARER, t->request.bearer_token.c_str());
      } else if (!t->request.basic_auth.empty()) {
        curl_easy_setopt(h, CURLOPT_HTTPAUTH, CURLAUTH_BASIC);
        curl_easy_setopt(h, CURLOPT_USERPWD, t->request.basic_auth.c_str());
      }
    }
    if (lines != nullptr)
      curl_easy_setopt(h, CURLOPT_HTTPHEADER, lines);
  }

  // The first response of a conditional request with redirects allowed:
  // when it is a redirect, the engine sends the hop, unconditionally, and
  // curl follows the rest as for any request (the hop was recorded and
  // checked for a loop by on_header, as curl's own hops are). True when the
  // transfer goes on; false when `t` is done with this response.
  bool take_first_hop(Transfer* t, CURLcode code) {
    if (!t->follow_first_hop)
      return false;
    t->follow_first_hop = false;
    long status = 0;
    curl_easy_getinfo(t->easy, CURLINFO_RESPONSE_CODE, &status);
    // A redirect's body over max_body_bytes stops the read, as for a page.
    const bool answered = code == CURLE_OK || (code == CURLE_WRITE_ERROR && t->outcome.truncated);
    if (!answered || t->loop_detected || !is_redirect_status(static_cast<int>(status)) ||
        t->current_location.empty())
      return false;
    // on_header moved current_url on to the hop; it stays put when the
    // Location is no http(s) URL, which curl would have refused as well.
    auto base = Url::parse(t->request.url);
    auto next = base ? base->resolve(t->current_location) : std::nullopt;
    if (!next) {
      t->bad_first_hop = true;
      return false;
    }
    curl_multi_remove_handle(multi, t->easy);
    curl_easy_reset(t->easy);
    curl_slist_free_all(t->validator_headers);
    t->validator_headers = nullptr;
    t->outcome.body.clear();
    t->outcome.truncated = false;
    t->sunk_bytes = 0;
    t->error_text[0] = '\0';
    t->refused_address.clear();
    const auto left = t->request.max_redirects - static_cast<std::int32_t>(t->outcome.redirects.size());
    if (t->manual_hops && left > 0) {
      // The request's own headers: this hop too is the engine's to take,
      // so each hop is asked with them only on their origin.
      t->follow_first_hop = true;
      configure(t, t->current_url, false, 0);
    } else {
      // With no hop left, curl refuses the next redirect as too many, as it
      // would have in one go.
      configure(t, t->current_url, true, std::max<long>(left, 0));
    }
    resumed.push_back(t);
    return true;
  }

  void start_due(Clock::time_point now) {
    while (!pending.empty() && pending.top().at <= now) {
      FetchRequest r = pending.top().request;
      pending.pop();
      launch(std::move(r));
    }
  }

  FetchOutcome finish(CURL* h, CURLcode code) {
    Transfer* t = nullptr;
    curl_easy_getinfo(h, CURLINFO_PRIVATE, &t);
    FetchOutcome out = std::move(t->outcome);
    long status = 0;
    curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &status);
    out.status_code = static_cast<int>(status);
    const char* ct = nullptr;
    curl_easy_getinfo(h, CURLINFO_CONTENT_TYPE, &ct);
    parse_content_type(ct, out);
    const char* effective = nullptr;
    curl_easy_getinfo(h, CURLINFO_EFFECTIVE_URL, &effective);
    out.final_url = effective ? effective : t->request.url;
    if (auto normalized = Url::parse(out.final_url))
      out.final_url = normalized->str();
    if (is_redirect_status(out.status_code) && !t->current_location.empty())
      if (auto base = Url::parse(out.final_url))
        if (auto next = base->resolve(t->current_location))
          out.location = next->str();
    out.retry_after_ms = parse_retry_after(t->retry_after);
    out.x_robots_tag = std::move(t->x_robots_tag);
    out.etag = std::move(t->etag);
    out.last_modified = std::move(t->last_modified);
    out.last_modified_ms = parse_http_date(out.last_modified);
    if (t->request.capture_http) {
      const char* ip = nullptr;
      curl_easy_getinfo(h, CURLINFO_PRIMARY_IP, &ip);
      out.ip_address = ip != nullptr ? ip : "";
      out.request_head = std::move(t->request_head);
      out.response_head = std::move(t->response_head);
    }
    out.elapsed_ms = std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - t->started).count();

    if (code == CURLE_WRITE_ERROR && out.truncated) {
      code = CURLE_OK;  // we stopped reading on purpose
    }
    if (!t->refused_encoding.empty()) {
      out.error = FetchError::bad_encoding;
      out.error_detail = "Content-Encoding: " + t->refused_encoding +
                         ", which was not asked for (Accept-Encoding: gzip, deflate)";
    } else if (t->loop_detected) {
      out.error = FetchError::redirect_loop;
      out.error_detail = "redirect loop back to " + t->current_url;
    } else if (t->bad_first_hop) {
      out.error = FetchError::bad_redirect;
      out.error_detail = "redirect to a Location that is no http(s) URL: " + t->current_location;
    } else if (code != CURLE_OK && !t->refused_address.empty()) {
      // Refused by open_public_socket or check_connected_peer; curl itself
      // only saw a failed connect or an aborted callback.
      out.error = FetchError::private_address;
      out.error_detail = "refused to connect to private address " + t->refused_address;
    } else if (code != CURLE_OK) {
      out.error = classify(code);
      out.error_detail = t->error_text[0] != '\0' ? t->error_text : curl_easy_strerror(code);
      const char* ip = nullptr;
      curl_easy_getinfo(h, CURLINFO_PRIMARY_IP, &ip);
      const bool connected = ip != nullptr && ip[0] != '\0';
      const bool at_redirect = is_redirect_status(out.status_code) && !t->current_location.empty();
      if (code == CURLE_UNSUPPORTED_PROTOCOL || code == CURLE_URL_MALFORMAT) {
        // A Location curl will not follow: another scheme, or no URL at all;
        // before any connection, the request's own URL: a retry gets the
        // same answer. Past a connection and no redirect, it is the reply
        // itself curl cannot read as HTTP/1.x (HTTP/0.9, a status 000).
        if (at_redirect || !out.redirects.empty())
          out.error = FetchError::bad_redirect;
        else
          out.error = connected ? FetchError::protocol_error : FetchError::bad_url;
      }
      // A response header line past curl's limit (100 KB) fails its buffer
      // as "out of memory" once the status line is in: the server's fault.
      if (code == CURLE_OUT_OF_MEMORY && out.status_code > 0) {
        out.error = FetchError::protocol_error;
        out.error_detail = "a response header line past curl's limit (" + out.error_detail + ")";
      }
      // curl reports malformed HTTP (a chunk size that is not hex, headers
      // past its limit) as a receive error, like a reset: its words tell
      // the server's fault from the network's.
      if (code == CURLE_RECV_ERROR && is_malformed_http(out.error_detail))
        out.error = FetchError::protocol_error;
    }
    if (out.error != FetchError::none) {
      out.body.clear();
      out.truncated = false;
      out.etag.clear();
      out.last_modified.clear();
      out.last_modified_ms = -1;
    }
    // Only a request that still carried its validators (no hop taken) can
    // be answered "not modified".
    out.not_modified = out.error == FetchError::none && out.status_code == 304 && t->validator_headers != nullptr;
    curl_multi_remove_handle(multi, h);
    idle_handles.push_back(h);
    --running;
    live.erase(t);
    delete t;
    return out;
  }

  void collect(std::vector<FetchOutcome>& out) {
    int queued = 0;
    while (CURLMsg* msg = curl_multi_info_read(multi, &queued)) {
      if (msg->msg != CURLMSG_DONE)
        continue;
      // Read before take_first_hop or finish removes the handle, which
      // frees the message.
      CURL* easy = msg->easy_handle;
      const CURLcode code = msg->data.result;
      Transfer* t = nullptr;
      curl_easy_getinfo(easy, CURLINFO_PRIVATE, &t);
      if (!take_first_hop(t, code))
        out.push_back(finish(easy, code));
    }
    // Handles go back in only once the done messages are all read.
    for (Transfer* t : resumed)
      curl_multi_add_handle(multi, t->easy);
    resumed.clear();
  }
};

FetchEngine::FetchEngine() : impl_(std::make_unique<Impl>()) {}
FetchEngine::~FetchEngine() = default;

void FetchEngine::start(FetchRequest request) { impl_->launch(std::move(request)); }

void FetchEngine::start_at(FetchRequest request, Clock::time_point not_before) {
  impl_->pending.push(Impl::Pending{not_before, impl_->order++, std::move(request)});
}

std::vector<std::uint64_t> FetchEngine::cancel_pending() {
  std::vector<std::uint64_t> tokens;
  while (!impl_->pending.empty()) {
    tokens.push_back(impl_->pending.top().request.token);
    impl_->pending.pop();
  }
  return tokens;
}

std::vector<FetchOutcome> FetchEngine::perform(std::chrono::milliseconds max_wait) {
  std::vector<FetchOutcome> done;
  int still_running = 0;
  impl_->start_due(Clock::now());
  curl_multi_perform(impl_->multi, &still_running);
  impl_->collect(done);
  if (!done.empty())
    return done;
  auto wait = max_wait;
  if (!impl_->pending.empty()) {
    auto until = std::chrono::duration_cast<std::chrono::milliseconds>(impl_->pending.top().at - Clock::now());
    wait = std::max(std::chrono::milliseconds{0}, std::min(wait, until + std::chrono::milliseconds{1}));
  }
  curl_multi_poll(impl_->multi, nullptr, 0, static_cast<int>(wait.count()), nullptr);
  impl_->start_due(Clock::now());
  curl_multi_perform(impl_->multi, &still_running);
  impl_->collect(done);
  return done;
}

void FetchEngine::set_proxy(ProxyMode mode, const std::string& url) {
  impl_->proxy_mode = mode == ProxyMode::url && url.empty() ? ProxyMode::direct : mode;
  impl_->proxy_url = url;
}

void FetchEngine::set_cookie_jar(std::shared_ptr<const CookieJar> jar) { impl_->cookies = std::move(jar); }

void FetchEngine::set_max_host_connections(int n) {
  curl_multi_setopt(impl_->multi, CURLMOPT_MAX_HOST_CONNECTIONS, static_cast<long>(std::max(n, 1)));
}

void FetchEngine::set_resolve(const std::vector<std::string>& entries) {
  // Transfers already started still point at the old list (curl does not
  // copy it): it is kept until the engine goes.
  if (impl_->resolve != nullptr)
    impl_->retired_resolve.push_back(impl_->resolve);
  impl_->resolve = nullptr;
  for (const auto& e : entries)
    impl_->resolve = curl_slist_append(impl_->resolve, e.c_str());
}

void FetchEngine::set_private_hosts_allowed(const std::vector<std::string>& hosts) {
  impl_->private_hosts_allowed = std::make_shared<const std::unordered_set<std::string>>(hosts.begin(), hosts.end());
}

void FetchEngine::wakeup() { curl_multi_wakeup(impl_->multi); }

std::size_t FetchEngine::running() const { return impl_->running; }
std::size_t FetchEngine::pending() const { return impl_->pending.size(); }

}  // namespace actorcrawl
