#include "core/web/json_text.h"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>
#include <string>

using namespace actorcrawl;

TEST_CASE("json text: escapes as JSON says, bytes that are not UTF-8 as U+FFFD, never an exception",
          "[json_text]") {
  std::string out;
  append_json_string(out, std::string("a\"b\\c\n\t\x01\xC3\xA9", 10));
  CHECK(out == "\"a\\\"b\\\\c\\n\\t\\u0001\xC3\xA9\"");
  // A lone continuation byte, an overlong form, a surrogate, a cut sequence.
  for (const std::string& bad : {std::string("x\x80y"), std::string("\xC0\xAF"), std::string("\xED\xA0\x80"),
                                std::string("\xE2\x82")}) {
    std::string s;
    append_json_string(s, bad);
    CHECK(s.find("\xEF\xBF\xBD") != std::string::npos);
    CHECK_NOTHROW(nlohmann::json::parse(s));
  }
  // The two agree: a hand-built string and a dumped value read back the same.
  const std::string title = std::string("T\xC3\xADtulo \xFF end", 13);
  std::string hand;
  append_json_string(hand, title);
  const nlohmann::json value = title;
  CHECK(nlohmann::json::parse(hand) == nlohmann::json::parse(json_text(value)));
  CHECK(json_text(nlohmann::ordered_json{{"b", 1}, {"a", 2}}) == "{\"b\":1,\"a\":2}");
  CHECK(json_text(nlohmann::json{{"a", 1}}, 2) == "{\n  \"a\": 1\n}");
}

// The plain runs are found 8 bytes at a time: every byte value, at every
// place of a word and past the last whole word, is escaped as it is alone.
TEST_CASE("json text: a byte is escaped the same wherever it falls in an 8-byte word", "[json_text]") {
  const std::string plain = "abcdefghijklmnopqrstu";  // two words and a tail
  for (int b = 0; b < 256; ++b) {
    const char byte = static_cast<char>(b);
    std::string alone;
    append_json_string(alone, std::string(1, byte));
    const std::string escaped = alone.substr(1, alone.size() - 2);
    for (std::size_t at = 0; at < plain.size(); ++at) {
      std::string text = plain;
      text[at] = byte;
      std::string out;
      append_json_string(out, text);
      INFO("byte " << b << " at " << at);
      CHECK(out == "\"" + plain.substr(0, at) + escaped + plain.substr(at + 1) + "\"");
    }
  }
  // Each kind of byte that stops a word, next to the word's edges.
  std::string out;
  append_json_string(out, std::string("1234567\"89abcdef\\\x1f" "12345678\x7f", 27));
  CHECK(out == "\"1234567\\\"89abcdef\\\\\\u001f12345678\x7f\"");
}
