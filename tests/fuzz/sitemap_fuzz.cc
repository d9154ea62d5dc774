// libFuzzer target for core/sitemap's streaming parser: any bytes (XML,
// text, gzip of either, or none of them) must parse or fail with a named
// error, never crash. Checked beyond that:
//  - every entry is an absolute http(s) URL within the limits and the
//    sitemap's scope (its own origin, under its directory);
//  - at most max_entries entries, and the parser's own buffers stay bounded
//    after every piece, whatever the input;
//  - a document read without error gives the same entries however it is
//    cut: fed in pieces of a size the input picks, each handed to libxml2
//    as it comes, as when fed whole.
#include "core/sitemap/sitemap_parser.h"
#include "core/sitemap/sitemap_scope.h"
#include "core/web/url.h"

#include <fuzzer/FuzzedDataProvider.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

namespace {

using namespace actorcrawl;

[[noreturn]] void fail(const char* what) {
  std::fprintf(stderr, "sitemap_fuzz: %s\n", what);
  std::abort();
}

// Small limits, so the fuzzer reaches them with small inputs.
SitemapParser::Options options(std::size_t push_bytes) {
  SitemapParser::Options o;
  o.max_bytes = 256 * 1024;
  o.max_entries = 64;
  o.xml_push_bytes = push_bytes;
  return o;
}

const Url& location() {
  static const Url url = *Url::parse("http://fuzz.test/maps/sitemap.xml");
  return url;
}

struct Result {
  std::vector<SitemapEntry> entries;
  SitemapKind kind;
  SitemapError error;
};

Result parse(std::string_view body, std::size_t piece, std::size_t push_bytes) {
  SitemapParser parser(SitemapScope::of_location(location()), options(push_bytes));
  Result r;
  for (std::size_t at = 0; at < body.size(); at += piece) {
    parser.feed(body.substr(at, piece));
    // Far above what the limits let it hold: a leak or a buffer that grows
    // with the input shows here.
    if (parser.retained_bytes() > 4 * 1024 * 1024)
      fail("the parser holds more than 4 MiB");
    for (auto& e : parser.take_entries())
      r.entries.push_back(std::move(e));
  }
  parser.finish();
  for (auto& e : parser.take_entries())
    r.entries.push_back(std::move(e));
  r.kind = parser.kind();
  r.error = parser.error();
  return r;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  FuzzedDataProvider in(data, size);
  const std::size_t piece = in.ConsumeIntegralInRange<std::size_t>(1, 64);
  const std::string body = in.ConsumeRemainingBytesAsString();

  const Result whole = parse(body, body.empty() ? 1 : body.size(), 16 * 1024);
  if (whole.entries.size() > 64)
    fail("more entries than max_entries");
  for (const auto& e : whole.entries) {
    if (e.url.size() > SitemapParser::kMaxUrlLength)
      fail("an entry longer than the protocol allows");
    const auto url = Url::parse(e.url);
    if (!url)
      fail("an entry that is no URL");
    if (url->str().rfind("http://fuzz.test/maps/", 0) != 0)
      fail("an entry outside the sitemap's scope");
    if (e.priority && (*e.priority < 0.0 || *e.priority > 1.0))
      fail("a priority outside 0..1");
  }
  // Cut in pieces, each handed to libxml2 as it comes: a document read to
  // its end gives the same entries. (Where libxml2 finds an error depends on
  // how its input is cut, byte-at-a-time pushes can miss one; the parser
  // hands it at least xml_push_bytes at a time, as `whole` does.)
  if (whole.error == SitemapError::none) {
    const Result cut = parse(body, piece, 1);
    if (!(cut.entries == whole.entries) || cut.kind != whole.kind)
      fail("the entries of a valid document depend on how the body was cut");
  }
  return 0;
}
