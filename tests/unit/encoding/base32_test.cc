// base32 as WARC digests and the crawl's page digests spell SHA-1.
#include <catch2/catch.hpp>

#include "core/encoding/base32.h"

using namespace actorcrawl;

TEST_CASE("base32 is RFC 4648's, with its test vectors", "[encoding]") {
  CHECK(base32("") == "");
  CHECK(base32("f") == "MY======");
  CHECK(base32("fo") == "MZXQ====");
  CHECK(base32("foo") == "MZXW6===");
  CHECK(base32("foob") == "MZXW6YQ=");
  CHECK(base32("fooba") == "MZXW6YTB");
  CHECK(base32("foobar") == "MZXW6YTBOI======");
}
