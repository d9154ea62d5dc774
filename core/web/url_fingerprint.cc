#include "core/web/url_fingerprint.h"

namespace actorcrawl {

// FNV-1a over the bytes, then the murmur3 finalizer to spread the low-entropy
// tails that URLs sharing a long prefix produce. Fixed forever: fingerprints
// are recomputed from stored URLs on resume.
std::uint64_t url_fingerprint(std::string_view s) {
  std::uint64_t h = 0xcbf29ce484222325ULL;
  for (unsigned char c : s) {
    h ^= c;
    h *= 0x100000001b3ULL;
  }
  h ^= h >> 33;
  h *= 0xff51afd7ed558ccdULL;
  h ^= h >> 33;
  h *= 0xc4ceb93fe53ef94fULL;
  h ^= h >> 33;
  return h;
}

}  // namespace actorcrawl
