#include <catch2/catch.hpp>

#include <random>

#include "core/trace/trace_record.h"

using namespace actorcrawl;
using nlohmann::json;

namespace {

TraceRecord full_record() {
  TraceRecord r;
  r.seq = 7;
  r.mono_us = 123456;
  r.wall_us = 1795381200000000;
  r.node = "n1";
  r.from = "fetch_worker/2";
  r.from_node = "n2";
  r.to = "processor";
  r.type = "fetch_result";
  r.urls = {"http://a.test/x", "http://a.test/y"};
  r.fields = {{"status", 200}, {"bytes", 16384}};
  r.request_id = 41;
  r.reply_to = 40;
  r.mailbox_us = 250;
  return r;
}

TraceRecord minimal_record() {
  TraceRecord r;
  r.seq = 1;
  r.mono_us = 5;
  r.wall_us = 6;
  r.node = "n1";
  r.to = "frontier";
  r.type = "crawl_seeds";
  return r;
}

// A valid line as a JSON object, to break one key at a time.
json good_object() { return json::parse(to_trace_line(full_record())); }

std::string decoded_string(const std::string& line, const char* key) { return json::parse(line).at(key).get<std::string>(); }

}  // namespace

TEST_CASE("trace line: keys in the documented order", "[trace]") {
  CHECK(to_trace_line(full_record()) ==
        R"({"seq":7,"mono_us":123456,"wall_us":1795381200000000,"node":"n1","from":"fetch_worker/2","from_node":"n2",)"
        R"("to":"processor","type":"fetch_result","url":"http://a.test/x","urls":["http://a.test/x","http://a.test/y"],)"
        R"("fields":{"bytes":16384,"status":200},"request_id":41,"reply_to":40,"mailbox_us":250})");
  std::string out;
  append_trace_line(out, minimal_record());
  CHECK(out == R"({"seq":1,"mono_us":5,"wall_us":6,"node":"n1","from":"","to":"frontier","type":"crawl_seeds"})"
               "\n");
}

TEST_CASE("trace line: round trips with optional fields present and absent", "[trace]") {
  const TraceRecord full = full_record();
  CHECK(parse_trace_line(to_trace_line(full)) == full);

  const TraceRecord minimal = minimal_record();
  const std::string line = to_trace_line(minimal);
  for (const char* absent : {"from_node", "url", "fields", "request_id", "reply_to", "mailbox_us"})
    CHECK(line.find(absent) == std::string::npos);
  const TraceRecord back = parse_trace_line(line);
  CHECK(back == minimal);
  CHECK(back.urls.empty());
  CHECK_FALSE(back.request_id);
  CHECK_FALSE(back.reply_to);
  CHECK_FALSE(back.mailbox_us);

  SECTION("one URL is written as url only") {
    TraceRecord r = minimal_record();
    r.urls = {"http://a.test/"};
    const std::string one = to_trace_line(r);
    CHECK(one.find("\"url\":\"http://a.test/\"") != std::string::npos);
    CHECK(one.find("\"urls\"") == std::string::npos);
    CHECK(parse_trace_line(one) == r);
  }
  SECTION("empty fields are left out, and read back as none") {
    TraceRecord r = minimal_record();
    r.fields = json::object();
    CHECK(to_trace_line(r).find("fields") == std::string::npos);
    CHECK(parse_trace_line(to_trace_line(r)) == r);
  }
  SECTION("fields that are not an object are kept under \"value\"") {
    TraceRecord r = minimal_record();
    r.fields = json::array({1, 2});
    const TraceRecord back2 = parse_trace_line(to_trace_line(r));
    CHECK(back2.fields == json{{"value", {1, 2}}});
  }
  SECTION("zero and the extremes of the numbers") {
    TraceRecord r = minimal_record();
    r.seq = std::numeric_limits<std::uint64_t>::max();
    r.mono_us = std::numeric_limits<std::int64_t>::min();
    r.wall_us = std::numeric_limits<std::int64_t>::max();
    r.request_id = 0;
    r.mailbox_us = -1;
    CHECK(parse_trace_line(to_trace_line(r)) == r);
  }
  SECTION("a trailing CR LF is accepted") {
    CHECK(parse_trace_line(to_trace_line(minimal) + "\r\n") == minimal);
  }
  SECTION("unknown keys are ignored") {
    json j = json::parse(line);
    j["added_later"] = {{"x", 1}};
    CHECK(parse_trace_line(j.dump()) == minimal);
  }
}

