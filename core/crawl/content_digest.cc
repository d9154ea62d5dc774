#include "core/crawl/content_digest.h"

#include <openssl/sha.h>

#include "core/encoding/base32.h"

namespace actorcrawl {
std::string content_digest(std::string_view body) {
  unsigned char digest[SHA_DIGEST_LENGTH];
  SHA1(reinterpret_cast<const unsigned char*>(body.data()), body.size(), digest);
  return "sha1:" + base32(std::string_view{reinterpret_cast<const char*>(digest), sizeof digest});
}

}  // namespace actorcrawl
