#include "core/crawl/kept_body.h"

#include <libdeflate.h>

#include <catch2/catch.hpp>
#include <random>
#include <string>

#include "tests/unit/web/cpu_cost.h"

using namespace actorcrawl;

namespace {

std::string page_of_bytes(std::size_t n) {
  std::string html = "<html><head><title>A page</title></head><body>";
  for (std::size_t i = 0; html.size() < n; ++i)
    html += "<p class=\"item\">Item " + std::to_string(i) + " <a href=\"/item/" + std::to_string(i * 7) + "\">more</a></p>\n";
  html.resize(n);
  return html;
}

std::string random_bytes(std::size_t n, unsigned seed = 7) {
  std::mt19937 gen(seed);
  std::string out(n, '\0');
  for (auto& c : out)
    c = static_cast<char>(gen());
  return out;
}

// Raw DEFLATE of `data` at libdeflate's strongest level.
std::string deflate(const std::string& data) {
  libdeflate_compressor* c = libdeflate_alloc_compressor(12);
  std::string out(libdeflate_deflate_compress_bound(c, data.size()), '\0');
  out.resize(libdeflate_deflate_compress(c, data.data(), data.size(), out.data(), out.size()));
  libdeflate_free_compressor(c);
  return out;
}

}  // namespace

TEST_CASE("kept body: a page comes back byte for byte, smaller on disk", "[kept_body]") {
  const std::string page = page_of_bytes(64 * 1024);
  const KeptBody kept = keep_body(page);
  CHECK(kept.encoding == "deflate");
  CHECK(kept.size == static_cast<std::int64_t>(page.size()));
  CHECK(kept.data.size() < page.size() / 3);
  KeptBodyError why = KeptBodyError::corrupt;
  const auto back = open_kept_body(kept, 1 << 20, &why);
  REQUIRE(back);
  CHECK(*back == page);
  CHECK(why == KeptBodyError::none);
  // Bytes, not text: NULs and high bytes survive.
  const std::string binary = std::string("\0\xff\x80 abc", 7) + std::string(1000, '\0');
  CHECK(open_kept_body(keep_body(binary), 1 << 20) == binary);
}

TEST_CASE("kept body: what would not shrink is kept as it is", "[kept_body]") {
  const std::string noise = random_bytes(10000);
  const KeptBody kept = keep_body(noise);
  CHECK(kept.encoding == "identity");
  CHECK(kept.data == noise);
  CHECK(open_kept_body(kept, 1 << 20) == noise);
  const KeptBody one = keep_body("x");
  CHECK(one.encoding == "identity");
  CHECK(open_kept_body(one, 10) == std::string{"x"});
}

TEST_CASE("kept body: a damaged or planted row is refused by name, never inflated past its size", "[kept_body]") {
  const std::string page = page_of_bytes(20000);
  const KeptBody good = keep_body(page);
  KeptBodyError why = KeptBodyError::none;

  KeptBody other = good;
  other.encoding = "br";
  CHECK_FALSE(open_kept_body(other, 1 << 20, &why));
  CHECK(why == KeptBodyError::unknown_encoding);
  CHECK(std::string{to_string(why)} == "unknown_encoding");

  // The size is the row's promise, checked before a byte is allocated.
  CHECK_FALSE(open_kept_body(good, 10000, &why));
  CHECK(why == KeptBodyError::too_large);
  KeptBody negative = good;
  negative.size = -1;
  CHECK_FALSE(open_kept_body(negative, 1 << 20, &why));
  CHECK(why == KeptBodyError::too_large);

  // A stream that inflates to more or less than the row says.
  KeptBody smaller = good;
  smaller.size = 1000;
  CHECK_FALSE(open_kept_body(smaller, 1 << 20, &why));
  CHECK(why == KeptBodyError::wrong_size);
  KeptBody larger = good;
  larger.size = good.size + 1;
  CHECK_FALSE(open_kept_body(larger, 1 << 20, &why));
  CHECK(why == KeptBodyError::wrong_size);
  KeptBody identity = keep_body(random_bytes(100));
  identity.size = 99;
  CHECK_FALSE(open_kept_body(identity, 1 << 20, &why));
  CHECK(why == KeptBodyError::wrong_size);

  // A bomb (a gigabyte of zeros in about a megabyte) stating a small size
  // stops at that size.
  KeptBody bomb{"deflate", 4096, deflate(std::string(64 << 20, '\0'))};
  CHECK_FALSE(open_kept_body(bomb, 1 << 20, &why));
  CHECK(why == KeptBodyError::wrong_size);

  KeptBody cut = good;
  cut.data.resize(cut.data.size() / 2);
  CHECK_FALSE(open_kept_body(cut, 1 << 20, &why));
  CHECK((why == KeptBodyError::corrupt || why == KeptBodyError::wrong_size));
  KeptBody garbage{"deflate", 5000, random_bytes(3000, 11)};
  CHECK_FALSE(open_kept_body(garbage, 1 << 20, &why));
  CHECK((why == KeptBodyError::corrupt || why == KeptBodyError::wrong_size));
  KeptBody empty{"deflate", 10, ""};
  CHECK_FALSE(open_kept_body(empty, 1 << 20, &why));
  CHECK(why != KeptBodyError::none);
}

TEST_CASE("kept body: opening costs linear in the body, whatever its bytes", "[kept_body][linear]") {
  using namespace actorcrawl::testing;
  const auto cost = [](const KeptBody& kept) {
    return least_cpu_cost([&] { (void)open_kept_body(kept, 1 << 30); }, 3);
  };
  const std::size_t small = kLinearityBytes;
  const std::size_t large = kLinearityBytes * kLinearityFactor;
  const auto plain = cost_growth(cost, keep_body(page_of_bytes(small)), keep_body(page_of_bytes(large)));
  struct Shape {
    const char* name;
    KeptBody small, large;
  };
  const Shape shapes[] = {
    {"zeros (the most a DEFLATE byte inflates to)", KeptBody{"deflate", static_cast<std::int64_t>(small), deflate(std::string(small, '\0'))},
     KeptBody{"deflate", static_cast<std::int64_t>(large), deflate(std::string(large, '\0'))}},
    {"noise kept as it is", keep_body(random_bytes(small)), keep_body(random_bytes(large))},
    {"noise as stored blocks", KeptBody{"deflate", static_cast<std::int64_t>(small), deflate(random_bytes(small))},
     KeptBody{"deflate", static_cast<std::int64_t>(large), deflate(random_bytes(large))}},
    {"a bomb stating the smaller size", KeptBody{"deflate", static_cast<std::int64_t>(small), deflate(std::string(small * 4, 'a'))},
     KeptBody{"deflate", static_cast<std::int64_t>(large), deflate(std::string(large * 4, 'a'))}},
  };
  WorstGrowth worst;
  for (const auto& shape : shapes) {
    INFO(shape.name << "; a page grew " << plain.ratio << " times");
    const auto g = cost_growth(cost, shape.small, shape.large, plain.ratio);
    CHECK(g.ratio / plain.ratio <= kMaxRelativeGrowth);
    worst.take(g.ratio, plain.ratio, shape.name);
  }
  WARN(small / 1024 << " KiB to " << large / 1024 << " KiB: a kept page's opening grew " << plain.ratio
                    << " times; the worst shape's (" << worst.name << ") " << worst.relative << " times as much");
}
