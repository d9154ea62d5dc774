#include "service/http_response.h"

#include <catch2/catch.hpp>

#include <string>

#include "service/http_request.h"

namespace actorcrawl {

TEST_CASE("http response: a rendered answer's head says its length and what follows", "[http_response]") {
  HttpResponse r;
  r.status = 405;
  r.set_header("Allow", "GET, HEAD");
  r.set_header("allow", "POST");  // replaces the value, not repeated
  r.set_content("{}", "application/json");
  CHECK(render_head(r, "Connection: close\r\n") ==
        "HTTP/1.1 405 Method Not Allowed\r\nAllow: POST\r\nContent-Type: application/json\r\n"
        "Content-Length: 2\r\nConnection: close\r\n\r\n");

  HttpResponse empty;
  CHECK(render_head(empty, "") == "HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n");
  CHECK(std::string{reason_phrase(421)} == "Misdirected Request");
  CHECK(std::string{reason_phrase(299)} == "Unknown");
}

TEST_CASE("http response: a streamed answer goes in chunks, and ends with the zero-sized one", "[http_response]") {
  HttpResponse r;
  r.set_stream("text/event-stream", [](ChunkSink&) { return false; });
  const std::string head = render_head(r, "");
  CHECK(head.find("Transfer-Encoding: chunked\r\n") != std::string::npos);
  CHECK(head.find("Content-Length") == std::string::npos);

  std::string body;
  append_chunk(body, "hello");
  append_chunk(body, "");  // nothing: an empty chunk would end the body
  append_chunk(body, std::string(300, 'x'));
  body += kLastChunk;
  CHECK(body == "5\r\nhello\r\n12c\r\n" + std::string(300, 'x') + "\r\n0\r\n\r\n");
}

TEST_CASE("http request: queries decode as forms do, and quote back", "[http_request]") {
  const auto params = parse_query("a=1&&b=x+y%2B&c&=e&%ff=%zz");
  REQUIRE(params.size() == 5);
  CHECK(params[0] == std::pair<std::string, std::string>{"a", "1"});
  CHECK(params[1] == std::pair<std::string, std::string>{"b", "x y+"});
  CHECK(params[2] == std::pair<std::string, std::string>{"c", ""});
  CHECK(params[3] == std::pair<std::string, std::string>{"", "e"});
  CHECK(params[4] == std::pair<std::string, std::string>{"\xff", "%zz"});
  CHECK(query_quoted("a b&c=d/é") == "a%20b%26c%3Dd%2F%C3%A9");
  CHECK(parse_query("k=" + query_quoted("a b&c+d"))[0].second == "a b&c+d");
}

}  // namespace actorcrawl
