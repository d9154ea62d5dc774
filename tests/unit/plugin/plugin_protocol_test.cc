#include "core/plugin/plugin_protocol.h"

#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include <string>

namespace actorcrawl {
namespace {

using nlohmann::json;

TEST_CASE("the hello names the protocol and the plugin", "[plugin]") {
  const std::string line = plugin_hello_line("lang");
  REQUIRE(line.back() == '\n');
  CHECK(json::parse(line) == json::parse(R"({"hello": {"protocol": 1, "plugin": "lang"}})"));
}

TEST_CASE("a page line carries the page, its headers and its body as UTF-8", "[plugin]") {
  const std::string body = "caf\xe9";
  const std::string head =
      "HTTP/1.1 200 OK\r\nContent-Type: text/html; charset=windows-1252\r\nSet-Cookie: a=1\r\n"
      "X-Folded: first\r\n  second\r\nset-cookie: b=2\r\nnot a field\r\n\r\n";
  FetchedPage page;
  page.url = "https://example.com/a";
  page.final_url = "https://example.com/b";
  page.depth = 2;
  page.status_code = 200;
  page.content_type = "text/html";
  page.charset = "windows-1252";
  page.body = body;
  page.response_head = head;
  const std::string line = plugin_page_line(17, page);
  REQUIRE(line.back() == '\n');
  REQUIRE(line.find('\n') == line.size() - 1);
  CHECK(line.rfind("{\"id\":17,", 0) == 0);  // the id first, as documented
  const auto v = json::parse(line);
  CHECK(v["url"] == "https://example.com/a");
  CHECK(v["final_url"] == "https://example.com/b");
  CHECK(v["status"] == 200);
  CHECK(v["depth"] == 2);
  CHECK(v["content_type"] == "text/html");
  CHECK(v["truncated"] == false);
  CHECK(v["body"] == "caf\xc3\xa9");
  CHECK(v["headers"]["content-type"] == "text/html; charset=windows-1252");
  CHECK(v["headers"]["set-cookie"] == "a=1, b=2");
  CHECK(v["headers"]["x-folded"] == "first second");
  CHECK(v["headers"].size() == 3);
}

TEST_CASE("invalid UTF-8 in a body or a header becomes U+FFFD", "[plugin]") {
  const std::string body = "ok \xff\xfe end";
  const std::string head = "HTTP/1.1 200 OK\r\nX-Odd: \xff\r\n\r\n";
  FetchedPage page;
  page.final_url = page.url = "https://example.com/";
  page.charset = "utf-8";
  page.body = body;
  page.response_head = head;
  const auto v = json::parse(plugin_page_line(1, page));
  CHECK(v["body"].get<std::string>().find("\xef\xbf\xbd") != std::string::npos);
  CHECK(v["headers"]["x-odd"] == "\xef\xbf\xbd");
}

TEST_CASE("no response head gives empty headers", "[plugin]") {
  CHECK(plugin_headers_json("") == "{}");
  CHECK(plugin_headers_json("HTTP/1.1 204 No Content\r\n\r\n") == "{}");
}

TEST_CASE("an answer's items, links and error are read", "[plugin]") {
  auto a = read_plugin_answer(R"({"id": 5, "items": [{"a": 1}, {"b": [2]}], "links": ["x", "/y"], "extra": true})");
  REQUIRE(a.problem.empty());
  REQUIRE(a.id == 5u);
  // Stored as written: spacing, key order and all.
  CHECK(a.items == std::vector<std::string>{R"({"a": 1})", R"({"b": [2]})"});
  CHECK(a.items_total == 2);
  CHECK(a.links == std::vector<std::string>{"x", "/y"});
  CHECK_FALSE(a.error);

  a = read_plugin_answer(R"({"id": 6})");
  CHECK(a.problem.empty());
  CHECK(a.items.empty());

  a = read_plugin_answer(R"({"id": 7, "error": "why", "items": [{"a": 1}]})");
  CHECK(a.error == std::string{"why"});
  CHECK(a.items.empty());
}

TEST_CASE("an answer that is wrong says why, with its id when it has one", "[plugin]") {
  CHECK_FALSE(read_plugin_answer("this is not json").id);
  CHECK(read_plugin_answer("this is not json").problem == "not a JSON line");
  CHECK(read_plugin_answer("[1, 2]").problem == "not a JSON object");
  CHECK_FALSE(read_plugin_answer(R"({"items": []})").id);
  CHECK_FALSE(read_plugin_answer(R"({"id": -1})").id);
  CHECK_FALSE(read_plugin_answer(R"({"id": "3"})").id);
  CHECK_FALSE(read_plugin_answer(R"({"id": 2.5})").id);
  // Invalid UTF-8 is not JSON, but the line says whose answer it is.
  const auto invalid = read_plugin_answer("{\"id\": 3, \"items\": [\"\xff\"]}");
  CHECK(invalid.id == 3u);
  CHECK(invalid.problem == "not a JSON line");

  auto a = read_plugin_answer(R"({"id": 3, "items": [1, 2]})");
  CHECK(a.id == 3u);
  CHECK(a.problem == "an item is not a JSON object");
  CHECK(a.items.empty());
  a = read_plugin_answer(R"({"id": 3, "items": {"a": 1}})");
  CHECK(a.problem == "\"items\" is not an array");
  a = read_plugin_answer(R"({"id": 3, "items": [{"a": 1}], "links": [3]})");
  CHECK(a.problem == "a link is not a string");
  CHECK(a.items.empty());
  a = read_plugin_answer(R"({"id": 3, "error": 5})");
  CHECK(a.problem == "\"error\" is not a string");
  // A protocol key twice is ambiguous (which id? which items?): refused,
  // blamed on the id the line starts with, as a line cut short would be.
  a = read_plugin_answer(R"({"id": 1, "id": 2, "items": [{"a": 1}]})");
  CHECK(a.problem == "\"id\" given twice");
  CHECK(a.id == 1u);
  CHECK(a.items.empty());
  a = read_plugin_answer(R"({"id": 4, "links": ["/a"], "links": ["/b"]})");
  CHECK(a.problem == "\"links\" given twice");
  CHECK(a.id == 4u);
  CHECK(a.links.empty());
  // Inside an item a key may repeat: the item is the plugin's, kept as written.
  CHECK(read_plugin_answer(R"({"id": 5, "items": [{"id": 1, "id": 2}]})").problem.empty());
}

TEST_CASE("the leading id of a line cut short", "[plugin]") {
  CHECK(leading_answer_id(R"({"id": 17, "items": [)") == 17u);
  CHECK(leading_answer_id(R"(  {  "id"  :  42})") == 42u);
  CHECK(leading_answer_id(R"({"id":9,)") == 9u);
  CHECK_FALSE(leading_answer_id(R"({"items": [], "id": 17})"));
  CHECK_FALSE(leading_answer_id(R"({"id": 17)"));  // the number may go on
  CHECK_FALSE(leading_answer_id(R"({"id": x})"));
  CHECK_FALSE(leading_answer_id(R"({"id": 12345678901234567890123, )"));
  CHECK_FALSE(leading_answer_id(""));
}

TEST_CASE("plugin text is bounded, valid UTF-8", "[plugin]") {
  CHECK(bounded_plugin_text("short", 10) == "short");
  CHECK(bounded_plugin_text("0123456789abc", 10) == "0123456789...");
  // A cut inside a two-byte character drops the whole character.
  CHECK(bounded_plugin_text("abc\xc3\xa9", 4) == "abc...");
  CHECK(bounded_plugin_text("a\xff", 10) == "a\xef\xbf\xbd");
}

}  // namespace
}  // namespace actorcrawl

