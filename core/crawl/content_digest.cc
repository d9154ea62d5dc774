#include "core/crawl/content_digest.h"

#include <openssl/sha.h>

#include <cstdint>

namespace actorcrawl {
namespace {

// RFC 4648 base32 with padding, as WARC spells SHA-1 digests.
std::string base32(const unsigned char* bytes, std::size_t size) {
  static constexpr char kAlphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";
  std::string out;
  out.reserve((size + 4) / 5 * 8);
  std::uint64_t buffer = 0;
  int bits = 0;
  for (std::size_t i = 0; i < size; ++i) {
    buffer = (buffer << 8) | bytes[i];
    bits += 8;
    while (bits >= 5) {
      out.push_back(kAlphabet[(buffer >> (bits - 5)) & 31]);
      bits -= 5;
    }
  }
  if (bits > 0)
    out.push_back(kAlphabet[(buffer << (5 - bits)) & 31]);
  while (out.size() % 8 != 0)
    out.push_back('=');
  return out;
}

}  // namespace

std::string content_digest(std::string_view body) {
  unsigned char digest[SHA_DIGEST_LENGTH];
  SHA1(reinterpret_cast<const unsigned char*>(body.data()), body.size(), digest);
  return "sha1:" + base32(digest, sizeof digest);
}

}  // namespace actorcrawl
