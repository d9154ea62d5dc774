#include "core/sitemap/sitemap_parser.h"

#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "sitemap_test_support.h"

namespace actorcrawl {
namespace {

using testing::gzip;
using testing::parse;
using testing::scope_of;
using testing::sitemapindex;
using testing::url_entry;
using testing::urlset;

constexpr const char* kLocation = "https://example.com/sitemap.xml";

std::uint64_t dropped(const testing::Parsed& p, SitemapDrop why) { return p.report.counts.dropped_for(why); }

}  // namespace

TEST_CASE("sitemap: a urlset gives its URLs with lastmod, changefreq and priority", "[sitemap]") {
  const std::string body = urlset(
      url_entry("https://example.com/", "<lastmod>2024-05-01</lastmod><changefreq>Daily</changefreq>"
                                        "<priority>0.8</priority>") +
      url_entry("https://example.com/a?x=1&amp;y=2", "<lastmod>2024-05-01T10:20:30+02:00</lastmod>") +
      url_entry("  https://EXAMPLE.com/b/../c  "));
  const auto p = parse(body);
  CHECK(p.report.error == SitemapError::none);
  CHECK(p.report.kind == SitemapKind::urlset);
  REQUIRE(p.entries.size() == 3);
  CHECK(p.entries[0].url == "https://example.com/");
  CHECK(p.entries[0].lastmod_ms == 1714521600000);
  CHECK(p.entries[0].changefreq == "daily");
  CHECK(p.entries[0].priority == 0.8);
  CHECK(p.entries[1].url == "https://example.com/a?x=1&y=2");
  CHECK(p.entries[1].lastmod_ms == 1714551630000);
  CHECK(p.entries[1].changefreq.empty());
  CHECK_FALSE(p.entries[1].priority);
  CHECK(p.entries[2].url == "https://example.com/c");
  CHECK_FALSE(p.entries[2].lastmod_ms);
  CHECK(p.report.counts.urls_found == 3);
  CHECK(p.report.counts.urls_accepted == 3);
  CHECK(p.report.counts.lastmod_missing == 1);
  CHECK(p.report.counts.lastmod_invalid == 0);
  CHECK(p.report.counts.dropped_total() == 0);
  CHECK_FALSE(p.report.gzipped);
  CHECK(p.report.bytes_in == body.size());
}

TEST_CASE("sitemap: invalid lastmod, changefreq and priority leave the entry without them", "[sitemap]") {
  const auto p = parse(urlset(
      url_entry("https://example.com/1", "<lastmod>yesterday</lastmod><changefreq>often</changefreq>"
                                         "<priority>1.5</priority>") +
      url_entry("https://example.com/2", "<lastmod>2024-02-30</lastmod><priority>x</priority>") +
      url_entry("https://example.com/3", "<lastmod>" + std::string(100, '1') + "</lastmod>")));
  REQUIRE(p.entries.size() == 3);
  for (const auto& e : p.entries) {
    CHECK_FALSE(e.lastmod_ms);
    CHECK(e.changefreq.empty());
    CHECK_FALSE(e.priority);
  }
  CHECK(p.report.counts.lastmod_invalid == 3);
  CHECK(p.report.counts.lastmod_missing == 0);
}

TEST_CASE("sitemap: a sitemap index gives its child sitemaps", "[sitemap]") {
  const auto p = parse(sitemapindex(
      "<sitemap><loc>https://example.com/s1.xml.gz</loc><lastmod>2024-01-02T03:04Z</lastmod></sitemap>\n"
      "<sitemap><loc>https://example.com/s2.xml</loc></sitemap>\n"
      "<sitemap><lastmod>2024</lastmod></sitemap>\n"
      // An index's entries have no changefreq or priority; a <url> in it is
      // not an entry.
      "<url><loc>https://example.com/page</loc></url>\n"));
  CHECK(p.report.error == SitemapError::none);
  CHECK(p.report.kind == SitemapKind::index);
  CHECK(p.urls() == std::vector<std::string>{"https://example.com/s1.xml.gz", "https://example.com/s2.xml"});
  CHECK(p.entries[0].lastmod_ms == 1704164640000);
  CHECK(p.report.counts.urls_found == 3);
  CHECK(dropped(p, SitemapDrop::missing_loc) == 1);
}

TEST_CASE("sitemap: a text sitemap gives one URL per line", "[sitemap]") {
  const std::string body =
      "\xEF\xBB\xBFhttps://example.com/a\r\n"
      "\n"
      "   https://example.com/b   \n"
      "https://example.com/caf\xC3\xA9\n"
      "not a url\n"
      "ftp://example.com/file\n"
      "https://other.example/x\n"
      "https://example.com/last";
  const auto p = parse(body);
  CHECK(p.report.error == SitemapError::none);
  CHECK(p.report.kind == SitemapKind::text);
  CHECK(p.urls() == std::vector<std::string>{"https://example.com/a", "https://example.com/b",
                                             "https://example.com/caf%C3%A9", "https://example.com/last"});
  CHECK(p.report.counts.urls_found == 7);
  CHECK(dropped(p, SitemapDrop::invalid_url) == 1);
  CHECK(dropped(p, SitemapDrop::not_http) == 1);
  CHECK(dropped(p, SitemapDrop::other_host) == 1);
  CHECK(p.report.counts.lastmod_missing == 0);
}

TEST_CASE("sitemap: gzip of each format is told by its magic bytes and read the same", "[sitemap][gzip]") {
  const std::string documents[] = {
      urlset(url_entry("https://example.com/a", "<lastmod>2020-01-01</lastmod>") + url_entry("https://example.com/b")),
      sitemapindex("<sitemap><loc>https://example.com/s.xml</loc></sitemap>"),
      "https://example.com/a\nhttps://example.com/b\n",
  };
  for (const auto& plain : documents) {
    INFO(plain);
    const auto direct = parse(plain);
    for (const std::size_t chunk : {std::size_t{0}, std::size_t{1}, std::size_t{7}}) {
      const auto zipped = parse(gzip(plain), kLocation, chunk);
      CHECK(zipped.report.gzipped);
      CHECK(zipped.report.error == SitemapError::none);
      CHECK(zipped.report.kind == direct.report.kind);
      CHECK(zipped.entries == direct.entries);
      CHECK(zipped.report.bytes_decoded == plain.size());
    }
  }
}

TEST_CASE("sitemap: gzip members one after another are one body - trailing garbage is ignored", "[sitemap][gzip]") {
  const std::string a = "https://example.com/a\n";
  const std::string b = "https://example.com/b\n";
  auto p = parse(gzip(a) + gzip(b));
  CHECK(p.report.error == SitemapError::none);
  CHECK(p.urls() == std::vector<std::string>{"https://example.com/a", "https://example.com/b"});
  p = parse(gzip(a) + std::string(100, '\0'));
  CHECK(p.report.error == SitemapError::none);
  CHECK(p.urls() == std::vector<std::string>{"https://example.com/a"});
}

TEST_CASE("sitemap: truncated or corrupt gzip is refused, keeping what came before", "[sitemap][gzip]") {
  std::string body;
  for (int i = 0; i < 2000; ++i) body += url_entry("https://example.com/page/" + std::to_string(i));
  const std::string zipped = gzip(urlset(body));
  const auto truncated = parse(zipped.substr(0, zipped.size() / 2));
  CHECK(truncated.report.error == SitemapError::gzip_truncated);
  CHECK(to_string(truncated.report.error) == std::string("gzip_truncated"));
  CHECK(truncated.entries.size() > 100);
  CHECK(truncated.entries.size() < 2000);
  // Cut inside the trailer: all the XML arrived, the checksum did not.
  const auto no_trailer = parse(zipped.substr(0, zipped.size() - 4));
  CHECK(no_trailer.report.error == SitemapError::gzip_truncated);
  // Every entry inflated before the end is read, though libxml2 had not
  // been handed the last of it yet (xml_push_bytes): fed whole or a byte
  // at a time, the same entries.
  CHECK(no_trailer.entries.size() == 2000);
  const std::string small = gzip(urlset(url_entry("https://example.com/a") + url_entry("https://example.com/b")));
  for (std::size_t chunk : {std::size_t{0}, std::size_t{1}}) {
    const auto cut = parse(small.substr(0, small.size() - 1), "https://example.com/sitemap.xml", chunk);
    CHECK(cut.report.error == SitemapError::gzip_truncated);
    CHECK(cut.entries.size() == 2);
  }

  // A deflate block of the reserved type 11 (RFC 1951 3.2.3) right after
  // the 10-byte gzip header.
  std::string damaged = zipped;
  damaged[10] = 0x07;
  const auto corrupt = parse(damaged);
  CHECK(corrupt.report.error == SitemapError::gzip_corrupt);
  CHECK(to_string(corrupt.report.error) == std::string("gzip_corrupt"));

  std::string bad_crc = zipped;
  bad_crc[bad_crc.size() - 6] ^= 0x01;
  const auto crc = parse(bad_crc);
  CHECK(crc.report.error == SitemapError::gzip_corrupt);
  CHECK(crc.entries.size() == 2000);  // every entry came before the checksum

  const auto header_only = parse(std::string("\x1f\x8b", 2));
  CHECK(header_only.report.error == SitemapError::gzip_truncated);
  const auto not_deflate = parse(std::string("\x1f\x8bnot gzip at all", 17));
  CHECK(not_deflate.report.error == SitemapError::gzip_corrupt);
}

TEST_CASE("sitemap: a body gzipped twice is refused as binary", "[sitemap][gzip]") {
  const auto p = parse(gzip(gzip("https://example.com/a\n")));
  CHECK(p.report.gzipped);
  CHECK(p.report.error == SitemapError::not_sitemap);
  CHECK(p.entries.empty());
}

TEST_CASE("sitemap: the namespaces accepted, and none", "[sitemap]") {
  const char* const namespaces[] = {"http://www.sitemaps.org/schemas/sitemap/0.9",
                                    "https://www.sitemaps.org/schemas/sitemap/0.9",
                                    "http://www.google.com/schemas/sitemap/0.84"};
  for (const char* ns : namespaces) {
    const auto p = parse(std::string("<urlset xmlns=\"") + ns + "\"><url><loc>https://example.com/x</loc></url></urlset>");
    CHECK(p.urls() == std::vector<std::string>{"https://example.com/x"});
  }
  const auto bare = parse("<urlset><url><loc>https://example.com/x</loc></url></urlset>");
  CHECK(bare.urls() == std::vector<std::string>{"https://example.com/x"});
  const auto prefixed = parse(std::string("<sm:urlset xmlns:sm=\"") + testing::kSitemapNs +
                              "\"><sm:url><sm:loc>https://example.com/x</sm:loc></sm:url></sm:urlset>");
  CHECK(prefixed.urls() == std::vector<std::string>{"https://example.com/x"});
  // Another namespace's urlset is no sitemap.
  const auto other = parse("<urlset xmlns=\"http://example.com/other\"><url><loc>https://example.com/x</loc></url></urlset>");
  CHECK(other.report.error == SitemapError::not_sitemap);
  CHECK(other.entries.empty());
}

TEST_CASE("sitemap: extension elements are skipped, their <loc> too", "[sitemap]") {
  const std::string ns =
      " xmlns:image=\"http://www.google.com/schemas/sitemap-image/1.1\""
      " xmlns:news=\"http://www.google.com/schemas/sitemap-news/0.9\""
      " xmlns:xhtml=\"http://www.w3.org/1999/xhtml\"";
  const auto p = parse(urlset(
      "<url><image:image><image:loc>https://example.com/img.png</image:loc></image:image>"
      "<loc>https://example.com/page</loc>"
      "<news:news><news:publication><news:name>N</news:name></news:publication></news:news>"
      "<xhtml:link rel=\"alternate\" hreflang=\"de\" href=\"https://example.com/de\"/>"
      "<unknown><loc>https://example.com/nested</loc></unknown></url>\n"
      // An undeclared prefix is no namespace, and not ours.
      "<url><image:loc>https://example.com/undeclared</image:loc></url>\n",
      ns));
  CHECK(p.urls() == std::vector<std::string>{"https://example.com/page"});
  CHECK(dropped(p, SitemapDrop::missing_loc) == 1);
}

TEST_CASE("sitemap: CDATA, character references and predefined entities in <loc> are decoded", "[sitemap]") {
  const auto p = parse(urlset(url_entry("<![CDATA[https://example.com/a?b=1&c=2]]>") +
                              url_entry("https://example.com/&#x61;&#98;?q=&lt;&gt;&quot;&apos;") +
                              url_entry("https://example.com/<![CDATA[sp]]>lit")));
  CHECK(p.report.error == SitemapError::none);
  CHECK(p.urls() == std::vector<std::string>{"https://example.com/a?b=1&c=2",
                                             "https://example.com/ab?q=%3C%3E%22%27",
                                             "https://example.com/split"});
}

TEST_CASE("sitemap: at most 50,000 entries are taken, the rest counted", "[sitemap][limits]") {
  std::string body;
  for (int i = 0; i < 50'010; ++i) body += "<url><loc>https://example.com/" + std::to_string(i) + "</loc></url>";
  const auto p = parse(urlset(body));
  CHECK(p.report.error == SitemapError::none);
  CHECK(p.entries.size() == 50'000);
  CHECK(p.entries.back().url == "https://example.com/49999");
  CHECK(p.report.counts.urls_found == 50'010);
  CHECK(dropped(p, SitemapDrop::over_limit) == 10);

  std::string lines;
  for (int i = 0; i < 50'003; ++i) lines += "https://example.com/" + std::to_string(i) + "\n";
  const auto text = parse(lines);
  CHECK(text.entries.size() == 50'000);
  CHECK(dropped(text, SitemapDrop::over_limit) == 3);
}

TEST_CASE("sitemap: a <loc> past 2,048 characters is dropped", "[sitemap][limits]") {
  const std::string base = "https://example.com/";
  const std::string fits = base + std::string(2048 - base.size(), 'a');
  const std::string over = base + std::string(2049 - base.size(), 'a');
  const std::string spaced = "\n    " + fits + "\n" + std::string(5000, ' ') + "\n";
  const auto p = parse(urlset(url_entry(fits) + url_entry(over) + url_entry(spaced) +
                              url_entry(base + std::string(1'000'000, 'b'))));
  CHECK(p.urls() == std::vector<std::string>{fits, fits});
  CHECK(dropped(p, SitemapDrop::too_long) == 2);
  const auto text = parse(fits + "\n" + over + "\n" + std::string(100'000, 'c') + "\n");
  CHECK(text.urls() == std::vector<std::string>{fits});
  CHECK(dropped(text, SitemapDrop::too_long) == 2);
}

TEST_CASE("sitemap: URLs of other hosts or outside the sitemap's directory are dropped", "[sitemap][scope]") {
  const std::string body = urlset(url_entry("https://example.com/catalog/a") +  // in
                                  url_entry("https://example.com/catalog/") +   // in
                                  url_entry("https://example.com/catalogue") +  // outside
                                  url_entry("https://example.com/images/b") +   // outside
                                  url_entry("http://example.com/catalog/c") +   // other scheme
                                  url_entry("https://example.com:8443/catalog/d") +  // other port
                                  url_entry("https://www.example.com/catalog/e") +   // other host
                                  url_entry("mailto:someone@example.com") + url_entry("/catalog/relative") +
                                  url_entry(""));
  const auto p = parse(body, "https://example.com/catalog/sitemap.xml");
  CHECK(p.urls() == std::vector<std::string>{"https://example.com/catalog/a", "https://example.com/catalog/"});
  CHECK(dropped(p, SitemapDrop::outside_path) == 2);
  CHECK(dropped(p, SitemapDrop::other_host) == 3);
  CHECK(dropped(p, SitemapDrop::not_http) == 1);
  CHECK(dropped(p, SitemapDrop::invalid_url) == 2);
  CHECK(p.report.counts.urls_found == 10);
  CHECK(p.report.counts.urls_accepted == 2);
  CHECK(std::string(to_string(SitemapDrop::outside_path)) == "outside_path");
  CHECK(std::string(to_string(SitemapDrop::other_host)) == "other_host");
}

TEST_CASE("sitemap: a cross-submitted sitemap may list the granted host's URLs", "[sitemap][scope]") {
  const std::string body = urlset(url_entry("https://shop.example/any/page") +
                                  url_entry("https://sitemaps.example/maps/own") +
                                  url_entry("https://sitemaps.example/elsewhere") +
                                  url_entry("https://third.example/x"));
  // Without a grant, only the sitemap's own directory.
  const auto strict = parse(body, "https://sitemaps.example/maps/shop.xml");
  CHECK(strict.urls() == std::vector<std::string>{"https://sitemaps.example/maps/own"});
  // shop.example's robots.txt named it: all of shop.example too.
  SitemapScope scope = scope_of("https://sitemaps.example/maps/shop.xml");
  scope.allow_host(testing::url("https://shop.example/robots.txt"));
  const auto granted = parse(body, scope);
  CHECK(granted.urls() == std::vector<std::string>{"https://shop.example/any/page", "https://sitemaps.example/maps/own"});
  CHECK(dropped(granted, SitemapDrop::outside_path) == 1);
  CHECK(dropped(granted, SitemapDrop::other_host) == 1);
}

TEST_CASE("sitemap: every split point of a small document gives the same result", "[sitemap][chunks]") {
  const std::string documents[] = {
      urlset(url_entry("https://example.com/a?x=1&amp;y=2", "<lastmod>2024-05-01T10:20:30.5Z</lastmod>") +
                 "<!-- a comment -->" + url_entry("<![CDATA[https://example.com/b]]>", "<priority>0.5</priority>") +
                 "<?pi data?>" + url_entry("https://example.com/&#99;"),
             " xmlns:image=\"http://www.google.com/schemas/sitemap-image/1.1\""),
      sitemapindex("<sitemap><loc>https://example.com/s1.xml</loc><lastmod>2024</lastmod></sitemap>"),
      "https://example.com/a\r\nhttps://example.com/b\n\nhttps://example.com/c",
      // Late errors, at every split point too.
      urlset(url_entry("https://example.com/a")) + "<trailing/>",
      "<!DOCTYPE urlset [<!ENTITY x \"y\">]><urlset/>",
  };
  for (const auto& doc : documents) {
    for (const bool zipped : {false, true}) {
      const std::string body = zipped ? gzip(doc) : doc;
      SitemapParser::Options every_byte;
      every_byte.xml_push_bytes = 1;
      const auto whole = parse(body, scope_of(kLocation), 0, every_byte);
      INFO(doc << (zipped ? " (gzip)" : ""));
      for (std::size_t split = 1; split < body.size(); ++split) {
        SitemapParser parser(scope_of(kLocation), every_byte);
        parser.feed(std::string_view(body).substr(0, split));
        auto entries = parser.take_entries();
        parser.feed(std::string_view(body).substr(split));
        parser.finish();
        for (auto& e : parser.take_entries()) entries.push_back(std::move(e));
        const SitemapReport r = parser.report();
        INFO("split at " << split);
        CHECK(entries == whole.entries);
        CHECK(r.error == whole.report.error);
        CHECK(r.kind == whole.report.kind);
        CHECK(r.counts.urls_found == whole.report.counts.urls_found);
      }
      // And one byte at a time.
      const auto bytewise = parse(body, scope_of(kLocation), 1, every_byte);
      CHECK(bytewise.entries == whole.entries);
      CHECK(bytewise.report.error == whole.report.error);
    }
  }
}

TEST_CASE("sitemap: billion laughs is refused before any expansion", "[sitemap][hostile]") {
  std::string dtd = "<?xml version=\"1.0\"?>\n<!DOCTYPE urlset [\n<!ENTITY lol \"lol\">\n";
  for (int i = 1; i <= 9; ++i)
    dtd += "<!ENTITY lol" + std::to_string(i) + " \"" + [&] {
      std::string refs;
      for (int j = 0; j < 10; ++j) refs += i == 1 ? "&lol;" : "&lol" + std::to_string(i - 1) + ";";
      return refs;
    }() + "\">\n";
  const std::string body = dtd + "]>\n" + urlset(url_entry("https://example.com/&lol9;")).substr(39);
  const auto p = parse(body);
  CHECK(p.report.error == SitemapError::entities);
  CHECK(to_string(p.report.error) == std::string("sitemap_entities"));
  CHECK(p.entries.empty());
  CHECK(p.max_retained < 256 * 1024);

  // A parameter entity, an external entity (never fetched: no network,
  // no file), and an unparsed one are entities too.
  for (const std::string decl : {"<!ENTITY % p \"<!ENTITY x 'y'>\"> %p;", "<!ENTITY x SYSTEM \"file:///etc/passwd\">",
                                 "<!ENTITY x SYSTEM \"http://127.0.0.1:1/x\">",
                                 "<!NOTATION n SYSTEM \"n\"><!ENTITY x SYSTEM \"u\" NDATA n>"}) {
    INFO(decl);
    const auto q = parse("<!DOCTYPE urlset [" + decl + "]><urlset><url><loc>https://example.com/&x;</loc></url></urlset>");
    CHECK((q.report.error == SitemapError::entities || q.report.error == SitemapError::dtd));
    CHECK(q.entries.empty());
  }
}

TEST_CASE("sitemap: other DTD declarations are refused - a DOCTYPE without them is not", "[sitemap][hostile]") {
  // A default attribute in a DTD would add attributes libxml2 checks
  // pairwise, past the markup guard.
  const auto attlist = parse("<!DOCTYPE urlset [<!ATTLIST url a CDATA \"x\" b CDATA \"y\">]>" +
                             urlset(url_entry("https://example.com/")).substr(39));
  CHECK(attlist.report.error == SitemapError::dtd);
  const auto element = parse("<!DOCTYPE urlset [<!ELEMENT urlset ANY>]><urlset/>");
  CHECK(element.report.error == SitemapError::dtd);
  const auto plain = parse("<!DOCTYPE urlset><urlset><url><loc>https://example.com/</loc></url></urlset>");
  CHECK(plain.report.error == SitemapError::none);
  CHECK(plain.entries.size() == 1);
  // An external DTD is not loaded.
  const auto external = parse(
      "<!DOCTYPE urlset SYSTEM \"http://127.0.0.1:1/sitemap.dtd\"><urlset><url><loc>https://example.com/</loc></url></urlset>");
  CHECK(external.report.error == SitemapError::none);
  CHECK(external.entries.size() == 1);
}

TEST_CASE("sitemap: HTML, feeds and binary bodies are not sitemaps", "[sitemap]") {
  CHECK(parse("<!DOCTYPE html><html lang=\"en\"><body><a href=\"/x\">x</a></body></html>").report.error ==
        SitemapError::not_sitemap);
  CHECK(parse("<!DOCTYPE html>\n<html><head><meta charset=utf-8></head></html>").report.error ==
        SitemapError::not_sitemap);
  CHECK(parse("<rss version=\"2.0\"><channel><item><link>https://example.com/</link></item></channel></rss>")
            .report.error == SitemapError::not_sitemap);
  const auto binary = parse(std::string("https://example.com/a\nPK\x03\x04\0\0binary", 30));
  CHECK(binary.report.error == SitemapError::not_sitemap);
  CHECK(binary.urls() == std::vector<std::string>{"https://example.com/a"});
  CHECK(std::string(to_string(SitemapError::not_sitemap)) == "sitemap_not_sitemap");
  // An empty body is no error and gives nothing.
  const auto empty = parse("");
  CHECK(empty.report.error == SitemapError::none);
  CHECK(empty.report.kind == SitemapKind::unknown);
  CHECK(parse("   \n ").report.error == SitemapError::none);
}

TEST_CASE("sitemap: a late error keeps every entry before it", "[sitemap]") {
  std::string body = urlset(url_entry("https://example.com/1") + url_entry("https://example.com/2"));
  body.erase(body.find("</urlset>"));
  body += "<url><loc>https://example.com/3</loc></url><url><loc>https://example.com/4</lo";
  const auto truncated = parse(body);
  CHECK(truncated.report.error == SitemapError::malformed);
  CHECK(to_string(truncated.report.error) == std::string("sitemap_malformed"));
  CHECK(truncated.urls() ==
        std::vector<std::string>{"https://example.com/1", "https://example.com/2", "https://example.com/3"});
  CHECK_FALSE(truncated.report.error_detail.empty());

  const auto mismatched = parse(urlset(url_entry("https://example.com/1") +
                                       "<url><loc>https://example.com/2</loc></uri>" + url_entry("https://example.com/3")));
  CHECK(mismatched.report.error == SitemapError::malformed);
  CHECK(mismatched.urls() == std::vector<std::string>{"https://example.com/1"});
}

TEST_CASE("sitemap: leading whitespace and a BOM before the XML declaration are allowed", "[sitemap]") {
  const auto p = parse("\xEF\xBB\xBF\n\n  " + urlset(url_entry("https://example.com/")));
  CHECK(p.report.error == SitemapError::none);
  CHECK(p.entries.size() == 1);
}

TEST_CASE("sitemap: an encoding other than UTF-8 that XML declares is converted", "[sitemap]") {
  const auto p = parse(
      "<?xml version=\"1.0\" encoding=\"ISO-8859-1\"?><urlset><url><loc>https://example.com/caf\xE9</loc></url></urlset>");
  CHECK(p.report.error == SitemapError::none);
  CHECK(p.urls() == std::vector<std::string>{"https://example.com/caf%C3%A9"});
}

TEST_CASE("sitemap: nesting, huge markup, many names and namespaces are refused", "[sitemap][hostile]") {
  std::string deep = urlset(url_entry("https://example.com/first"));
  deep.erase(deep.find("</urlset>"));
  for (int i = 0; i < 100; ++i) deep += "<x>";
  auto p = parse(deep);
  CHECK(p.report.error == SitemapError::nesting);
  CHECK(p.urls() == std::vector<std::string>{"https://example.com/first"});

  std::string attributes = "<urlset><url><loc>https://example.com/first</loc></url><url";
  for (int i = 0; i < 65; ++i) attributes += " a" + std::to_string(i) + "=\"\"";
  attributes += "/></urlset>";
  p = parse(attributes);
  CHECK(p.report.error == SitemapError::markup_too_large);
  CHECK(to_string(p.report.error) == std::string("sitemap_markup_too_large"));
  CHECK(p.urls() == std::vector<std::string>{"https://example.com/first"});

  p = parse("<urlset><url><loc>https://example.com/first</loc></url><!--" + std::string(70'000, '-') + "-->");
  CHECK(p.report.error == SitemapError::markup_too_large);
  CHECK(p.entries.size() == 1);
  p = parse("<urlset a=\"" + std::string(70'000, 'v') + "\"/>");
  CHECK(p.report.error == SitemapError::markup_too_large);

  std::string names = "<urlset>";
  for (int i = 0; i < 5000; ++i) names += "<n" + std::to_string(i) + "/>";
  p = parse(names + "</urlset>");
  CHECK(p.report.error == SitemapError::too_complex);

  std::string ns = "<urlset>";
  for (int level = 0; level < 3; ++level) {
    ns += "<e";
    for (int i = 0; i < 60; ++i) ns += " xmlns:p" + std::to_string(level * 100 + i) + "=\"u:" + std::to_string(i) + "\"";
    ns += ">";
  }
  p = parse(ns);
  CHECK(p.report.error == SitemapError::too_complex);
  CHECK(to_string(p.report.error) == std::string("sitemap_too_complex"));

  // Text is not markup: no limit but the body's. CDATA sections are, each.
  p = parse(urlset("<x>" + std::string(200'000, 't') + "</x><x><![CDATA[" + std::string(60'000, 'c') + "]]><![CDATA[" +
                   std::string(60'000, 'c') + "]]></x>" + url_entry("https://example.com/after")));
  CHECK(p.report.error == SitemapError::none);
  CHECK(p.urls() == std::vector<std::string>{"https://example.com/after"});
  p = parse(urlset(url_entry("https://example.com/first") + "<x><![CDATA[" + std::string(70'000, 'c') + "]]></x>"));
  CHECK(p.report.error == SitemapError::markup_too_large);
  CHECK(p.urls() == std::vector<std::string>{"https://example.com/first"});
}

TEST_CASE("sitemap: an uncompressed body past 50 MB is refused there", "[sitemap][limits]") {
  SitemapParser::Options small;
  small.max_bytes = 10'000;
  std::string body;
  for (int i = 0; body.size() < 20'000; ++i) body += "https://example.com/" + std::to_string(i) + "\n";
  const auto p = parse(body, scope_of(kLocation), 1000, small);
  CHECK(p.report.error == SitemapError::too_large);
  CHECK(to_string(p.report.error) == std::string("sitemap_too_large"));
  CHECK(p.report.bytes_decoded == 10'000);
  CHECK(p.entries.size() > 100);
  CHECK(SitemapParser::kMaxBytes == 52'428'800);
  // A whole feed past the cap stops at the cap too.
  SitemapParser parser(scope_of(kLocation), small);
  parser.feed(body);
  CHECK(parser.error() == SitemapError::too_large);
  CHECK(parser.done());
  CHECK(parser.report().bytes_decoded == 10'000);
}

TEST_CASE("sitemap: the parser does nothing after it is done", "[sitemap]") {
  SitemapParser parser(scope_of(kLocation));
  parser.feed("https://example.com/a\n");
  parser.finish();
  CHECK(parser.done());
  parser.feed("https://example.com/b\n");
  parser.finish();
  CHECK(parser.take_entries().size() == 1);
  CHECK(parser.counts().urls_found == 1);
  SitemapParser moved = std::move(parser);
  CHECK(moved.counts().urls_found == 1);
}

}  // namespace actorcrawl
