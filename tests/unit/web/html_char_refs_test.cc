#include "core/web/html_char_refs.h"

#include <catch2/catch.hpp>

#include <string>

namespace actorcrawl {
namespace {

// What decode_char_ref makes of the text after an '&': the decoded text and
// the bytes it used ("" and 0: no reference, the '&' stays).
std::pair<std::string, std::size_t> decode(std::string_view in, CharRefContext context = CharRefContext::attribute) {
  std::string out;
  const std::size_t used = decode_char_ref(in, context, out);
  return {out, used};
}

}  // namespace

TEST_CASE("char refs: named, with and without the semicolon", "[html][char_refs]") {
  CHECK(decode("amp;x") == std::pair<std::string, std::size_t>{"&", 4});
  CHECK(decode("lt;") == std::pair<std::string, std::size_t>{"<", 3});
  CHECK(decode("NotEqualTilde;") == std::pair<std::string, std::size_t>{"\xe2\x89\x82\xcc\xb8", 14});
  // Legacy names may go without ';' (the longest one that matches)...
  CHECK(decode("copy 2020") == std::pair<std::string, std::size_t>{"\xc2\xa9", 4});
  CHECK(decode("notit;", CharRefContext::text) == std::pair<std::string, std::size_t>{"\xc2\xac", 3});
  // ...but not in an attribute before '=' or a letter or digit, where they
  // are a query string's parameters.
  CHECK(decode("copy=2").second == 0);
  CHECK(decode("ampx").second == 0);
  CHECK(decode("copyx", CharRefContext::text) == std::pair<std::string, std::size_t>{"\xc2\xa9", 4});
  // Others need the ';'.
  CHECK(decode("hellip").second == 0);
  CHECK(decode("nosuchname;").second == 0);
  CHECK(decode(" amp;").second == 0);
  CHECK(decode("").second == 0);
}

TEST_CASE("char refs: numeric, and the numbers browsers replace", "[html][char_refs]") {
  CHECK(decode("#38;") == std::pair<std::string, std::size_t>{"&", 4});
  CHECK(decode("#x26;") == std::pair<std::string, std::size_t>{"&", 5});
  CHECK(decode("#X26") == std::pair<std::string, std::size_t>{"&", 4});
  CHECK(decode("#x1F600;").first == "\xf0\x9f\x98\x80");
  // Windows-1252 for the C1 controls, U+FFFD for NUL, surrogates and what
  // is past U+10FFFF (however many digits).
  CHECK(decode("#128;").first == "\xe2\x82\xac");
  CHECK(decode("#x9F;").first == "\xc5\xb8");
  CHECK(decode("#x81;").first == "\xc2\x81");
  CHECK(decode("#0;").first == "\xef\xbf\xbd");
  CHECK(decode("#xD800;").first == "\xef\xbf\xbd");
  CHECK(decode("#x110000;").first == "\xef\xbf\xbd");
  CHECK(decode("#99999999999999999999;") == std::pair<std::string, std::size_t>{"\xef\xbf\xbd", 22});
  // No digits: no reference.
  CHECK(decode("#;").second == 0);
  CHECK(decode("#x;").second == 0);
  CHECK(decode("#xyz").second == 0);
}

}  // namespace actorcrawl
