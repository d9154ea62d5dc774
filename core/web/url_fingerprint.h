// The 64-bit fingerprint of a normalized URL that the seen-set keeps (8
// bytes a URL instead of the string): SipHash-2-4 under a 128-bit key drawn
// once per process from the kernel (getrandom).
//
// Keyed, because an unkeyed hash (the FNV-1a used before) can be computed
// by anyone: a page could carry a URL crafted to have the fingerprint of a
// chosen one, and the Frontier would take the chosen URL as seen and never
// crawl it. Under a secret key no collision can be aimed; what is left is
// chance, ~3e-6 for any collision among 10 million URLs (n^2 / 2^65).
// 64 bits and not an unkeyed 128: the seen-set is the one structure that
// grows with every URL, and 16 bytes a URL would double it
// (docs/performance.md); an unkeyed hash of any width is still open to
// whoever searches for collisions offline, and a keyed 64-bit one is not.
//
// The key changes with every process, so fingerprints are never stored or
// sent: the seen-set is rebuilt from the frontier table's URLs at every
// resume (CrawlStore::load_resume_state, run by the StorageActor of the
// process whose Frontier uses it), and the trap guard's sets from URLs too.
#pragma once

#include <cstdint>
#include <string_view>

namespace actorcrawl {

struct FingerprintKey {
  std::uint64_t k0 = 0;  // the key's bytes 0-7, little-endian
  std::uint64_t k1 = 0;  // bytes 8-15
};

// Under this process's key.
std::uint64_t url_fingerprint(std::string_view normalized_url);
// SipHash-2-4 of the bytes under `key`, exactly as the SipHash paper
// defines it (its test vectors hold); for tests, which need fixed values.
std::uint64_t url_fingerprint(std::string_view normalized_url, const FingerprintKey& key);
// This process's key: 128 bits from getrandom(2), drawn at the first call.
// A forked child keeps it with the rest of its parent's memory; a process
// started anew draws its own.
const FingerprintKey& process_fingerprint_key();

// A fixed, unkeyed 64-bit hash (FNV-1a with the murmur3 finalizer), for
// names that must be the same in every process: a saved page's file name
// (save_pages). Anyone can compute it, and so craft two URLs with one
// value: never use it to decide whether a URL was seen.
std::uint64_t stable_url_hash(std::string_view url);

}  // namespace actorcrawl
