#include "core/sitemap/xml_markup_guard.h"

#include <catch2/catch.hpp>

#include <string>

namespace actorcrawl {
namespace {

constexpr std::size_t npos = XmlMarkupGuard::npos;

std::size_t scan(const std::string& doc) {
  XmlMarkupGuard guard;
  return guard.scan(doc);
}

std::string attributes(std::size_t n) {
  std::string tag = "<url";
  for (std::size_t i = 0; i < n; ++i) tag += " a" + std::to_string(i) + "='>'";
  return tag + ">";
}

}  // namespace

TEST_CASE("markup guard: ordinary sitemaps pass", "[sitemap][guard]") {
  CHECK(scan("<?xml version=\"1.0\"?><!DOCTYPE urlset [<!-- ]> ' --><?pi ]>?>]><urlset xmlns=\"u\">"
             "<url><loc><![CDATA[<<<>>>]]></loc></url><!-- c > -- --></urlset>") == npos);
  CHECK(scan(attributes(XmlMarkupGuard::kMaxAttributes)) == npos);
  CHECK(scan("<a>" + std::string(1'000'000, 't') + "<![CDATA[" + std::string(60'000, ']') + "]]>") == npos);
}

TEST_CASE("markup guard: a tag with too many attributes trips at the one past the cap", "[sitemap][guard]") {
  const std::string tag = attributes(XmlMarkupGuard::kMaxAttributes + 1);
  const std::size_t at = scan(tag);
  REQUIRE(at != npos);
  CHECK(tag[at] == '=');
  CHECK(tag.substr(at - 3, 3) == "a64");
}

TEST_CASE("markup guard: long tags, comments, PIs, CDATA and DOCTYPEs trip - quotes hide '>'", "[sitemap][guard]") {
  const std::string big(XmlMarkupGuard::kMaxMarkupBytes, 'x');
  CHECK(scan("<a b=\"" + big + "\">") != npos);
  CHECK(scan("<a b='>" + big + "'>") != npos);
  CHECK(scan("<!--" + big + "-->") != npos);
  CHECK(scan("<![CDATA[" + big + "]]>") != npos);
  CHECK(scan("<?pi " + big + "?>") != npos);
  CHECK(scan("</a" + big + ">") != npos);
  CHECK(scan("<!DOCTYPE x [" + big + "]>") != npos);
  CHECK(scan("<!DOCTYPE x [<!-- ] > -->" + big + "]>") != npos);
  // Many small ones are fine.
  std::string many;
  for (int i = 0; i < 10'000; ++i) many += "<!-- c --><a b='1'></a>";
  CHECK(scan(many) == npos);
}

TEST_CASE("markup guard: the scan is the same in any pieces", "[sitemap][guard]") {
  const std::string doc = "<!DOCTYPE x [<!-- ' -->]><urlset><!-- - -->" + attributes(70) + "</urlset>";
  const std::size_t whole = scan(doc);
  REQUIRE(whole != npos);
  for (std::size_t split = 1; split < doc.size(); ++split) {
    XmlMarkupGuard guard;
    const std::size_t first = guard.scan(std::string_view(doc).substr(0, split));
    const std::size_t at = first != npos ? first : split + guard.scan(std::string_view(doc).substr(split));
    INFO(split);
    CHECK(at == whole);
    CHECK(guard.tripped());
  }
}

}  // namespace actorcrawl
