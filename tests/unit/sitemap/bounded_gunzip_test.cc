#include "core/sitemap/bounded_gunzip.h"

#include <catch2/catch.hpp>

#include <string>

#include "core/sitemap/sitemap_parser.h"
#include "sitemap_test_support.h"

namespace actorcrawl {
namespace {

// A body that compresses about 1,000 to 1 and that a sitemap reader would
// keep reading: a <urlset> and then spaces. (Zeros compress as well, but a
// text sitemap refuses its first NUL byte, which would not reach the cap.)
constexpr std::uint64_t kBombBytes = std::uint64_t{1} << 30;  // 1 GiB uncompressed
constexpr std::size_t kRound = 1 << 20;                        // made 1 MiB at a time

// The bomb, compressed a round at a time as the reader asks for more: the
// whole gigabyte exists only if the reader reads it all.
class LazyBomb {
 public:
  // The next compressed bytes, or "" at the end.
  std::string next() {
    std::string out;
    while (out.empty()) {  // the first round's bytes may all be held back
      if (made_ >= kBombBytes) {
        if (ended_) return {};
        ended_ = true;
        return zip_.end();
      }
      if (made_ == 0) {
        const std::string head = std::string("<urlset xmlns=\"") + testing::kSitemapNs + "\">";
        out = zip_.add(head);
        made_ += head.size();
      }
      // Flushed, or deflate would hold back some 16 MB before a block.
      out += zip_.add_flushed(spaces_);
      made_ += spaces_.size();
    }
    return out;
  }
  std::uint64_t uncompressed_made() const { return made_; }

 private:
  testing::Gzipper zip_{9};
  std::string spaces_ = std::string(kRound, ' ');
  std::uint64_t made_ = 0;
  bool ended_ = false;
};

}  // namespace

TEST_CASE("gunzip: a 1 GiB gzip bomb is refused at the cap, and reading stops there", "[sitemap][gzip][bomb]") {
  SitemapParser parser(testing::scope_of("https://example.com/sitemap.xml"));
  LazyBomb bomb;
  std::uint64_t compressed_fed = 0;
  std::size_t max_retained = 0;
  while (!parser.done()) {
    const std::string piece = bomb.next();
    if (piece.empty()) break;
    compressed_fed += piece.size();
    parser.feed(piece);
    max_retained = std::max(max_retained, parser.retained_bytes());
  }
  parser.finish();
  const SitemapReport report = parser.report();
  CHECK(report.error == SitemapError::gzip_bomb);
  CHECK(to_string(report.error) == std::string("gzip_bomb"));
  CHECK(report.gzipped);
  // Inflated no further than the cap: what went to the XML reader is the
  // cap exactly, and the bomb was made only a round past it.
  CHECK(report.bytes_decoded == SitemapParser::kMaxBytes);
  CHECK(bomb.uncompressed_made() <= SitemapParser::kMaxBytes + 2 * kRound);
  CHECK(compressed_fed < 100 * 1024);
  CHECK(max_retained < 512 * 1024);
}

TEST_CASE("gunzip: a bomb given in one piece stops inside that piece", "[sitemap][gzip][bomb]") {
  // 64 MiB of spaces, about 64 KB compressed, in one feed.
  testing::Gzipper zip;
  std::string compressed = zip.add("<urlset>");
  const std::string spaces(kRound, ' ');
  for (int i = 0; i < 64; ++i) compressed += zip.add(spaces);
  compressed += zip.end();

  BoundedGunzip gunzip(SitemapParser::kMaxBytes);
  std::uint64_t out = 0;
  std::size_t largest = 0;
  const auto status = gunzip.feed(compressed, [&](std::string_view piece) {
    out += piece.size();
    largest = std::max(largest, piece.size());
    return true;
  });
  CHECK(status == BoundedGunzip::Status::over_cap);
  CHECK(out == SitemapParser::kMaxBytes);
  CHECK(gunzip.output_bytes() == SitemapParser::kMaxBytes);
  CHECK(largest <= BoundedGunzip::kOutputChunk);
  // Stopped reading the input too: at most the cap's worth of it.
  CHECK(gunzip.input_bytes() < compressed.size() * 7 / 8);
  // Nothing more comes out afterwards.
  CHECK(gunzip.feed("more", [](std::string_view) { return true; }) == BoundedGunzip::Status::over_cap);
  CHECK(gunzip.finish() == BoundedGunzip::Status::over_cap);
}

TEST_CASE("gunzip: the cap is exact, and a sink can stop it", "[sitemap][gzip]") {
  const std::string body(1000, 'x');
  const std::string z = testing::gzip(body);
  {
    BoundedGunzip fits(1000);
    std::string out;
    CHECK(fits.feed(z, [&](std::string_view p) { out.append(p); return true; }) == BoundedGunzip::Status::ok);
    CHECK(fits.finish() == BoundedGunzip::Status::ok);
    CHECK(out == body);
  }
  {
    BoundedGunzip over(999);
    std::string out;
    CHECK(over.feed(z, [&](std::string_view p) { out.append(p); return true; }) == BoundedGunzip::Status::over_cap);
    CHECK(out == body.substr(0, 999));
  }
  {
    BoundedGunzip stopped(1 << 20);
    int calls = 0;
    CHECK(stopped.feed(testing::gzip(std::string(300'000, 'y')), [&](std::string_view) { return ++calls < 2; }) ==
          BoundedGunzip::Status::ok);
    CHECK(calls == 2);
    CHECK(stopped.output_bytes() == 2 * BoundedGunzip::kOutputChunk);
  }
}

TEST_CASE("gunzip: is_gzip reads the magic bytes only", "[sitemap][gzip]") {
  CHECK(BoundedGunzip::is_gzip(std::string("\x1f\x8b", 2)));
  CHECK_FALSE(BoundedGunzip::is_gzip(std::string("\x1f", 1)));
  CHECK_FALSE(BoundedGunzip::is_gzip("<?xml"));
  CHECK_FALSE(BoundedGunzip::is_gzip(""));
}

}  // namespace actorcrawl