TEST_CASE("trace line: strings are escaped, control characters included", "[trace]") {
  TraceRecord r = minimal_record();
  r.from = "quote\" backslash\\ slash/";
  r.to = std::string("ctl\x01\x1f\x7f nul") + '\0' + "end";
  r.type = "tab\tnewline\nreturn\rbs\bff\f";
  r.urls = {"http://a.test/\xC3\xA9t\xC3\xA9/\xF0\x9D\x84\x9E?q=\xE2\x82\xAC"};  // é, U+1D11E, €
  r.fields = {{"note", "line\nbreak \"quoted\""}};
  const std::string line = to_trace_line(r);
  CHECK(line.find('\n') == std::string::npos);
  CHECK(line.find("\\u0001\\u001f") != std::string::npos);
  CHECK(line.find("\\u0000end") != std::string::npos);
  CHECK(line.find("tab\\tnewline\\nreturn\\rbs\\bff\\f") != std::string::npos);
  CHECK_NOTHROW(json::parse(line));
  CHECK(parse_trace_line(line) == r);
}

TEST_CASE("trace line: invalid UTF-8 becomes U+FFFD, so the line is valid JSON", "[trace]") {
  const std::string fffd = "\xEF\xBF\xBD";
  struct Case {
    std::string input, expected;
  };
  const std::vector<Case> cases = {
    {"a\xFF" "b", "a" + fffd + "b"},                          // never valid
    {"a\xC3", "a" + fffd},                                     // cut short at the end
    {"\xC3(", fffd + "("},                                     // lead byte without continuation
    {"\xC0\xAF", fffd + fffd},                                 // overlong '/'
    {"\xE0\x80\xAF", fffd + fffd + fffd},                      // overlong, 3 bytes
    {"\xED\xA0\x80", fffd + fffd + fffd},                      // a UTF-16 surrogate
    {"\xF4\x90\x80\x80", fffd + fffd + fffd + fffd},           // above U+10FFFF
    {"\x80", fffd},                                            // lone continuation
    {"ok \xE2\x82\xAC \xF4\x8F\xBF\xBF", "ok \xE2\x82\xAC \xF4\x8F\xBF\xBF"},  // valid, up to U+10FFFF
  };
  for (const auto& c : cases) {
    TraceRecord r = minimal_record();
    r.node = c.input;
    r.urls = {c.input, "x" + c.input};
    r.fields = {{"raw", c.input}};
    const std::string line = to_trace_line(r);
    INFO(line);
    REQUIRE_NOTHROW(json::parse(line));
    CHECK(decoded_string(line, "node") == c.expected);
    const TraceRecord back = parse_trace_line(line);
    CHECK(back.node == c.expected);
    CHECK(back.urls == std::vector<std::string>{c.expected, "x" + c.expected});
    CHECK(back.fields.at("raw").get<std::string>().find('\xFF') == std::string::npos);
  }
}

