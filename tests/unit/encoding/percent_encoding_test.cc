#include "core/encoding/percent_encoding.h"

#include <catch2/catch.hpp>

#include <atomic>
#include <cstdlib>
#include <new>
#include <string>

using namespace actorcrawl;

// Every byte this test binary allocates, counted, so the linearity test
// compares amounts of work (bytes allocated) and never a clock.
namespace {
std::atomic<std::size_t> allocated_bytes{0};
}  // namespace

void* operator new(std::size_t size) {
  allocated_bytes += size;
  if (void* p = std::malloc(size == 0 ? 1 : size))
    return p;
  throw std::bad_alloc();
}
void operator delete(void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }

namespace {

bool never_raw(char) { return false; }
bool alnum_raw(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9'); }
// As the real callers' sets do, keeps every unreserved character raw.
bool path_raw(char c) { return is_unreserved(c) || c == '/'; }

template <class Work>
std::size_t bytes_allocated_by(Work&& work) {
  const std::size_t before = allocated_bytes.load();
  work();
  return allocated_bytes.load() - before;
}

}  // namespace

TEST_CASE("hex digits: one table, both cases", "[percent_encoding]") {
  const std::string upper = "0123456789ABCDEF";
  const std::string lower = "0123456789abcdef";
  for (unsigned n = 0; n < 16; ++n) {
    CHECK(upper_hex_digit(n) == upper[n]);
    CHECK(lower_hex_digit(n) == lower[n]);
    CHECK(hex_digit_value(upper[n]) == static_cast<int>(n));
    CHECK(hex_digit_value(lower[n]) == static_cast<int>(n));
  }
  for (int c = 0; c < 256; ++c) {
    const char ch = static_cast<char>(c);
    const bool expected = (ch >= '0' && ch <= '9') || (ch >= 'a' && ch <= 'f') || (ch >= 'A' && ch <= 'F');
    CHECK(is_hex_digit(ch) == expected);
  }
}

TEST_CASE("append_percent_encoded: uppercase triplets of any byte", "[percent_encoding]") {
  std::string out;
  for (int b : {0x00, 0x0A, 0x20, 0x7F, 0x80, 0xC3, 0xFF})
    append_percent_encoded(out, static_cast<unsigned char>(b));
  CHECK(out == "%00%0A%20%7F%80%C3%FF");
}

TEST_CASE("is_unreserved: RFC 3986's set and nothing else", "[percent_encoding]") {
  std::string set;
  for (int c = 0; c < 256; ++c)
    if (is_unreserved(static_cast<char>(c)))
      set += static_cast<char>(c);
  CHECK(set == "-.0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ_abcdefghijklmnopqrstuvwxyz~");
}

TEST_CASE("percent_decode: triplets decoded, everything else kept", "[percent_encoding]") {
  CHECK(percent_decode("") == "");
  CHECK(percent_decode("a%41b") == "aAb");
  CHECK(percent_decode("%e2%82%ac") == "\xE2\x82\xAC");
  CHECK(percent_decode("%") == "%");
  CHECK(percent_decode("%4") == "%4");
  CHECK(percent_decode("%4g%41") == "%4gA");
  CHECK(percent_decode("100%") == "100%");
  CHECK(percent_decode("%%41") == "%A");
  CHECK(percent_decode(std::string("%00", 3)) == std::string(1, '\0'));
}

TEST_CASE("canonical_percent_encoding: one form for equivalent text", "[percent_encoding]") {
  // Unreserved triplets decoded, other triplets uppercased.
  CHECK(canonical_percent_encoding("%7e%41%2f%2F", alnum_raw) == "~A%2F%2F");
  // Bytes not raw encoded, a stray '%' included.
  CHECK(canonical_percent_encoding("a b%zz", alnum_raw) == "a%20b%25zz");
  CHECK(canonical_percent_encoding("\xC3\xA9", alnum_raw) == "%C3%A9");
  CHECK(canonical_percent_encoding("ab", never_raw) == "%61%62");
  // A triplet ending the text still counts; one cut short does not.
  CHECK(canonical_percent_encoding("x%41", alnum_raw) == "xA");
  CHECK(canonical_percent_encoding("x%4", alnum_raw) == "x%254");
  // With the unreserved characters kept raw, canonical text is its own
  // canonical form.
  const std::string once = canonical_percent_encoding("%c3%a9 ~%7E/%2f|", path_raw);
  CHECK(once == "%C3%A9%20~~/%2F%7C");
  CHECK(canonical_percent_encoding(once, path_raw) == once);
}

TEST_CASE("append_canonical_percent: consumes a triplet or one byte", "[percent_encoding]") {
  std::string out;
  CHECK(append_canonical_percent(out, "%41x", 0, alnum_raw) == 3);
  CHECK(append_canonical_percent(out, "%41x", 3, alnum_raw) == 1);
  CHECK(append_canonical_percent(out, "%4", 0, alnum_raw) == 1);
  CHECK(out == "Ax%25");
}

TEST_CASE("percent-encoding is linear in its input", "[percent_encoding][linearity]") {
  // Hostile shapes: all triplets, stray '%'s, near-triplets, bytes that all
  // need encoding. The work is measured as bytes allocated (the output and
  // any copies of it): four times the input may cost about four times as
  // much; text rebuilt or copied per byte would cost sixteen.
  const std::string pieces[] = {"%41", "%", "%4", "%zz", "\xFF", "%2f"};
  for (const std::string& piece : pieces) {
    std::string small, large;
    for (int i = 0; i < 4096; ++i)
      small += piece;
    for (int i = 0; i < 4 * 4096; ++i)
      large += piece;
    std::size_t sink = 0;
    const auto decode_small = bytes_allocated_by([&] { sink += percent_decode(small).size(); });
    const auto decode_large = bytes_allocated_by([&] { sink += percent_decode(large).size(); });
    const auto canonical_small =
      bytes_allocated_by([&] { sink += canonical_percent_encoding(small, alnum_raw).size(); });
    const auto canonical_large =
      bytes_allocated_by([&] { sink += canonical_percent_encoding(large, alnum_raw).size(); });
    INFO("piece '" << piece << "'");
    CHECK(sink > 0);
    REQUIRE(decode_small > 0);
    REQUIRE(canonical_small > 0);
    CHECK(static_cast<double>(decode_large) / static_cast<double>(decode_small) < 6.0);
    CHECK(static_cast<double>(canonical_large) / static_cast<double>(canonical_small) < 6.0);
  }
}
