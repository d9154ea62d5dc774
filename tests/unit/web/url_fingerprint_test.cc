#include "core/web/url_fingerprint.h"

#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <cstdint>
#include <string>
#include <vector>

namespace actorcrawl {

namespace {

// The key of the SipHash paper's test vectors: the bytes 00 01 ... 0f.
constexpr FingerprintKey kReferenceKey{0x0706050403020100ULL, 0x0f0e0d0c0b0a0908ULL};

// The reference implementation's vectors_sip64 (vectors.h of the SipHash
// authors' repository), each read as a little-endian 64-bit value: the tag
// of the message 00 01 ... (n-1) under kReferenceKey, for n = 0 to 63.
// Entry 15 is the example worked through in the paper's appendix.
constexpr std::uint64_t kSipHash24Vectors[64] = {
    0x726fdb47dd0e0e31ull, 0x74f839c593dc67fdull, 0x0d6c8009d9a94f5aull, 0x85676696d7fb7e2dull,
    0xcf2794e0277187b7ull, 0x18765564cd99a68dull, 0xcbc9466e58fee3ceull, 0xab0200f58b01d137ull,
    0x93f5f5799a932462ull, 0x9e0082df0ba9e4b0ull, 0x7a5dbbc594ddb9f3ull, 0xf4b32f46226bada7ull,
    0x751e8fbc860ee5fbull, 0x14ea5627c0843d90ull, 0xf723ca908e7af2eeull, 0xa129ca6149be45e5ull,
    0x3f2acc7f57c29bdbull, 0x699ae9f52cbe4794ull, 0x4bc1b3f0968dd39cull, 0xbb6dc91da77961bdull,
    0xbed65cf21aa2ee98ull, 0xd0f2cbb02e3b67c7ull, 0x93536795e3a33e88ull, 0xa80c038ccd5ccec8ull,
    0xb8ad50c6f649af94ull, 0xbce192de8a85b8eaull, 0x17d835b85bbb15f3ull, 0x2f2e6163076bcfadull,
    0xde4daaaca71dc9a5ull, 0xa6a2506687956571ull, 0xad87a3535c49ef28ull, 0x32d892fad841c342ull,
    0x7127512f72f27cceull, 0xa7f32346f95978e3ull, 0x12e0b01abb051238ull, 0x15e034d40fa197aeull,
    0x314dffbe0815a3b4ull, 0x027990f029623981ull, 0xcadcd4e59ef40c4dull, 0x9abfd8766a33735cull,
    0x0e3ea96b5304a7d0ull, 0xad0c42d6fc585992ull, 0x187306c89bc215a9ull, 0xd4a60abcf3792b95ull,
    0xf935451de4f21df2ull, 0xa9538f0419755787ull, 0xdb9acddff56ca510ull, 0xd06c98cd5c0975ebull,
    0xe612a3cb9ecba951ull, 0xc766e62cfcadaf96ull, 0xee64435a9752fe72ull, 0xa192d576b245165aull,
    0x0a8787bf8ecb74b2ull, 0x81b3e73d20b49b6full, 0x7fa8220ba3b2eceaull, 0x245731c13ca42499ull,
    0xb78dbfaf3a8d83bdull, 0xea1ad565322a1a0bull, 0x60e61c23a3795013ull, 0x6606d7e446282b93ull,
    0x6ca4ecb15c5f91e1ull, 0x9f626da15c9625f3ull, 0xe51b38608ef25f57ull, 0x958a324ceb064572ull,
};

// A fixed key for the tests below, so their values never depend on the run.
constexpr FingerprintKey kTestKey{0x243f6a8885a308d3ULL, 0x13198a2e03707344ULL};

constexpr const char* kChildUrl = "http://example.com/";

// The fingerprint of kChildUrl in a new process (this test binary run
// again, for the hidden test case below): a key of its own. A fork alone
// would not do, it copies this process's key with the rest of its memory.
std::uint64_t fingerprint_in_new_process() {
  std::string dir = (std::filesystem::temp_directory_path() / "actorcrawl_fingerprint_XXXXXX").string();
  REQUIRE(::mkdtemp(dir.data()) != nullptr);
  const std::string out = dir + "/fp";
  const pid_t pid = ::fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    ::setenv("ACTORCRAWL_FINGERPRINT_OUT", out.c_str(), 1);
    ::freopen("/dev/null", "w", stdout);
    ::execl("/proc/self/exe", "unit_web", "[fingerprint_child]", static_cast<char*>(nullptr));
    ::_exit(127);
  }
  int status = 0;
  ::waitpid(pid, &status, 0);
  std::uint64_t fp = 0;
  std::ifstream(out) >> fp;
  std::remove(out.c_str());
  ::rmdir(dir.c_str());
  REQUIRE(WIFEXITED(status));
  REQUIRE(WEXITSTATUS(status) == 0);
  return fp;
}

}  // namespace