namespace actorcrawl {

TEST_CASE("items are kept as the plugin wrote them: key order, duplicate keys, numbers past 64 bits", "[plugin]") {
  const auto a = read_plugin_answer(
    R"({"id": 1, "items": [{"zeta": 1, "alpha": 2}, {"k": 1, "k": 2}, {"big": 123456789012345678901234567890}]})");
  REQUIRE(a.problem.empty());
  CHECK(a.items == std::vector<std::string>{R"({"zeta": 1, "alpha": 2})", R"({"k": 1, "k": 2})",
                                            R"({"big": 123456789012345678901234567890})"});
  // A number no double holds is refused by the parser: that page's answer
  // is bad, the plugin's stream goes on.
  const auto huge = read_plugin_answer(R"({"id": 2, "items": [{"x": 1e400}]})");
  CHECK(huge.id == 2u);
  CHECK(huge.problem == "not a JSON line");
}

TEST_CASE("an answer nested 60,000 deep is a bad answer of its page, not a crash", "[plugin]") {
  const std::string deep = R"({"id": 9, "items": [{"x": )" + std::string(60000, '[') + std::string(60000, ']') + "}]}";
  const auto a = read_plugin_answer(deep);
  CHECK(a.id == 9u);
  CHECK(a.problem == "a JSON line nested deeper than 64 levels");
  CHECK(a.items.empty());
  // Without a leading id it is no answer at all.
  CHECK_FALSE(read_plugin_answer(std::string(60000, '[') + std::string(60000, ']')).id);
}

TEST_CASE("an answer's items and links are capped: the rest counted, links past the cap never read", "[plugin]") {
  std::string line = R"({"id": 4, "items": [)";
  for (int i = 0; i < 5000; ++i) line += (i ? "," : "") + std::string("{}");
  line += R"(], "links": [)";
  for (int i = 0; i < 3000; ++i) line += (i ? "," : "") + std::string("\"/l") + std::to_string(i) + "\"";
  line += "]}";
  const auto a = read_plugin_answer(line, 10, 20);
  REQUIRE(a.problem.empty());
  CHECK(a.items.size() == 10);
  CHECK(a.items_total == 5000);
  CHECK(a.links.size() == 20);
  CHECK(a.links.back() == "/l19");
  CHECK(a.links_total == 3000);
}

}  // namespace actorcrawl
