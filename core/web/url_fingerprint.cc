#include "core/web/url_fingerprint.h"

#include <sys/random.h>

#include <cerrno>
#include <cstring>
#include <random>

namespace actorcrawl {

namespace {

std::uint64_t load_le64(const unsigned char* p) {
  std::uint64_t v;
  std::memcpy(&v, p, sizeof v);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
  v = __builtin_bswap64(v);
#endif
  return v;
}

constexpr std::uint64_t rotl(std::uint64_t x, int b) { return (x << b) | (x >> (64 - b)); }

struct SipState {
  std::uint64_t v0, v1, v2, v3;

  void round() {
    v0 += v1;
    v1 = rotl(v1, 13);
    v1 ^= v0;
    v0 = rotl(v0, 32);
    v2 += v3;
    v3 = rotl(v3, 16);
    v3 ^= v2;
    v0 += v3;
    v3 = rotl(v3, 21);
    v3 ^= v0;
    v2 += v1;
    v1 = rotl(v1, 17);
    v1 ^= v2;
    v2 = rotl(v2, 32);
  }

  // Two compression rounds per 8-byte word: the "2" of SipHash-2-4.
  void absorb(std::uint64_t m) {
    v3 ^= m;
    round();
    round();
    v0 ^= m;
  }
};

FingerprintKey draw_key() {
  unsigned char bytes[16];
  std::size_t got = 0;
  while (got < sizeof bytes) {
    const ssize_t n = ::getrandom(bytes + got, sizeof bytes - got, 0);
    if (n > 0)
      got += static_cast<std::size_t>(n);
    else if (n < 0 && errno != EINTR)
      break;
  }
  if (got < sizeof bytes) {
    // No getrandom (a kernel before 3.17): random_device reads /dev/urandom.
    std::random_device device;
    for (auto& b : bytes)
      b = static_cast<unsigned char>(device());
  }
  return FingerprintKey{load_le64(bytes), load_le64(bytes + 8)};
}

}  // namespace

std::uint64_t url_fingerprint(std::string_view s, const FingerprintKey& key) {
  SipState st{key.k0 ^ 0x736f6d6570736575ULL, key.k1 ^ 0x646f72616e646f6dULL, key.k0 ^ 0x6c7967656e657261ULL,
              key.k1 ^ 0x7465646279746573ULL};
  const auto* p = reinterpret_cast<const unsigned char*>(s.data());
  const std::size_t n = s.size();
  const unsigned char* const end = p + (n & ~std::size_t{7});
  for (; p != end; p += 8)
    st.absorb(load_le64(p));
  // The last word: the 0-7 bytes left, and the length's low byte on top.
  std::uint64_t last = static_cast<std::uint64_t>(n & 0xff) << 56;
  switch (n & 7) {
    case 7: last |= static_cast<std::uint64_t>(p[6]) << 48; [[fallthrough]];
    case 6: last |= static_cast<std::uint64_t>(p[5]) << 40; [[fallthrough]];
    case 5: last |= static_cast<std::uint64_t>(p[4]) << 32; [[fallthrough]];
    case 4: last |= static_cast<std::uint64_t>(p[3]) << 24; [[fallthrough]];
    case 3: last |= static_cast<std::uint64_t>(p[2]) << 16; [[fallthrough]];
    case 2: last |= static_cast<std::uint64_t>(p[1]) << 8; [[fallthrough]];
    case 1: last |= static_cast<std::uint64_t>(p[0]); break;
    case 0: break;
  }
  st.absorb(last);
  // Four finalization rounds: the "4".
  st.v2 ^= 0xff;
  st.round();
  st.round();
  st.round();
  st.round();
  return st.v0 ^ st.v1 ^ st.v2 ^ st.v3;
}

const FingerprintKey& process_fingerprint_key() {
  static const FingerprintKey key = draw_key();
  return key;
}

std::uint64_t url_fingerprint(std::string_view s) { return url_fingerprint(s, process_fingerprint_key()); }

// FNV-1a over the bytes, then the murmur3 finalizer to spread the
// low-entropy tails that URLs sharing a long prefix produce. Fixed forever:
// saved pages are named by it.
std::uint64_t stable_url_hash(std::string_view s) {
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
