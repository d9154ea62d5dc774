#include "core/crawl/content_digest.h"

#include <catch2/catch.hpp>
#include <string>

using namespace actorcrawl;

TEST_CASE("content digest: SHA-1 in WARC's labelled base32 form", "[content_digest]") {
  // The values any WARC reader computes for these payloads (and
  // core/store's warc_sha1 gives): one digest serves both.
  CHECK(content_digest("") == "sha1:3I42H3S6NNFQ2MSVX7XZKYAYSCX5QBYJ");
  CHECK(content_digest("abc") == "sha1:VGMT4NSHA2AWVOR6EVYXQUGCNSONBWE5");
  CHECK(content_digest("<html>one</html>") == "sha1:3AWFGDTDX4O6YD6MBFOZMKJU6Y6572EZ");
  CHECK(content_digest("abc").size() == 5 + 32);
}

TEST_CASE("content digest: the same bytes digest the same, any other bytes not", "[content_digest]") {
  std::string body(100000, 'a');
  for (std::size_t i = 0; i < body.size(); ++i)
    body[i] = static_cast<char>('a' + (i * 31 + i / 7) % 26);
  const std::string digest = content_digest(body);
  CHECK(content_digest(std::string{body}) == digest);
  std::string one_byte = body;
  one_byte[54321] ^= 1;
  CHECK(content_digest(one_byte) != digest);
  CHECK(content_digest(body.substr(0, body.size() - 1)) != digest);
  // Bytes, not text: a NUL is part of the body.
  CHECK(content_digest(std::string{"a\0b", 3}) != content_digest("ab"));
}