TEST_CASE("trace line: every malformed line is a TraceFormatError saying why", "[trace]") {
  using Catch::Contains;
  CHECK_THROWS_WITH(parse_trace_line(""), Contains("not valid JSON"));
  CHECK_THROWS_WITH(parse_trace_line("{\"seq\":1"), Contains("not valid JSON"));
  CHECK_THROWS_WITH(parse_trace_line("{} trailing"), Contains("not valid JSON"));
  CHECK_THROWS_WITH(parse_trace_line("{\"node\":\"\xFF\"}"), Contains("not valid JSON"));
  CHECK_THROWS_WITH(parse_trace_line("[1,2]"), Contains("must be a JSON object, not array"));
  CHECK_THROWS_WITH(parse_trace_line("\"text\""), Contains("must be a JSON object, not string"));
  CHECK_THROWS_AS(parse_trace_line("null"), TraceFormatError);

  for (const char* key : {"seq", "mono_us", "wall_us", "node", "from", "to", "type"}) {
    json j = good_object();
    j.erase(key);
    CHECK_THROWS_WITH(parse_trace_line(j.dump()), "missing key \"" + std::string(key) + "\"");
  }

  struct WrongType {
    const char* key;
    json value;
    const char* message;
  };
  const std::vector<WrongType> wrong = {
    {"seq", "1", "key \"seq\" must be an unsigned integer, not string"},
    {"seq", -1, "key \"seq\" must not be negative"},
    {"seq", 1.5, "key \"seq\" must be an unsigned integer, not a fraction or a number out of range"},
    {"mono_us", 2.5, "key \"mono_us\" must be an integer, not a fraction or a number out of range"},
    {"mono_us", nullptr, "key \"mono_us\" must be an integer, not null"},
    {"wall_us", std::numeric_limits<std::uint64_t>::max(), "key \"wall_us\" is out of range"},
    {"wall_us", true, "key \"wall_us\" must be an integer, not boolean"},
    {"node", 3, "key \"node\" must be a string, not number"},
    {"from", nullptr, "key \"from\" must be a string, not null"},
    {"from_node", json::array(), "key \"from_node\" must be a string, not array"},
    {"to", json::object(), "key \"to\" must be a string, not object"},
    {"type", false, "key \"type\" must be a string, not boolean"},
    {"url", 1, "key \"url\" must be a string, not number"},
    {"urls", "http://a.test/", "key \"urls\" must be an array, not string"},
    {"urls", json::array({"http://a.test/", 5}), "key \"urls\" item 1 must be a string, not number"},
    {"fields", json::array({1}), "key \"fields\" must be an object, not array"},
    {"fields", nullptr, "key \"fields\" must be an object, not null"},
    {"request_id", -5, "key \"request_id\" must not be negative"},
    {"reply_to", "40", "key \"reply_to\" must be an unsigned integer, not string"},
    {"mailbox_us", 0.25, "key \"mailbox_us\" must be an integer, not a fraction or a number out of range"},
  };
  for (const auto& w : wrong) {
    json j = good_object();
    j[w.key] = w.value;
    INFO(j.dump());
    CHECK_THROWS_AS(parse_trace_line(j.dump()), TraceFormatError);
    CHECK_THROWS_WITH(parse_trace_line(j.dump()), w.message);
  }
  // A number too large for 64 bits parses as a float: still the key's error.
  CHECK_THROWS_WITH(parse_trace_line(R"({"seq":99999999999999999999999,"mono_us":1})"),
                    Contains("key \"seq\" must be an unsigned integer"));

  SECTION("deep nesting is refused before it reaches the parser") {
    json j = good_object();
    std::string deep = j.dump();
    deep.pop_back();
    deep += ",\"extra\":" + std::string(100000, '[') + std::string(100000, ']') + "}";
    CHECK_THROWS_WITH(parse_trace_line(deep), Contains("nested deeper than 64"));
    // Brackets inside strings do not count.
    j["fields"] = {{"text", std::string(1000, '[') + "\\\"" + std::string(1000, '{')}};
    CHECK_NOTHROW(parse_trace_line(j.dump()));
  }
}

TEST_CASE("trace line: arbitrary bytes never crash the decoder", "[trace]") {
  std::mt19937 rng(20261122);
  const std::string base = to_trace_line(full_record());
  const std::string alphabet = "{}[]\":,\\0123456789-.eEtrufalsn \x01\xFF\xC3\x80";
  int decoded = 0, refused = 0;
  for (int i = 0; i < 5000; ++i) {
    std::string line = base;
    const int edits = 1 + static_cast<int>(rng() % 4);
    for (int e = 0; e < edits && !line.empty(); ++e) {
      const std::size_t at = rng() % line.size();
      switch (rng() % 3) {
        case 0: line[at] = alphabet[rng() % alphabet.size()]; break;
        case 1: line.erase(at, 1 + rng() % 8); break;
        default: line.insert(at, 1, alphabet[rng() % alphabet.size()]);
      }
    }
    try {
      parse_trace_line(line);
      ++decoded;
    } catch (const TraceFormatError&) {
      ++refused;
    }
  }
  CHECK(decoded + refused == 5000);
  CHECK(refused > 0);
}