TEST_CASE("url_fingerprint is SipHash-2-4: the reference vectors", "[url_fingerprint]") {
  std::string message;
  for (std::size_t n = 0; n < 64; ++n) {
    INFO("message of " << n << " bytes");
    CHECK(url_fingerprint(message, kReferenceKey) == kSipHash24Vectors[n]);
    message.push_back(static_cast<char>(n));
  }
}

TEST_CASE("url_fingerprint: the key decides the value", "[url_fingerprint]") {
  const std::string url = "https://example.com/a?b=1";
  CHECK(url_fingerprint(url, kTestKey) == url_fingerprint(std::string_view(url), kTestKey));
  CHECK(url_fingerprint(url, kTestKey) != url_fingerprint(url, kReferenceKey));
  CHECK(url_fingerprint(url, kTestKey) != url_fingerprint(url, FingerprintKey{kTestKey.k0, kTestKey.k1 ^ 1}));
  // Only the bytes of the view count, not what follows them in memory.
  const std::string longer = "https://example.com/ab";
  CHECK(url_fingerprint(std::string_view(longer).substr(0, longer.size() - 1), kTestKey) ==
        url_fingerprint("https://example.com/a", kTestKey));
}

TEST_CASE("url_fingerprint: one key for the whole process, another in the next", "[url_fingerprint]") {
  const FingerprintKey& key = process_fingerprint_key();
  CHECK(&key == &process_fingerprint_key());
  // 2^-128 that getrandom gave all zeros; zeros mean no key was drawn.
  CHECK((key.k0 | key.k1) != 0);
  CHECK(url_fingerprint(kChildUrl) == url_fingerprint(kChildUrl, key));
  CHECK(url_fingerprint(kChildUrl) == url_fingerprint(kChildUrl));
  // Another process draws its own key (the same value by chance: 2^-64).
  const std::uint64_t other = fingerprint_in_new_process();
  CHECK(other != 0);
  CHECK(other != url_fingerprint(kChildUrl));
}

// Run only by the test above, in a process of its own.
TEST_CASE("url_fingerprint: (child process) writes its fingerprint of a URL", "[.][fingerprint_child]") {
  const char* out = std::getenv("ACTORCRAWL_FINGERPRINT_OUT");
  REQUIRE(out != nullptr);
  std::ofstream(out) << url_fingerprint(kChildUrl);
}

TEST_CASE("url_fingerprint: near-identical URLs differ", "[url_fingerprint]") {
  auto fp = [](std::string_view url) { return url_fingerprint(url, kTestKey); };
  CHECK(fp("https://example.com/a") != fp("https://example.com/b"));
  CHECK(fp("https://example.com/a") != fp("https://example.com/a/"));
  CHECK(fp("http://example.com/") != fp("https://example.com/"));
  CHECK(fp("https://example.com/?p=10") != fp("https://example.com/?p=01"));
  // A trailing NUL is a byte like any other (the length is hashed in).
  CHECK(fp(std::string_view("https://example.com/a\0", 22)) != fp("https://example.com/a"));
}

TEST_CASE("url_fingerprint: no collisions among 200000 similar URLs", "[url_fingerprint]") {
  std::vector<std::uint64_t> fingerprints;
  fingerprints.reserve(200000);
  for (int i = 0; i < 100000; ++i) {
    fingerprints.push_back(url_fingerprint("https://example.com/page?id=" + std::to_string(i), kTestKey));
    fingerprints.push_back(url_fingerprint("https://www.example.org/" + std::to_string(i) + "/", kTestKey));
  }
  std::sort(fingerprints.begin(), fingerprints.end());
  CHECK(std::adjacent_find(fingerprints.begin(), fingerprints.end()) == fingerprints.end());
}

TEST_CASE("stable_url_hash: pinned values, for saved pages' file names", "[url_fingerprint]") {
  CHECK(stable_url_hash("") == 0x5d90ed8dc82a2988ULL);
  CHECK(stable_url_hash("http://example.com/") == 0xff96d5104f7873c6ULL);
  CHECK(stable_url_hash("https://example.com/") == 0x70c8c52c5884d9d9ULL);
  CHECK(stable_url_hash("https://example.com/a?b=1") == 0x09fb75d64f345a4eULL);
  CHECK(stable_url_hash("https://example.com/a?b=2") == 0x49c30a4468915176ULL);
}

}  // namespace actorcrawl
