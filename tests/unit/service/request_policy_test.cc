#include "service/request_policy.h"

#include <catch2/catch.hpp>

#include <limits>
#include <nlohmann/json.hpp>

#include <string>

using namespace std::string_literals;

namespace actorcrawl {

namespace {

using Progress = RequestFramer::Progress;

// The code of the ApiError `f` throws; "none" when it throws nothing.
template <class F>
std::string error_code(F&& f) {
  try {
    f();
  } catch (const ApiError& e) {
    return e.code();
  }
  return "none";
}

// `piece`, `times` times over.
std::string repeat_text(const std::string& piece, int times) {
  std::string out;
  for (int i = 0; i < times; ++i)
    out += piece;
  return out;
}

// Feeds `bytes` to a framer one byte at a time, as the slowest client
// sends them, and returns the last progress.
Progress trickle(RequestFramer& framer, const std::string& bytes) {
  Progress p = Progress::incomplete;
  for (std::size_t n = 0; n <= bytes.size() && p == Progress::incomplete; ++n)
    p = framer.advance(std::string_view{bytes}.substr(0, n));
  return p;
}

}  // namespace

TEST_CASE("request policy: Host headers are read as name and port", "[request_policy]") {
  const auto plain = parse_host("LocalHost.:8088");
  REQUIRE(plain);
  CHECK(plain->name == "localhost");
  CHECK(plain->port == 8088);
  CHECK_FALSE(parse_host("example.org")->port);
  CHECK(parse_host("[0:0:0:0:0:0:0:1]:80")->name == "::1");
  for (const std::string& bad : {""s, ":80"s, "a b"s, "host:"s, "host:65536"s, "host:8o"s, "[::1"s, "[::1]x"s,
                                 "[nope]"s, "\xff"s, "evil.example/x"s, "user@host"s, "[::1\0evil]"s, "a\0b"s})
    CHECK_FALSE(parse_host(bad));
  const auto origin = parse_origin("HTTPS://UI.example");
  REQUIRE(origin);
  CHECK(origin->scheme == "https");
  CHECK(origin->host.name == "ui.example");
  CHECK(origin->host.port == 443);
  for (const char* bad : {"null", "ftp://a.example", "http://a.example/", "http://", "a.example"})
    CHECK_FALSE(parse_origin(bad));
}

TEST_CASE("request policy: the Host allow-list", "[request_policy]") {
  const AllowedHosts hosts("127.0.0.1", 8088, {"crawler.example", "ui.example:8443"});
  for (const char* ok : {"127.0.0.1:8088", "127.0.0.1", "localhost", "LOCALHOST:8088", "[::1]:8088", "[::1]",
                         "crawler.example:1", "crawler.example", "ui.example:8443", "ui.example"})
    CHECK(hosts.allows(ok));
  for (const char* refused : {"localhost:8089", "evil.example", "evil.example:8088", "ui.example:8444",
                              "127.0.0.1.nip.io:8088", "127.0.0.2:8088", "", "\xff"})
    CHECK_FALSE(hosts.allows(refused));
  // The listen address, whatever it is, counts as the service's own name.
  CHECK(AllowedHosts("0.0.0.0", 80, {}).allows("0.0.0.0"));
  CHECK(AllowedHosts("::", 80, {}).allows("[::]:80"));
  CHECK(AllowedHosts("10.1.2.3", 80, {}).allows("10.1.2.3:80"));
  CHECK_THROWS_AS(AllowedHosts("127.0.0.1", 80, {"bad host"}), std::invalid_argument);
}

TEST_CASE("request policy: the Origin rule", "[request_policy]") {
  const AllowedOrigins origins({"https://ui.example:8443"});
  // The service's own origin: its page calling its API.
  CHECK(origins.allows("http://127.0.0.1:8088", "127.0.0.1:8088"));
  CHECK(origins.allows("https://crawler.example", "crawler.example"));  // TLS ends at a proxy in front
  CHECK(origins.allows("https://ui.example:8443", "127.0.0.1:8088"));
  CHECK(origins.allows("HTTPS://UI.EXAMPLE:8443", "127.0.0.1:8088"));
  // Another site, another port of this machine, no origin at all ("null").
  CHECK_FALSE(origins.allows("http://evil.example", "127.0.0.1:8088"));
  CHECK_FALSE(origins.allows("http://127.0.0.1:3000", "127.0.0.1:8088"));
  CHECK_FALSE(origins.allows("https://ui.example", "127.0.0.1:8088"));
  CHECK_FALSE(origins.allows("null", "127.0.0.1:8088"));
  CHECK_FALSE(origins.allows("http://127.0.0.1:8088", ""));
  CHECK_THROWS_AS(AllowedOrigins({"null"}), std::invalid_argument);
  CHECK_THROWS_AS(AllowedOrigins({"https://ui.example/app"}), std::invalid_argument);
}

TEST_CASE("request policy: media type and content coding", "[request_policy]") {
  CHECK(is_json_media_type("application/json"));
  CHECK(is_json_media_type("Application/JSON ; charset=utf-8"));
  for (const char* other : {"", "text/plain", "application/json-seq", "application/x-www-form-urlencoded",
                            "multipart/form-data; boundary=x", "application/jsonx"})
    CHECK_FALSE(is_json_media_type(other));
  CHECK(is_identity_coding(""));
  CHECK(is_identity_coding(" Identity "));
  CHECK_FALSE(is_identity_coding("gzip"));
  CHECK_FALSE(is_identity_coding("identity, gzip"));
}

TEST_CASE("request policy: routes by path, and a job's id", "[request_policy]") {
  CHECK(route_of("/healthz") == Route::health);
  CHECK(route_of("/") == Route::dashboard);
  CHECK(route_of("/api/info") == Route::info);
  CHECK(route_of("/crawl") == Route::jobs);
  CHECK(route_of("/crawl/crawl_1") == Route::job);
  CHECK(route_of("/crawl/\xff") == Route::job);
  CHECK(route_of("/crawl/crawl_1/graph") == Route::job_graph);
  CHECK(route_of("/crawl/crawl_1/items") == Route::job_items);
  CHECK(route_of("/crawl/crawl_1/events") == Route::job_events);
  CHECK(route_of("/crawl/crawl_1/export") == Route::job_export);
  CHECK(route_of("/metrics") == Route::metrics);
  for (const char* none : {"", "/crawl/", "/crawl//graph", "/crawl/a/b", "/crawl/a/graph/", "/crawl/a/items/", "/healthz/", "/CRAWL"})
    CHECK(route_of(none) == Route::none);
  CHECK(job_id_of("/crawl/crawl_1") == "crawl_1");
  CHECK(job_id_of("/crawl/crawl_1/graph") == "crawl_1");
  CHECK(job_id_of("/crawl/\xff\xfe/export") == "\xff\xfe");
  CHECK(job_id_of("/crawl").empty());
  CHECK(job_id_of("/crawl/a/b").empty());
  CHECK(job_id_of("/metrics").empty());
}

TEST_CASE("request policy: query integers", "[request_policy]") {
  CHECK(query_integer("limit", std::nullopt, 100, 1, 1000) == 100);
  CHECK(query_integer("limit", std::string{"7"}, 100, 1, 1000) == 7);
  CHECK(query_integer("offset", std::string{"000000000000000001"}, 0, 0, 10) == 1);
  for (const std::string& bad : {""s, "-1"s, "+1"s, "1.5"s, "1e3"s, " 1"s, "\xff"s, "12\0"s})
    CHECK(error_code([&] { query_integer("limit", bad, 100, 1, 1000); }) == "invalid_parameter");
  CHECK(error_code([] { query_integer("limit", std::string{"0"}, 100, 1, 1000); }) == "out_of_range");
  CHECK(error_code([] { query_integer("limit", std::string{"1001"}, 100, 1, 1000); }) == "out_of_range");
  // A whole number of any length is one: past the bound it is out of
  // range, never an overflow or "not a number".
  constexpr auto kMax = std::numeric_limits<std::int64_t>::max();
  for (const std::string& huge : {"1000000000000000000"s, "9223372036854775808"s, "99999999999999999999"s,
                                  std::string(10000, '9')})
    CHECK(error_code([&] { query_integer("offset", huge, 0, 0, 1000); }) == "out_of_range");
  CHECK(query_integer("since", std::string{"9223372036854775807"}, 0, 0, kMax) == kMax);
  CHECK(query_integer("since", std::string(5000, '0') + "42", 0, 0, kMax) == 42);
  CHECK(error_code([&] { query_integer("since", std::string{"9223372036854775808"}, 0, 0, kMax); }) ==
        "out_of_range");
  CHECK(error_code([] { query_integer("offset", std::string{"5"}, 0, 0, 0); }) == "out_of_range");
}

TEST_CASE("request policy: text for messages is cut between characters", "[request_policy]") {
  const std::string e_acute = "\xC3\xA9";
  CHECK(clip_for_message("abc", 3) == "abc");
  CHECK(clip_for_message("abcd", 3) == "abc...");
  CHECK(clip_for_message(e_acute + e_acute + e_acute, 3) == e_acute + "...");
  CHECK(clip_for_message(e_acute + e_acute + e_acute, 4) == e_acute + e_acute + "...");
  // An error quoting any of it renders as JSON.
  const ApiError e(400, "x", "'" + clip_for_message(std::string(7, 'a') + e_acute + "\xff\xfe", 8) + "'");
  CHECK(nlohmann::json::parse(e.json()).at("error").at("message").is_string());
  // A NUL the client sent is quoted whole, not where the message ends.
  const ApiError nul(400, "invalid_parameter", std::string("format: '\0' is not one of x", 27));
  CHECK(nlohmann::json::parse(nul.json()).at("error").at("message") == std::string("format: '\0' is not one of x", 27));
}

TEST_CASE("request framing: a head, then a body by length or in chunks", "[request_policy][framing]") {
  const std::string get = "GET /crawl HTTP/1.1\r\nHost: a\r\n\r\n";
  RequestFramer framer(1024, 100);
  CHECK_FALSE(framer.started());
  CHECK(trickle(framer, get) == Progress::complete);
  CHECK(framer.request_length() == get.size());
  CHECK(framer.started());

  // Pipelined: the first request ends where it ends.
  RequestFramer pipelined(1024, 100);
  CHECK(pipelined.advance(get + get) == Progress::complete);
  CHECK(pipelined.request_length() == get.size());

  const std::string post = "POST /crawl HTTP/1.1\r\nContent-Length: 5\r\nExpect: 100-continue\r\n\r\n";
  RequestFramer with_length(1024, 100);
  CHECK(with_length.advance(post) == Progress::incomplete);
  CHECK(with_length.awaits_continue());
  CHECK(with_length.advance(post + "{}") == Progress::incomplete);
  CHECK(with_length.advance(post + "{}   GET") == Progress::complete);
  CHECK(with_length.request_length() == post.size() + 5);
  CHECK_FALSE(with_length.awaits_continue());

  const std::string chunked = "POST /crawl HTTP/1.1\r\nTransfer-Encoding: Chunked\r\n\r\n";
  const std::string body = "4;ext=1\r\nabcd\r\n0a\r\n0123456789\r\n0\r\n\r\n";
  RequestFramer chunks(1024, 100);
  CHECK(trickle(chunks, chunked + body + "next") == Progress::complete);
  CHECK(chunks.request_length() == chunked.size() + body.size());

  // Empty lines before the request line (a CRLF after a POST body) are
  // skipped, at once or byte by byte, and counted in its length; they alone
  // are no request yet.
  const std::string post_body = "POST /crawl HTTP/1.1\r\nContent-Length: 2\r\n\r\n{}";
  for (const std::string& before : {"\r\n"s, "\r\n\r\n"s}) {
    RequestFramer at_once(1024, 100), in_pieces(1024, 100);
    CHECK(at_once.advance(before + post_body + "GET") == Progress::complete);
    CHECK(at_once.request_length() == before.size() + post_body.size());
    CHECK(at_once.request().body == "{}");
    CHECK(trickle(in_pieces, before + get) == Progress::complete);
    CHECK(in_pieces.request_length() == before.size() + get.size());
    CHECK(in_pieces.request().target == "/crawl");
  }
  RequestFramer only_empty(1024, 100);
  CHECK(only_empty.advance("\r\n\r\n\r") == Progress::incomplete);
  CHECK_FALSE(only_empty.started());
}

TEST_CASE("request framing: too large, as soon as it shows", "[request_policy][framing]") {
  auto refusal = [](const std::string& bytes, std::size_t max_head = 1024, std::size_t max_body = 100) {
    RequestFramer framer(max_head, max_body);
    const auto p = trickle(framer, bytes);
    if (p != Progress::refused)
      return std::string{p == Progress::complete ? "complete" : "incomplete"};
    CHECK(nlohmann::json::parse(framer.refusal()->json()).is_object());
    return std::to_string(framer.refusal()->status()) + " " + framer.refusal()->code();
  };
  // A head without end, or too long.
  CHECK(refusal("GET / HTTP/1.1\r\nX: " + std::string(2000, 'a')) == "431 headers_too_large");
  CHECK(refusal("GET / HTTP/1.1\r\nX: " + std::string(1010, 'a') + "\r\n\r\n") == "431 headers_too_large");
  // Empty lines without end: the skipped ones are held until the request
  // comes, so they count toward the head.
  CHECK(refusal(repeat_text("\r\n", 600)) == "431 headers_too_large");
  // A declared length over the limit, before any of the body.
  CHECK(refusal("POST / HTTP/1.1\r\nContent-Length: 101\r\n\r\n") == "413 body_too_large");
  CHECK(refusal("POST / HTTP/1.1\r\nContent-Length: 99999999999999999999999\r\n\r\n") == "413 body_too_large");
  // Chunks: a size over the limit, sizes adding up over it, or mostly
  // framing.
  const std::string chunked = "POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n";
  CHECK(refusal(chunked + "fffffffffffffffffffff\r\n") == "413 body_too_large");
  CHECK(refusal(chunked + "40\r\n" + std::string(64, 'x') + "\r\n40\r\n") == "413 body_too_large");
  std::string one_byte_chunks;
  for (int i = 0; i < 90; ++i)
    one_byte_chunks += "1;padding=" + std::string(40, 'p') + "\r\nx\r\n";
  CHECK(refusal(chunked + one_byte_chunks, 1024, 100) == "413 body_too_large");
  CHECK(refusal(chunked + "0\r\n\r\n") == "complete");
}

TEST_CASE("request framing: what two parsers could read two ways is refused", "[request_policy][framing]") {
  auto code = [](const std::string& head, const std::string& rest = "") {
    RequestFramer framer(1024, 100);
    const auto p = trickle(framer, head + rest);
    return p == Progress::refused ? framer.refusal()->code() : std::string{"accepted"};
  };
  CHECK(code("POST / HTTP/1.1\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n") == "bad_request");
  CHECK(code("POST / HTTP/1.1\r\nContent-Length: 3\r\nContent-Length: 3\r\n\r\n") == "bad_request");
  CHECK(code("POST / HTTP/1.1\r\nContent-Length: 1e2\r\n\r\n") == "bad_request");
  CHECK(code("POST / HTTP/1.1\r\nContent-Length: %35\r\n\r\n") == "bad_request");
  CHECK(code("POST / HTTP/1.1\r\nContent-Length : 3\r\n\r\n") == "bad_request");
  CHECK(code("POST / HTTP/1.1\r\nTransfer-Encoding: gzip, chunked\r\n\r\n") == "bad_request");
  CHECK(code("POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n\r\n") ==
        "bad_request");
  CHECK(code("GET / HTTP/1.1\r\nX: a\r\n folded\r\n\r\n") == "bad_request");
  CHECK(code("GET / HTTP/1.1\nX: a\r\n\r\n") == "bad_request");
  CHECK(code("GET / HTTP/1.1\rX: a\r\n\r\n") == "bad_request");
  CHECK(code("GET / HTTP/1.1\r\nX: a\0b\r\n\r\n"s) == "bad_request");
  // A head of bare LFs never shows the CRLF CRLF that ends a head: it is
  // refused at its first line end, not left to the read timeout.
  for (const std::string& head : {"GET / HTTP/1.1\n"s, "GET / HTTP/1.1\nHost: a\n\n"s, "GET / HTTP/1.1\r\nX: a\n"s,
                                  "GET / HTTP/1.1\r\nX: \0"s, "GET / HTTP/1.1\rX"s}) {
    INFO(head);
    RequestFramer framer(1024, 100);
    CHECK(framer.advance(head) == Progress::refused);
    CHECK(framer.refusal()->code() == "bad_request");
  }
  // The same answer whatever the arrival: a bare LF inside the size limit
  // is 400 even when the head, once whole, is too large.
  const std::string long_head = "GET / HTTP/1.1\nX: " + std::string(2000, 'a') + "\r\n\r\n";
  RequestFramer at_once(1024, 100), in_pieces(1024, 100);
  CHECK(at_once.advance(long_head) == Progress::refused);
  CHECK(trickle(in_pieces, long_head) == Progress::refused);
  CHECK(at_once.refusal()->code() == "bad_request");
  CHECK(in_pieces.refusal()->code() == "bad_request");
  // A CR that ends what has arrived so far may be the start of a CRLF.
  RequestFramer waiting(1024, 100);
  CHECK(trickle(waiting, "GET / HTTP/1.1\r\nX: a\r") == Progress::incomplete);
  CHECK(waiting.advance("GET / HTTP/1.1\r\nX: a\r\n\r\n") == Progress::complete);
  const std::string chunked = "POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n";
  CHECK(code(chunked, "-5\r\nhello\r\n0\r\n\r\n") == "bad_request");
  CHECK(code(chunked, "0x5\r\nhello\r\n0\r\n\r\n") == "bad_request");
  CHECK(code(chunked, "5\r\nhelloXX0\r\n\r\n") == "bad_request");
  CHECK(code(chunked, "0\r\nTrailer: x\r\n\r\n") == "bad_request");
  CHECK(code(chunked, "5 ;ext\r\nhello\r\n0\r\n\r\n") == "accepted");
  // A fragment is never sent: a target with one is refused, not looked up.
  CHECK(code("GET /crawl#frag HTTP/1.1\r\n\r\n") == "bad_request");
  CHECK(code("GET /crawl?a=1#frag HTTP/1.1\r\n\r\n") == "bad_request");
  CHECK(code("GET /crawl?a=%23 HTTP/1.1\r\n\r\n") == "accepted");
}

TEST_CASE("request reading: a target in absolute form is read as its path, its authority kept",
          "[request_policy][framing]") {
  const auto read = [](const std::string& head) {
    RequestFramer framer(1024, 100);
    REQUIRE(framer.advance(head) == Progress::complete);
    return framer.request();
  };
  const HttpRequest r = read("GET http://127.0.0.1:8088/crawl/a%20b/items?limit=5 HTTP/1.1\r\nHost: evil.example\r\n\r\n");
  CHECK(r.authority == "127.0.0.1:8088");
  CHECK(r.host() == "127.0.0.1:8088");  // the target's authority, not the Host field
  CHECK(r.target == "/crawl/a%20b/items?limit=5");
  CHECK(r.path == "/crawl/a b/items");
  CHECK(r.param("limit") == "5");
  CHECK(route_of(r.path) == Route::job_items);
  // Any case of the scheme; no path is the root.
  CHECK(read("GET HTTPS://localhost HTTP/1.1\r\n\r\n").path == "/");
  CHECK(read("GET http://localhost?x=1 HTTP/1.1\r\n\r\n").path == "/");
  // The origin form keeps the Host field as the request's host.
  const HttpRequest plain = read("GET /healthz HTTP/1.1\r\nHost: localhost:8088\r\n\r\n");
  CHECK(plain.authority.empty());
  CHECK(plain.host() == "localhost:8088");
  // A path that only looks like a URL is a path.
  CHECK(read("GET /http://x/ HTTP/1.1\r\n\r\n").path == "/http://x/");
  // No host, or credentials in it, is refused.
  for (const std::string head : {"GET http:///crawl HTTP/1.1\r\n\r\n", "GET http://u:p@localhost/ HTTP/1.1\r\n\r\n",
                                 "GET http://?x HTTP/1.1\r\n\r\n"}) {
    INFO(head);
    RequestFramer framer(1024, 100);
    CHECK(framer.advance(head) == Progress::refused);
    CHECK(framer.refusal()->code() == "bad_request");
  }
}

TEST_CASE("request reading: the request line, fields, query and body as read while framing",
          "[request_policy][framing]") {
  RequestFramer framer(1024, 100);
  const std::string get = "GET /crawl/a%2Fb%ff/items?kind=a+b%26c&limit=5&flag&=x&kind=2 HTTP/1.1\r\n"
                          "Host:  a.test \r\nX-Empty:\r\nhost: b\r\n\r\n";
  REQUIRE(trickle(framer, get) == Progress::complete);
  const HttpRequest& r = framer.request();
  CHECK(r.method == "GET");
  CHECK(r.target == "/crawl/a%2Fb%ff/items?kind=a+b%26c&limit=5&flag&=x&kind=2");
  CHECK(r.path == "/crawl/a/b\xff/items");
  CHECK(r.version == "HTTP/1.1");
  CHECK(r.param("kind") == "a b&c");  // the first of two
  CHECK(r.param("limit") == "5");
  CHECK(r.param("flag") == "");
  CHECK(r.param("") == "x");
  CHECK_FALSE(r.param("missing"));
  CHECK(r.header_count("HOST") == 2);
  CHECK(r.header("Host") == "a.test");
  CHECK(r.has_header("x-empty"));
  CHECK(r.header("X-Empty").empty());
  CHECK(r.body.empty());
  CHECK_FALSE(r.closes());

  // Bodies: by length, and in chunks with the framing taken off.
  RequestFramer by_length(1024, 100);
  CHECK(by_length.advance("POST / HTTP/1.1\r\nContent-Length: 5\r\n\r\nhelloGET") == Progress::complete);
  CHECK(by_length.request().body == "hello");
  RequestFramer chunks(1024, 100);
  CHECK(trickle(chunks, "POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n"
                        "4;ext=1\r\nabcd\r\n0a\r\n0123456789\r\n0\r\n\r\n") == Progress::complete);
  const HttpRequest moved = chunks.take_request();
  CHECK(moved.body == "abcd0123456789");

  // Whether the connection closes after the answer.
  const auto closes = [](const std::string& head) {
    RequestFramer f(1024, 100);
    REQUIRE(f.advance(head) == Progress::complete);
    return f.request().closes();
  };
  CHECK(closes("HEAD / HTTP/1.1\r\nconnection: close\r\n\r\n"));
  CHECK(closes("GET / HTTP/1.1\r\nConnection: Keep-Alive, Close\r\n\r\n"));
  CHECK(closes("GET / HTTP/1.0\r\n\r\n"));
  CHECK_FALSE(closes("GET / HTTP/1.0\r\nConnection: keep-alive\r\n\r\n"));
  CHECK_FALSE(closes("GET / HTTP/1.1\r\nConnection: Upgrade\r\n\r\n"));

  // A request line or a field line it cannot read is refused, named.
  const auto refusal = [](const std::string& head) {
    RequestFramer f(16384, 100);
    const auto p = trickle(f, head);
    return p == Progress::refused ? std::to_string(f.refusal()->status()) + " " + f.refusal()->code()
                                  : std::string{"accepted"};
  };
  for (const char* line : {"GET /\r\n\r\n", "GET / HTTP/2\r\n\r\n", "GET HTTP/1.1\r\n\r\n", "GET  / HTTP/1.1\r\n\r\n",
                           "G(T / HTTP/1.1\r\n\r\n", "\xff / HTTP/1.1\r\n\r\n", "GET / http/1.1\r\n\r\n"}) {
    INFO(line);
    CHECK(refusal(line) == "400 bad_request");
  }
  CHECK(refusal("GET / HTTP/1.1\r\nno colon\r\n\r\n") == "400 bad_request");
  CHECK(refusal("GET / HTTP/1.1\r\nX\xff: a\r\n\r\n") == "400 bad_request");
  CHECK(refusal("GET /" + std::string(8200, 'a') + " HTTP/1.1\r\n\r\n") == "414 uri_too_long");
  CHECK(refusal("PATCH /" + std::string(8000, 'a') + " HTTP/1.1\r\n\r\n") == "accepted");
}

}  // namespace actorcrawl
