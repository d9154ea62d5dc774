// The sitemap parser costs time linear in its input on every hostile shape
// below, and holds a bounded amount of memory whatever the size: each body
// is parsed at 256 KiB and at 4 MiB, fed in the chunks a fetch delivers,
// and its cost may grow at most 4 times as much as an ordinary urlset's
// over the same sizes (a quadratic cost grows 16 times as much:
// tests/unit/web/cpu_cost.h says why these sizes and this comparison, which
// no CPU cache decides); each 4 MiB body costs at most kMaxOverPlain times
// an ordinary urlset of the same size, and the parser's retained bytes stay
// under kMaxRetained. Ratios of this thread's CPU time measured in this
// very test, never a bound on a clock; printed for the record.
#include <catch2/catch.hpp>

#include <algorithm>
#include <string>

#include "core/sitemap/sitemap_parser.h"
#include "sitemap_test_support.h"
#include "tests/unit/web/cpu_cost.h"

namespace actorcrawl {
namespace {

constexpr std::size_t kBytes = testing::kLinearityBytes;
constexpr std::size_t kLarge = testing::kLinearityFactor * testing::kLinearityBytes;
constexpr double kMaxGrowth = testing::kMaxRelativeGrowth;
constexpr double kMaxOverPlain = 20.0;
constexpr std::size_t kMaxRetained = 512 * 1024;

using testing::least_cpu_cost;

struct Run {
  std::size_t max_retained = 0;
  SitemapReport report;
};

Run parse_in_chunks(const std::string& body, std::size_t chunk) {
  SitemapParser parser(testing::scope_of("https://example.com/sitemap.xml"));
  // Entries leave as they are read: a gzip chunk can hold thousands.
  std::size_t entries = 0;
  parser.on_entry([&](SitemapEntry&&) { ++entries; });
  Run run;
  for (std::size_t at = 0; at < body.size() && !parser.done(); at += chunk) {
    parser.feed(std::string_view(body).substr(at, chunk));
    run.max_retained = std::max(run.max_retained, parser.retained_bytes());
  }
  parser.finish();
  run.report = parser.report();
  return run;
}

double parse_cost(const std::string& body, std::size_t chunk) {
  return least_cpu_cost([&] { (void)parse_in_chunks(body, chunk); }, 3);
}


// `open`, then `unit` until `bytes`, then `close`.
std::string repeated(std::size_t bytes, const std::string& open, const std::string& unit, const std::string& close) {
  std::string body = open;
  while (body.size() + unit.size() + close.size() < bytes) body += unit;
  return body + close;
}

const std::string kOpen = std::string("<?xml version=\"1.0\"?><urlset xmlns=\"") + testing::kSitemapNs +
                          "\" xmlns:image=\"http://www.google.com/schemas/sitemap-image/1.1\">";
const std::string kClose = "</urlset>";

std::string attributes(int n, const char* prefix) {
  std::string out;
  for (int i = 0; i < n; ++i) out += " " + std::string(prefix) + std::to_string(i) + "=\"v\"";
  return out;
}

std::string namespaces(int n) {
  std::string out;
  for (int i = 0; i < n; ++i) out += " xmlns:p" + std::to_string(i) + "=\"urn:" + std::to_string(i) + "\"";
  return out;
}

std::string nested(int depth) {
  std::string out;
  for (int i = 0; i < depth; ++i) out += "<x>";
  out += "t";
  for (int i = 0; i < depth; ++i) out += "</x>";
  return out;
}

std::string plain(std::size_t n) {
  return repeated(n, kOpen,
                  "<url><loc>https://example.com/products/item-12345.html</loc><lastmod>2024-05-01T10:20:30+02:00"
                  "</lastmod><changefreq>weekly</changefreq><priority>0.5</priority></url>\n",
                  kClose);
}

struct Shape {
  const char* name;
  std::string (*body)(std::size_t bytes);
  std::size_t chunk = 16 * 1024;
};

const Shape kShapes[] = {
    {"many-tiny-entries", [](std::size_t n) { return repeated(n, kOpen, "<url><loc>https://example.com/a</loc></url>", kClose); }},
    {"many-empty-entries", [](std::size_t n) { return repeated(n, kOpen, "<url/>", kClose); }},
    {"deep-nesting", [](std::size_t n) { return repeated(n, kOpen, "<url>" + nested(60) + "</url>", kClose); }},
    {"attributes-at-the-cap", [](std::size_t n) {
       return repeated(n, kOpen, "<url" + attributes(64, "a") + "><loc>https://example.com/a</loc></url>", kClose);
     }},
    {"namespaces-at-the-cap", [](std::size_t n) { return repeated(n, kOpen, "<e" + namespaces(63) + "/>", kClose); }},
    {"prefixed-lookups", [](std::size_t n) {
       // 126 namespaces in scope, declared on two elements (at most 64 each).
       std::string second;
       for (int i = 63; i < 126; ++i) second += " xmlns:p" + std::to_string(i) + "=\"urn:" + std::to_string(i) + "\"";
       return repeated(n, "<urlset" + namespaces(63) + "><url" + second + ">", "<p0:x p0:a=\"1\" p125:b=\"2\"/>",
                       "</url>" + kClose);
     }},
    {"distinct-names", [](std::size_t n) {
       std::string unit;
       for (int i = 0; i < 4000; ++i) unit += "<n" + std::to_string(i) + "/>";
       return repeated(n, kOpen, unit, kClose);
     }},
    {"long-loc", [](std::size_t n) { return repeated(n, kOpen + "<url><loc>https://example.com/", "a", "</loc></url>" + kClose); }},
    {"long-loc-of-spaces", [](std::size_t n) { return repeated(n, kOpen + "<url><loc>https://example.com/", " ", "x</loc></url>" + kClose); }},
    {"long-text", [](std::size_t n) { return repeated(n, kOpen + "<x>", "text ", "</x>" + kClose); }},
    {"cdata-near-the-cap", [](std::size_t n) { return repeated(n, kOpen, "<x><![CDATA[" + std::string(60'000, ']') + "]]></x>", kClose); }},
    {"character-references", [](std::size_t n) { return repeated(n, kOpen + "<url><loc>", "&amp;&#x41;&#66;", "</loc></url>" + kClose); }},
    {"comments-near-the-cap", [](std::size_t n) { return repeated(n, kOpen, "<!--" + std::string(60'000, 'c') + " -->", kClose); }},
    {"attribute-values-near-the-cap", [](std::size_t n) {
       return repeated(n, kOpen, "<x a=\"" + std::string(60'000, '>') + "\"/>", kClose);
     }},
    {"processing-instructions", [](std::size_t n) { return repeated(n, kOpen, "<?pi " + std::string(1000, '?') + "?>", kClose); }},
    {"unclosed-attribute", [](std::size_t n) { return repeated(n, kOpen + "<url a=\"", "x", ""); }},
    {"extension-elements", [](std::size_t n) {
       return repeated(n, kOpen,
                       "<url><loc>https://example.com/a</loc><image:image><image:loc>https://example.com/i.png"
                       "</image:loc><image:caption>c</image:caption></image:image></url>",
                       kClose);
     }},
    {"lastmod-junk", [](std::size_t n) {
       return repeated(n, kOpen, "<url><loc>https://example.com/a</loc><lastmod>" + std::string(500, '9') + "</lastmod></url>", kClose);
     }},
    {"index-entries", [](std::size_t n) {
       return repeated(n, std::string("<sitemapindex xmlns=\"") + testing::kSitemapNs + "\">",
                       "<sitemap><loc>https://example.com/s.xml</loc></sitemap>", "</sitemapindex>");
     }},
    {"text-lines", [](std::size_t n) { return repeated(n, "", "https://example.com/a\n", ""); }},
    {"text-empty-lines", [](std::size_t n) { return repeated(n, "", "\r\n", ""); }},
    {"text-long-line", [](std::size_t n) { return repeated(n, "https://example.com/", "a", "\n"); }},
    {"gzip-tiny-entries", [](std::size_t n) {
       return testing::gzip(repeated(n, kOpen, "<url><loc>https://example.com/a</loc></url>", kClose));
     }},
    {"small-feeds", [](std::size_t n) { return plain(n / 16); }, 7},
};

}  // namespace

TEST_CASE("sitemap: cost is linear and memory bounded on every hostile shape", "[sitemap][linear]") {
  const auto plain_cost = [](const std::string& body) { return parse_cost(body, 16 * 1024); };
  const auto plain_growth = testing::cost_growth(plain_cost, plain(kBytes), plain(kLarge));
  testing::WorstGrowth worst;
  for (const auto& shape : kShapes) {
    INFO("shape " << shape.name << "; a plain urlset grew " << plain_growth.ratio << " times");
    const std::string small = shape.body(kBytes);
    const std::string large = shape.body(kLarge);
    const auto cost = [&shape](const std::string& body) { return parse_cost(body, shape.chunk); };
    const auto g = testing::cost_growth(cost, small, large, plain_growth.ratio);
    CHECK(g.ratio / plain_growth.ratio <= kMaxGrowth);
    worst.take(g.ratio, plain_growth.ratio, shape.name);
    CHECK(g.large_cost / plain_growth.large_cost <= kMaxOverPlain);
    const Run run = parse_in_chunks(large, shape.chunk);
    INFO("error " << to_string(run.report.error) << ": " << run.report.error_detail);
    CHECK(run.max_retained <= kMaxRetained);
  }
  WARN(kBytes / 1024 << " KiB to " << kLarge / 1024 << " KiB: a plain urlset's cost grew " << plain_growth.ratio
                     << " times; the worst shape's (" << worst.name << ") " << worst.relative
                     << " times as much (bound " << kMaxGrowth << ")");
}

// The shapes above that hit no limit are read to their end: their cost is
// the parse, not an early refusal.
TEST_CASE("sitemap: the hostile shapes within the limits are read whole", "[sitemap][linear]") {
  for (const auto& shape : kShapes) {
    const std::string name = shape.name;
    if (name == "unclosed-attribute" || name == "long-loc" || name == "long-loc-of-spaces" ||
        name == "character-references")
      continue;
    INFO("shape " << name);
    const Run run = parse_in_chunks(shape.body(kBytes), shape.chunk);
    CHECK(run.report.error == SitemapError::none);
  }
  const Run loc = parse_in_chunks(kShapes[7].body(kBytes), 16 * 1024);
  CHECK(loc.report.error == SitemapError::none);
  CHECK(loc.report.counts.dropped_for(SitemapDrop::too_long) == 1);
  const Run unclosed = parse_in_chunks(kShapes[15].body(kBytes), 16 * 1024);
  CHECK(unclosed.report.error == SitemapError::markup_too_large);
}

// A sitemap at the protocol's limits, 50,000 URLs in about 50 MB, made and
// fed a chunk at a time: the parser holds a few hundred kilobytes, not the
// document.
TEST_CASE("sitemap: a 50 MB, 50,000-URL urlset is read in bounded memory", "[sitemap][memory]") {
  const std::string caption(820, 'c');
  SitemapParser parser(testing::scope_of("https://example.com/sitemap.xml"));
  std::size_t max_retained = 0;
  std::uint64_t entries = 0;
  std::uint64_t fed = 0;
  std::string chunk = kOpen;
  const auto flush = [&] {
    parser.feed(chunk);
    fed += chunk.size();
    chunk.clear();
    max_retained = std::max(max_retained, parser.retained_bytes());
    entries += parser.take_entries().size();
  };
  for (int i = 0; i < 50'000; ++i) {
    chunk += "<url><loc>https://example.com/products/" + std::to_string(i) +
             ".html</loc><lastmod>2024-05-01</lastmod><image:image><image:loc>https://example.com/i/" +
             std::to_string(i) + ".png</image:loc><image:caption>" + caption +
             "</image:caption></image:image></url>\n";
    if (chunk.size() >= 64 * 1024) flush();
  }
  chunk += kClose;
  flush();
  parser.finish();
  entries += parser.take_entries().size();
  CHECK(parser.error() == SitemapError::none);
  CHECK(fed > 50'000'000);
  CHECK(fed <= SitemapParser::kMaxBytes);
  CHECK(entries == 50'000);
  CHECK(parser.counts().urls_accepted == 50'000);
  CHECK(max_retained < 512 * 1024);
  CHECK(parser.retained_bytes() < 16 * 1024);  // done: counts only
}

}  // namespace actorcrawl
